//! Measurements of the bounds on the instances under `benchmarks/` (ignored tests; run in
//! release):
//!
//! ```text
//! MEMPLAN_BOUND_SECONDS=60 cargo test --release -p memplan --lib bounds::bench -- \
//!     --ignored --nocapture --test-threads 1
//! ```
//!
//! Prints, per instance: the max load, the best known height (`benchmarks/best-known.tsv`),
//! the cheap bound, the prover's bound on the components and with windows, each with its
//! time and search nodes. `MEMPLAN_BOUND_SECONDS` is each run's budget (default 10);
//! `MEMPLAN_BOUND_ONLY` a comma-separated list of instance names (e.g. `D,J`);
//! `MEMPLAN_BOUND_WINDOWS=0` skips the run with windows; `MEMPLAN_BOUND_EXTRA` adds
//! CSV files (absolute paths, comma-separated), e.g. `memplan gen --kind dense`'s.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{lower_bound_with, settle_with, ProverOptions, Settled};
use crate::analysis::max_load;
use crate::budget::Budget;
use crate::io::{read_problem_csv, ReadOptions};
use crate::types::{Problem, Size};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks")
}

fn seconds() -> f64 {
    std::env::var("MEMPLAN_BOUND_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0)
}

/// The instances: (name, path relative to benchmarks/, best known height).
fn instances() -> Vec<(String, String, u64)> {
    let only: Option<Vec<String>> = std::env::var("MEMPLAN_BOUND_ONLY")
        .ok()
        .map(|s| s.split(',').map(str::to_owned).collect());
    let tsv = std::fs::read_to_string(root().join("best-known.tsv")).expect("best-known.tsv");
    let mut out = Vec::new();
    for line in tsv
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("instance"))
    {
        let mut f = line.split('\t');
        let (Some(path), Some(best)) = (f.next(), f.next()) else {
            continue;
        };
        let name = path
            .rsplit('/')
            .next()
            .and_then(|n| n.split('.').next())
            .unwrap_or(path)
            .to_owned();
        if name == "example" || only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        out.push((name, path.to_owned(), best.parse().expect("a height")));
    }
    out.sort();
    // Extra files (absolute paths, best known height unknown: 0).
    if let Ok(extra) = std::env::var("MEMPLAN_BOUND_EXTRA") {
        for path in extra.split(',') {
            let name = path.rsplit('/').next().unwrap_or(path).to_owned();
            out.push((name, path.to_owned(), 0));
        }
    }
    out
}

fn read(path: &str) -> Problem {
    let bytes = std::fs::read(root().join(path)).expect("instance");
    read_problem_csv(&bytes, &ReadOptions::default()).expect("valid instance")
}

fn budget(seconds: f64) -> Budget {
    Budget::unlimited()
        .with_deadline(Instant::now() + Duration::from_secs_f64(seconds))
        .with_finish_first_plan(false)
}

#[test]
#[ignore = "measurement: run in release with --ignored --nocapture"]
fn bounds_on_the_benchmarks() {
    let secs = seconds();
    println!("budget {secs} s per run");
    println!(
        "{:<10} {:>14} {:>14} {:>14} {:>14} {:>8} {:>12} {:>14} {:>8}  provenance",
        "instance", "max load", "best known", "cheap", "search", "s", "nodes", "+windows", "s"
    );
    for (name, path, best) in instances() {
        let p = read(&path);
        let load = max_load(&p).0;
        let cheap = ProverOptions {
            search: false,
            ..ProverOptions::default()
        };
        let c = lower_bound_with(&p, &Budget::unlimited(), &cheap);
        let t = Instant::now();
        let s = lower_bound_with(&p, &budget(secs), &ProverOptions::default());
        let ts = t.elapsed().as_secs_f64();
        let windowed = ProverOptions {
            windows: vec![8, 32],
            ..ProverOptions::default()
        };
        let t = Instant::now();
        let w = if std::env::var("MEMPLAN_BOUND_WINDOWS").is_ok_and(|v| v == "0") {
            c.clone()
        } else {
            lower_bound_with(&p, &budget(secs), &windowed)
        };
        let tw = t.elapsed().as_secs_f64();
        println!(
            "{name:<10} {load:>14} {best:>14} {:>14} {:>14} {ts:>8.1} {:>12} {:>14} {tw:>8.1}  {:?} / {:?}",
            c.bound.0, s.bound.0, s.nodes, w.bound.0, s.provenance, w.provenance
        );
    }
}

#[test]
#[ignore = "measurement: run in release with --ignored --nocapture"]
fn capacities_of_d() {
    let secs = seconds();
    let p = read("minimalloc-challenging/D.1048576.csv");
    for cap in [990_000u64, 1_000_000, 1_010_000] {
        let t = Instant::now();
        let s = settle_with(&p, Size(cap), &budget(secs), &ProverOptions::default());
        let answer = match s {
            Settled::Infeasible(why) => format!("infeasible ({why:?})"),
            Settled::Fits(plan) => {
                format!("fits (height {})", crate::analysis::height_of(&p, &plan))
            }
            Settled::Unknown => "unknown".to_owned(),
        };
        println!("D at {cap}: {answer} in {:.1} s", t.elapsed().as_secs_f64());
    }
}
