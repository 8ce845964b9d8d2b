//! `memplan plan --exact` and `--capacity` through the binary: summaries and exit codes.

use std::process::Command;

fn memplan(args: &[&str], csv: &str) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!(
        "memplan-exact-test-{}-{}",
        std::process::id(),
        args.join("_").replace(['-', ' ', '/'], "")
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("in.csv");
    std::fs::write(&input, csv).expect("write input");
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg("plan")
        .args(args)
        .arg("-o")
        .arg(dir.join("out.csv"))
        .arg(&input)
        .output()
        .expect("runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Max load 2, but the aligned `x` and the fixed `w` leave no plan under 3.
const FORCED_APART: &str = "id,lower,upper,size,alignment,offset\n\
x,0,3,2,2,\ny,0,1,1,,\nz,2,3,1,,\nw,1,2,1,,1\n";

const PAPER: &str = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";

#[test]
fn proven_infeasible_capacity_exits_5() {
    let (code, err) = memplan(&["--exact", "--capacity", "3"], FORCED_APART);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("no plan fits under 3: proved"), "{err}");
}

#[test]
fn node_limit_without_proof_exits_6() {
    // A challenging instance that greedy does not fit, one node per run.
    let csv = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../benchmarks/minimalloc-challenging/A.1048576.csv"
    ))
    .expect("vendored benchmark");
    let (code, err) = memplan(
        &[
            "--capacity",
            "1048576",
            "--node-limit",
            "1",
            "--time-limit",
            "inf",
        ],
        &csv,
    );
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("no plan found under 1,048,576"), "{err}");
    // The best plan, over the capacity, is still written, and the checker accepts it
    // without the capacity.
    assert!(
        err.contains("the best plan, over capacity, is written to"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!(
        "memplan-exact-test-{}-{}",
        std::process::id(),
        "--capacity_1048576_--node-limit_1_--time-limit_inf".replace(['-', ' ', '/'], "")
    ));
    let check = |capacity: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_memplan"));
        cmd.arg("check")
            .arg(dir.join("in.csv"))
            .arg(dir.join("out.csv"));
        if let Some(c) = capacity {
            cmd.args(["--capacity", c]);
        }
        cmd.output().expect("runs").status.code()
    };
    assert_eq!(check(None), Some(0));
    assert_eq!(
        check(Some("1048576")),
        Some(4),
        "the written plan is over the capacity"
    );
}

#[test]
fn minimise_summary_reports_bound_and_gap() {
    let (code, err) = memplan(&["--exact"], PAPER);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("height 12; proven ≥ 12; gap 0.00%"), "{err}");
}

#[test]
fn every_ablation_flag_is_accepted() {
    let (code, err) = memplan(
        &[
            "--exact",
            "--capacity",
            "12",
            "--no-canonical",
            "--no-section-inference",
            "--no-monotonic-floor",
            "--no-unallocated-floor",
            "--no-dominance",
            "--no-decomposition",
            "--no-static-preordering",
            "--no-tighten",
            "--preorders",
            "busiest-section-then-area,largest-first",
        ],
        PAPER,
    );
    assert_eq!(code, 0, "{err}");
    let (code, err) = memplan(&["--exact", "--preorders", "nope"], PAPER);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("'nope'"), "{err}");
}
