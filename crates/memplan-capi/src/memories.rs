//! Several memories from C, over `memplan::memories::MemoriesProblem`: every call builds
//! one problem across memories and makes one call into the library.
//! [`memplan_plan_memories`] takes the memories and per-buffer arrays,
//! [`memplan_plan_spill`] is its two-memory short form (memory 0 `fast` under a
//! capacity, memory 1 `slow`), [`memplan_plan_file`] reads a problem file with its
//! memories data (`memplan::memories::ProblemFile`), and all three return one
//! [`memplan_memories_result`]; [`memplan_check_memories`] is the independent checker.
//! The lean build (no `spill` feature) keeps the functions, which fail with
//! `MEMPLAN_ERR_ARGUMENT`, saying why.

use std::ffi::CString;
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::*;

#[cfg(feature = "spill")]
use memplan::memories::{MemoriesError, MemoriesProblem, Memory, MemoryIdx, MemorySet};

/// A capacity or cost field of [`memplan_memory`] with this value means none
/// (unbounded, or no cost); as [`memplan_plan_file`]'s spill capacity, no spill.
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

/// A plan across memories: per buffer its memory (index into the memories) and its
/// offset in that memory; per memory its name, height and traffic; the cost and bound.
pub struct memplan_memories_result {
    names: Vec<CString>,
    memory: Vec<u32>,
    offsets: Vec<u64>,
    heights: Vec<u64>,
    traffic: Vec<u64>,
    traffic_bounds: Vec<u64>,
    cost: u64,
    lower_bound: u64,
}

/// What the lean build answers for every call of this file.
#[cfg(not(feature = "spill"))]
fn lean(who: &str) -> (memplan_status, String) {
    arg_error(&format!(
        "{who}: this memplan library was built without memories (the lean build); use the full library"
    ))
}

/// `n` entries at `ptr`, or `None` for NULL.
#[cfg(feature = "spill")]
unsafe fn optional<'a, T>(ptr: *const T, n: usize) -> Option<&'a [T]> {
    (!ptr.is_null()).then(|| {
        if n == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(ptr, n)
        }
    })
}

/// The memories given by C, checked (names, costs).
#[cfg(feature = "spill")]
unsafe fn read_memories(
    memories: *const memplan_memory,
    count: usize,
    who: &str,
) -> Result<Vec<Memory>, (memplan_status, String)> {
    if memories.is_null() && count > 0 {
        return Err(arg_error(&format!("{who}: memories is NULL")));
    }
    let list = optional(memories, count).unwrap_or_default();
    let mut out = Vec::with_capacity(list.len());
    for (k, m) in list.iter().enumerate() {
        if m.name.is_null() {
            return Err(arg_error(&format!("{who}: memories[{k}].name is NULL")));
        }
        let name = CStr::from_ptr(m.name)
            .to_str()
            .map_err(|_| arg_error(&format!("{who}: memories[{k}].name is not UTF-8")))?;
        out.push(Memory {
            name: name.to_string(),
            capacity: (m.capacity != MEMPLAN_NONE).then_some(Size(m.capacity)),
            alignment: Size(m.alignment.max(1)),
            cost: (m.cost != MEMPLAN_NONE).then_some(m.cost),
        });
    }
    memplan::memories::validate_memories(&out).map_err(memories_error)?;
    Ok(out)
}

/// The problem across `memories` with the per-buffer arrays (NULL: the defaults).
#[cfg(feature = "spill")]
unsafe fn memories_problem(
    p: &memplan_problem,
    (memories, count): (*const memplan_memory, usize),
    allowed: *const u64,
    accesses: *const u64,
    who: &str,
) -> Result<MemoriesProblem, (memplan_status, String)> {
    let problem = p.validated()?;
    let memories = read_memories(memories, count, who)?;
    let n = problem.len();
    let allowed: Option<Vec<MemorySet>> =
        optional(allowed, n).map(|a| a.iter().map(|&b| MemorySet(b)).collect());
    // A bit for a memory that does not exist is a fault of its own (not an empty set).
    let known = MemorySet::all(memories.len()).0;
    if let Some((i, set)) = allowed
        .iter()
        .flatten()
        .enumerate()
        .find(|(_, s)| s.0 & !known != 0)
    {
        let bit = (set.0 & !known).trailing_zeros();
        return Err(arg_error(&format!(
            "{who}: allowed[{i}] has bit {bit} set, but there are {} memories (bits 0 to {})",
            memories.len(),
            memories.len().saturating_sub(1)
        )));
    }
    let input = memplan::memories::MemoriesInput {
        allowed: allowed.as_deref(),
        accesses: optional(accesses, n),
        traffic: None,
    };
    MemoriesProblem::new(problem, memories, &input).map_err(memories_error)
}

#[cfg(feature = "spill")]
fn memories_error(e: MemoriesError) -> (memplan_status, String) {
    use memplan::memories::MemoriesError as E;
    let status = match &e {
        E::InvalidPlan(_) => MEMPLAN_ERR_INVALID_PLAN,
        E::Plan(_) => MEMPLAN_ERR_INTERNAL,
        E::EmptyAllowed { .. }
        | E::FixedInSeveral { .. }
        | E::MisalignedFixed { .. }
        | E::FixedInSlow { .. }
        | E::Overflow(_) => MEMPLAN_ERR_INVALID_PROBLEM,
        _ => MEMPLAN_ERR_ARGUMENT,
    };
    (status, e.to_string())
}

/// Plans `problem` (the one library call of every function here), checks the plan and
/// stores it in `*out`.
#[cfg(feature = "spill")]
unsafe fn plan_into(
    problem: &MemoriesProblem,
    options: *const memplan_options,
    out: *mut *mut memplan_memories_result,
    who: &str,
) -> Result<(), (memplan_status, String)> {
    use memplan::memories::MemoriesOptions;
    let o = options
        .as_ref()
        .copied()
        .unwrap_or(memplan_options_default());
    let request = memplan::Request {
        goal: memplan::Goal::Minimise,
        ..o.request(who)?
    };
    let options = MemoriesOptions {
        threads: o.threads as usize,
        ..MemoriesOptions::default()
    };
    let report = problem.plan(&request, &options).map_err(memories_error)?;
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
    problem
        .check(plan)
        .map_err(|v| (MEMPLAN_ERR_INVALID_PLAN, v.to_string()))?;
    let names = problem.memories().iter();
    *out = Box::into_raw(Box::new(memplan_memories_result {
        names: names
            .map(|m| CString::new(m.name.as_str()).unwrap_or_default())
            .collect(),
        memory: plan.memory.iter().map(|m| m.0).collect(),
        offsets: plan.offsets.iter().map(|o| o.get()).collect(),
        heights: plan.heights.iter().map(|h| h.get()).collect(),
        traffic: plan.traffic.clone(),
        traffic_bounds: report.traffic_bounds.clone(),
        cost: plan.cost,
        lower_bound: report.lower_bound,
    }));
    Ok(())
}

/// The pointer checks every planning call makes first: `out` writable (set to NULL).
unsafe fn clear(
    out: *mut *mut memplan_memories_result,
    who: &str,
) -> Result<(), (memplan_status, String)> {
    if out.is_null() {
        return Err(arg_error(&format!("{who}: out is NULL")));
    }
    *out = std::ptr::null_mut();
    Ok(())
}

/// Several memories: gives each buffer a memory and an offset in it, every memory's
/// buffers under its capacity, at the least cost (`Σ traffic × cost`, or without costs
/// as much traffic as possible in the first memory, then the second, ...).
/// `memories`: `memory_count` of them, fastest first. `allowed`: per buffer a bit set of
/// the memories it may use, bit `m` for memory `m` (NULL: all; a single bit pins it; 0
/// is an error); `accesses`: per buffer its access count (NULL: 1), both
/// `memplan_problem_len(problem)` long. `options` may be NULL; its planner and goal are
/// not used. `MEMPLAN_ERR_INFEASIBLE` when no plan exists (proven, a pinned buffer
/// larger than its memory included; the message names the time, the buffers and the
/// memories they overfill together), `MEMPLAN_ERR_NOT_FOUND` when no plan was found,
/// `MEMPLAN_ERR_INVALID_PROBLEM` for an empty allowed set or a fixed offset that is not
/// pinned to one memory or aligned to it, `MEMPLAN_ERR_ARGUMENT` for duplicate or empty
/// names or an allowed bit for a memory that does not exist. The plan returned has
/// passed the independent checker. The lean build: `MEMPLAN_ERR_ARGUMENT`.
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
        clear(out, who)?;
        #[cfg(not(feature = "spill"))]
        let done = {
            let _ = (p, memories, memory_count, allowed, accesses, options);
            Err(lean(who))
        };
        #[cfg(feature = "spill")]
        let done = memories_problem(p, (memories, memory_count), allowed, accesses, who)
            .and_then(|problem| plan_into(&problem, options, out, who));
        done
    })
}

/// Spill, the two-memory short form of [`memplan_plan_memories`]: memory 0 is `fast`,
/// `capacity` bytes, memory 1 `slow`, unbounded; the buffers that do not fit in fast
/// memory go to slow memory at the least total cost. `costs` (NULL: each buffer's
/// size) is each buffer's cost in slow memory, `memory` (0 either, 1 fast, 2 slow;
/// NULL: all either) where it must live; both hold `memplan_problem_len(problem)`
/// entries; a buffer with a fixed offset is fast. `options` may be NULL; its planner
/// and goal are not used. `MEMPLAN_ERR_INFEASIBLE` when the buffers that must stay fast
/// do not fit, `MEMPLAN_ERR_NOT_FOUND` when they could not be placed in time,
/// `MEMPLAN_ERR_INVALID_PROBLEM` for a fixed buffer asked to be slow,
/// `MEMPLAN_ERR_ARGUMENT` for another memory code. The lean build:
/// `MEMPLAN_ERR_ARGUMENT`.
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
    out: *mut *mut memplan_memories_result,
) -> memplan_status {
    guard(|| {
        let who = "memplan_plan_spill";
        let p = problem_ref(problem, who)?;
        clear(out, who)?;
        #[cfg(not(feature = "spill"))]
        let done = {
            let _ = (p, capacity, costs, memory, options);
            Err(lean(who))
        };
        #[cfg(feature = "spill")]
        let done = {
            use memplan::memories::SpillMemory;
            let n = p.buffers.len();
            let pins = optional(memory, n)
                .map(|codes| {
                    codes
                        .iter()
                        .enumerate()
                        .map(|(i, &m)| match m {
                            0 => Ok(SpillMemory::Either),
                            1 => Ok(SpillMemory::Fast),
                            2 => Ok(SpillMemory::Slow),
                            _ => Err(arg_error(&format!(
                            "{who}: memory[{i}] is {m}; expected 0 (either), 1 (fast) or 2 (slow)"
                        ))),
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()?;
            let costs = optional(costs, n).map(<[u64]>::to_vec);
            let problem = MemoriesProblem::spill(p.validated()?, Size(capacity), costs, pins)
                .map_err(memories_error)?;
            plan_into(&problem, options, out, who)
        };
        done
    })
}

/// Reads the problem file at `path` (memplan's CSV or JSON, told apart by the name's
/// `.json` or `.csv`, else by the content) with its data of several memories (the
/// `memories`, `accesses`, `cost` and `memory` columns or fields, docs/memories.md)
/// through `memplan::memories::ProblemFile`, and plans it as [`memplan_plan_memories`]. The
/// memories: `memory_count` `memories` when given; else, with `spill_capacity` other
/// than `MEMPLAN_NONE`, spill under it (`fast` of that capacity, then `slow`; the
/// file's `cost` and `memory` columns are spill's); else the JSON file's `memories`
/// section. The plan is indexed like the file's buffers, and
/// [`memplan_memories_result_memory_name`] names its memories. `MEMPLAN_ERR_IO` for a
/// file that cannot be read or parsed and `MEMPLAN_ERR_INVALID_PROBLEM` for one that
/// breaks a rule (the message names the file, the line and the column or field),
/// `MEMPLAN_ERR_ARGUMENT` for memories and a spill capacity both, or bad memories; the
/// outcomes as [`memplan_plan_memories`]. The lean build: `MEMPLAN_ERR_ARGUMENT`.
///
/// # Safety
/// `path` must be a NUL-terminated string; `memories` NULL or `memory_count` entries
/// with valid strings; `options` NULL or valid; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn memplan_plan_file(
    path: *const c_char,
    memories: *const memplan_memory,
    memory_count: usize,
    spill_capacity: u64,
    options: *const memplan_options,
    out: *mut *mut memplan_memories_result,
) -> memplan_status {
    guard(|| {
        let who = "memplan_plan_file";
        let path = string_arg(path, who)?;
        clear(out, who)?;
        #[cfg(not(feature = "spill"))]
        let done = {
            let _ = (&path, memories, memory_count, spill_capacity, options);
            Err(lean(who))
        };
        #[cfg(feature = "spill")]
        let done = {
            use memplan::memories::MemoriesOf;
            let given = !memories.is_null() || memory_count > 0;
            let of = match (given, spill_capacity) {
                (true, MEMPLAN_NONE) => {
                    MemoriesOf::Given(read_memories(memories, memory_count, who)?)
                }
                (true, _) => {
                    return Err(arg_error(&format!(
                        "{who}: give memories or a spill capacity (MEMPLAN_NONE for none), not both"
                    )))
                }
                (false, MEMPLAN_NONE) => MemoriesOf::File,
                (false, capacity) => MemoriesOf::Spill(Size(capacity)),
            };
            let read_error = |e: memplan::ReadError| {
                let status = match e.kind {
                    memplan::ReadErrorKind::Problem(_) | memplan::ReadErrorKind::Memories(_) => {
                        MEMPLAN_ERR_INVALID_PROBLEM
                    }
                    _ => MEMPLAN_ERR_IO,
                };
                (status, format!("{path}: {e}"))
            };
            let bytes =
                std::fs::read(&path).map_err(|e| (MEMPLAN_ERR_IO, format!("{path}: {e}")))?;
            let problem = problem_file(&path, &bytes)?
                .map_err(read_error)?
                .into_memories(of)
                .map_err(read_error)?;
            plan_into(&problem, options, out, who)
        };
        done
    })
}

/// The problem file in `bytes`: JSON when `path` ends in `.json`, CSV when in `.csv`,
/// else JSON when it starts with `{` (as the command line decides); the outer error is
/// a format this build cannot read.
#[cfg(feature = "spill")]
#[allow(clippy::type_complexity)]
fn problem_file(
    path: &str,
    bytes: &[u8],
) -> Result<Result<memplan::memories::ProblemFile, memplan::ReadError>, (memplan_status, String)> {
    let lower = path.to_ascii_lowercase();
    let json = lower.ends_with(".json")
        || (!lower.ends_with(".csv") && bytes.trim_ascii_start().starts_with(b"{"));
    let options = memplan::io::ReadOptions::default();
    if json {
        #[cfg(feature = "json")]
        return Ok(memplan::memories::ProblemFile::read_json(bytes, &options));
        #[cfg(not(feature = "json"))]
        return Err(without(path, "JSON"));
    }
    #[cfg(feature = "csv")]
    return Ok(memplan::memories::ProblemFile::read_csv(bytes, &options));
    #[cfg(not(feature = "csv"))]
    return Err(without(path, "CSV"));
}

/// A format this build cannot read.
#[cfg(all(feature = "spill", not(all(feature = "csv", feature = "json"))))]
fn without(path: &str, format: &str) -> (memplan_status, String) {
    let why = "this memplan library was built without";
    (MEMPLAN_ERR_IO, format!("{path}: {why} {format}"))
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
        let who = "memplan_check_memories";
        let p = problem_ref(problem, who)?;
        if (memory.is_null() || offsets.is_null()) && count > 0 {
            return Err(arg_error(&format!("{who}: memory or offsets is NULL")));
        }
        #[cfg(not(feature = "spill"))]
        let done = {
            let _ = (p, memories, memory_count, allowed, accesses);
            Err(lean(who))
        };
        #[cfg(feature = "spill")]
        let done = {
            let problem = memories_problem(p, (memories, memory_count), allowed, accesses, who)?;
            let memory = optional(memory, count).unwrap_or_default();
            let offsets = optional(offsets, count).unwrap_or_default();
            // The plan's figures as its offsets imply them; the checker judges the rest.
            let plan = problem
                .plan_of(
                    memory.iter().map(|&m| MemoryIdx(m)).collect(),
                    offsets.iter().map(|&o| Offset(o)).collect(),
                )
                .ok_or_else(|| {
                    let (n, k) = (problem.problem().len(), problem.memories().len());
                    (
                        MEMPLAN_ERR_INVALID_PLAN,
                        format!("{who}: the plan must give each of the {n} buffers one of the {k} memories and an offset; it gives {count}"),
                    )
                })?;
            problem
                .check(&plan)
                .map(|_| ())
                .map_err(|f| (MEMPLAN_ERR_INVALID_PLAN, f.to_string()))
        };
        done
    })
}

/// Frees a plan across memories. NULL does nothing.
///
/// # Safety
/// `plan` must be NULL or come from a planning call of this file, and not be used
/// afterwards.
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

/// The number of memories the plan is across (0 for NULL).
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_memory_count(
    plan: *const memplan_memories_result,
) -> usize {
    plan.as_ref().map_or(0, |p| p.names.len())
}

/// Memory `m`'s name, owned by the plan (NULL for NULL or an index out of range).
///
/// # Safety
/// `plan` must be NULL or a live plan across memories.
#[no_mangle]
pub unsafe extern "C" fn memplan_memories_result_memory_name(
    plan: *const memplan_memories_result,
    m: usize,
) -> *const c_char {
    plan.as_ref()
        .and_then(|p| p.names.get(m))
        .map_or(std::ptr::null(), |n| n.as_ptr())
}

/// Each buffer's memory (an index into the memories); owned by the plan.
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
/// memory (spill: the cost of the slow buffers).
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
