//! Two memory levels from C: [`memplan_plan_spill`] and its result, over
//! `memplan::memories::plan_spill`, the two-memory form of `memplan::memories` (full
//! build; the lean build answers `MEMPLAN_ERR_ARGUMENT`, saying why).

use super::*;

/// A two-level plan (see [`memplan_plan_spill`]): per buffer, whether it is spilled to
/// slow memory and its offset in its own level, and the figures.
pub struct memplan_spill_result {
    offsets: Vec<u64>,
    spilled: Vec<u8>,
    cost: u64,
    lower_bound: u64,
    fast_height: u64,
    slow_height: u64,
}

/// Two memory levels: chooses the buffers to spill to slow memory so that the others fit
/// under `capacity` bytes of fast memory, at the least total cost, and plans both levels
/// (the options' goal is not used). `costs`: the price of spilling each buffer
/// (NULL: its size); `memory`: where each must live, 0 either, 1 fast, 2 slow (NULL: all
/// either); both hold `memplan_problem_len(problem)` entries. `options` (NULL: defaults)
/// gives the time limit and threads; its planner is not used. Fails with
/// `MEMPLAN_ERR_INFEASIBLE` when the buffers that must stay fast (fixed, or memory 1) do
/// not fit, `MEMPLAN_ERR_NOT_FOUND` when they could not be placed in time. The plan has
/// passed the two-level checker. Without the `spill` feature (the lean build) it fails
/// with `MEMPLAN_ERR_ARGUMENT`, saying so.
///
/// # Safety
/// `problem` must be a live problem, `costs` and `memory` NULL or arrays of
/// `memplan_problem_len(problem)` entries, `options` NULL or valid, `out` writable.
#[no_mangle]
pub unsafe extern "C" fn memplan_plan_spill(
    problem: *const memplan_problem,
    capacity: u64,
    costs: *const u64,
    memory: *const i32,
    options: *const memplan_options,
    out: *mut *mut memplan_spill_result,
) -> memplan_status {
    guard(|| {
        let p = problem_ref(problem, "memplan_plan_spill")?;
        if out.is_null() {
            return Err(arg_error("memplan_plan_spill: out is NULL"));
        }
        let n = p.buffers.len();
        let costs = (!costs.is_null()).then(|| std::slice::from_raw_parts(costs, n));
        let memory = (!memory.is_null()).then(|| std::slice::from_raw_parts(memory, n));
        let options = options
            .as_ref()
            .copied()
            .unwrap_or(memplan_options_default());
        *out = Box::into_raw(Box::new(plan_spill(p, capacity, costs, memory, &options)?));
        Ok(())
    })
}

/// [`memplan_plan_spill`] once its pointers are read: `costs` and `memory` hold one entry
/// per buffer when given.
#[cfg(feature = "spill")]
fn plan_spill(
    p: &memplan_problem,
    capacity: u64,
    costs: Option<&[u64]>,
    memory: Option<&[i32]>,
    o: &memplan_options,
) -> Result<memplan_spill_result, (memplan_status, String)> {
    use memplan::memories::{
        check_memories, spill_request, MemoriesError, MemoriesOptions, MemoryIdx, SpillError,
        SpillInput, SpillMemory,
    };
    let costs = costs.map(<[u64]>::to_vec);
    let memory = match memory {
        None => None,
        Some(codes) => {
            let mut levels = Vec::with_capacity(codes.len());
            for (i, &m) in codes.iter().enumerate() {
                levels.push(match m {
                    0 => SpillMemory::Either,
                    1 => SpillMemory::Fast,
                    2 => SpillMemory::Slow,
                    _ => {
                        return Err(arg_error(&format!(
                            "memplan_plan_spill: memory[{i}] is {m}; expected 0 (either), 1 (fast) or 2 (slow)"
                        )))
                    }
                });
            }
            Some(levels)
        }
    };
    let request = memplan::Request {
        goal: memplan::Goal::Fit(Size(capacity)),
        ..o.request("memplan_plan_spill")?
    };
    let problem = p.validated()?;
    let input = SpillInput {
        costs: costs.as_deref(),
        memory: memory.as_deref(),
    };
    let options = MemoriesOptions {
        threads: o.threads as usize,
        ..MemoriesOptions::default()
    };
    let error = |e: SpillError| match e {
        SpillError::FixedInSlow { .. } => (MEMPLAN_ERR_INVALID_PROBLEM, e.to_string()),
        SpillError::Memories(MemoriesError::Plan(_)) => (MEMPLAN_ERR_INTERNAL, e.to_string()),
        SpillError::Memories(MemoriesError::Overflow(_) | MemoriesError::PlanShape { .. }) => {
            (MEMPLAN_ERR_ARGUMENT, e.to_string())
        }
        SpillError::Memories(_) => (MEMPLAN_ERR_INVALID_PLAN, e.to_string()),
        e => (MEMPLAN_ERR_ARGUMENT, e.to_string()),
    };
    let report =
        memplan::memories::plan_spill(&problem, &input, &request, &options).map_err(error)?;
    let plan = match &report.outcome {
        Outcome::Optimal(plan) | Outcome::Feasible { plan, .. } => plan,
        Outcome::Infeasible => {
            return Err((
                MEMPLAN_ERR_INFEASIBLE,
                format!("the buffers that must stay fast do not fit under {capacity}"),
            ))
        }
        Outcome::Unknown { lower_bound, .. } => {
            return Err((
                MEMPLAN_ERR_NOT_FOUND,
                format!(
                "no two-level plan found under {capacity} in time (proven cost >= {lower_bound})"
            ),
            ))
        }
    };
    let (memories, allowed) = spill_request(&problem, Size(capacity), &input).map_err(error)?;
    check_memories(&problem, &memories, &input.memories_input(&allowed), plan)
        .map_err(|v| (MEMPLAN_ERR_INVALID_PLAN, v.to_string()))?;
    Ok(memplan_spill_result {
        offsets: plan.offsets.iter().map(|o| o.get()).collect(),
        spilled: plan
            .memory
            .iter()
            .map(|&m| u8::from(m == MemoryIdx(1)))
            .collect(),
        cost: plan.cost,
        lower_bound: report.lower_bound,
        fast_height: plan.heights[0].get(),
        slow_height: plan.heights[1].get(),
    })
}

/// The lean build has no spill family: [`memplan_plan_spill`] fails with
/// `MEMPLAN_ERR_ARGUMENT`, saying why.
#[cfg(not(feature = "spill"))]
fn plan_spill(
    _: &memplan_problem,
    _: u64,
    _: Option<&[u64]>,
    _: Option<&[i32]>,
    _: &memplan_options,
) -> Result<memplan_spill_result, (memplan_status, String)> {
    Err(arg_error(
        "memplan_plan_spill: this memplan library was built without spill (the lean build); use the full library",
    ))
}

/// Frees a two-level plan. NULL does nothing.
///
/// # Safety
/// `plan` must be NULL or come from [`memplan_plan_spill`], and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_free(plan: *mut memplan_spill_result) {
    if !plan.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(plan))));
    }
}

/// The number of buffers in the plan (0 for NULL).
///
/// # Safety
/// `plan` must be NULL or a live two-level plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_len(plan: *const memplan_spill_result) -> usize {
    plan.as_ref().map_or(0, |p| p.offsets.len())
}

/// Each buffer's offset in its own level (fast when kept, slow when spilled),
/// `memplan_spill_result_len(plan)` of them; owned by the plan (NULL for NULL).
///
/// # Safety
/// `plan` must be NULL or a live two-level plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_offsets(
    plan: *const memplan_spill_result,
) -> *const u64 {
    plan.as_ref()
        .map_or(std::ptr::null(), |p| p.offsets.as_ptr())
}

/// 1 for each buffer spilled to slow memory, 0 for those kept fast; owned by the plan.
///
/// # Safety
/// `plan` must be NULL or a live two-level plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_spilled(
    plan: *const memplan_spill_result,
) -> *const u8 {
    plan.as_ref()
        .map_or(std::ptr::null(), |p| p.spilled.as_ptr())
}

/// The total cost of the spilled buffers.
///
/// # Safety
/// `plan` must be NULL or a live two-level plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_cost(plan: *const memplan_spill_result) -> u64 {
    plan.as_ref().map_or(0, |p| p.cost)
}

/// A proven lower bound on the cost of any valid plan.
///
/// # Safety
/// `plan` must be NULL or a live two-level plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_lower_bound(
    plan: *const memplan_spill_result,
) -> u64 {
    plan.as_ref().map_or(0, |p| p.lower_bound)
}

/// 1 when the cost equals the lower bound (no cheaper spill exists), else 0.
///
/// # Safety
/// `plan` must be NULL or a live two-level plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_is_optimal(plan: *const memplan_spill_result) -> i32 {
    plan.as_ref()
        .map_or(0, |p| i32::from(p.cost == p.lower_bound))
}

/// The highest address used in fast memory (at most the capacity).
///
/// # Safety
/// `plan` must be NULL or a live two-level plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_fast_height(
    plan: *const memplan_spill_result,
) -> u64 {
    plan.as_ref().map_or(0, |p| p.fast_height)
}

/// The highest address used in slow memory.
///
/// # Safety
/// `plan` must be NULL or a live two-level plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_spill_result_slow_height(
    plan: *const memplan_spill_result,
) -> u64 {
    plan.as_ref().map_or(0, |p| p.slow_height)
}
