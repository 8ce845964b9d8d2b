//! Regression tests of issue 27 ("the first hour, again"), command-line side.

mod common;

use common::{memplan, thousands};
use std::path::PathBuf;
use std::process::Output;

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-issue27-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn temp_file(name: &str, content: &[u8]) -> PathBuf {
    let path = temp_dir().join(name);
    std::fs::write(&path, content).unwrap();
    path
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The README's JSON example: a fixed buffer whose top (20) is above the max load (4).
const FIXED: &str = r#"{"buffers": [{"id": "a", "start": 0, "end": 3, "size": 4},
 {"id": "b", "start": 3, "end": 9, "size": 4, "alignment": 8, "fixed_offset": 16, "gaps": [[5, 7]]}]}"#;

/// §1: one lower bound (the max load, or the fixed buffers' top when higher), the same
/// in the text summary, `--summary-json` and the plan JSON, with or without a capacity;
/// the fragmentation and `optimal` measured against it. Before: `lower_bound: 4` in the
/// JSONs, `proven ≥ 20` in the text, and with a capacity `optimal: false` and
/// `fragmentation 16 (400.00%)`.
#[test]
fn issue_27_one_lower_bound_in_every_output() {
    let input = temp_file("fixed.json", FIXED.as_bytes());
    let input = input.to_str().unwrap();
    for capacity in [None, Some("128")] {
        let mut args = vec!["plan", input, "-o", "-"];
        if let Some(c) = capacity {
            args.extend(["--capacity", c]);
        }
        let text = memplan(&args, None);
        assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
        let plan = json(&String::from_utf8_lossy(&text.stdout));
        assert_eq!(plan["lower_bound"], 20, "{capacity:?}: {plan}");
        assert_eq!(plan["optimal"], true, "{capacity:?}: {plan}");
        let line = stderr(&text);
        assert!(line.contains("fragmentation 0 (0.00%)"), "{line}");
        assert!(line.contains("; optimal"), "{line}");
        if capacity.is_none() {
            assert!(line.contains("proven ≥ 20;"), "{line}");
        }
        args.push("--summary-json");
        let summary = memplan(&args, None);
        let summary = json(&stderr(&summary));
        assert_eq!(summary["lower_bound"], 20, "{summary}");
        assert_eq!(summary["fragmentation"], 0, "{summary}");
        assert_eq!(summary["optimal"], true, "{summary}");
        // Milliseconds to the microsecond, not 0.20074399999999998.
        let ms = summary["elapsed_ms"].to_string();
        assert!(ms.split('.').nth(1).is_none_or(|d| d.len() <= 3), "{ms}");
    }
    let plan = temp_file("fixed.plan.json", &memplan(&["plan", input], None).stdout);
    let check = memplan(&["check", input, plan.to_str().unwrap()], None);
    let out = String::from_utf8_lossy(&check.stdout);
    assert!(out.contains("fragmentation 0 (0.00%)"), "{out}");
}

/// §1: exit 6 writes (and reports) the lowest plan any stage found, the exact search's
/// included. Before: the greedy plan, 1,291,264, on D under 1,000,000. Without a clock
/// (node limits instead), so that a loaded machine cannot change the answer; with the
/// default second the exact side of the race lowers it the same way.
#[test]
fn issue_27_exit_6_writes_a_plan_lower_than_greedys() {
    let out = temp_dir().join("D6.plan.csv");
    let run = memplan(
        &[
            "plan",
            "benchmarks/minimalloc-challenging/D.1048576.csv",
            "--capacity",
            "1000000",
            "--time-limit",
            "inf",
            "--node-limit",
            "1000",
            "-o",
            out.to_str().unwrap(),
            "--summary-json",
        ],
        None,
    );
    assert_eq!(run.status.code(), Some(6), "{}", stderr(&run));
    let summary = stderr(&run);
    let summary = json(summary.lines().next().unwrap());
    let height = summary["height"].as_u64().unwrap();
    assert!(height < 1_291_264, "greedy's plan: {summary}");
    // No higher than a minimise run with the same limits: no stage's best is lost.
    let minimise = memplan(
        &[
            "plan",
            "benchmarks/minimalloc-challenging/D.1048576.csv",
            "--time-limit",
            "inf",
            "--node-limit",
            "1000",
            "-o",
            "-",
            "--summary-json",
        ],
        None,
    );
    let minimised = json(stderr(&minimise).lines().next().unwrap());
    assert!(
        height <= minimised["height"].as_u64().unwrap(),
        "{summary} against {minimised}"
    );
    // The plan written is the one reported.
    let check = memplan(
        &[
            "check",
            "benchmarks/minimalloc-challenging/D.1048576.csv",
            out.to_str().unwrap(),
        ],
        None,
    );
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(
        text.contains(&format!("height {}", thousands(height))),
        "{text}"
    );
}

/// §1: every numeric option of `render` and `gen` has a range, and a value outside it
/// is a usage error (exit 2), not an abort. Before: `render --width 4000000000` aborted
/// allocating 32 GB (exit 134), `gen --buffers 100000000000` too, and `gen --kind dense
/// --max-size 18446744073709551615` panicked on an overflow (exit 101). (`tiles` and
/// `share` have no numeric options.)
#[test]
fn issue_27_numeric_options_out_of_range_are_usage_errors() {
    let example = "benchmarks/minimalloc-challenging/example.12.csv";
    let plan = temp_dir().join("example.plan.csv");
    let plan = plan.to_str().unwrap();
    assert_eq!(
        memplan(&["plan", example, "-o", plan], None).status.code(),
        Some(0)
    );
    let out = temp_dir().join("out");
    let out = out.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["render", example, plan, "--width", "4000000000"],
        &["render", example, plan, "--width", "199"],
        &["render", example, plan, "--height", "4000000000"],
        &["render", example, plan, "--height", "-1"],
        &["gen", "--buffers", "100000000000"],
        &["gen", "--buffers", "0"],
        &["gen", "--tiled", "--blocks", "100000000000"],
        &["gen", "--tiled", "--on-chip", "0"],
        &["gen", "--tiled", "--on-chip", "18446744073709551615"],
        &[
            "gen",
            "--kind",
            "dense",
            "--max-size",
            "18446744073709551615",
        ],
        &["gen", "--kind", "dense", "--min-size", "0"],
        &[
            "gen",
            "--kind",
            "dense",
            "--min-size",
            "100",
            "--max-size",
            "10",
        ],
        &["gen", "--kind", "dense", "--steps", "100000000000000"],
        &["gen", "--kind", "dense", "--buffers", "10", "--live", "11"],
    ];
    for args in cases {
        let mut args = args.to_vec();
        args.extend(["-o", out]);
        let run = memplan(&args, None);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The edges of the ranges are accepted.
    for args in [
        &[
            "render", example, plan, "--width", "20000", "--height", "150",
        ][..],
        &["gen", "--buffers", "1"],
        &[
            "gen",
            "--kind",
            "dense",
            "--buffers",
            "10",
            "--max-size",
            "68719476736",
        ],
    ] {
        let mut args = args.to_vec();
        args.extend(["-o", out]);
        let run = memplan(&args, None);
        assert_eq!(run.status.code(), Some(0), "{args:?}: {}", stderr(&run));
    }
}

/// §2 cosmetics: `gen` says what it wrote (before: silent), and one buffer is "1 buffer".
#[test]
fn issue_27_gen_says_what_it_wrote_and_one_buffer_is_singular() {
    let out = temp_dir().join("one.csv");
    let out = out.to_str().unwrap();
    let run = memplan(&["gen", "--buffers", "1", "-o", out], None);
    assert_eq!(
        stderr(&run).trim_end(),
        format!("memplan: wrote 1 buffer (CSV) to {out}")
    );
    // To stdout, nothing but the problem.
    let run = memplan(&["gen", "--buffers", "3"], None);
    assert!(stderr(&run).is_empty(), "{}", stderr(&run));
    let run = memplan(&["plan", out, "-o", "-"], None);
    let err = stderr(&run);
    assert!(err.starts_with("memplan: 1 buffer; max load"), "{err}");
    let check = temp_dir().join("one.plan.csv");
    std::fs::write(&check, &run.stdout).unwrap();
    let run = memplan(&["check", out, check.to_str().unwrap()], None);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.starts_with("ok: 1 buffer; height"), "{text}");
}

/// The section headings of a help text: its unindented lines that end with ':'.
fn headings(help: &str) -> Vec<String> {
    help.lines()
        .filter(|l| !l.starts_with(' ') && l.ends_with(':'))
        .map(str::to_owned)
        .collect()
}

/// §2: the headings of `plan --help` and `--help-all` are pinned. Before: a
/// `next_help_heading` carried over from telamalloc.rs put `--no-check`, `--quiet`,
/// `--format` and five more under "TelaMalloc (--planner telamalloc)", and `--help-all`
/// named TelaMalloc twice.
#[test]
fn issue_27_plan_help_headings_are_pinned() {
    let help = String::from_utf8(memplan(&["plan", "--help"], None).stdout).unwrap();
    assert_eq!(
        headings(&help),
        ["Arguments:", "Options:", "Exit codes:"],
        "{help}"
    );
    let options = &help[help.find("Options:").unwrap()..help.find("Exit codes:").unwrap()];
    for flag in [
        "--no-check",
        "--output-format",
        "--quiet",
        "--summary-json",
        "--help-all",
        "--lifetimes",
        "--format",
        "--alignment",
    ] {
        assert!(options.contains(flag), "{flag} under Options: {help}");
    }
    let all = String::from_utf8(memplan(&["plan", "--help-all"], None).stdout).unwrap();
    assert_eq!(
        headings(&all),
        [
            "Arguments:",
            "Options:",
            "Several memories: ablations and tuning:",
            "Exact search: ablations and tuning:",
            "TelaMalloc: ablations and tuning:",
            "Boxing: ablations and tuning:",
            "Lower bounds: ablations and tuning:",
            "Exit codes:",
        ],
        "{all}"
    );
}

/// §2: `memplan --help` names `--help-all` and shows a problem file; `check` and `stats`
/// say they read CSV or JSON (before: "The problem CSV").
#[test]
fn issue_27_top_help_shows_a_problem_and_help_all() {
    let help = String::from_utf8(memplan(&["--help"], None).stdout).unwrap();
    for needle in [
        "--help-all",
        "id,lower,upper,size",
        "\"buffers\"",
        "Exit codes:",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
    for command in ["check", "stats", "share"] {
        let help = String::from_utf8(memplan(&[command, "--help"], None).stdout).unwrap();
        assert!(!help.contains("problem CSV"), "{command}: {help}");
        assert!(help.contains("CSV or JSON"), "{command}: {help}");
    }
}

/// §4: the Quick start installs with `--locked`; no profile names a package outside the
/// workspace's dependencies (before: "profile package spec `proptest` in profile `dev`
/// did not match any packages" on `cargo install`); the release profile strips debug
/// info (before: `debug = 1`, a 26 MB binary), full debug info is the `profiling`
/// profile; the spill examples write into the current directory (before: `/tmp/`); the
/// C section says how to build and link the release library.
#[test]
fn issue_27_install_and_build_as_documented() {
    let root = common::repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let at = readme.find("## Quick start").unwrap();
    let quick = &readme[at..at + 3 + readme[at + 3..].find("\n## ").unwrap()];
    assert!(
        quick.contains("\ncargo install --locked --path crates/memplan-cli\n"),
        "{quick}"
    );
    let mut pages = readme.clone();
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        pages += &std::fs::read_to_string(e.unwrap().path()).unwrap();
    }
    for line in pages.lines().filter(|l| l.starts_with("memplan ")) {
        assert!(
            !line.contains("/tmp/"),
            "write into the current directory: {line}"
        );
    }
    let c = &std::fs::read_to_string(root.join("docs/c.md")).unwrap();
    for needle in [
        "cargo build --release -p memplan-capi",
        "target/release/libmemplan_capi.so",
        "target/release/libmemplan_capi.a",
        "crates/memplan-capi/include/memplan.h",
        "-lmemplan_capi",
    ] {
        assert!(c.contains(needle), "{needle}: {c}");
    }
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(!cargo.contains("[profile.dev.package."), "{cargo}");
    let release = &cargo[cargo.find("[profile.release]").unwrap()..];
    let release = &release[..release[1..].find("\n[").map_or(release.len(), |k| k + 1)];
    assert!(release.contains("debug = false"), "{release}");
    assert!(release.contains("strip = \"debuginfo\""), "{release}");
    assert!(cargo.contains("[profile.profiling]\ninherits = \"release\"\ndebug = true"));
}

/// §2: JSON errors name the field and speak JSON. Before: "expected struct ProblemIn
/// with 2 elements", "the input has a header but no data lines", and type errors that
/// named no field ("invalid type: string \"0\", expected u64").
#[test]
fn issue_27_json_errors_name_the_field() {
    let cases: &[(&str, &[&str])] = &[
        ("[]", &["top level", "expected an object", "found a list"]),
        (
            r#"{"buffers": [{"id": "a", "start": "0", "end": 3, "size": 4}]}"#,
            &["buffers[0].start", "non-negative integer", "string \"0\""],
        ),
        (
            r#"{"buffers": [{"id": "a", "start": 0, "end": 3, "size": -4}]}"#,
            &["buffers[0].size", "-4"],
        ),
        (
            r#"{"capacity": "x", "buffers": []}"#,
            &["JSON capacity", "string \"x\""],
        ),
        (
            r#"{"buffers": [{"id": 1, "start": 0, "end": 3, "size": 4}]}"#,
            &["buffers[0].id", "expected a string"],
        ),
        (
            r#"{"buffers": [{"id": "a", "start": 0, "end": 3, "sise": 4}]}"#,
            &["buffers[0].sise", "unknown field"],
        ),
    ];
    for (k, (json, needles)) in cases.iter().enumerate() {
        let path = temp_file(&format!("bad{k}.json"), json.as_bytes());
        let run = memplan(&["plan", path.to_str().unwrap(), "-o", "-"], None);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(3), "{json}: {err}");
        for n in *needles {
            assert!(err.contains(n), "{json}: expected '{n}' in {err}");
        }
        for rust in ["ProblemIn", "u64", "header", "column '"] {
            assert!(!err.contains(rust), "{json}: '{rust}' in {err}");
        }
    }
}

/// §3: one rule for empty problems in every door: no buffers is a valid problem, planned
/// to height 0 (optimal). Before: Python's `Problem([])` planned to 0 but the CLI (and
/// `from_csv_text`) rejected a header alone and `{"buffers": []}` ("no buffers").
#[test]
fn issue_27_an_empty_problem_plans_to_height_0_in_every_command() {
    let dir = temp_dir();
    for (name, text) in [
        ("empty.csv", "id,lower,upper,size\n"),
        ("empty_crlf.csv", "\u{feff}id,lower,upper,size\r\n"),
        ("empty.json", r#"{"buffers": []}"#),
    ] {
        let input = temp_file(name, text.as_bytes());
        let input = input.to_str().unwrap();
        let out = dir.join(format!("{name}.plan"));
        let out = out.to_str().unwrap();
        let run = memplan(&["plan", input, "-o", out], None);
        assert_eq!(run.status.code(), Some(0), "{name}: {}", stderr(&run));
        assert!(
            stderr(&run).contains("0 buffers"),
            "{name}: {}",
            stderr(&run)
        );
        let run = memplan(&["plan", input, "-o", out, "--summary-json"], None);
        let summary = json(&stderr(&run));
        assert_eq!(summary["height"], 0, "{name}: {summary}");
        assert_eq!(summary["lower_bound"], 0, "{name}: {summary}");
        assert_eq!(summary["optimal"], true, "{name}: {summary}");
        for args in [
            vec!["check", input, out],
            vec!["stats", input],
            vec!["plan", input, "--capacity", "0", "-o", "-"],
        ] {
            let run = memplan(&args, None);
            assert_eq!(run.status.code(), Some(0), "{args:?}: {}", stderr(&run));
        }
        let svg = dir.join(format!("{name}.svg"));
        let run = memplan(&["render", input, out, "-o", svg.to_str().unwrap()], None);
        assert_eq!(
            run.status.code(),
            Some(0),
            "render {name}: {}",
            stderr(&run)
        );
    }
}
