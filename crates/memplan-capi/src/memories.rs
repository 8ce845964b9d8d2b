//! Several memories from C: [`memplan_plan_memories`], its result, and
//! [`memplan_check_memories`], over `memplan::memories` (full build; the lean build
//! answers `MEMPLAN_ERR_ARGUMENT`, saying why).

use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::*;

/// A capacity or cost field of [`memplan_memory`] with this value means none
/// (unbounded, or no cost).
pub const MEMPLAN_NONE: u64 = u64::MAX;

/// One memory for [`memplan_plan_memories`], fastest first.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct memplan_memory {
    /// A unique, non-empty, NUL-terminated UTF-8 name.
    pub name: *const c_char,
    /// Bytes available; `UINT64_MAX`: unbounded.
    pub capacity: u64,
    /// Every offset in this memory is a multiple of it (0 is taken as 1).
    pub alignment: u64,
    /// Cost per byte of traffic; `UINT64_MAX`: none (then every memory must have none,
    /// and the objective is lexicographic in the memories' order).
    pub cost: u64,
}

/// A plan across memories: per buffer its memory (index into the memories given) and
/// its offset in that memory; per memory its height and traffic; the cost and bound.
pub struct memplan_memories_result {
    memory: Vec<u32>,
    offsets: Vec<u64>,
    heights: Vec<u64>,
    traffic: Vec<u64>,
    traffic_bounds: Vec<u64>,
    cost: u64,
    lower_bound: u64,
}

/// The memories and per-buffer input read from C.
#[cfg(feature = "spill")]
struct Input {
    memories: Vec<memplan::memories::Memory>,
    allowed: Option<Vec<memplan::memories::MemorySet>>,
    accesses: Option<Vec<u64>>,
}

#[cfg(feature = "spill")]
impl Input {
    unsafe fn read(
        memories: *const memplan_memory,
        memory_count: usize,
        n: usize,
        allowed: *const u64,
        accesses: *const u64,
        who: &str,
    ) -> Result<Input, (memplan_status, String)> {
        use memplan::memories::{Memory, MemorySet};
        if memories.is_null() && memory_count > 0 {
            return Err(arg_error(&format!("{who}: memories is NULL")));
        }
        let list = if memory_count == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(memories, memory_count)
        };
        let mut out = Vec::with_capacity(list.len());
        for (k, m) in list.iter().enumerate() {
            if m.name.is_null() {
                return Err(arg_error(&format!("{who}: memories[{k}].name is NULL")));
            }
            let name = std::ffi::CStr::from_ptr(m.name)
                .to_str()
                .map_err(|_| arg_error(&format!("{who}: memories[{k}].name is not UTF-8")))?;
            out.push(Memory {
                name: name.to_string(),
                capacity: (m.capacity != MEMPLAN_NONE).then_some(Size(m.capacity)),
                alignment: Size(m.alignment.max(1)),
                cost: (m.cost != MEMPLAN_NONE).then_some(m.cost),
            });
        }
        let allowed: Option<Vec<MemorySet>> = (!allowed.is_null()).then(|| {
            std::slice::from_raw_parts(allowed, n)
                .iter()
                .map(|&b| MemorySet(b))
                .collect()
        });
        // A bit for a memory that does not exist is a fault of its own (not an empty set).
        let known = MemorySet::all(list.len()).0;
        if let Some((i, set)) = allowed
            .iter()
            .flatten()
            .enumerate()
            .find(|(_, s)| s.0 & !known != 0)
        {
            let bit = (set.0 & !known).trailing_zeros();
            return Err(arg_error(&format!(
                "{who}: allowed[{i}] has bit {bit} set, but there are {} memories (bits 0 to {})",
                list.len(),
                list.len().saturating_sub(1)
            )));
        }
        let accesses =
            (!accesses.is_null()).then(|| std::slice::from_raw_parts(accesses, n).to_vec());
        Ok(Input {
            memories: out,
            allowed,
            accesses,
        })
    }

    fn input(&self) -> memplan::memories::MemoriesInput<'_> {
        memplan::memories::MemoriesInput {
            allowed: self.allowed.as_deref(),
            accesses: self.accesses.as_deref(),
            traffic: None,
        }
    }
}

#[cfg(feature = "spill")]
fn memories_error(e: memplan::memories::MemoriesError) -> (memplan_status, String) {
    use memplan::memories::MemoriesError as E;
    let status = match &e {
        E::InvalidPlan(_) => MEMPLAN_ERR_INVALID_PLAN,
        E::Plan(_) => MEMPLAN_ERR_INTERNAL,
        E::EmptyAllowed { .. }
        | E::FixedInSeveral { .. }
        | E::MisalignedFixed { .. }
        | E::TooLarge { .. }
        | E::Overflow(_) => MEMPLAN_ERR_INVALID_PROBLEM,
        _ => MEMPLAN_ERR_ARGUMENT,
    };
    (status, e.to_string())
}

/// Several memories: gives each buffer a memory and an offset in it, every memory's
/// buffers under its capacity, at the least cost (`Σ traffic × cost`, or without costs
/// as much traffic as possible in the first memory, then the second, ...).
/// `memories`: `memory_count` of them, fastest first. `allowed`: per buffer a bit set of
/// the memories it may use, bit `m` for memory `m` (NULL: all; a single bit pins it; 0
/// is an error); `accesses`: per buffer its access count (NULL: 1), both
/// `memplan_problem_len(problem)` long. `options` may be NULL; its planner and goal are
/// not used. `MEMPLAN_ERR_INFEASIBLE` when no plan exists (proven; the message names
/// the time, the buffers and the memories they overfill together),
/// `MEMPLAN_ERR_NOT_FOUND` when no plan was found, `MEMPLAN_ERR_INVALID_PROBLEM` for a
/// pinned buffer larger than its memory or an empty allowed set,
/// `MEMPLAN_ERR_ARGUMENT` for duplicate or empty names or an allowed bit for a memory
/// that does not exist. The plan returned has passed
/// the independent checker. The lean build: `MEMPLAN_ERR_ARGUMENT`.
///
/// # Safety
/// `problem` must be live; `memories` must hold `memory_count` entries with valid
/// strings; `allowed` and `accesses` must be NULL or hold one entry per buffer; `out`
/// must be writable.
#[no_mangle]
pub unsafe extern "C" fn memplan_plan_memories(
    problem: *const memplan_problem,
    memories: *const memplan_memory,
    memory_count: usize,
    allowed: *const u64,
    accesses: *const u64,
    options: *const memplan_options,
    out: *mut *mut memplan_memories_result,
) -> memplan_status {
    guard(|| {
        let who = "memplan_plan_memories";
        let p = problem_ref(problem, who)?;
        if out.is_null() {
            return Err(arg_error(&format!("{who}: out is NULL")));
        }
        let options = options
            .as_ref()
            .copied()
            .unwrap_or(memplan_options_default());
        let result = plan(p, memories, memory_count, allowed, accesses, &options)?;
        *out = Box::into_raw(Box::new(result));
        Ok(())
    })
}

#[cfg(feature = "spill")]
unsafe fn plan(
    p: &memplan_problem,
    memories: *const memplan_memory,
    memory_count: usize,
    allowed: *const u64,
    accesses: *const u64,
    o: &memplan_options,
) -> Result<memplan_memories_result, (memplan_status, String)> {
    use memplan::memories::{check_memories, plan_memories, MemoriesOptions};
    let who = "memplan_plan_memories";
    let problem = p.validated()?;
    let input = Input::read(
        memories,
        memory_count,
        problem.len(),
        allowed,
        accesses,
        who,
    )?;
    let request = memplan::Request {
        goal: memplan::Goal::Minimise,
        ..o.request(who)?
    };
    let options = MemoriesOptions {
        threads: o.threads as usize,
        ..MemoriesOptions::default()
    };
    let report = plan_memories(
        &problem,
        &input.memories,
        &input.input(),
        &request,
        &options,
    )
    .map_err(memories_error)?;
    let plan = match &report.outcome {
        Outcome::Optimal(plan) | Outcome::Feasible { plan, .. } => plan,
        Outcome::Infeasible => {
            let why = report
                .infeasibility
                .as_ref()
                .map_or_else(|| "proven".to_string(), ToString::to_string);
            return Err((
                MEMPLAN_ERR_INFEASIBLE,
                format!("{who}: no plan exists: {why}"),
            ));
        }
        Outcome::Unknown { lower_bound, .. } => {
            return Err((
                MEMPLAN_ERR_NOT_FOUND,
                format!("{who}: no plan found in time (proven cost >= {lower_bound})"),
            ))
        }
    };
    check_memories(&problem, &input.memories, &input.input(), plan)
        .map_err(|v| (MEMPLAN_ERR_INVALID_PLAN, v.to_string()))?;
    Ok(memplan_memories_result {
        memory: plan.memory.iter().map(|m| m.0).collect(),
        offsets: plan.offsets.iter().map(|o| o.get()).collect(),
        heights: plan.heights.iter().map(|h| h.get()).collect(),
        traffic: plan.traffic.clone(),
        traffic_bounds: report.traffic_bounds.clone(),
        cost: plan.cost,
        lower_bound: report.lower_bound,
    })
}

#[cfg(not(feature = "spill"))]
unsafe fn plan(
    _: &memplan_problem,
    _: *const memplan_memory,
    _: usize,
    _: *const u64,
    _: *const u64,
    _: &memplan_options,
) -> Result<memplan_memories_result, (memplan_status, String)> {
    Err(arg_error(
        "memplan_plan_memories: this memplan library was built without memories (the lean build); use the full library",
    ))
}

/// Checks a plan across memories with the independent checker: `memory` (each buffer's
/// memory index) and `offsets` (in that memory), `count` of each, against the problem,
/// the memories and the per-buffer input (as [`memplan_plan_memories`]): capacities,
/// allowed sets, pins and alignments. `MEMPLAN_OK`, or `MEMPLAN_ERR_INVALID_PLAN` naming
/// the buffer. The lean build: `MEMPLAN_ERR_ARGUMENT`.
///
/// # Safety
/// As [`memplan_plan_memories`]; `memory` and `offsets` must hold `count` entries.
#[no_mangle]
pub unsafe extern "C" fn memplan_check_memories(
    problem: *const memplan_problem,
    memories: *const memplan_memory,
    memory_count: usize,
    allowed: *const u64,
    accesses: *const u64,
    memory: *const u32,
    offsets: *const u64,
    count: usize,
) -> memplan_status {
    guard(|| {
        check(
            problem,
            memories,
            memory_count,
            allowed,
            accesses,
            memory,
            offsets,
            count,
        )
    })
}

#[cfg(feature = "spill")]
#[allow(clippy::too_many_arguments)]
unsafe fn check(
    problem: *const memplan_problem,
    memories: *const memplan_memory,
    memory_count: usize,
    allowed: *const u64,
    accesses: *const u64,
    memory: *const u32,
    offsets: *const u64,
    count: usize,
) -> Result<(), (memplan_status, String)> {
    use memplan::memories::{check_memories, traffic_of, MemoryIdx, MemoryPlan};
    let who = "memplan_check_memories";
    let p = problem_ref(problem, who)?;
    if (memory.is_null() || offsets.is_null()) && count > 0 {
        return Err(arg_error(&format!("{who}: memory or offsets is NULL")));
    }
    let problem = p.validated()?;
    let input = Input::read(
        memories,
        memory_count,
        problem.len(),
        allowed,
        accesses,
        who,
    )?;
    let k = input.memories.len();
    let (memory, offsets) = if count == 0 {
        (&[][..], &[][..])
    } else {
        (
            std::slice::from_raw_parts(memory, count),
            std::slice::from_raw_parts(offsets, count),
        )
    };
    // The plan's figures as its offsets imply them; the checker judges the rest.
    let traffic_each = traffic_of(&problem, &input.input()).map_err(memories_error)?;
    let mut heights = vec![Size(0); k];
    let mut traffic = vec![0u64; k];
    let priced = input.memories.iter().all(|m| m.cost.is_some());
    let mut cost = 0u64;
    for (i, b) in problem.buffers().iter().enumerate().take(count) {
        let m = memory[i] as usize;
        if m < k {
            heights[m] = heights[m].max(Size(offsets[i].saturating_add(b.size.get())));
            traffic[m] = traffic[m].saturating_add(traffic_each[i]);
            let unit = if priced {
                input.memories[m].cost.unwrap_or(0)
            } else {
                u64::from(m > 0)
            };
            cost = cost.saturating_add(traffic_each[i].saturating_mul(unit));
        }
    }
    let plan = MemoryPlan {
        memory: memory.iter().map(|&m| MemoryIdx(m)).collect(),
        offsets: offsets.iter().map(|&o| memplan::Offset(o)).collect(),
        heights,
        traffic,
        cost,
    };
    check_memories(&problem, &input.memories, &input.input(), &plan)
        .map(|_| ())
        .map_err(|f| (MEMPLAN_ERR_INVALID_PLAN, f.to_string()))
}

#[cfg(not(feature = "spill"))]
#[allow(clippy::too_many_arguments)]
unsafe fn check(
    _: *const memplan_problem,
    _: *const memplan_memory,
    _: usize,
    _: *const u64,
    _: *const u64,
    _: *const u32,
    _: *const u64,
    _: usize,
) -> Result<(), (memplan_status, String)> {
    Err(arg_error(
        "memplan_check_memories: this memplan library was built without memories (the lean build); use the full library",
    ))
}

/// Frees a plan across memories. NULL does nothing.
///
/// # Safety
/// `plan` must be NULL or come from [`memplan_plan_memories`], and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_free(plan: *mut memplan_memories_result) {
    if !plan.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(plan))));
    }
}

/// The number of buffers in the plan (0 for NULL).
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_len(
    plan: *const memplan_memories_result,
) -> usize {
    plan.as_ref().map_or(0, |p| p.offsets.len())
}

/// Each buffer's memory (an index into the memories given); owned by the plan.
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_memory(
    plan: *const memplan_memories_result,
) -> *const u32 {
    plan.as_ref()
        .map_or(std::ptr::null(), |p| p.memory.as_ptr())
}

/// Each buffer's offset in its own memory; owned by the plan.
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_offsets(
    plan: *const memplan_memories_result,
) -> *const u64 {
    plan.as_ref()
        .map_or(std::ptr::null(), |p| p.offsets.as_ptr())
}

/// Memory `m`'s height (0 for NULL or an index out of range).
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_height(
    plan: *const memplan_memories_result,
    m: usize,
) -> u64 {
    plan.as_ref()
        .and_then(|p| p.heights.get(m).copied())
        .unwrap_or(0)
}

/// Memory `m`'s traffic, `Σ size × accesses` of its buffers (0 for NULL or out of range).
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_traffic(
    plan: *const memplan_memories_result,
    m: usize,
) -> u64 {
    plan.as_ref()
        .and_then(|p| p.traffic.get(m).copied())
        .unwrap_or(0)
}

/// A proven ceiling on memory `m`'s traffic (without costs, over the plans whose earlier
/// memories serve this plan's traffic): the memory's gap is this less its traffic, 0
/// when the memory is proven optimal (0 for NULL or out of range).
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_traffic_bound(
    plan: *const memplan_memories_result,
    m: usize,
) -> u64 {
    plan.as_ref()
        .and_then(|p| p.traffic_bounds.get(m).copied())
        .unwrap_or(0)
}

/// The plan's cost: `Σ traffic × cost`, or without costs the traffic outside the first
/// memory.
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_cost(plan: *const memplan_memories_result) -> u64 {
    plan.as_ref().map_or(0, |p| p.cost)
}

/// A proven lower bound on the cost of any valid plan.
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_lower_bound(
    plan: *const memplan_memories_result,
) -> u64 {
    plan.as_ref().map_or(0, |p| p.lower_bound)
}

/// 1 when the cost equals the lower bound, else 0.
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_is_optimal(
    plan: *const memplan_memories_result,
) -> i32 {
    plan.as_ref()
        .map_or(0, |p| i32::from(p.cost == p.lower_bound))
}
