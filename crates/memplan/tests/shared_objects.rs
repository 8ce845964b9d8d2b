//! Shared-object planning: every strategy's assignment passes the checker, no total is
//! below the positional-maxima bound, and the bound is never below the max load.

use memplan::io::{read_problem_csv, CsvOptions};
use memplan::shared_objects::{
    check_shared_objects, plan_shared_objects, positional_maxima, SharedAssignment, SharedOptions,
    SharedStrategy,
};
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
            prop_assert_eq!(&r.assignment, &slow.assignment);
            let summary = check_shared_objects(&p, &r.assignment);
            prop_assert!(summary.is_ok(), "{strategy}: {}", summary.unwrap_err());
            prop_assert!(r.assignment.total().get() >= lb, "{strategy} below the bound");
            prop_assert_eq!(r.lower_bound.get(), lb);
            prop_assert!(r.assignment.total() <= r.naive);
            // Object sizes are exactly the largest buffer they hold (no waste).
            let mut largest = vec![0u64; r.assignment.object_sizes().len()];
            for (b, &o) in p.buffers().iter().zip(r.assignment.object_of()) {
                largest[o as usize] = largest[o as usize].max(b.size.get());
            }
            let sizes: Vec<u64> = r.assignment.object_sizes().iter().map(|s| s.get()).collect();
            prop_assert_eq!(sizes, largest);
            // Stacked, the objects are a valid offset plan of height = total.
            let plan = stacked(&p, &r.assignment);
            prop_assert!(check(&p, &plan, None).is_ok());
            prop_assert!(plan.height() <= r.assignment.total());
            totals.push(r.assignment.total());
        }
        let auto = plan_shared_objects(&p, &unlimited(), &SharedOptions::default()).unwrap();
        prop_assert_eq!(auto.assignment.total(), *totals.iter().min().unwrap());
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
    assert_eq!(r.assignment.total(), Size(12));
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
        let p = read_problem_csv(&bytes, &CsvOptions::default()).unwrap();
        let r = plan_shared_objects(&p, &unlimited(), &SharedOptions::default()).unwrap();
        check_shared_objects(&p, &r.assignment).unwrap();
        assert!(r.assignment.total() >= r.lower_bound);
        assert!(r.lower_bound >= max_load(&p));
    }
}
