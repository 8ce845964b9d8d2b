//! The body of the `spill` fuzz target (feature `fuzzing`): random problems, capacities,
//! costs and memory preferences through [`plan_spill`], then the checker and the
//! outcome's promises.

use arbitrary::Unstructured;

use crate::analysis::max_load;
use crate::fuzzing::{arbitrary_problem, FuzzKnobs};
use crate::outcome::Outcome;
use crate::types::{BufferIdx, Problem, Size};

use super::{check_spill, plan_spill, Memory, SpillError, SpillInput, SpillOptions};

/// Plans a random spill problem (at most 10 buffers, capacity 0–120 % of the max load,
/// random costs, preferences and switches) and asserts: a plan passes [`check_spill`];
/// `Optimal` means cost = bound, `Feasible` cost > bound; `Infeasible` is confirmed by
/// memplan's exact search on the forced-fast buffers; the only error is a fixed buffer
/// asked to be slow.
pub fn fuzz_spill(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let knobs = FuzzKnobs {
        max_buffers: 10,
        capacity_chance: 0,
        ..FuzzKnobs::default()
    };
    let Ok((problem, _)) = arbitrary_problem(&mut u, &knobs) else {
        return;
    };
    let n = problem.len();
    let percent = u.int_in_range(0..=120u64).unwrap_or(80);
    let capacity = Size((u128::from(max_load(&problem).get()) * u128::from(percent) / 100) as u64);
    let costs: Option<Vec<u64>> = u.arbitrary::<bool>().unwrap_or(false).then(|| {
        (0..n)
            .map(|_| u.int_in_range(0..=1000).unwrap_or(1))
            .collect()
    });
    let memory: Option<Vec<Memory>> = u.arbitrary::<bool>().unwrap_or(false).then(|| {
        (0..n)
            .map(|_| match u.int_in_range(0..=9u8).unwrap_or(0) {
                0 => Memory::Fast,
                1 => Memory::Slow,
                _ => Memory::Either,
            })
            .collect()
    });
    let options: SpillOptions = crate::memories::fuzz::arbitrary_options(&mut u);
    let input = SpillInput {
        costs: costs.as_deref(),
        memory: memory.as_deref(),
    };
    let request = crate::Request::fit(capacity).with_budget(crate::Budget::unlimited());
    let report = match plan_spill(&problem, &input, &request, &options) {
        Ok(r) => r,
        Err(SpillError::FixedInSlow { index, .. }) => {
            assert!(problem.buffers()[index].fixed_offset.is_some());
            assert_eq!(memory.as_ref().map(|m| m[index]), Some(Memory::Slow));
            return;
        }
        Err(e) => panic!("plan_spill failed: {e}"),
    };
    match &report.outcome {
        Outcome::Optimal(plan) => {
            assert_eq!(plan.cost, report.lower_bound, "optimal but cost != bound");
        }
        Outcome::Feasible { plan, lower_bound } => {
            assert!(*lower_bound < plan.cost, "feasible but cost <= bound");
            assert_eq!(*lower_bound, report.lower_bound);
        }
        Outcome::Infeasible => assert_forced_fast_do_not_fit(&problem, capacity, &memory),
        Outcome::Unknown { .. } => {}
    }
    if let Some(plan) = report.plan() {
        if let Err(v) = check_spill(&problem, capacity, &input, plan) {
            panic!("invalid spill plan: {v}");
        }
        assert!(plan.fast_height <= capacity);
    }
}

/// The buffers that must stay fast, planned alone by memplan's exact search without
/// limits, do not fit under `capacity`.
fn assert_forced_fast_do_not_fit(problem: &Problem, capacity: Size, memory: &Option<Vec<Memory>>) {
    let forced: Vec<BufferIdx> = problem
        .indexed()
        .filter(|&(i, b)| {
            b.fixed_offset.is_some() || memory.as_ref().is_some_and(|m| m[i] == Memory::Fast)
        })
        .map(|(i, _)| i)
        .collect();
    let sub = Problem::new(forced.iter().map(|&i| problem.buffer(i).clone()).collect())
        .expect("a subset of a valid problem is valid");
    crate::memories::fuzz::assert_exact_infeasible(&sub, capacity, "the forced-fast buffers");
}
