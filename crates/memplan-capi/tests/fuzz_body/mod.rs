//! The body of the `capi` fuzz target, shared by `tests/fuzz_smoke.rs` and
//! `fuzz/fuzz_targets/capi.rs` (which includes this file by path).
//!
//! It drives the C API as a C caller would: a random valid problem (from
//! `memplan::fuzzing`) is built call by call, sometimes with a broken argument mixed in
//! (NULL, an index out of range, an unknown planner, a zero size), then planned with a
//! random planner under a small time limit. Every call must return a status, never
//! unwind; a plan must pass both `memplan_check` and the library's checker.

use std::ffi::{CStr, CString};
use std::ptr;

use arbitrary::Unstructured;
use memplan::fuzzing::{arbitrary_problem, FuzzKnobs};
use memplan::{Offset, Planner, Problem, Size};
use memplan_capi::memplan_status::{self, *};
use memplan_capi::*;

fn last_error() -> String {
    // SAFETY: memplan_last_error returns a valid NUL-terminated string.
    unsafe { CStr::from_ptr(memplan_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Runs one C API session from the fuzzer's bytes.
pub fn capi(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(knobs) = FuzzKnobs::arbitrary_within(&mut u, 24) else {
        return;
    };
    let Ok((problem, capacity)) = arbitrary_problem(&mut u, &knobs) else {
        return;
    };
    let sabotage: u8 = u.int_in_range(0..=15).unwrap_or(0);
    // SAFETY: every pointer passed is NULL (on purpose, where the API allows it) or
    // comes from the API itself and is freed once.
    unsafe { session(&problem, capacity, sabotage, &mut u) }
}

/// The problem built through the C API.
unsafe fn build(problem: &Problem) -> *mut memplan_problem {
    let mut p = ptr::null_mut();
    assert_eq!(memplan_problem_new(&mut p), MEMPLAN_OK);
    assert_eq!(memplan_problem_new(ptr::null_mut()), MEMPLAN_ERR_ARGUMENT);
    for (i, b) in problem.buffers().iter().enumerate() {
        let id = CString::new(b.id.replace('\0', " ")).expect("no NUL left");
        let s = memplan_problem_add_buffer(
            p,
            id.as_ptr(),
            b.lifetime.start.0,
            b.lifetime.end.0,
            b.size.0,
            b.alignment.0,
        );
        assert_eq!(s, MEMPLAN_OK, "{}", last_error());
        if let Some(o) = b.fixed_offset {
            assert_eq!(memplan_problem_fix_offset(p, i, o.0), MEMPLAN_OK);
        }
        for g in &b.gaps {
            assert_eq!(
                memplan_problem_add_gap(p, i, g.start.0, g.end.0),
                MEMPLAN_OK
            );
        }
    }
    assert_eq!(memplan_problem_len(p), problem.len());
    p
}

/// One broken call, or a broken problem, some of the time: true when the problem itself
/// is now invalid (planning it must fail).
unsafe fn break_something(p: *mut memplan_problem, problem: &Problem, sabotage: u8) -> bool {
    let n = problem.len();
    let mut broken_problem = false;
    match sabotage {
        1 => assert_eq!(
            memplan_problem_fix_offset(p, n, 0),
            MEMPLAN_ERR_ARGUMENT,
            "index out of range"
        ),
        2 => assert_eq!(
            memplan_problem_add_gap(p, n + 7, 0, 1),
            MEMPLAN_ERR_ARGUMENT
        ),
        3 => assert_eq!(
            memplan_problem_add_buffer(p, ptr::null(), 0, 1, 1, 1),
            MEMPLAN_ERR_ARGUMENT
        ),
        4 => {
            let id = CString::new("zero").unwrap();
            assert_eq!(
                memplan_problem_add_buffer(p, id.as_ptr(), 0, 1, 0, 1),
                MEMPLAN_OK
            );
            broken_problem = true;
        }
        5 if n > 0 => {
            // A duplicate id.
            let id = CString::new(problem.buffers()[0].id.replace('\0', " ")).unwrap();
            assert_eq!(
                memplan_problem_add_buffer(p, id.as_ptr(), 0, 1, 1, 1),
                MEMPLAN_OK
            );
            broken_problem = true;
        }
        6 => {
            let bad = [0xffu8, 0xfe, 0];
            assert_eq!(
                memplan_problem_add_buffer(p, bad.as_ptr().cast(), 0, 1, 1, 1),
                MEMPLAN_ERR_ARGUMENT,
                "not UTF-8"
            );
        }
        _ => {}
    }
    broken_problem
}

unsafe fn session(
    problem: &Problem,
    capacity: Option<Size>,
    sabotage: u8,
    u: &mut Unstructured<'_>,
) {
    let p = build(problem);
    let n = problem.len();
    let broken_problem = break_something(p, problem, sabotage);
    let mut names: Vec<String> = Planner::all().iter().map(|p| p.name()).collect();
    names.push("no-such-planner".into());
    let name = &names[u.choose_index(names.len()).unwrap_or(names.len() - 1)];
    let cname = CString::new(name.as_str()).unwrap();
    let mut options = memplan_options_default();
    if u.arbitrary::<bool>().unwrap_or(true) {
        options.planner = cname.as_ptr();
    }
    // INFINITY is no limit; negative and NaN are argument errors.
    options.time_limit_seconds =
        [0.02, 0.05, f64::INFINITY, -1.0, f64::NAN][u.choose_index(5).unwrap_or(0)];
    options.threads = u.int_in_range(0..=2).unwrap_or(1);
    // The goal, said explicitly: fit 1 with the capacity (0 is a capacity too), else 0.
    if let Some(c) = capacity {
        options.fit = 1;
        options.capacity = c.0;
    }
    let slow = matches!(name.as_str(), "exact" | "telamalloc" | "boxing" | "auto");
    if options.planner.is_null() || slow {
        // Keep the search bounded: the C API has no node or step limit.
        options.time_limit_seconds = 0.02;
    }
    let mut result = ptr::null_mut();
    let status = memplan_plan(p, &options, &mut result);
    let unknown_planner = !options.planner.is_null() && name == "no-such-planner";
    let t = options.time_limit_seconds;
    if !unknown_planner && !broken_problem && (t.is_nan() || t < 0.0) {
        assert_eq!(status, MEMPLAN_ERR_ARGUMENT, "{}", last_error());
        assert!(last_error().contains("time_limit_seconds"));
        return;
    }
    check_status(
        problem,
        capacity,
        status,
        result,
        broken_problem,
        unknown_planner,
    );
    if status == MEMPLAN_OK {
        let offsets = std::slice::from_raw_parts(memplan_result_offsets(result), n);
        let checked = match capacity {
            Some(c) => memplan_check_fit(p, offsets.as_ptr(), n, c.0),
            None => memplan_check(p, offsets.as_ptr(), n),
        };
        assert_eq!(checked, MEMPLAN_OK, "{}", last_error());
        if n > 0 {
            // Moving the first buffer onto the second's place is wrong whenever the
            // two are live together and not both at the same fixed offset.
            let _ = memplan_check(p, offsets.as_ptr(), n - 1);
        }
        assert!(!memplan_result_planner(result).is_null());
    }
    assert_eq!(
        memplan_plan(p, &options, ptr::null_mut()),
        MEMPLAN_ERR_ARGUMENT
    );
    assert_eq!(
        memplan_check(p, ptr::null(), 3),
        MEMPLAN_ERR_ARGUMENT,
        "{}",
        last_error()
    );
    memplan_result_free(result);
    memplan_result_free(ptr::null_mut());
    memplan_problem_free(p);
    memplan_problem_free(ptr::null_mut());
}

unsafe fn check_status(
    problem: &Problem,
    capacity: Option<Size>,
    status: memplan_status,
    result: *mut memplan_result,
    broken_problem: bool,
    unknown_planner: bool,
) {
    let message = last_error();
    if unknown_planner {
        assert_eq!(status, MEMPLAN_ERR_ARGUMENT, "{message}");
        return;
    }
    if broken_problem {
        assert_eq!(status, MEMPLAN_ERR_INVALID_PROBLEM, "{message}");
        return;
    }
    match status {
        MEMPLAN_OK => {
            assert_eq!(memplan_result_len(result), problem.len());
            let offsets = result_offsets(result);
            let s = memplan::check_offsets(problem, &offsets, capacity)
                .unwrap_or_else(|f| panic!("the C API returned an invalid plan: {f}"));
            assert_eq!(s.height.0, memplan_result_height(result));
            let load = memplan_result_max_load(result);
            let lb = memplan_result_lower_bound(result);
            assert!(load <= lb && lb <= s.height.0);
            assert_eq!(memplan_result_is_optimal(result) == 1, lb == s.height.0);
        }
        MEMPLAN_ERR_INFEASIBLE | MEMPLAN_ERR_NOT_FOUND => {
            assert!(
                capacity.is_some(),
                "{status:?} without a capacity: {message}"
            );
            if status == MEMPLAN_ERR_INFEASIBLE || result.is_null() {
                assert!(result.is_null());
                return;
            }
            // Not found: the lowest plan, over the capacity and valid without it.
            let offsets = result_offsets(result);
            let s = memplan::check_offsets(problem, &offsets, None)
                .unwrap_or_else(|f| panic!("the C API's best plan is invalid: {f}"));
            assert!(capacity.is_some_and(|c| s.height > c));
        }
        other => panic!("unexpected {other:?}: {message}"),
    }
}

/// The offsets of a plan the C API returned.
unsafe fn result_offsets(result: *const memplan_result) -> Vec<Offset> {
    let n = memplan_result_len(result);
    std::slice::from_raw_parts(memplan_result_offsets(result), n)
        .iter()
        .map(|&o| Offset(o))
        .collect()
}
