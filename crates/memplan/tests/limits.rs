//! Limits without clocks: a run whose budget is already spent (a cancelled token) must
//! return at once with the naive plan, however many planners it would otherwise try.
//! The time-limit overshoot itself is measured by `scripts/limits.sh` (RELIABILITY.md).

use arbitrary::Unstructured;
use memplan::fuzzing::{arbitrary_problem, ByteSource, FuzzKnobs};
use std::time::Duration;

use memplan::budget::CancelToken;
use memplan::{plan, Budget, Goal, Options, Outcome, Planner, Request};

#[test]
fn a_spent_budget_returns_at_once() {
    let first: Planner = "size-best-fit".parse().unwrap();
    let knobs = FuzzKnobs {
        max_buffers: 40,
        capacity_chance: 0,
        ..FuzzKnobs::default()
    };
    let mut src = ByteSource::new(31);
    let mut first_not_best = 0;
    for _ in 0..300 {
        let bytes = src.bytes(1024);
        let (p, cap) = arbitrary_problem(&mut Unstructured::new(&bytes), &knobs).unwrap();
        assert_eq!(cap, None, "minimise mode");
        let run = |planner, cancel: Option<CancelToken>| {
            let mut o = Options {
                planner,
                threads: 1,
                ..Options::default()
            };
            o.boxing.iterations = 3;
            let budget = match &cancel {
                Some(t) => Budget::unlimited().with_cancel(t),
                None => Budget::unlimited(),
            }
            .with_node_limit(5_000);
            let request = Request::minimise().with_budget(budget);
            plan(&p, &request, &o)
                .unwrap()
                .outcome
                .plan()
                .unwrap()
                .clone()
        };
        let expected = run(first, None);
        let cancelled = CancelToken::new();
        cancelled.cancel();
        // Even the first planner stops, and the naive plan stands in.
        let naive = run(Planner::Naive, None);
        for planner in [Planner::Auto, Planner::Telamalloc] {
            let stopped = run(planner, Some(cancelled.clone()));
            assert_eq!(stopped, naive, "{planner} went on after the budget");
        }
        first_not_best += usize::from(run(Planner::Auto, None).height() < expected.height());
    }
    assert!(
        first_not_best > 10,
        "instances where the other planners would have helped"
    );
}

/// A limit too long to be a point in time (`Duration::MAX`) overflows nothing and acts as
/// a limit that is never reached: the same as a year, and as no limit at all.
#[test]
fn an_endless_limit_is_no_limit() {
    let knobs = FuzzKnobs {
        max_buffers: 30,
        ..FuzzKnobs::default()
    };
    let mut src = ByteSource::new(7);
    for _ in 0..20 {
        let bytes = src.bytes(1024);
        let (p, cap) = arbitrary_problem(&mut Unstructured::new(&bytes), &knobs).unwrap();
        for planner in [
            Planner::Auto,
            Planner::Boxing,
            Planner::Telamalloc,
            Planner::Exact,
        ] {
            let run = |time_limit: Option<Duration>| {
                let o = Options {
                    planner,
                    threads: 1,
                    ..Options::default()
                };
                let budget = match time_limit {
                    Some(d) => Budget::new().with_time_limit(d),
                    None => Budget::unlimited(),
                };
                let request = Request {
                    goal: Goal::from_capacity(cap),
                    budget,
                };
                plan(&p, &request, &o).unwrap().outcome
            };
            let endless = run(Some(Duration::MAX));
            assert_eq!(
                endless,
                run(Some(Duration::from_secs(365 * 86_400))),
                "{planner} under an endless limit"
            );
            assert_eq!(endless, run(None), "{planner} without a limit");
        }
    }
}

/// `finish_first_plan` (on by default, in every door): however spent the time limit,
/// the first greedy plan is finished, by the portfolio, by TelaMalloc in both modes and
/// by boxing's plan to beat, so the answer is never the naive plan.
#[test]
fn a_spent_limit_still_finishes_the_first_greedy_plan_when_asked() {
    let knobs = FuzzKnobs {
        max_buffers: 40,
        ..FuzzKnobs::default()
    };
    let mut src = ByteSource::new(43);
    let mut greedy_not_naive = 0;
    for _ in 0..200 {
        let bytes = src.bytes(1024);
        let (p, cap) = arbitrary_problem(&mut Unstructured::new(&bytes), &knobs).unwrap();
        let plan_by = |planner: &str| {
            let o = Options {
                planner: planner.parse().unwrap(),
                ..Options::default()
            };
            plan(&p, &Request::minimise(), &o)
                .unwrap()
                .outcome
                .plan()
                .unwrap()
                .clone()
        };
        let size_best_fit = plan_by("size-best-fit");
        let start_best_fit = plan_by("start-best-fit");
        greedy_not_naive += usize::from(size_best_fit != plan_by("naive"));
        for planner in [Planner::Auto, Planner::Telamalloc, Planner::Boxing] {
            for goal in [Goal::from_capacity(cap), Goal::Minimise] {
                let o = Options {
                    planner,
                    threads: 1,
                    ..Options::default()
                };
                let budget = Budget::new()
                    .with_time_limit(Duration::ZERO)
                    .with_finish_first_plan(true);
                let request = Request { goal, budget };
                let got = match plan(&p, &request, &o).unwrap().outcome {
                    Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => Some(p),
                    Outcome::Unknown { best_so_far, .. } => best_so_far,
                    Outcome::Infeasible => None,
                };
                // Every family runs the one portfolio order, start-best-fit first, in both
                // modes (issue 29: boxing's plan to beat and TelaMalloc's minimisation began
                // with size-best-fit, which a spent limit let run past the deadline).
                let expected = &start_best_fit;
                match got {
                    // Boxing starts from the first greedy plan (or, on an elementary
                    // problem, answers with an optimal plan at once).
                    Some(got) if planner == Planner::Boxing => assert!(
                        got.height() <= expected.height(),
                        "boxing: above the first greedy plan"
                    ),
                    Some(got) => assert_eq!(&got, expected, "{planner}: not the first greedy plan"),
                    None => {}
                }
            }
        }
    }
    assert!(greedy_not_naive > 50, "instances where greedy beats naive");
}
