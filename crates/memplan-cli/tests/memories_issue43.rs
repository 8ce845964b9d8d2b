//! Several memories, every one bounded (issue 43), through the binary: a plan where a
//! later bounded memory would overflow, the pooled-capacity proof (exit 5), each
//! memory's bound and gap, the checker's count, and the frictions a new user met.

use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("memplan-cli-issue43-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn memplan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn file(name: &str, text: &str) -> String {
    let path = dir().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

const FOUR: &str = "id,lower,upper,size,accesses\na,0,1,79,9\nb,0,1,87,2\nc,0,1,45,2\nd,0,1,56,1\n";

#[test]
fn four_buffers_get_a_plan_where_the_first_memory_alone_would_overflow_the_second() {
    let four = file("four.csv", FOUR);
    let out = dir().join("four.plan.csv");
    let out = out.to_str().unwrap();
    let (code, _, err) = memplan(&["plan", &four, "--memories", "m1:120,m2:170", "-o", out]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("every memory optimal"), "{err}");
    let plan = std::fs::read_to_string(out).unwrap();
    // {c, d} in m1 and {a, b} in m2: the only split that fits both.
    for row in [
        "a,0,1,79,9,m2",
        "b,0,1,87,2,m2",
        "c,0,1,45,2,m1",
        "d,0,1,56,1,m1",
    ] {
        assert!(plan.contains(row), "{plan}");
    }
    let (code, stdout, err) = memplan(&["check", &four, out, "--memories", "m1:120,m2:170"]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.starts_with("ok: 4 buffers"), "{stdout}");
}

#[test]
fn buffers_larger_than_their_memories_together_exit_5_naming_time_buffers_and_memories() {
    let three = file(
        "three200.csv",
        "id,lower,upper,size\na,0,1,200\nb,0,1,200\nc,0,1,200\n",
    );
    let out = dir().join("three200.plan.csv");
    let out = out.to_str().unwrap();
    let (code, _, err) = memplan(&["plan", &three, "--memories", "fast:256,mid:256", "-o", out]);
    assert_eq!(code, 5, "{err}");
    for part in [
        "at time 0",
        "'fast', 'mid'",
        "'a', 'b', 'c'",
        "need 600 bytes",
        "512",
    ] {
        assert!(err.contains(part), "{part}: {err}");
    }
    // A third memory for one of them: now a plan exists.
    let (code, _, err) = memplan(&[
        "plan",
        &three,
        "--memories",
        "fast:256,mid:256,slow:200",
        "-o",
        out,
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn the_summary_gives_each_memory_its_bound_and_gap() {
    let four = file("four_json.csv", FOUR);
    let out = dir().join("four_json.plan.json");
    let out = out.to_str().unwrap();
    let (code, _, err) = memplan(&[
        "plan",
        &four,
        "--memories",
        "m1:120,m2:170",
        "-o",
        out,
        "--summary-json",
    ]);
    assert_eq!(code, 0, "{err}");
    let summary: serde_json::Value = serde_json::from_str(err.trim()).unwrap();
    for m in summary["memories"].as_array().unwrap() {
        assert_eq!(m["traffic_bound"], m["traffic"], "{m}");
        assert_eq!(m["gap"], 0, "{m}");
    }
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    assert_eq!(plan["memories"][0]["traffic_bound"], 146);
}

#[test]
fn the_check_counts_each_fault_once() {
    let problem = file(
        "three.csv",
        "id,lower,upper,size,memories,accesses\na,0,3,4,,5\nb,0,2,4,ocram|dram,\nc,1,3,4,,\nd,0,3,4,tcm,2\ne,2,4,8,dram,\nf,0,4,2,,\n",
    );
    // c moved into a full tcm: it overlaps a and d there.
    let plan = file(
        "three.bad.csv",
        "id,memory,offset\na,tcm,2\nb,ocram,0\nc,tcm,4\nd,tcm,6\ne,dram,0\nf,tcm,0\n",
    );
    let (code, _, err) = memplan(&[
        "check",
        &problem,
        &plan,
        "--memories",
        "tcm:10,ocram:8:4,dram",
    ]);
    assert_eq!(code, 4, "{err}");
    let shown = err.lines().filter(|l| l.starts_with("violation:")).count();
    assert!(shown >= 2, "{err}");
    assert!(
        err.contains(&format!("invalid plan: {shown} violation(s)")),
        "{err}"
    );
    assert!(!err.contains("more violations"), "{err}");
}

#[test]
fn memories_is_not_a_command_and_says_which_is() {
    let (code, _, err) = memplan(&["memories", "x.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("plan FILE --memories"), "{err}");
}

#[test]
fn plan_without_memories_warns_that_it_ignores_their_columns() {
    let problem = file(
        "columns.csv",
        "id,lower,upper,size,memories,accesses\na,0,2,4,tcm,3\nb,1,3,4,,\n",
    );
    let out = dir().join("columns.plan.csv");
    let (code, _, err) = memplan(&["plan", &problem, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning") && err.contains("'memories' and 'accesses' columns"),
        "{err}"
    );
    let (_, _, quiet) = memplan(&["plan", &problem, "-o", out.to_str().unwrap(), "-q"]);
    assert!(!quiet.contains("warning"), "{quiet}");
    // Empty columns mean nothing: no warning.
    let empty = file(
        "empty_columns.csv",
        "id,lower,upper,size,memories\na,0,2,4,\n",
    );
    let (_, _, err) = memplan(&["plan", &empty, "-o", out.to_str().unwrap()]);
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn an_input_memory_column_is_an_error_not_overwritten() {
    let problem = file(
        "given.csv",
        "id,lower,upper,size,memory\na,0,1,10,\nb,0,1,10,mid\n",
    );
    let out = dir().join("given.plan.csv");
    let (code, _, err) = memplan(&[
        "plan",
        &problem,
        "--memories",
        "fast:100,mid:100",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("line 3, column 'memory': 'mid'") && err.contains("'memories' column"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn check_without_memories_says_to_give_them() {
    let four = file("four_check.csv", FOUR);
    let plan = file(
        "four_check.plan.csv",
        "id,memory,offset\na,m2,87\nb,m2,0\nc,m1,56\nd,m1,0\n",
    );
    let (code, _, err) = memplan(&["check", &four, &plan]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a plan with a memory column") && err.contains("or --memories"),
        "{err}"
    );
}

#[test]
fn stats_with_memories_gives_each_memory_and_the_pooled_verdict() {
    let four = file("four_stats.csv", FOUR);
    let (code, stdout, err) = memplan(&["stats", &four, "--memories", "m1:120,m2:170"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("memory m1") && stdout.contains("traffic up to 1,031"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no set of memories is overfull"),
        "{stdout}"
    );
    let (_, stdout, _) = memplan(&["stats", &four, "--memories", "m1:100,m2:100"]);
    assert!(
        stdout.contains("no plan exists: at time 0") && stdout.contains("267 bytes"),
        "{stdout}"
    );
}

#[test]
fn alignments_need_not_be_powers_of_two() {
    // Buffer alignment 2, memory alignment 3: offsets are multiples of 6.
    let problem = file(
        "align.csv",
        "id,lower,upper,size,alignment\na,0,2,5,2\nb,0,2,5,2\nc,1,3,4,1\n",
    );
    let out = dir().join("align.plan.csv");
    let out = out.to_str().unwrap();
    let (code, _, err) = memplan(&[
        "plan",
        &problem,
        "--memories",
        "tcm:64:3,sram::6",
        "-o",
        out,
    ]);
    assert_eq!(code, 0, "{err}");
    let plan = std::fs::read_to_string(out).unwrap();
    for line in plan.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let offset: u64 = f[f.len() - 1].parse().unwrap();
        let aligned = if f[4] == "2" { 6 } else { 3 };
        assert_eq!(offset % aligned, 0, "{line}");
    }
    let (code, _, err) = memplan(&["check", &problem, out, "--memories", "tcm:64:3,sram::6"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_json_memory_without_a_name_says_so() {
    let problem = file(
        "noname.json",
        r#"{"memories": [{"capacity": 10}], "buffers": [{"id": "a", "start": 0, "end": 1, "size": 4}]}"#,
    );
    let out = dir().join("noname.plan.json");
    let (code, _, err) = memplan(&["plan", &problem, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("memories[0]: missing field 'name'"), "{err}");
}

/// docs/memories.md: the budget is the work limit (not "1 s"), and no sentence ends in a
/// colon followed by nothing (a paragraph, not the list or code it announces).
#[test]
fn the_memories_guide_states_the_budget_and_finishes_its_sentences() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/memories.md");
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        !text.contains("default 1 s"),
        "the default budget is a work limit"
    );
    assert!(text.contains("`--work-limit`, default 80,000 units"));
    let lines: Vec<&str> = text.lines().collect();
    let mut code = false;
    for (k, line) in lines.iter().enumerate() {
        if line.starts_with("```") {
            code = !code;
        }
        if code || !line.trim_end().ends_with(':') {
            continue;
        }
        if lines.get(k + 1).is_some_and(|l| !l.trim().is_empty()) {
            continue; // the sentence goes on, or its list starts at once
        }
        let next = lines[k + 1..].iter().find(|l| !l.trim().is_empty());
        assert!(
            next.is_some_and(|l| l.starts_with("```") || l.starts_with("- ") || l.starts_with('|')),
            "docs/memories.md line {}: '{line}' announces nothing",
            k + 1
        );
    }
}

/// The hidden ablation switches reach the planner: without the joint search and the
/// slowest-first fallback, four.csv finds no plan (the issue's exit 6); without the
/// pooled proof, the joint search proves the three 200-byte buffers impossible by
/// exhaustion; without both, nothing proves it (exit 6).
#[test]
fn the_ablation_switches_reach_the_planner() {
    let four = file("four_ablation.csv", FOUR);
    let three = file(
        "three200_ablation.csv",
        "id,lower,upper,size\na,0,1,200\nb,0,1,200\nc,0,1,200\n",
    );
    let out = dir().join("ablation.plan.csv");
    let out = out.to_str().unwrap();
    let run = |input: &str, spec: &str, flags: &[&str]| {
        let mut args = vec!["plan", input, "--memories", spec, "-o", out];
        args.extend_from_slice(flags);
        memplan(&args)
    };
    let (code, _, err) = run(&four, "m1:120,m2:170", &["--spill-no-joint"]);
    assert_eq!(code, 0, "the slowest-first fallback: {err}");
    assert!(
        err.contains("memory gaps"),
        "not proven without the joint search: {err}"
    );
    let no_repair = ["--spill-no-joint", "--spill-no-slowest-first"];
    let (code, _, err) = run(&four, "m1:120,m2:170", &no_repair);
    assert_eq!(code, 6, "{err}");
    let (code, _, err) = run(&three, "fast:256,mid:256", &["--spill-no-pooled-proof"]);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("exhaustive search"), "{err}");
    let no_proof = ["--spill-no-pooled-proof", "--spill-no-joint"];
    let (code, _, err) = run(&three, "fast:256,mid:256", &no_proof);
    assert_eq!(code, 6, "{err}");
}
