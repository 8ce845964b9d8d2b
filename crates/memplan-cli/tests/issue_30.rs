//! Regression tests of issue 30 ("proofs above the max load"), command-line side: one
//! proven bound in every output, and a proof that nothing fits told apart from a run
//! that found nothing.

mod common;

use common::memplan;
use std::process::Output;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A fixed buffer at [2, 4) and a free one of size 3, both live at 0: the max load is 5,
/// but the free buffer fits neither in the hole of 2 under the fixed one nor beside it,
/// so every plan is 7 high (the bounds module doc's picture).
const HOLE: &str = r#"{"buffers": [{"id": "F", "start": 0, "end": 2, "size": 2, "fixed_offset": 2},
 {"id": "b", "start": 0, "end": 2, "size": 3}]}"#;

#[test]
fn issue_30_the_holes_bound_is_the_one_bound_of_every_output() {
    // The greedy planners alone: no exact search to prove the optimum, the holes bound
    // does; without it (`--no-holes`) the plan is the same but not proven optimal.
    for (flag, bound, optimal) in [(None, 7, true), (Some("--no-holes"), 5, false)] {
        let mut args = vec!["plan", "-", "--format", "json", "--planner", "greedy"];
        args.extend(["-o", "-", "--output-format", "json"]);
        args.extend(flag);
        let text = memplan(&args, Some(HOLE.as_bytes()));
        assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
        let plan = json(&String::from_utf8_lossy(&text.stdout));
        assert_eq!(plan["lower_bound"], bound, "{flag:?}: {plan}");
        assert_eq!(plan["optimal"], optimal, "{flag:?}: {plan}");
        assert_eq!(plan["height"], 7, "{flag:?}: {plan}");
        let line = stderr(&text);
        assert!(line.contains(&format!("proven ≥ {bound};")), "{line}");
        assert_eq!(line.contains("; optimal"), optimal, "{line}");
        args.push("--summary-json");
        let summary = json(&stderr(&memplan(&args, Some(HOLE.as_bytes()))));
        assert_eq!(summary["lower_bound"], bound, "{summary}");
        assert_eq!(summary["fragmentation"], 7 - bound, "{summary}");
    }
}

#[test]
fn issue_30_a_proof_exits_5_and_says_so_a_miss_exits_6() {
    // Under 6 (above the max load, 5): the holes bound proves that nothing fits.
    let args = [
        "plan",
        "-",
        "--format",
        "json",
        "--capacity",
        "6",
        "-o",
        "-",
    ];
    let out = memplan(&args, Some(HOLE.as_bytes()));
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let message = stderr(&out);
    assert!(
        message.contains("no plan fits under 6: proved"),
        "{message}"
    );
    assert!(
        message.contains("proven lower bound 7, 1 above it"),
        "{message}"
    );
    let mut summary = args.to_vec();
    summary.push("--summary-json");
    let summary = json(
        stderr(&memplan(&summary, Some(HOLE.as_bytes())))
            .lines()
            .find(|l| l.starts_with('{'))
            .expect("the JSON summary"),
    );
    assert_eq!(summary["outcome"], "infeasible", "{summary}");
    assert_eq!(summary["lower_bound"], 7, "{summary}");
    // Without the holes bound, the greedy planners alone neither fit nor prove: exit 6.
    let mut missed = vec!["plan", "-", "--format", "json", "--capacity", "6"];
    missed.extend(["--planner", "greedy", "--no-holes", "-o", "/dev/null"]);
    let out = memplan(&missed, Some(HOLE.as_bytes()));
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no plan found under 6"),
        "{}",
        stderr(&out)
    );
}
