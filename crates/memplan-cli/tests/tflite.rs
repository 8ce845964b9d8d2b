//! `memplan tflite` and `memplan render MODEL.tflite` on committed test models
//! (`tests/tflite/models/`, made by `scripts/tflite/make_models.py`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn model(name: &str) -> String {
    root()
        .join("tests/tflite/models")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

fn memplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("memplan-tflite-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

#[test]
fn plans_writes_and_summarises_in_json() {
    let src = model("cond_if_float32.tflite");
    let dst = scratch("cond.tflite");
    let out = memplan(&["tflite", &src, "-o", &dst, "--summary-json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(s["subgraphs"], 3, "{s}");
    assert!(s["tensors_planned"].as_u64().unwrap() > 0);
    assert_eq!(s["height"], s["arena_bytes"]);
    assert!(s["height"].as_u64() >= s["max_load"].as_u64());
    assert_eq!(s["optimal"], s["height"] == s["max_load"]);
    let (a, b) = (std::fs::read(&src).unwrap(), std::fs::read(&dst).unwrap());
    assert!(b.ends_with(&a), "the original bytes are kept");
    // A second run refuses to replace the plan, then replaces it with --force.
    let again = memplan(&["tflite", &dst, "-o", &scratch("again.tflite")]);
    assert_eq!(again.status.code(), Some(3));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("already has an offline plan") && err.ends_with("--force replaces it\n"),
        "{err}"
    );
    let forced = memplan(&[
        "tflite",
        &dst,
        "-o",
        &scratch("again.tflite"),
        "--force",
        "-q",
    ]);
    assert!(forced.status.success());
    assert!(forced.stderr.is_empty(), "-q prints nothing");
    assert_eq!(
        std::fs::read(scratch("again.tflite")).unwrap(),
        b,
        "the plan is replaced in place: the same file"
    );
}

/// Five re-plans with --force keep the first planned file's size (and, the plan being
/// the same, its bytes).
#[test]
fn force_replaces_the_plan_in_place() {
    let src = model("densenet_float32.tflite");
    let first = scratch("force0.tflite");
    assert!(memplan(&["tflite", &src, "-o", &first, "-q"])
        .status
        .success());
    let size = std::fs::metadata(&first).unwrap().len();
    let mut prev = first.clone();
    for round in 1..=5 {
        let next = scratch(&format!("force{round}.tflite"));
        let out = memplan(&["tflite", &prev, "-o", &next, "--force", "--summary-json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(s["replaced_plan"], true);
        assert_eq!(
            std::fs::metadata(&next).unwrap().len(),
            size,
            "round {round}"
        );
        prev = next;
    }
}

/// A --scratch request that names no operator is a bad --scratch (usage, exit 2), not a
/// bad model; the counts are singular or plural as they should be.
#[test]
fn a_bad_scratch_request_is_a_usage_error() {
    let src = model("kws_ds_cnn_int8.tflite");
    for (request, says) in [
        (
            "0:999:100",
            "--scratch 0:999:100: subgraph 0 has 12 operators (0 to 11) in ",
        ),
        (
            "1:0:100",
            "--scratch 1:0:100: the model has 1 subgraph (number 0) in ",
        ),
    ] {
        let out = memplan(&["tflite", &src, "--report", "--scratch", request]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
        assert!(
            !err.contains("invalid model") && !err.contains("subgraphs"),
            "{err}"
        );
    }
}

/// `--summary-json` without -o is a dry run: the summary, nothing written.
#[test]
fn summary_json_without_output_is_a_dry_run() {
    let dir = scratch("dry");
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(["tflite", &model("kws_ds_cnn_int8.tflite"), "--summary-json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let s: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(s["output"], serde_json::Value::Null);
    assert!(s["height"].as_u64().unwrap() > 0);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing written"
    );
    // Neither -o, --report nor --summary-json: clap asks for -o.
    let out = memplan(&["tflite", &model("kws_ds_cnn_int8.tflite")]);
    assert_eq!(out.status.code(), Some(2));
}

/// --planner names the planner asked for; found_by the one whose plan it is.
#[test]
fn the_summary_names_the_planner_asked_for() {
    let out = memplan(&[
        "tflite",
        &model("kws_ds_cnn_int8.tflite"),
        "--summary-json",
        "--planner",
        "exact",
    ]);
    let s: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(s["planner"], "exact", "{s}");
    assert!(s["found_by"].is_string(), "{s}");
    let out = memplan(&[
        "tflite",
        &model("kws_ds_cnn_int8.tflite"),
        "--report",
        "--planner",
        "exact",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("exact"), "{err}");
}

/// A model of several subgraphs gets one note on the TFLM version it needs, unless
/// --no-version-note (or -q); a model of one subgraph gets none.
#[test]
fn several_subgraphs_get_one_version_note() {
    let note = "tflite-micro e60e8ca (2023-03-29)";
    let count = |args: &[&str]| {
        let out = memplan(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).matches(note).count()
    };
    let multi = model("streaming_kws_int8.tflite");
    assert_eq!(count(&["tflite", &multi, "--report"]), 1);
    assert_eq!(
        count(&["tflite", &multi, "--report", "--no-version-note"]),
        0
    );
    // With --summary-json, the summary's "note" says it (stderr stays one JSON line).
    let out = memplan(&["tflite", &multi, "--summary-json"]);
    let s: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(s["note"].as_str().unwrap().contains(note), "{s}");
    assert_eq!(
        count(&["tflite", &multi, "-o", &scratch("n.tflite"), "-q"]),
        0
    );
    assert_eq!(
        count(&["tflite", &model("kws_ds_cnn_int8.tflite"), "--report"]),
        0
    );
}

/// --no-reference-scratch is in the short help, and --no-version-note.
#[test]
fn the_scratch_switch_is_in_the_help() {
    let help = String::from_utf8(memplan(&["tflite", "--help"]).stdout).unwrap();
    assert!(help.contains("--no-reference-scratch"), "{help}");
    assert!(help.contains("--no-version-note"), "{help}");
}

/// Negative numbers get a message about the value, not clap's tip to write `-- -5`.
#[test]
fn negative_numbers_are_bad_values_not_flags() {
    let src = model("kws_ds_cnn_int8.tflite");
    for args in [
        vec!["tflite", src.as_str(), "--report", "--capacity", "-5"],
        vec!["tflite", src.as_str(), "--report", "--time-limit", "-1"],
    ] {
        let out = memplan(&args);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("must be a non-negative number"), "{err}");
        assert!(!err.contains("-- -"), "{err}");
    }
}

#[test]
fn report_lists_every_planned_tensor_and_writes_nothing() {
    let src = model("kws_ds_cnn_int8.tflite");
    let out = memplan(&["tflite", &src, "--report"]);
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = table
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('#'))
        .collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let planned = stderr
        .split(" of ")
        .next()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap();
    assert_eq!(rows.len().to_string(), planned, "{stderr}");
    assert!(stderr.contains("nothing written"));
    assert!(stderr.contains("tensor_arena: reserve"));
    for row in rows {
        let f: Vec<&str> = row.split_whitespace().collect();
        assert!(f[2].contains(".."), "{row}");
        assert_eq!(f[4].parse::<u64>().unwrap() % 16, 0, "{row}");
    }
}

#[test]
fn render_draws_the_models_plan_with_tensor_names() {
    // A model with scratch room in its plan (MEAN), which the file has no offsets for.
    let src = model("vww_mobilenet_v1_int8.tflite");
    let dst = scratch("kws.tflite");
    assert!(memplan(&["tflite", &src, "-o", &dst, "-q"])
        .status
        .success());
    let svg = scratch("kws.svg");
    let out = memplan(&["render", &dst, "-o", &svg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    let names = memplan(&["tflite", &src, "--report", "-q"]);
    let first = String::from_utf8(names.stdout).unwrap();
    let row: Vec<&str> = first.lines().nth(1).unwrap().split_whitespace().collect();
    // Short labels (`t` and the tensor's index), the name in the tooltip.
    let (index, name) = (row[0], row[6]);
    assert!(
        text.contains(&format!("<title>t{index}\n{name}\ntensor {index} ")),
        "t{index} '{name}'"
    );
    assert!(
        text.contains(&format!(">t{index}</text>")),
        "t{index} is labelled"
    );
    assert!(text.contains("TFLM steps"));
    // The scratch room the plan left (MEAN's request) is drawn.
    assert!(text.contains("<title>scratch "), "no scratch room drawn");
    assert!(text.contains("kernel scratch of operator"));
    // A model without a plan has nothing to draw.
    let out = memplan(&["render", &src, "-o", &scratch("none.svg")]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no offline plan to draw"));
}

#[test]
fn capacity_below_the_max_load_is_proven_infeasible() {
    let out = memplan(&[
        "tflite",
        &model("kws_ds_cnn_int8.tflite"),
        "-o",
        &scratch("x.tflite"),
        "--capacity",
        "16",
    ]);
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!Path::new(&scratch("x.tflite")).exists());
}

/// `--in-place` (issue 45): the summary's `in_place` figures add up, the head is never
/// above the plan without it (whose height is `height_without`), `--report` marks the
/// tensors that take an input's storage, the text summary says what was saved, and
/// without the flag nothing is shared (`in_place` is null). On MobileNetV2 int8, whose
/// peak is at a depthwise convolution, nothing is taken and the plan is the plain one.
#[test]
fn in_place_shares_only_when_it_lowers_the_head() {
    let json = |args: &[&str]| -> serde_json::Value {
        let out = memplan(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stderr).unwrap()
    };
    for (name, lower) in [
        ("gated_cnn_float32.tflite", true),
        ("mobilenet_v3_small_int8.tflite", true),
        ("mobilenet_v2_int8.tflite", false),
    ] {
        let src = model(name);
        let plain = json(&["tflite", &src, "--summary-json"]);
        assert!(plain["in_place"].is_null(), "{plain}");
        let dst = scratch(&format!("inplace-{name}"));
        let s = json(&["tflite", &src, "-o", &dst, "--in-place", "--summary-json"]);
        let r = &s["in_place"];
        let (height, without) = (s["height"].as_u64().unwrap(), plain["height"].as_u64());
        assert_eq!(r["height_without"].as_u64(), without, "{name}: {s}");
        let without = without.unwrap();
        assert!(height <= without, "{name}: {height} > {without}");
        assert_eq!(r["saved_bytes"].as_u64(), Some(without - height), "{name}");
        let shared = r["shared"].as_array().unwrap();
        assert_eq!(r["tensors_sharing"].as_u64(), Some(shared.len() as u64));
        assert!(shared.len() as u64 <= r["candidates"].as_u64().unwrap());
        assert_eq!(
            height < without,
            lower,
            "{name}: {height} against {without}"
        );
        assert_eq!(!shared.is_empty(), lower, "{name}");
        for x in shared {
            let kind = x["kind"].as_str().unwrap();
            assert!(!kind.contains("CONV"), "{name}: {x}");
        }
        // --report marks each one; the text summary says what was saved.
        let out = memplan(&["tflite", &src, "--in-place", "--report"]);
        let table = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            table.matches("(in place of tensor ").count(),
            shared.len(),
            "{name}"
        );
        let text = String::from_utf8_lossy(&out.stderr);
        let line = text.lines().find(|l| l.starts_with("in place: ")).unwrap();
        if lower {
            assert!(line.ends_with(" B saved"), "{line}");
        } else {
            assert!(line.contains("none taken"), "{line}");
        }
        // The written model carries the plan; re-planning it without --in-place (with
        // --force) replaces it with the plain plan.
        let again = json(&[
            "tflite",
            &dst,
            "-o",
            &scratch(&format!("inplace-again-{name}")),
            "--force",
            "--summary-json",
        ]);
        assert_eq!(again["height"], plain["height"], "{name}");
    }
}
