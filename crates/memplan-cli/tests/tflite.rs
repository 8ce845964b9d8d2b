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
        std::fs::read(scratch("again.tflite")).unwrap().len(),
        b.len() + (b.len() - a.len()),
        "the old plan's buffer is reused, so only a new head is added"
    );
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
    let name = first
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .nth(5)
        .unwrap()
        .to_string();
    assert!(
        text.contains(&format!("<title>{name}\n")) || text.contains(&format!("<title>{name}")),
        "{name}"
    );
    assert!(text.contains("TFLM steps"));
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
