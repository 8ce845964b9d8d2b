//! Shared-object planning: every strategy's assignment passes the checker, no total is
//! below the positional-maxima bound, and the bound is never below the max load.

use memplan::io::{read_problem_csv, ReadOptions};
use memplan::shared_objects::{
    check_shared_objects, plan_shared_objects, SharedAssignment, SharedOptions, SharedStrategy,
};
use memplan::testing::positional_maxima;
use memplan::{check, max_load, Budget, Buffer, Offset, Plan, Problem, Request, Size};
use proptest::prelude::*;

fn problems() -> impl Strategy<Value = Problem> {
    prop::collection::vec((0u64..40, 1u64..12, 1u64..64, any::<bool>()), 1..60).prop_map(|v| {
        let bufs = v
            .into_iter()
            .enumerate()
            .map(|(i, (s, len, size, gap))| {
                let b = Buffer::new(format!("b{i}"), s, s + len, size);
                // Gaps are ignored by shared objects; they must not break anything.
                if gap && len >= 3 {
                    b.with_gap(s + 1, s + 2)
                } else {
                    b
                }
            })
            .collect();
        Problem::new(bufs).unwrap()
    })
}

/// No capacity and no clock: every strategy runs.
fn unlimited() -> Request {
    Request::minimise().with_budget(Budget::unlimited())
}

/// Stacks the objects one above the other (TFLite §5): an offset plan.
fn stacked(problem: &Problem, a: &SharedAssignment) -> Plan {
    let mut base = Vec::with_capacity(a.object_sizes().len());
    let mut top = 0u64;
    for s in a.object_sizes() {
        base.push(top);
        top += s.get();
    }
    let offsets = a
        .object_of()
        .iter()
        .map(|&o| Offset(base[o as usize]))
        .collect();
    Plan::new(problem, offsets).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_strategy_is_valid_and_above_the_bound(p in problems()) {
        let lb: u64 = positional_maxima(&p).iter().map(|s| s.get()).sum();
        prop_assert!(lb >= max_load(&p).get());
        let mut totals = Vec::new();
        for strategy in SharedStrategy::ALL {
            let opts = SharedOptions { strategy: Some(strategy), verify: false, ..SharedOptions::default() };
            let r = plan_shared_objects(&p, &unlimited(), &opts).unwrap();
            // The speed-up changes nothing.
            let slow = plan_shared_objects(&p, &unlimited(), &SharedOptions { nearest_first: false, ..opts }).unwrap();
            prop_assert_eq!(assignment(&r), assignment(&slow));
            let summary = check_shared_objects(&p, assignment(&r));
            prop_assert!(summary.is_ok(), "{strategy}: {}", summary.unwrap_err());
            prop_assert!(assignment(&r).total().get() >= lb, "{strategy} below the bound");
            prop_assert_eq!(r.lower_bound.get(), lb);
            prop_assert!(assignment(&r).total() <= r.naive);
            // Object sizes are exactly the largest buffer they hold (no waste).
            let mut largest = vec![0u64; assignment(&r).object_sizes().len()];
            for (b, &o) in p.buffers().iter().zip(assignment(&r).object_of()) {
                largest[o as usize] = largest[o as usize].max(b.size.get());
            }
            let sizes: Vec<u64> = assignment(&r).object_sizes().iter().map(|s| s.get()).collect();
            prop_assert_eq!(sizes, largest);
            // Stacked, the objects are a valid offset plan of height = total.
            let plan = stacked(&p, assignment(&r));
            prop_assert!(check(&p, &plan, None).is_ok());
            prop_assert!(plan.height() <= assignment(&r).total());
            totals.push(assignment(&r).total());
        }
        let auto = plan_shared_objects(&p, &unlimited(), &SharedOptions::default()).unwrap();
        prop_assert_eq!(assignment(&auto).total(), *totals.iter().min().unwrap());
        prop_assert_eq!(auto.candidates.len(), SharedStrategy::ALL.len());
    }
}

#[test]
fn reaches_the_bound_on_the_module_example() {
    let p = Problem::new(vec![
        Buffer::new("a", 0, 2, 8),
        Buffer::new("b", 1, 4, 4),
        Buffer::new("c", 2, 5, 6),
    ])
    .unwrap();
    let r = plan_shared_objects(&p, &unlimited(), &SharedOptions::default()).unwrap();
    assert_eq!(r.lower_bound, Size(12));
    assert_eq!(assignment(&r).total(), Size(12));
    assert_eq!(r.naive, Size(18));
}

#[test]
fn strategy_names_round_trip() {
    for s in SharedStrategy::ALL {
        assert_eq!(s.name().parse::<SharedStrategy>().unwrap(), s);
    }
    assert!("nope".parse::<SharedStrategy>().is_err());
}

#[test]
fn benchmark_instances_are_valid() {
    for name in ["somas-resnet50.csv", "iopddl-G.csv"] {
        let path = format!(
            "{}/../../benchmarks/idealloc/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(&path).unwrap();
        let p = read_problem_csv(&bytes, &ReadOptions::default()).unwrap();
        let r = plan_shared_objects(&p, &unlimited(), &SharedOptions::default()).unwrap();
        check_shared_objects(&p, assignment(&r)).unwrap();
        assert!(assignment(&r).total() >= r.lower_bound);
        assert!(r.lower_bound >= max_load(&p));
    }
}

/// The assignment of a minimising run (there always is one).
fn assignment(
    r: &memplan::shared_objects::SharedReport,
) -> &memplan::shared_objects::SharedAssignment {
    r.outcome.best().expect("minimising: always an assignment")
}

/// One outcome vocabulary (issue 29 §3): under a capacity below the positional-maxima
/// bound, `Infeasible` (a proof); between the bound and the total, `Unknown` with the
/// assignment; at or above the total, the assignment as when minimising. Tiles follow
/// the same rule with their own bound.
#[test]
fn a_capacity_decides_the_outcome_by_the_bound_and_the_total() {
    use memplan::Outcome;
    let p = Problem::new(vec![
        Buffer::new("a", 0, 2, 8),
        Buffer::new("b", 1, 3, 4),
        Buffer::new("c", 2, 4, 6),
    ])
    .unwrap();
    let options = SharedOptions::default();
    let free = plan_shared_objects(&p, &Request::minimise(), &options).unwrap();
    let total = assignment(&free).total();
    let bound = free.lower_bound;
    assert!(bound <= total);
    let at = |c: u64| {
        plan_shared_objects(&p, &Request::fit(Size(c)), &options)
            .unwrap()
            .outcome
    };
    assert_eq!(at(bound.0 - 1), Outcome::Infeasible);
    if bound < total {
        assert!(matches!(
            at(total.0 - 1),
            Outcome::Unknown {
                best_so_far: Some(_),
                ..
            }
        ));
    }
    assert_eq!(at(total.0).plan(), free.outcome.plan());
    match &free.outcome {
        Outcome::Optimal(a) => assert_eq!(a.total(), bound),
        Outcome::Feasible { plan, lower_bound } => {
            assert!(plan.total() > *lower_bound && *lower_bound == bound)
        }
        other => panic!("minimising gave {other:?}"),
    }
}
