//! Every planner's plan for every CSV in `benchmarks/` passes the checker.

use std::path::{Path, PathBuf};

use memplan::io::{read_problem_csv, CsvOptions};
use memplan::{check, max_load, plan, Options, Outcome, Planner};

fn csv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            csv_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "csv") {
            out.push(p);
        }
    }
}

fn benchmark_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks");
    let mut files = Vec::new();
    csv_files(&root, &mut files);
    assert!(files.len() >= 15, "the vendored benchmarks are present");
    files
}

#[test]
fn every_planner_on_every_benchmark_passes_the_checker() {
    for path in benchmark_files() {
        let bytes = std::fs::read(&path).unwrap();
        let problem = read_problem_csv(&bytes, &CsvOptions::default()).unwrap();
        let lower = max_load(&problem);
        for planner in Planner::all() {
            let searcher = matches!(
                planner,
                Planner::Exact | Planner::Boxing | Planner::Telamalloc
            );
            let options = Options {
                planner,
                verify: false,
                // The searchers are anytime: a short budget still yields a checked plan.
                time_limit: searcher.then(|| std::time::Duration::from_millis(500)),
                ..Options::default()
            };
            let report = plan(&problem, &options).unwrap();
            let p = match &report.outcome {
                Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => p,
                other => panic!("{}: {planner}: {other:?}", path.display()),
            };
            if let Err(f) = check(&problem, p) {
                panic!("{}: {planner}: {f}", path.display());
            }
            assert!(p.height() >= lower);
        }
    }
}

/// The default portfolio beats idealloc's best measured fragmentation (PEERS.md) on
/// resnet50 and iopddl-G.
#[test]
fn default_plan_beats_idealloc_on_resnet50_and_iopddl_g() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/idealloc");
    for (name, idealloc_best) in [
        ("somas-resnet50.csv", 5_028_056u64),
        ("iopddl-G.csv", 5_949_769),
    ] {
        let bytes = std::fs::read(root.join(name)).unwrap();
        let problem = read_problem_csv(&bytes, &CsvOptions::default()).unwrap();
        let report = plan(&problem, &Options::default()).unwrap();
        let p = report.outcome.plan().unwrap();
        let fragmentation = p.height().get() - report.max_load.get();
        assert!(
            fragmentation < idealloc_best,
            "{name}: {fragmentation} >= {idealloc_best}"
        );
    }
}
