//! Instance tests, one per file under `benchmarks/` (`executorch-banked/`'s files are
//! planned across memories by `executorch_banks.rs` too): every planner's plan passes the
//! checker and lies at or above the max load, and the greedy portfolio (deterministic)
//! gives the height that `benchmarks/best-known.tsv` expects, never below the best known
//! one.

use std::path::{Path, PathBuf};

use memplan::io::{read_problem_csv, ReadOptions};
use memplan::{check, max_load, plan, Budget, Options, Outcome, Planner, Request};

fn benchmarks() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks")
}

/// The best known and the expected greedy height of `instance` (relative to
/// `benchmarks/`), from `benchmarks/best-known.tsv`.
fn reference(instance: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(benchmarks().join("best-known.tsv")).unwrap();
    let row = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f[0] == instance)
        .unwrap_or_else(|| panic!("{instance} is not in benchmarks/best-known.tsv"));
    (row[1].parse().unwrap(), row[2].parse().unwrap())
}

/// Plans `instance` with every planner (see the module doc).
fn instance(instance: &str) {
    let (best_known, greedy_height) = reference(instance);
    let bytes = std::fs::read(benchmarks().join(instance)).unwrap();
    let problem = read_problem_csv(&bytes, &ReadOptions::default()).unwrap();
    let lower = max_load(&problem);
    for planner in Planner::all() {
        let searcher = matches!(
            planner,
            Planner::Exact | Planner::Boxing | Planner::Telamalloc | Planner::Auto
        );
        let options = Options {
            planner,
            verify: false,
            ..Options::default()
        };
        // The searchers are anytime: a short budget still yields a checked plan.
        // The greedy planners end when done: no clock.
        let budget = if searcher {
            Budget::new().with_time_limit(std::time::Duration::from_millis(500))
        } else {
            Budget::unlimited()
        };
        let request = Request::minimise().with_budget(budget);
        let report = plan(&problem, &request, &options).unwrap();
        let p = match &report.outcome {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => p,
            other => panic!("{instance}: {planner}: {other:?}"),
        };
        if let Err(f) = check(&problem, p, None) {
            panic!("{instance}: {planner}: {f}");
        }
        assert!(p.height() >= lower);
        if planner == Planner::GreedyPortfolio {
            let h = p.height().get();
            assert_eq!(
                h, greedy_height,
                "{instance}: the greedy portfolio's height"
            );
            assert!(
                h >= best_known,
                "{instance}: {h} beats the best known height"
            );
        }
    }
}

macro_rules! instance_tests {
    ($($name:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $name() {
                instance($file);
            }
        )*

        /// Every CSV under `benchmarks/` has its test above.
        #[test]
        fn every_benchmark_file_has_an_instance_test() {
            let listed = [$($file),*];
            let mut files = Vec::new();
            for dir in std::fs::read_dir(benchmarks()).unwrap() {
                let dir = dir.unwrap().path();
                if !dir.is_dir() {
                    continue;
                }
                for f in std::fs::read_dir(&dir).unwrap() {
                    let f = f.unwrap().path();
                    if f.extension().is_some_and(|e| e == "csv") {
                        let rel = f.strip_prefix(benchmarks()).unwrap();
                        files.push(rel.to_string_lossy().replace('\\', "/"));
                    }
                }
            }
            assert!(files.len() >= 15, "the vendored benchmarks are present");
            for f in files {
                assert!(listed.contains(&f.as_str()), "{f} has no instance test");
            }
        }
    };
}

instance_tests! {
    minimalloc_a => "minimalloc-challenging/A.1048576.csv",
    minimalloc_b => "minimalloc-challenging/B.1048576.csv",
    minimalloc_c => "minimalloc-challenging/C.1048576.csv",
    minimalloc_d => "minimalloc-challenging/D.1048576.csv",
    minimalloc_e => "minimalloc-challenging/E.1048576.csv",
    minimalloc_f => "minimalloc-challenging/F.1048576.csv",
    minimalloc_g => "minimalloc-challenging/G.1048576.csv",
    minimalloc_h => "minimalloc-challenging/H.1048576.csv",
    minimalloc_i => "minimalloc-challenging/I.1048576.csv",
    minimalloc_j => "minimalloc-challenging/J.1048576.csv",
    minimalloc_k => "minimalloc-challenging/K.1048576.csv",
    minimalloc_example => "minimalloc-challenging/example.12.csv",
    idealloc_iopddl_g => "idealloc/iopddl-G.csv",
    idealloc_iopddl_s => "idealloc/iopddl-S.csv",
    idealloc_somas_resnet50 => "idealloc/somas-resnet50.csv",
    executorch_banked_decoder_decode => "executorch-banked/decoder_decode.csv",
    executorch_banked_decoder_prefill => "executorch-banked/decoder_prefill.csv",
    executorch_banked_efficientnet_b0 => "executorch-banked/efficientnet_b0.csv",
    executorch_banked_googlenet => "executorch-banked/googlenet.csv",
    executorch_banked_mobilenet_v2 => "executorch-banked/mobilenet_v2.csv",
    executorch_banked_mobilenet_v3_small => "executorch-banked/mobilenet_v3_small.csv",
    executorch_banked_resnet18 => "executorch-banked/resnet18.csv",
    executorch_banked_shufflenet_v2_x1_0 => "executorch-banked/shufflenet_v2_x1_0.csv",
    executorch_banked_squeezenet1_1 => "executorch-banked/squeezenet1_1.csv",
}

/// The default portfolio beats idealloc's best measured fragmentation (BENCHMARKS.md §3) on
/// resnet50 and iopddl-G.
#[test]
fn default_plan_beats_idealloc_on_resnet50_and_iopddl_g() {
    let root = benchmarks().join("idealloc");
    for (name, idealloc_best) in [
        ("somas-resnet50.csv", 5_028_056u64),
        ("iopddl-G.csv", 5_949_769),
    ] {
        let bytes = std::fs::read(root.join(name)).unwrap();
        let problem = read_problem_csv(&bytes, &ReadOptions::default()).unwrap();
        let report = plan(&problem, &Request::minimise(), &Options::default()).unwrap();
        let p = report.outcome.plan().unwrap();
        let fragmentation = p.height().get() - report.max_load.get();
        assert!(
            fragmentation < idealloc_best,
            "{name}: {fragmentation} >= {idealloc_best}"
        );
    }
}
