//! The planner on the problems memplan's ExecuTorch banked pass solves (issue 36):
//! `benchmarks/executorch-banked/*.csv`, nine models lowered by ExecuTorch 1.5.1 (written
//! by `crates/memplan-py/scripts/banked_table.py --dump`; each buffer's size rounded for
//! the banks, its accesses one write plus one read per user). On two maps (a TCM of
//! 256 KB or 1 MB, then 64 MB of SRAM):
//!
//! - the plan (checked by the planner's own call to the checker) keeps at least as much
//!   traffic in the TCM as a first-fit pass, largest buffer first, written here on its
//!   own: the shape of ExecuTorch's `BankedGreedy` on the first bank;
//! - the size presolve never lowers the proven bound, and raises it somewhere.

mod common;
use common::plan_across;
use std::path::{Path, PathBuf};

use memplan::io::{read_problem_csv, read_rows_csv, ReadOptions};
use memplan::memories::{MemoriesInput, MemoriesOptions, Memory, MemoryIdx};
use memplan::{Problem, Request};

const KB: u64 = 1024;
const ALIGNMENT: u64 = 16;

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/executorch-banked");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "the committed models are missing");
    files
}

/// The problem and each buffer's accesses (the `accesses` column). The committed files
/// pin nothing (the `memories` column is empty).
fn load(path: &Path) -> (Problem, Vec<u64>) {
    let text = std::fs::read(path).expect("readable");
    let problem = read_problem_csv(&text, &ReadOptions::default()).expect("a valid problem");
    let (names, rows) = read_rows_csv(&text).expect("readable rows");
    let column = |name: &str| names.iter().position(|h| h == name).expect(name);
    let (accesses, memories) = (column("accesses"), column("memories"));
    assert!(rows.iter().all(|(_, r)| r[memories].is_empty()), "a pin");
    let accesses = rows
        .iter()
        .map(|(_, r)| r[accesses].parse().expect("accesses"))
        .collect();
    (problem, accesses)
}

/// The traffic a first-fit pass keeps under `capacity`: buffers largest first (ties:
/// input order), each at the lowest aligned address where it overlaps no buffer already
/// kept that is live at the same time, kept when it ends under the capacity.
fn first_fit_largest_first(problem: &Problem, accesses: &[u64], capacity: u64) -> u64 {
    let bufs = problem.buffers();
    let mut order: Vec<usize> = (0..bufs.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(bufs[i].size.get()), i));
    let mut kept: Vec<(usize, u64)> = Vec::new();
    let mut traffic = 0;
    for i in order {
        let b = &bufs[i];
        let align = b.alignment.get().max(ALIGNMENT);
        let mut taken: Vec<(u64, u64)> = kept
            .iter()
            .filter(|&&(j, _)| b.live_together(&bufs[j]))
            .map(|&(j, at)| (at, at + bufs[j].size.get()))
            .collect();
        taken.sort_unstable();
        let mut at = 0;
        for (lo, hi) in taken {
            if at + b.size.get() <= lo {
                break;
            }
            at = at.max(hi.div_ceil(align) * align);
        }
        if at + b.size.get() <= capacity {
            kept.push((i, at));
            traffic += b.size.get() * accesses[i];
        }
    }
    traffic
}

fn run(problem: &Problem, accesses: &[u64], tcm: u64, presolve: bool) -> (u64, u64) {
    let memories = [
        Memory::new("tcm")
            .with_capacity(tcm)
            .with_alignment(ALIGNMENT),
        Memory::new("sram")
            .with_capacity(64 * KB * KB)
            .with_alignment(ALIGNMENT),
    ];
    let input = MemoriesInput {
        allowed: None,
        accesses: Some(accesses),
        traffic: None,
    };
    let options = MemoriesOptions {
        size_presolve: presolve,
        ..MemoriesOptions::default()
    };
    let report = plan_across(problem, &memories, &input, &Request::minimise(), &options)
        .expect("valid input");
    let plan = report.plan().expect("a plan");
    let first: u64 = (0..problem.len())
        .filter(|&i| plan.memory[i] == MemoryIdx(0))
        .map(|i| problem.buffers()[i].size.get() * accesses[i])
        .sum();
    assert_eq!(first, plan.traffic[0]);
    (first, report.lower_bound)
}

#[test]
fn the_first_bank_keeps_at_least_what_first_fit_largest_first_keeps() {
    for path in files() {
        let (problem, accesses) = load(&path);
        for tcm in [256 * KB, 1024 * KB] {
            let greedy = first_fit_largest_first(&problem, &accesses, tcm);
            let (ours, bound) = run(&problem, &accesses, tcm, true);
            // The figures, for comparing two builds (--nocapture).
            eprintln!(
                "{} tcm {tcm}: first-bank traffic {ours}, bound on the rest {bound}, first fit {greedy}",
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            assert!(
                ours >= greedy,
                "{} with {tcm} B: {ours} below first fit's {greedy}",
                path.display()
            );
        }
    }
}

#[test]
fn the_size_presolve_never_lowers_the_bound_and_raises_it_somewhere() {
    let mut raised = 0;
    for path in files() {
        let (problem, accesses) = load(&path);
        let (_, with) = run(&problem, &accesses, 256 * KB, true);
        let (_, without) = run(&problem, &accesses, 256 * KB, false);
        assert!(with >= without, "{}: {with} < {without}", path.display());
        raised += usize::from(with > without);
    }
    assert!(raised >= 3, "the presolve raised {raised} bounds");
}
