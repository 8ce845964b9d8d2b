//! The C API of memplan. The header is `include/memplan.h`, committed; a test
//! (`tests/header.rs`) checks that it declares exactly the functions and status codes
//! defined here, so the two cannot drift apart.
//!
//! # Rules at the boundary
//!
//! - Every function returns a [`memplan_status`] (or a plain value for getters that cannot
//!   fail) and never unwinds: each body runs inside `catch_unwind`, and a panic becomes
//!   `MEMPLAN_ERR_INTERNAL`.
//! - On failure the message is kept per thread; [`memplan_last_error`] returns it.
//! - Objects are created by `*_new`/`memplan_plan` and released by `*_free`; passing NULL
//!   to a `*_free` does nothing.
//! - Buffers are added to a problem one by one; the problem is validated when it is
//!   planned or checked (the message then names the buffer).
#![allow(non_camel_case_types)]

mod memories;
pub use memories::*;

use std::cell::RefCell;
use std::ffi::{c_char, c_double, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use memplan::{Buffer, Lifetime, Offset, Options, Outcome, Planner, Problem, Size};

/// The result of every fallible call.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum memplan_status {
    /// Success.
    MEMPLAN_OK = 0,
    /// A NULL pointer, a string that is not UTF-8, an index out of range, an unknown planner;
    /// the memories functions in the lean build, which has no memories.
    MEMPLAN_ERR_ARGUMENT = 1,
    /// The problem breaks a rule (e.g. size 0, duplicate id); the message names the buffer.
    MEMPLAN_ERR_INVALID_PROBLEM = 2,
    /// Proven: no plan fits under the capacity.
    MEMPLAN_ERR_INFEASIBLE = 3,
    /// No plan under the capacity was found in the time given (none proven impossible).
    MEMPLAN_ERR_NOT_FOUND = 4,
    /// The checker rejects the plan; the message names the first violation.
    MEMPLAN_ERR_INVALID_PLAN = 5,
    /// A file could not be read or parsed.
    MEMPLAN_ERR_IO = 6,
    /// A bug in memplan (a caught panic). The message says where.
    MEMPLAN_ERR_INTERNAL = 7,
}

use memplan_status::*;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: impl Into<String>) {
    let text = message.into().replace('\0', " ");
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(text).unwrap_or_default());
}

/// Runs `f`, turning an `Err` into its status (with the message stored) and a panic
/// into `MEMPLAN_ERR_INTERNAL`.
fn guard(f: impl FnOnce() -> Result<(), (memplan_status, String)>) -> memplan_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            set_error("");
            MEMPLAN_OK
        }
        Ok(Err((status, message))) => {
            set_error(message);
            status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_error(format!("internal error: {what}"));
            MEMPLAN_ERR_INTERNAL
        }
    }
}

fn arg_error(message: &str) -> (memplan_status, String) {
    (MEMPLAN_ERR_ARGUMENT, message.to_string())
}

/// A problem under construction: its buffers. (The capacity is the request's: see
/// [`memplan_options::fit`].)
pub struct memplan_problem {
    buffers: Vec<Buffer>,
    /// The declared shares ([`memplan_problem_add_share`]).
    shares: Vec<memplan::Share>,
}

impl memplan_problem {
    fn validated(&self) -> Result<Problem, (memplan_status, String)> {
        Problem::with_shares(self.buffers.clone(), self.shares.clone())
            .map_err(|e| (MEMPLAN_ERR_INVALID_PROBLEM, e.to_string()))
    }
}

/// [`memplan_problem_add_share`]'s kind: the buffer takes the target's storage where the
/// target dies and it is born.
pub const MEMPLAN_SHARE_IN_PLACE: i32 = 0;
/// [`memplan_problem_add_share`]'s kind: the buffer lives inside the target at `offset`.
pub const MEMPLAN_SHARE_INSIDE: i32 = 1;

/// A plan: one offset per buffer (in the order they were added) and its figures.
pub struct memplan_result {
    offsets: Vec<u64>,
    height: u64,
    max_load: u64,
    lower_bound: u64,
    optimal: bool,
    planner: CString,
    work: u64,
    stopped_by: Option<memplan::budget::Stop>,
    shares_taken: usize,
}

/// Options for [`memplan_plan`]. Start from [`memplan_options_default`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct memplan_options {
    /// The planner's name (e.g. "auto", "size-best-fit"); NULL means "auto".
    pub planner: *const c_char,
    /// Stop after this many seconds of wall-clock time and return the best plan found;
    /// `INFINITY` (the default): no clock. Negative or NaN: `MEMPLAN_ERR_ARGUMENT`. A
    /// plan the clock stopped may differ from run to run. The first plan always finishes.
    pub time_limit_seconds: c_double,
    /// Worker threads; 0 means one per core. The plan does not depend on it.
    pub threads: u32,
    /// The goal: 0 (the default) minimises the height; 1 fits under `capacity`, which
    /// is then a capacity like any other (0 included). Other values:
    /// `MEMPLAN_ERR_ARGUMENT`.
    pub fit: i32,
    /// The capacity to fit under, when `fit` is 1; unused otherwise.
    pub capacity: u64,
    /// Stop after this many work units; `UINT64_MAX`: no work limit. The default is the
    /// library's ([`memplan::Budget::DEFAULT_WORK_LIMIT`]): the same plan on every run,
    /// whatever the load and `threads`. With a time limit too, whichever ends first.
    pub work_limit: u64,
}

impl memplan_options {
    /// The request these options describe, for `caller`'s messages.
    fn request(&self, caller: &str) -> Result<memplan::Request, (memplan_status, String)> {
        let limit = memplan::budget::TimeLimit::from_secs(self.time_limit_seconds)
            .map_err(|e| arg_error(&format!("{caller}: time_limit_seconds {e}")))?;
        let goal = match self.fit {
            0 => memplan::Goal::Minimise,
            1 => memplan::Goal::Fit(Size(self.capacity)),
            f => return Err(arg_error(&format!("{caller}: fit must be 0 or 1, got {f}"))),
        };
        let work = (self.work_limit != u64::MAX).then_some(self.work_limit);
        Ok(memplan::Request {
            goal,
            budget: memplan::Budget::new()
                .with_time_limit(limit)
                .with_work_limit(work),
        })
    }
}

/// The message of the last failed call on this thread ("" after a success). The pointer
/// stays valid until the next memplan call on this thread.
#[no_mangle]
pub extern "C" fn memplan_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version, e.g. "0.1.0". A static string.
#[no_mangle]
pub extern "C" fn memplan_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Default options, the library's [`Options::default()`] and [`memplan::Request`]'s
/// default: planner "auto", the default work limit and no time limit, one thread per
/// core, minimise.
#[no_mangle]
pub extern "C" fn memplan_options_default() -> memplan_options {
    let request = memplan::Request::default();
    memplan_options {
        planner: std::ptr::null(),
        time_limit_seconds: request
            .budget
            .time_limit()
            .map_or(f64::INFINITY, |d| d.as_secs_f64()),
        threads: Options::default().threads as u32,
        fit: 0,
        capacity: 0,
        work_limit: request.budget.work_limit().unwrap_or(u64::MAX),
    }
}

/// Creates an empty problem in `*out`. Free it with [`memplan_problem_free`].
///
/// # Safety
/// `out` must be NULL or point to writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn memplan_problem_new(out: *mut *mut memplan_problem) -> memplan_status {
    guard(|| {
        if out.is_null() {
            return Err(arg_error("memplan_problem_new: out is NULL"));
        }
        let p = Box::new(memplan_problem {
            buffers: Vec::new(),
            shares: Vec::new(),
        });
        *out = Box::into_raw(p);
        Ok(())
    })
}

/// Frees a problem. NULL does nothing.
///
/// # Safety
/// `problem` must be NULL or come from [`memplan_problem_new`] /
/// [`memplan_problem_read_csv`], and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn memplan_problem_free(problem: *mut memplan_problem) {
    if !problem.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(problem))));
    }
}

unsafe fn problem_mut<'a>(
    p: *mut memplan_problem,
    who: &str,
) -> Result<&'a mut memplan_problem, (memplan_status, String)> {
    p.as_mut()
        .ok_or_else(|| arg_error(&format!("{who}: problem is NULL")))
}

unsafe fn problem_ref<'a>(
    p: *const memplan_problem,
    who: &str,
) -> Result<&'a memplan_problem, (memplan_status, String)> {
    p.as_ref()
        .ok_or_else(|| arg_error(&format!("{who}: problem is NULL")))
}

unsafe fn string_arg(s: *const c_char, who: &str) -> Result<String, (memplan_status, String)> {
    if s.is_null() {
        return Err(arg_error(&format!("{who}: string is NULL")));
    }
    CStr::from_ptr(s)
        .to_str()
        .map(str::to_string)
        .map_err(|_| arg_error(&format!("{who}: string is not UTF-8")))
}

/// Adds a buffer live over `[start, end)` with `size` bytes and `alignment` (0 or 1: none).
/// Its index (the order of addition) is the index of its offset in the plan.
///
/// # Safety
/// `problem` must be a live problem; `id` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn memplan_problem_add_buffer(
    problem: *mut memplan_problem,
    id: *const c_char,
    start: u64,
    end: u64,
    size: u64,
    alignment: u64,
) -> memplan_status {
    guard(|| {
        let p = problem_mut(problem, "memplan_problem_add_buffer")?;
        let id = string_arg(id, "memplan_problem_add_buffer")?;
        p.buffers
            .push(Buffer::new(id, start, end, size).with_alignment(alignment.max(1)));
        Ok(())
    })
}

/// Pins buffer `index` at `offset`.
///
/// # Safety
/// `problem` must be a live problem.
#[no_mangle]
pub unsafe extern "C" fn memplan_problem_fix_offset(
    problem: *mut memplan_problem,
    index: usize,
    offset: u64,
) -> memplan_status {
    guard(|| {
        let p = problem_mut(problem, "memplan_problem_fix_offset")?;
        let b = p
            .buffers
            .get_mut(index)
            .ok_or_else(|| arg_error("memplan_problem_fix_offset: index out of range"))?;
        b.fixed_offset = Some(Offset(offset));
        Ok(())
    })
}

/// Adds a gap `[start, end)` inside buffer `index`'s lifetime, in which it occupies nothing.
///
/// # Safety
/// `problem` must be a live problem.
#[no_mangle]
pub unsafe extern "C" fn memplan_problem_add_gap(
    problem: *mut memplan_problem,
    index: usize,
    start: u64,
    end: u64,
) -> memplan_status {
    guard(|| {
        let p = problem_mut(problem, "memplan_problem_add_gap")?;
        let b = p
            .buffers
            .get_mut(index)
            .ok_or_else(|| arg_error("memplan_problem_add_gap: index out of range"))?;
        b.gaps.push(Lifetime::new(start, end));
        Ok(())
    })
}

/// Declares that buffer `index` may use the storage of buffer `target` (indices in the
/// order of addition): `kind` [`MEMPLAN_SHARE_IN_PLACE`] (it takes `target`'s storage
/// where `target` dies and it is born) or [`MEMPLAN_SHARE_INSIDE`] (it lives inside
/// `target` at `offset` bytes), `required` 0 (the planner takes it where it lowers or
/// keeps the plan) or 1 (always taken). The rules are checked when the problem is
/// planned or checked (`MEMPLAN_ERR_INVALID_PROBLEM`, naming the buffer).
///
/// # Safety
/// `problem` must be a live problem.
#[no_mangle]
pub unsafe extern "C" fn memplan_problem_add_share(
    problem: *mut memplan_problem,
    index: usize,
    target: usize,
    kind: i32,
    offset: u64,
    required: i32,
) -> memplan_status {
    guard(|| {
        let who = "memplan_problem_add_share";
        let p = problem_mut(problem, who)?;
        let id = |i: usize, what: &str| {
            p.buffers.get(i).map(|b| b.id.clone()).ok_or_else(|| {
                arg_error(&format!(
                    "{who}: {what} {i} out of range ({} buffers)",
                    p.buffers.len()
                ))
            })
        };
        let (buffer, target) = (id(index, "index")?, id(target, "target")?);
        let kind = match kind {
            MEMPLAN_SHARE_IN_PLACE => memplan::ShareKind::InPlace,
            MEMPLAN_SHARE_INSIDE => memplan::ShareKind::Inside,
            k => {
                return Err(arg_error(&format!(
                    "{who}: kind must be MEMPLAN_SHARE_IN_PLACE (0) or MEMPLAN_SHARE_INSIDE (1), got {k}"
                )))
            }
        };
        let required = match required {
            0 => false,
            1 => true,
            r => {
                return Err(arg_error(&format!(
                    "{who}: required must be 0 or 1, got {r}"
                )))
            }
        };
        if !cfg!(feature = "shares") {
            return Err(arg_error(&format!(
                "{who}: this memplan library was built without shares (the lean build)"
            )));
        }
        p.shares.push(memplan::Share {
            buffer,
            target,
            kind,
            offset: Offset(offset),
            required,
        });
        Ok(())
    })
}

/// The number of buffers added so far (0 for NULL).
///
/// # Safety
/// `problem` must be NULL or a live problem.
#[no_mangle]
pub unsafe extern "C" fn memplan_problem_len(problem: *const memplan_problem) -> usize {
    problem.as_ref().map_or(0, |p| p.buffers.len())
}

/// Reads a problem from a CSV file (memplan's format) into `*out`. In the lean build
/// (without the `csv` feature, `scripts/lean-capi.sh`) it fails with `MEMPLAN_ERR_IO`,
/// saying so: add buffers with `memplan_problem_add_buffer` instead.
///
/// # Safety
/// `path` must be a NUL-terminated string; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn memplan_problem_read_csv(
    path: *const c_char,
    out: *mut *mut memplan_problem,
) -> memplan_status {
    guard(|| {
        if out.is_null() {
            return Err(arg_error("memplan_problem_read_csv: out is NULL"));
        }
        let path = string_arg(path, "memplan_problem_read_csv")?;
        let problem = read_csv(&path)?;
        let shares = problem.shares().to_vec();
        *out = Box::into_raw(Box::new(memplan_problem {
            buffers: problem.into_buffers(),
            shares,
        }));
        Ok(())
    })
}

#[cfg(feature = "csv")]
fn read_csv(path: &str) -> Result<memplan::Problem, (memplan_status, String)> {
    let bytes = std::fs::read(path).map_err(|e| (MEMPLAN_ERR_IO, format!("{path}: {e}")))?;
    memplan::io::read_problem_csv(&bytes, &memplan::io::ReadOptions::default()).map_err(|e| {
        let status = match e.kind {
            memplan::ReadErrorKind::Problem(_) => MEMPLAN_ERR_INVALID_PROBLEM,
            _ => MEMPLAN_ERR_IO,
        };
        (status, format!("{path}: {e}"))
    })
}

#[cfg(not(feature = "csv"))]
fn read_csv(path: &str) -> Result<memplan::Problem, (memplan_status, String)> {
    Err((
        MEMPLAN_ERR_IO,
        format!("{path}: this memplan library was built without CSV (the lean build); add buffers with memplan_problem_add_buffer"),
    ))
}

/// Plans `problem` with `options` (NULL: defaults) and stores the plan in `*out`.
/// Fails with `MEMPLAN_ERR_INFEASIBLE` or `MEMPLAN_ERR_NOT_FOUND` when no plan fits the
/// capacity; with `MEMPLAN_ERR_NOT_FOUND`, `*out` holds the lowest plan found, over the
/// capacity (free it as any plan), or NULL when none was made. The plan has passed the
/// independent checker (over the capacity: for everything but the capacity).
///
/// # Safety
/// `problem` must be a live problem, `options` NULL or valid, `out` writable.
#[no_mangle]
pub unsafe extern "C" fn memplan_plan(
    problem: *const memplan_problem,
    options: *const memplan_options,
    out: *mut *mut memplan_result,
) -> memplan_status {
    guard(|| {
        let p = problem_ref(problem, "memplan_plan")?;
        if out.is_null() {
            return Err(arg_error("memplan_plan: out is NULL"));
        }
        *out = std::ptr::null_mut();
        let o = options
            .as_ref()
            .copied()
            .unwrap_or(memplan_options_default());
        let planner: Planner = if o.planner.is_null() {
            Planner::Auto
        } else {
            string_arg(o.planner, "memplan_plan")?
                .parse()
                .map_err(|e: memplan::PlanError| arg_error(&e.to_string()))?
        };
        let problem = p.validated()?;
        let request = o.request("memplan_plan")?;
        let options = Options {
            planner,
            threads: o.threads as usize,
            ..Options::default()
        };
        let report = memplan::plan(&problem, &request, &options)
            .map_err(|e| (MEMPLAN_ERR_INTERNAL, e.to_string()))?;
        let max_load = report.max_load.get();
        // The one bound of every door (issues 27, 30): the max load or the fixed buffers' top,
        // raised by the cheap bounds and every proof (Report::lower_bound; an optimal
        // plan's height).
        let lower_bound = report.lower_bound.get();
        let result = |plan: memplan::Plan, optimal: bool| {
            Box::into_raw(Box::new(memplan_result {
                height: plan.height().get(),
                offsets: plan.into_offsets().into_iter().map(Offset::get).collect(),
                max_load,
                lower_bound,
                optimal,
                planner: CString::new(report.planner.name()).unwrap_or_default(),
                work: report.work,
                stopped_by: report.stopped_by,
                shares_taken: report.taken_shares.len(),
            }))
        };
        match report.outcome {
            Outcome::Optimal(plan) => *out = result(plan, true),
            Outcome::Feasible { plan, .. } => *out = result(plan, false),
            Outcome::Infeasible => {
                return Err((
                    MEMPLAN_ERR_INFEASIBLE,
                    format!("no plan fits under the capacity: the max load is {max_load}"),
                ))
            }
            // The lowest plan found, over the capacity, is stored too (issue 27): the
            // caller frees it, and may use or show it.
            Outcome::Unknown { best_so_far, .. } => {
                let best = best_so_far.as_ref().map_or(0, |p| p.height().get());
                if let Some(plan) = best_so_far {
                    *out = result(plan, false);
                }
                return Err((
                    MEMPLAN_ERR_NOT_FOUND,
                    format!("no plan found under the capacity; the best has height {best}"),
                ));
            }
        }
        Ok(())
    })
}

/// How many of the problem's shares the plan takes (0 for NULL).
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_shares_taken(plan: *const memplan_result) -> usize {
    plan.as_ref().map_or(0, |p| p.shares_taken)
}

/// Frees a plan. NULL does nothing.
///
/// # Safety
/// `plan` must be NULL or come from [`memplan_plan`], and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_free(plan: *mut memplan_result) {
    if !plan.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(plan))));
    }
}

/// The number of offsets in the plan (one per buffer; 0 for NULL).
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_len(plan: *const memplan_result) -> usize {
    plan.as_ref().map_or(0, |p| p.offsets.len())
}

/// The offsets, `memplan_result_len(plan)` of them, indexed like the buffers. The array is
/// owned by the plan (NULL for NULL).
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_offsets(plan: *const memplan_result) -> *const u64 {
    plan.as_ref()
        .map_or(std::ptr::null(), |p| p.offsets.as_ptr())
}

/// The plan's height, `max(offset + size)`.
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_height(plan: *const memplan_result) -> u64 {
    plan.as_ref().map_or(0, |p| p.height)
}

/// The problem's max load: no plan can be lower.
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_max_load(plan: *const memplan_result) -> u64 {
    plan.as_ref().map_or(0, |p| p.max_load)
}

/// The best proven lower bound on the height.
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_lower_bound(plan: *const memplan_result) -> u64 {
    plan.as_ref().map_or(0, |p| p.lower_bound)
}

/// 1 when the height equals the lower bound (the plan is optimal), else 0.
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_is_optimal(plan: *const memplan_result) -> i32 {
    plan.as_ref().map_or(0, |p| p.optimal as i32)
}

/// The name of the planner whose plan this is; owned by the plan.
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_planner(plan: *const memplan_result) -> *const c_char {
    plan.as_ref()
        .map_or(std::ptr::null(), |p| p.planner.as_ptr())
}

/// The work units spent making the plan (0 for NULL).
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_work(plan: *const memplan_result) -> u64 {
    plan.as_ref().map_or(0, |p| p.work)
}

/// Which limit stopped the call that made the plan: "work", "clock" or "cancel", a
/// static string; NULL when none did (or for NULL). A plan the clock stopped may differ
/// from run to run.
///
/// # Safety
/// `plan` must be NULL or a live plan.
#[no_mangle]
pub unsafe extern "C" fn memplan_result_stopped_by(plan: *const memplan_result) -> *const c_char {
    match plan.as_ref().and_then(|p| p.stopped_by) {
        Some(memplan::budget::Stop::Work) => c"work".as_ptr(),
        Some(memplan::budget::Stop::Clock) => c"clock".as_ptr(),
        Some(memplan::budget::Stop::Cancel) => c"cancel".as_ptr(),
        None => std::ptr::null(),
    }
}

/// Checks `count` offsets (indexed like the buffers) against the problem with the
/// independent checker. `MEMPLAN_OK` when valid; `MEMPLAN_ERR_INVALID_PLAN` with the
/// first violation in the message otherwise.
///
/// # Safety
/// `problem` must be a live problem; `offsets` must point to `count` values.
#[no_mangle]
pub unsafe extern "C" fn memplan_check(
    problem: *const memplan_problem,
    offsets: *const u64,
    count: usize,
) -> memplan_status {
    check_under(problem, offsets, count, None, "memplan_check")
}

/// [`memplan_check`], and every buffer ends at or below `capacity`.
///
/// # Safety
/// As [`memplan_check`].
#[no_mangle]
pub unsafe extern "C" fn memplan_check_fit(
    problem: *const memplan_problem,
    offsets: *const u64,
    count: usize,
    capacity: u64,
) -> memplan_status {
    check_under(
        problem,
        offsets,
        count,
        Some(Size(capacity)),
        "memplan_check_fit",
    )
}

unsafe fn check_under(
    problem: *const memplan_problem,
    offsets: *const u64,
    count: usize,
    capacity: Option<Size>,
    caller: &str,
) -> memplan_status {
    guard(|| {
        let p = problem_ref(problem, caller)?;
        if offsets.is_null() && count > 0 {
            return Err(arg_error(&format!("{caller}: offsets is NULL")));
        }
        let problem = p.validated()?;
        let raw: &[u64] = if count == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(offsets, count)
        };
        let offsets: Vec<Offset> = raw.iter().map(|&o| Offset(o)).collect();
        memplan::check_offsets(&problem, &offsets, capacity)
            .map(|_| ())
            .map_err(|f| (MEMPLAN_ERR_INVALID_PLAN, f.to_string()))
    })
}
