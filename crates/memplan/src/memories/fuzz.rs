//! The body of the `memories` fuzz target (feature `fuzzing`): random problems, memory
//! lists, allowed sets, pins and access counts through [`plan_memories`], then
//! [`check_memories`], the outcome's promises, and the checker on broken plans.

use arbitrary::Unstructured;

use crate::analysis::max_load;
use crate::fuzzing::{arbitrary_problem, FuzzKnobs};
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::types::{BufferIdx, Offset, Problem, Size};

use super::{
    check_memories, plan_memories, plan_spill, MemoriesError, MemoriesInput, MemoriesOptions,
    MemoriesProblem, Memory, MemoryIdx, MemorySet, SpillMemory,
};

/// A random problem of at most 10 buffers (no capacity: the memories give those).
fn small_problem(u: &mut Unstructured<'_>) -> Option<Problem> {
    let knobs = FuzzKnobs {
        max_buffers: 10,
        capacity_chance: 0,
        ..FuzzKnobs::default()
    };
    arbitrary_problem(u, &knobs)
        .ok()
        .map(|(problem, _)| problem)
}

/// Plans a random multi-memory problem (at most 10 buffers, 1–4 memories with
/// capacities 10–110 % of the max load, the last unbounded three times in four, alignments, costs or none, random
/// allowed sets, pins and access counts, random switches) and asserts: the only errors
/// are input errors; a plan passes [`check_memories`]; `Optimal` means cost = bound,
/// `Feasible` cost > bound; `Infeasible` is confirmed by memplan's exact search on the
/// pinned buffers it names; moving a buffer outside its allowed set, or above a bounded
/// memory, makes the checker fail.
pub fn fuzz_memories(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Some(problem) = small_problem(&mut u) else {
        return;
    };
    let n = problem.len();
    let load = max_load(&problem).get();
    let k = u.int_in_range(1..=4usize).unwrap_or(2);
    let priced = u.arbitrary::<bool>().unwrap_or(false);
    let memories: Vec<Memory> = (0..k)
        .map(|m| {
            let percent = u.int_in_range(10..=110u64).unwrap_or(50);
            // The last memory is unbounded three times in four.
            let bounded = m + 1 < k || u.int_in_range(0..=3u8).unwrap_or(0) == 0;
            Memory {
                name: format!("m{m}"),
                capacity: bounded
                    .then(|| Size((u128::from(load) * u128::from(percent) / 100) as u64)),
                alignment: Size(1 << u.int_in_range(0..=3u32).unwrap_or(0)),
                cost: priced.then(|| u.int_in_range(0..=20u64).unwrap_or(1)),
            }
        })
        .collect();
    let allowed: Option<Vec<MemorySet>> = u.arbitrary::<bool>().unwrap_or(false).then(|| {
        (0..n)
            .map(|_| match u.int_in_range(0..=3u8).unwrap_or(0) {
                0 => MemorySet::single(MemoryIdx(u.int_in_range(0..=k as u32 - 1).unwrap_or(0))),
                1 => match MemorySet(u.arbitrary::<u64>().unwrap_or(1) & MemorySet::all(k).0) {
                    s if s.is_empty() => MemorySet::all(k),
                    s => s,
                },
                _ => MemorySet::all(k),
            })
            .collect()
    });
    let accesses: Option<Vec<u64>> = u.arbitrary::<bool>().unwrap_or(false).then(|| {
        (0..n)
            .map(|_| u.int_in_range(0..=100u64).unwrap_or(1))
            .collect()
    });
    let options = arbitrary_options(&mut u);
    let input = MemoriesInput {
        allowed: allowed.as_deref(),
        accesses: accesses.as_deref(),
        traffic: None,
    };
    let request = crate::Request::minimise().with_budget(crate::Budget::unlimited());
    let report = match plan_memories(&problem, &memories, &input, &request, &options) {
        Ok(r) => r,
        Err(
            MemoriesError::EmptyAllowed { .. }
            | MemoriesError::FixedInSeveral { .. }
            | MemoriesError::MisalignedFixed { .. }
            | MemoriesError::TooLarge { .. }
            | MemoriesError::Overflow(_),
        ) => return,
        Err(e) => panic!("plan_memories failed: {e}"),
    };
    match &report.outcome {
        Outcome::Optimal(plan) => {
            assert_eq!(plan.cost, report.lower_bound, "optimal but cost != bound")
        }
        Outcome::Feasible { plan, lower_bound } => {
            assert!(*lower_bound < plan.cost, "feasible but cost <= bound");
            assert_eq!(*lower_bound, report.lower_bound);
        }
        Outcome::Infeasible => {
            let why = report.infeasibility.as_ref().expect("a reason");
            assert_pinned_do_not_fit(&problem, &memories, &input, &why.memory);
        }
        Outcome::Unknown { best_so_far, .. } => assert!(best_so_far.is_none()),
    }
    assert_fallback_is_valid(&problem, &memories, &input);
    let Some(plan) = report.plan() else { return };
    if let Err(v) = check_memories(&problem, &memories, &input, plan) {
        panic!("invalid plan: {v}");
    }
    assert!(plan.cost >= report.lower_bound);
    // The checker catches a buffer moved outside its allowed set, or above its memory.
    let Some(i) = (0..n).find(|&i| u.arbitrary::<bool>().unwrap_or(true) || i + 1 == n) else {
        return;
    };
    let sets = crate::memory_types::allowed_of(&problem, &memories, &input).expect("valid");
    if let Some(outside) = (0..k as u32).map(MemoryIdx).find(|&m| !sets[i].contains(m)) {
        let mut broken = plan.clone();
        broken.memory[i] = outside;
        assert!(check_memories(&problem, &memories, &input, &broken).is_err());
    }
    if let Some(c) = memories[plan.memory[i].index()].capacity {
        let mut broken = plan.clone();
        let a = memories[plan.memory[i].index()].alignment.get();
        broken.offsets[i] = Offset(c.get().div_ceil(a) * a);
        assert!(check_memories(&problem, &memories, &input, &broken).is_err());
    }
}

/// The planner's switches and seed from the fuzz bytes, one thread and small node limits:
/// the options of every fuzz body of this family (two memories included).
fn arbitrary_options(u: &mut Unstructured<'_>) -> MemoriesOptions {
    MemoriesOptions {
        threads: 1,
        seed: u.arbitrary().unwrap_or(0),
        improve: u.arbitrary().unwrap_or(true),
        improve_rounds: u.int_in_range(0..=4).unwrap_or(2),
        exact: u.arbitrary().unwrap_or(true),
        exact_node_limit: 2_000,
        placement_node_limit: 2_000,
        lagrangian: u.arbitrary().unwrap_or(true),
        size_presolve: u.arbitrary().unwrap_or(true),
        greedy_starts: u.arbitrary().unwrap_or(true),
        rounding_bound: u.arbitrary().unwrap_or(true),
        chain_bound: u.arbitrary().unwrap_or(true),
        holes_bound: u.arbitrary().unwrap_or(true),
        // Read last: the corpus's earlier bytes keep their meaning.
        pooled_proof: u.arbitrary().unwrap_or(true),
        joint: u.arbitrary().unwrap_or(true),
        joint_node_limit: 2_000,
        fill_slowest_first: u.arbitrary().unwrap_or(true),
        ..MemoriesOptions::default()
    }
}

/// The one-pass fallback on the whole problem: when it places every buffer, its plan
/// (with its figures) passes [`check_memories`].
fn assert_fallback_is_valid(problem: &Problem, memories: &[Memory], input: &MemoriesInput<'_>) {
    // What the planner plans with: the allowed sets less the memories too small.
    let sets = super::problem::narrowed(
        problem,
        memories,
        crate::memory_types::allowed_of(problem, memories, input).expect("valid"),
    );
    let order: Vec<MemoryIdx> = (0..memories.len() as u32).map(MemoryIdx).collect();
    let capacities: Vec<Option<Size>> = memories.iter().map(|m| m.capacity).collect();
    let alignment = |i: crate::types::BufferIdx, m: MemoryIdx| {
        let (a, c) = (
            problem.buffer(i).alignment.get(),
            memories[m.index()].alignment.get(),
        );
        let mut g = (a, c);
        while g.1 != 0 {
            g = (g.1, g.0 % g.1);
        }
        a / g.0 * c
    };
    let budget = crate::Budget::unlimited();
    for key in super::fill::FillOrder::ALL {
        if let Some((memory, offsets)) = super::fill::run(
            problem,
            &sets,
            &order,
            &capacities,
            &alignment,
            key,
            &budget,
        ) {
            assert_filled_plan_is_valid(problem, memories, input, memory, offsets);
        }
    }
}

/// A fallback plan, with its figures, passes [`check_memories`].
fn assert_filled_plan_is_valid(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    memory: Vec<MemoryIdx>,
    offsets: Vec<Offset>,
) {
    let traffic = crate::memory_types::traffic_of(problem, input).expect("valid");
    let k = memories.len();
    let mut plan = super::MemoryPlan {
        memory,
        offsets,
        heights: vec![Size(0); k],
        traffic: vec![0; k],
        cost: 0,
    };
    let priced = memories.iter().all(|m| m.cost.is_some());
    for (i, b) in problem.buffers().iter().enumerate() {
        let m = plan.memory[i].index();
        plan.heights[m] = plan.heights[m].max(Size(plan.offsets[i].get() + b.size.get()));
        plan.traffic[m] += traffic[i];
        plan.cost += traffic[i]
            * memories[m]
                .cost
                .filter(|_| priced)
                .unwrap_or(u64::from(m > 0));
    }
    if let Err(v) = check_memories(problem, memories, input, &plan) {
        panic!("invalid fallback plan: {v}");
    }
}

/// The buffers that can only live in memory `name` (by their allowed sets, or being
/// larger than every other memory they may use; aligned for it too), planned alone
/// by memplan's exact search without limits, do not fit under its capacity.
fn assert_pinned_do_not_fit(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    name: &str,
) {
    // What the planner plans with: the allowed sets less the memories too small.
    let sets = super::problem::narrowed(
        problem,
        memories,
        crate::memory_types::allowed_of(problem, memories, input).expect("valid"),
    );
    let m = memories.iter().position(|m| m.name == name).expect("named");
    let memory = &memories[m];
    let capacity = memory.capacity.expect("a bounded memory");
    let pinned: Vec<crate::types::Buffer> = problem
        .indexed()
        .filter(|&(i, _)| sets[i.index()] == MemorySet::single(MemoryIdx(m as u32)))
        .map(|(_, b)| {
            let (a, c) = (b.alignment.get(), memory.alignment.get());
            let mut g = (a, c);
            while g.1 != 0 {
                g = (g.1, g.0 % g.1);
            }
            crate::types::Buffer {
                alignment: Size(a / g.0 * c),
                ..b.clone()
            }
        })
        .collect();
    let sub = Problem::new(pinned).expect("valid");
    assert_exact_infeasible(&sub, capacity, &format!("the buffers pinned to {name}"));
}

/// The exact search, without limits, proves that `sub` does not fit under `capacity`:
/// how the fuzz bodies of this family (two memories included) confirm an `Infeasible`.
fn assert_exact_infeasible(sub: &Problem, capacity: Size, what: &str) {
    let options = Options {
        planner: Planner::Exact,
        threads: 1,
        verify: true,
        ..Options::default()
    };
    let request = crate::Request::fit(capacity)
        .with_budget(crate::Budget::unlimited().with_finish_first_plan(false));
    let report = crate::plan(sub, &request, &options).expect("plans");
    assert_eq!(
        report.outcome,
        Outcome::Infeasible,
        "Infeasible, but {what} fit"
    );
}

/// The body of the `spill` fuzz target: a random problem (at most 10 buffers), a fast
/// capacity 0–120 % of its max load, random costs, preferences and switches through
/// [`plan_spill`]. Asserts: a plan passes [`check_memories`] across the two memories with
/// its fast height under the capacity; `Optimal` means cost = bound, `Feasible` cost >
/// bound; `Infeasible` is confirmed by memplan's exact search on the forced-fast
/// buffers; the only error is a fixed buffer asked to be slow.
pub fn fuzz_spill(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Some(problem) = small_problem(&mut u) else {
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
    let memory: Option<Vec<SpillMemory>> = u.arbitrary::<bool>().unwrap_or(false).then(|| {
        (0..n)
            .map(|_| match u.int_in_range(0..=9u8).unwrap_or(0) {
                0 => SpillMemory::Fast,
                1 => SpillMemory::Slow,
                _ => SpillMemory::Either,
            })
            .collect()
    });
    let options = arbitrary_options(&mut u);
    let request = crate::Request::fit(capacity).with_budget(crate::Budget::unlimited());
    let (c, m) = (costs.as_deref(), memory.as_deref());
    let report = match plan_spill(&problem, c, m, &request, &options) {
        Ok(r) => r,
        Err(MemoriesError::FixedInSlow { index, .. }) => {
            assert!(problem.buffers()[index].fixed_offset.is_some());
            assert_eq!(memory.as_ref().map(|m| m[index]), Some(SpillMemory::Slow));
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
        let spill = MemoriesProblem::spill(problem.clone(), capacity, costs, memory);
        if let Err(v) = spill.expect("planned").check(plan) {
            panic!("invalid spill plan: {v}");
        }
        assert!(plan.heights[0] <= capacity);
    }
}

/// The buffers that must stay fast, planned alone by memplan's exact search without
/// limits, do not fit under `capacity`.
fn assert_forced_fast_do_not_fit(
    problem: &Problem,
    capacity: Size,
    memory: &Option<Vec<SpillMemory>>,
) {
    let forced: Vec<BufferIdx> = problem
        .indexed()
        .filter(|&(i, b)| {
            b.fixed_offset.is_some() || memory.as_ref().is_some_and(|m| m[i] == SpillMemory::Fast)
        })
        .map(|(i, _)| i)
        .collect();
    let sub = Problem::new(forced.iter().map(|&i| problem.buffer(i).clone()).collect())
        .expect("a subset of a valid problem is valid");
    assert_exact_infeasible(&sub, capacity, "the forced-fast buffers");
}
