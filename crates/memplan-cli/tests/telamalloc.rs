//! `memplan gen --kind …` and `memplan plan --planner telamalloc` end to end.

mod common;

fn memplan(args: &[&str]) -> std::process::Output {
    common::memplan(args, None)
}

#[test]
fn full_overlap_microbenchmark_fits_its_capacity_and_checks() {
    let dir = std::env::temp_dir().join(format!("memplan-tm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let problem = dir.join("fo.csv");
    let plan = dir.join("fo.plan.csv");
    let out = memplan(&[
        "gen",
        "--kind",
        "full-overlap",
        "--buffers",
        "40",
        "-o",
        problem.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The capacity is the sum of the sizes: read it back from the file.
    let text = std::fs::read_to_string(&problem).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "size").unwrap();
    let sum: u64 = lines
        .map(|l| l.split(',').nth(col).unwrap().parse::<u64>().unwrap())
        .sum();
    let cap = sum.to_string();
    let every_switch_off = [
        "--telamalloc-no-heuristics",
        "--telamalloc-no-lowest-position",
        "--telamalloc-no-phases",
        "--telamalloc-no-backjump",
        "--telamalloc-no-prepend-candidates",
        "--telamalloc-no-subtree-limit",
        "--telamalloc-no-section-inference",
        "--telamalloc-no-row-order",
        "--telamalloc-no-dominance",
        "--telamalloc-no-widen",
        "--telamalloc-no-canonical",
        "--telamalloc-no-complete-candidates",
        "--telamalloc-no-section-floors",
        "--telamalloc-no-restarts",
        "--telamalloc-no-tighten",
        "--telamalloc-no-dynamic-decomposition",
        "--telamalloc-no-greedy-first",
        "--telamalloc-no-independent-parts",
    ];
    let mut runs: Vec<&[&str]> = vec![&[], &["--telamalloc-no-lowest-position"], &every_switch_off];
    runs.extend(every_switch_off.chunks(1));
    for extra in runs {
        let mut args = vec![
            "plan",
            problem.to_str().unwrap(),
            "--planner",
            "telamalloc",
            "--capacity",
            &cap,
            "-o",
            plan.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = memplan(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = memplan(&[
            "check",
            problem.to_str().unwrap(),
            plan.to_str().unwrap(),
            "--capacity",
            &cap,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // One byte less cannot fit: the max load proves it (exit 5).
    let less = (sum - 1).to_string();
    let out = memplan(&[
        "plan",
        problem.to_str().unwrap(),
        "--planner",
        "telamalloc",
        "--capacity",
        &less,
        "-o",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(5));
    std::fs::remove_dir_all(&dir).ok();
}
