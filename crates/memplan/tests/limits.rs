//! Limits without clocks: a run whose budget is already spent (a cancelled token) must
//! return at once with the naive plan, however many planners it would otherwise try.
//! The time-limit overshoot itself is measured by `scripts/limits.sh` (RELIABILITY.md).

use arbitrary::Unstructured;
use memplan::fuzzing::{arbitrary_problem, ByteSource, FuzzKnobs};
use memplan::{plan, CancelToken, Options, Planner};

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
        let p = arbitrary_problem(&mut Unstructured::new(&bytes), &knobs).unwrap();
        let run = |planner, cancel: Option<CancelToken>| {
            let o = Options {
                planner,
                threads: 1,
                cancel,
                ..Options::default()
            };
            plan(&p, &o).unwrap().outcome.plan().unwrap().clone()
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
