//! The exact planner through the public API: outcomes, bounds, stats, and the checker.

use std::time::Duration;

use memplan::budget::CancelToken;
use memplan::{
    check, max_load, plan, Budget, Buffer, Goal, Options, Outcome, Planner, Problem, Request, Size,
};

fn exact() -> Options {
    Options {
        planner: Planner::Exact,
        ..Options::default()
    }
}

/// Fit under `capacity` (or minimise without one), with no time limit.
fn unlimited(capacity: Option<Size>) -> Request {
    Request {
        goal: Goal::from_capacity(capacity),
        budget: Budget::unlimited(),
    }
}

/// [`unlimited`], with each capacity search held to `nodes` nodes.
fn within(capacity: Option<Size>, nodes: u64) -> Request {
    Request {
        goal: Goal::from_capacity(capacity),
        budget: Budget::unlimited().with_node_limit(nodes),
    }
}

/// Greedy by size puts the two long size-2 buffers at the bottom and leaves a hole; the
/// minimum is the max load, 4.
fn staircase() -> Problem {
    Problem::new(vec![
        Buffer::new("a", 0, 2, 2),
        Buffer::new("b", 1, 4, 2),
        Buffer::new("c", 3, 6, 2),
        Buffer::new("d", 0, 1, 2),
        Buffer::new("e", 2, 3, 1),
        Buffer::new("f", 2, 3, 1),
        Buffer::new("g", 4, 6, 2),
        Buffer::new("h", 5, 6, 1),
    ])
    .expect("valid")
}

#[test]
fn exact_planner_is_named_and_parsed() {
    assert_eq!(Planner::Exact.name(), "exact");
    assert_eq!("exact".parse::<Planner>().expect("known"), Planner::Exact);
    assert!(Planner::all().contains(&Planner::Exact));
}

#[test]
fn minimise_mode_proves_its_plan_optimal() {
    let p = staircase();
    let report = plan(&p, &within(None, 100_000), &exact()).expect("plans");
    let Outcome::Optimal(pl) = &report.outcome else {
        panic!("expected a proven optimum, got {:?}", report.outcome)
    };
    check(&p, pl, None).expect("valid");
    assert_eq!(pl.height(), max_load(&p));
}

#[test]
fn capacity_mode_proves_infeasibility_below_the_minimum() {
    // Two buffers live together at every step, with gaps that force them apart: the
    // max load is 2 but no plan fits under 3.
    let p = Problem::new(vec![
        Buffer::new("x", 0, 3, 2).with_alignment(2),
        Buffer::new("y", 0, 1, 1),
        Buffer::new("z", 2, 3, 1),
        Buffer::new("w", 1, 2, 1).with_fixed_offset(1),
    ])
    .expect("valid");
    // The holes bound proves it before any search (x fits in no hole w leaves at 1):
    // off, so that the proof is the search's.
    let mut options = exact();
    options.bounds.holes = false;
    let report = plan(&p, &within(Some(Size(3)), 100_000), &options).expect("plans");
    assert!(max_load(&p) <= Size(3));
    assert_eq!(report.outcome, Outcome::Infeasible);
    assert!(report.exact.is_some(), "the proof came from the search");
    // With it, the same answer without the search.
    let report = plan(&p, &within(Some(Size(3)), 100_000), &exact()).expect("plans");
    assert_eq!(report.outcome, Outcome::Infeasible);
    assert_eq!(report.exact, None, "the holes bound proved it first");
    assert_eq!(report.lower_bound, Size(4));
}

#[test]
fn cancelled_search_still_returns_the_greedy_plan() {
    let p = staircase();
    let cancel = CancelToken::new();
    cancel.cancel();
    let request = Request::minimise().with_budget(Budget::unlimited().with_cancel(&cancel));
    let report = plan(&p, &request, &exact()).expect("plans");
    let pl = report
        .outcome
        .plan()
        .expect("the first greedy candidate always completes");
    check(&p, pl, None).expect("valid");
}

/// Small random problems (a local SplitMix64, so the test owns its data).
fn random_problems() -> impl Iterator<Item = Problem> {
    let mut state = 7u64;
    let mut next = move |n: u64| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    };
    (0..400).map(move |_| {
        let bufs = (0..12)
            .map(|i| {
                let start = next(8);
                Buffer::new(format!("b{i}"), start, start + 1 + next(4), 1 + next(6))
            })
            .collect();
        Problem::new(bufs).expect("valid")
    })
}

#[test]
fn auto_tightens_what_the_greedy_portfolio_leaves() {
    let budget =
        Request::minimise().with_budget(Budget::new().with_time_limit(Duration::from_secs(60)));
    let mut improved = 0;
    for p in random_problems() {
        let greedy_only = Options {
            planner: Planner::GreedyPortfolio,
            ..Options::default()
        };
        let greedy = plan(&p, &Request::minimise(), &greedy_only).expect("plans");
        assert!(greedy.exact.is_none(), "the greedy portfolio stays greedy");
        let g = greedy.outcome.plan().expect("a plan").height();
        if g == max_load(&p) {
            continue;
        }
        let report = plan(&p, &budget, &Options::default()).expect("plans");
        assert!(report.exact.is_some(), "fragmentation left: the search ran");
        let pl = report.outcome.plan().expect("a plan");
        check(&p, pl, None).expect("valid");
        assert!(pl.height() <= g);
        // Small problems: the search finishes and proves its plan optimal.
        assert!(
            matches!(report.outcome, Outcome::Optimal(_)),
            "{:?}",
            report.outcome
        );
        if pl.height() < g {
            improved += 1;
            // Capacity mode at that height: greedy misses it, the search finds a plan.
            let capped = Some(pl.height());
            let r = plan(&p, &unlimited(capped), &exact()).expect("plans");
            assert_eq!(r.planner, Planner::Exact);
            let q = r.outcome.plan().expect("fits");
            check(&p, q, capped).expect("valid");
            // One byte less: proven impossible.
            let tight = Some(Size(pl.height().get() - 1));
            let r = plan(&p, &unlimited(tight), &exact()).expect("plans");
            assert_eq!(r.outcome, Outcome::Infeasible);
        }
    }
    assert!(improved > 0, "some greedy plan was not optimal");
}
