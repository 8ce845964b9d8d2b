//! `memplan plan --planner boxing` with its flags writes a plan that `memplan check`
//! accepts, and the same seed gives the same plan.

mod common;

fn memplan(args: &[&str]) -> std::process::Output {
    common::memplan(args, None)
}

#[test]
fn boxing_flags_plan_and_check() {
    let dir = std::env::temp_dir().join(format!("memplan-boxing-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.csv");
    let input = input.to_str().unwrap();
    let out = memplan(&["gen", "--buffers", "1500", "--seed", "4", "-o", input]);
    assert!(out.status.success());
    let mut plans = Vec::new();
    for (k, extra) in [
        vec!["--compaction", "best-fit", "--no-plan-to-beat"],
        vec![
            "--compaction",
            "alternate",
            "--no-inherit-critical-times",
            "--no-calibrate-epsilon",
        ],
        vec!["--no-stop-losing-iterations", "--threads", "1"],
        vec!["--target-fragmentation", "1000000000"],
        vec!["--plan-to-beat", "size-then-lifetime"],
        vec!["--plan-to-beat", "none", "--polish-moves", "0"],
    ]
    .into_iter()
    .enumerate()
    {
        let plan = dir.join(format!("plan{k}.csv"));
        let plan = plan.to_str().unwrap().to_string();
        let mut args = vec![
            "plan",
            input,
            "--planner",
            "boxing",
            "--iterations",
            "3",
            "--seed",
            "11",
            "-o",
            &plan,
        ];
        args.extend(extra);
        let out = memplan(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("planner"));
        let out = memplan(&["check", input, &plan]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        plans.push(std::fs::read(&plan).unwrap());
    }
    // --no-stop-losing-iterations and one thread change the time, not the plan.
    let plan = dir.join("again.csv");
    let plan = plan.to_str().unwrap();
    let out = memplan(&[
        "plan",
        input,
        "--planner",
        "boxing",
        "--iterations",
        "3",
        "--seed",
        "11",
        "-o",
        plan,
    ]);
    assert!(out.status.success());
    assert_eq!(std::fs::read(plan).unwrap(), plans[2]);
    let out = memplan(&[
        "plan",
        input,
        "--planner",
        "boxing",
        "--compaction",
        "worst-fit",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "bad flag values are usage errors"
    );
    let out = memplan(&[
        "plan",
        input,
        "--planner",
        "boxing",
        "--plan-to-beat",
        "none",
        "--no-plan-to-beat",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--no-plan-to-beat is --plan-to-beat none"
    );
    std::fs::remove_dir_all(&dir).ok();
}
