//! Property tests: every planner's plan on random instances (with gaps, alignment and
//! fixed offsets) passes the independent checker, and no plan is below the max load.

use memplan::{
    check, max_load, plan, Budget, Buffer, Options, Outcome, Planner, Problem, Request, Size,
};
use proptest::prelude::*;

/// The driver's greedy portfolio, in its order.
const PORTFOLIO: [&str; 12] = [
    "start-best-fit",
    "breadth-best-fit",
    "size-first-fit",
    "size-best-fit",
    "lifetime-best-fit",
    "start-first-fit",
    "lifetime-first-fit",
    "contention-best-fit",
    "area-first-fit",
    "area-best-fit",
    "contention-first-fit",
    "breadth-first-fit",
];

/// (start, length, size, alignment, wants a fixed offset, gap (position, length)).
type Spec = (u64, u64, u64, u64, bool, Option<(u64, u64)>);

/// A random buffer description; fixed offsets are assigned afterwards so that fixed
/// buffers never collide (which `Problem::new` would rightly reject).
fn buffer_strategy() -> impl Strategy<Value = Spec> {
    (
        0u64..40,
        1u64..15,
        1u64..64,
        prop_oneof![Just(1u64), Just(1), Just(2), Just(8), Just(16)],
        any::<bool>(),
        proptest::option::of((0u64..14, 1u64..4)),
    )
}

fn build(specs: Vec<Spec>, fixed_share: u8) -> Problem {
    let mut fixed_top = 0u64;
    let bufs: Vec<Buffer> = specs
        .into_iter()
        .enumerate()
        .map(|(i, (start, len, size, align, fix, gap))| {
            let mut b =
                Buffer::new(format!("b{i}"), start, start + len, size).with_alignment(align);
            if let Some((at, glen)) = gap {
                let (gs, ge) = (
                    start + 1 + at % len.max(1),
                    start + 1 + at % len.max(1) + glen,
                );
                if ge < start + len {
                    b = b.with_gap(gs, ge);
                }
            }
            // Fixed buffers get disjoint address ranges, stacked, so they never collide.
            if fix && (i as u8) % 4 < fixed_share {
                let off = fixed_top.div_ceil(align) * align;
                fixed_top = off + size;
                b = b.with_fixed_offset(off);
            }
            b
        })
        .collect();
    Problem::new(bufs).expect("valid by construction")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_planner_passes_the_checker(specs in proptest::collection::vec(buffer_strategy(), 1..40), fixed_share in 0u8..3) {
        let problem = build(specs, fixed_share);
        let lower = max_load(&problem);
        for planner in Planner::all() {
            // The searchers are bounded by counts, not by the clock.
            let mut options = Options {
                planner,
                verify: false,
                ..Options::default()
            };
            options.boxing.iterations = 5;
            let unlimited = Request::minimise().with_budget(Budget::unlimited().with_node_limit(2_000));
            let report = plan(&problem, &unlimited, &options).unwrap();
            // A proven bound may exceed the max load (alignment, fixed offsets, or the exact
            // search's proofs), never the plan's height.
            let p = match &report.outcome {
                Outcome::Optimal(p) => { prop_assert!(p.height() >= lower); p }
                Outcome::Feasible { plan, lower_bound } => {
                    prop_assert!(*lower_bound >= lower, "{}: bound below the max load", planner);
                    prop_assert!(*lower_bound < plan.height(), "{}: proven optimal but not Optimal", planner);
                    plan
                }
                other => panic!("minimise mode gave {other:?}"),
            };
            if let Err(f) = check(&problem, p, None) {
                panic!("{planner}: {f}");
            }
            prop_assert!(p.height() >= lower, "{} below the max load", planner);
            prop_assert_eq!(report.max_load, lower);
        }
    }

    #[test]
    fn capacity_outcomes_are_consistent(specs in proptest::collection::vec(buffer_strategy(), 1..25), slack in 0u64..80) {
        let problem = build(specs, 0);
        let lower = max_load(&problem).get();
        let cap = (lower + slack).saturating_sub(40);
        let request = Request::fit(Size(cap));
        let report = plan(&problem, &request, &Options::default()).unwrap();
        match &report.outcome {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => {
                prop_assert!(p.height().get() <= cap);
                prop_assert!(check(&problem, p, Some(Size(cap))).is_ok());
            }
            // A proof: the max load, or the exact search, which agrees without a clock.
            Outcome::Infeasible if lower <= cap => {
                prop_assert!(report.exact.is_some());
                let o = Options { planner: Planner::Exact, ..Options::default() };
                let unlimited = request.clone().with_budget(Budget::unlimited());
                prop_assert_eq!(plan(&problem, &unlimited, &o).unwrap().outcome, Outcome::Infeasible);
            }
            Outcome::Infeasible => {}
            Outcome::Unknown { best_so_far, .. } => {
                prop_assert!(lower <= cap);
                let best = best_so_far.as_ref().expect("greedy always has a plan");
                prop_assert!(best.height().get() > cap);
            }
        }
    }

    /// In capacity mode the portfolio (in its order, [`PORTFOLIO`]) stops at the first
    /// plan that fits: the answer is the lowest plan up to that one (ties to the
    /// earlier), whatever the thread count.
    #[test]
    fn capacity_mode_stops_at_the_first_plan_that_fits(specs in proptest::collection::vec(buffer_strategy(), 1..40), share in 0u64..8) {
        // No fixed buffers: with them a capacity under the fixed top is a proof.
        let problem = build(specs, 0);
        let lower = max_load(&problem).get();
        let naive = problem.naive_height().get();
        let cap = lower + (naive - lower) * share / 8;
        let order: Vec<Planner> = PORTFOLIO.iter().map(|name| name.parse().unwrap()).collect();
        let plans: Vec<memplan::Plan> = order
            .iter()
            .map(|&planner| {
                let o = Options { planner, ..Options::default() };
                plan(&problem, &Request::minimise(), &o).unwrap().outcome.plan().unwrap().clone()
            })
            .collect();
        let last = plans.iter().position(|p| p.height().get() <= cap).unwrap_or(plans.len() - 1);
        let want = (0..=last).min_by_key(|&k| (plans[k].height(), k)).unwrap();
        let capped = Request::fit(Size(cap));
        for threads in [1, 2, 4] {
            let o = Options { planner: Planner::GreedyPortfolio, threads, ..Options::default() };
            let report = plan(&problem, &capped, &o).unwrap();
            if plans[want].height().get() <= cap {
                prop_assert_eq!(report.planner, order[want], "{} threads", threads);
            }
            let got = match report.outcome {
                Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => Some(p),
                Outcome::Unknown { best_so_far, .. } => best_so_far,
                Outcome::Infeasible => None,
            };
            prop_assert_eq!(got.as_ref(), Some(&plans[want]), "{} threads", threads);
        }
    }

    #[test]
    fn result_does_not_depend_on_threads(specs in proptest::collection::vec(buffer_strategy(), 1..40)) {
        let problem = build(specs, 1);
        // No clock, so that the result depends on the input alone; the exact search is
        // bounded by nodes instead.
        let unlimited = Request::minimise().with_budget(Budget::unlimited().with_node_limit(1_000));
        let mut o = Options { threads: 1, ..Options::default() };
        o.boxing.iterations = 3;
        let one = plan(&problem, &unlimited, &o).unwrap();
        let four = plan(&problem, &unlimited, &Options { threads: 4, ..o.clone() }).unwrap();
        prop_assert_eq!(one.outcome, four.outcome);
        prop_assert_eq!(one.planner, four.planner);
    }
}

#[test]
fn elementary_cases_are_optimal() {
    // No overlap at all: everything at offset 0.
    let bufs: Vec<Buffer> = (0..50)
        .map(|i| Buffer::new(format!("{i}"), i * 2, i * 2 + 2, 1 + i % 7))
        .collect();
    let problem = Problem::new(bufs).unwrap();
    let report = plan(&problem, &Request::minimise(), &Options::default()).unwrap();
    assert!(
        matches!(report.outcome, Outcome::Optimal(ref p) if p.offsets().iter().all(|o| o.get() == 0))
    );
    // All sizes equal: interval-graph colouring is optimal, and so is first-fit in start order.
    let bufs: Vec<Buffer> = (0..60)
        .map(|i| Buffer::new(format!("{i}"), i % 13, i % 13 + 1 + i % 5, 8))
        .collect();
    let problem = Problem::new(bufs).unwrap();
    let report = plan(&problem, &Request::minimise(), &Options::default()).unwrap();
    assert!(
        matches!(report.outcome, Outcome::Optimal(_)),
        "{:?}",
        report.planner
    );
}

#[test]
fn planner_names_round_trip() {
    for p in Planner::all() {
        assert_eq!(p.name().parse::<Planner>().unwrap(), p);
    }
    assert!("size-worst-fit".parse::<Planner>().is_err());
    let names: std::collections::BTreeSet<String> =
        Planner::all().iter().map(|p| p.name()).collect();
    assert_eq!(names.len(), Planner::all().len(), "names are unique");
    assert!(
        names.len() >= 14,
        "12 greedy planners, naive and auto at least"
    );
}
