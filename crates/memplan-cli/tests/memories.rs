//! `memplan plan`, `check` and `render` with three memories, allowed sets and pins
//! (issue 36), through the binary.

use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("memplan-cli-memories-{}", std::process::id()));
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

const SPEC: &str = "tcm:8,ocram:8:4,dram";

/// a and d (5 and 2 accesses) compete for tcm with c; d is pinned to tcm, b may not use
/// tcm, e is pinned to dram.
const PROBLEM: &str = "id,lower,upper,size,memories,accesses
a,0,3,4,,5
b,0,2,4,ocram|dram,
c,1,3,4,,
d,0,3,4,tcm,2
e,2,4,8,dram,
f,0,4,2,,
";

/// The plan's rows as (id, memory, offset).
fn rows(csv: &str) -> Vec<(String, String, u64)> {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (id, mem, off) = (col("id"), col("memory"), col("offset"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[id].to_string(),
                f[mem].to_string(),
                f[off].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn three_memories_plan_check_and_render() {
    let d = dir();
    let problem = d.join("three.csv");
    std::fs::write(&problem, PROBLEM).unwrap();
    let plan = d.join("three.plan.csv");
    let (p, pl) = (problem.to_str().unwrap(), plan.to_str().unwrap());
    let (code, _, err) = memplan(&["plan", p, "--memories", SPEC, "-o", pl]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("tcm height"), "{err}");
    let text = std::fs::read_to_string(&plan).unwrap();
    let rows = rows(&text);
    let memory_of = |id: &str| rows.iter().find(|r| r.0 == id).unwrap().1.clone();
    assert_eq!(memory_of("d"), "tcm", "pinned");
    assert_eq!(memory_of("e"), "dram", "pinned");
    assert_ne!(memory_of("b"), "tcm", "not allowed");
    // a (traffic 20) is worth more in tcm than c (traffic 4).
    assert_eq!(memory_of("a"), "tcm");
    for (_, m, off) in &rows {
        if m == "ocram" {
            assert_eq!(off % 4, 0, "ocram's alignment");
        }
    }
    let (code, out, err) = memplan(&["check", p, pl, "--memories", SPEC]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("ok: 6 buffers"), "{out}");
    // Broken plans: each is rejected, naming the buffer.
    let set = |id: &str, memory: &str, offset: u64| {
        let mut out = String::new();
        for (k, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split(',').collect();
            if k > 0 && f[0] == id {
                let n = f.len();
                let mut g: Vec<String> = f.iter().map(|s| s.to_string()).collect();
                g[n - 2] = memory.to_string();
                g[n - 1] = offset.to_string();
                out += &g.join(",");
            } else {
                out += line;
            }
            out.push('\n');
        }
        let bad = d.join(format!("bad-{id}-{memory}-{offset}.csv"));
        std::fs::write(&bad, out).unwrap();
        bad
    };
    for (bad, names) in [
        (set("b", "tcm", 0), "'b'"),    // outside its allowed set
        (set("d", "dram", 100), "'d'"), // a pin broken
        (set("e", "ocram", 0), "'e'"),  // a pin broken
        (set("a", "tcm", 6), "'a'"),    // above tcm's capacity
        (set("c", "ocram", 2), "'c'"),  // misaligned in ocram (or overlapping)
    ] {
        let (code, _, err) = memplan(&["check", p, bad.to_str().unwrap(), "--memories", SPEC]);
        assert_eq!(code, 4, "{err}");
        assert!(err.contains(names), "{names}: {err}");
    }
    let svg = d.join("three.svg");
    let (code, _, err) = memplan(&[
        "render",
        p,
        pl,
        "--memories",
        SPEC,
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(svg).unwrap();
    for title in ["memory tcm", "memory ocram", "memory dram"] {
        assert!(svg.contains(title), "{title}");
    }
}

#[test]
fn a_json_problem_carries_its_memories_and_the_plan_is_json() {
    let d = dir();
    let problem = d.join("three.json");
    std::fs::write(
        &problem,
        r#"{"memories": [{"name": "tcm", "capacity": 8}, {"name": "ocram", "capacity": 8, "alignment": 4}, {"name": "dram"}],
 "buffers": [{"id": "a", "start": 0, "end": 3, "size": 4, "accesses": 5},
             {"id": "b", "start": 0, "end": 2, "size": 4, "memories": ["ocram", "dram"]},
             {"id": "d", "start": 0, "end": 3, "size": 4, "memories": "tcm"},
             {"id": "e", "start": 2, "end": 4, "size": 8, "memories": "dram"}]}"#,
    )
    .unwrap();
    let plan = d.join("three.plan.json");
    let (p, pl) = (problem.to_str().unwrap(), plan.to_str().unwrap());
    let (code, _, err) = memplan(&["plan", p, "-o", pl, "--summary-json"]);
    assert_eq!(code, 0, "{err}");
    let summary: serde_json::Value = serde_json::from_str(err.trim()).unwrap();
    assert_eq!(summary["outcome"], "optimal", "{summary}");
    let out: serde_json::Value = serde_json::from_slice(&std::fs::read(&plan).unwrap()).unwrap();
    let mem = |i: usize| out["buffers"][i]["memory"].as_str().unwrap().to_string();
    assert_eq!(
        (mem(0), mem(2), mem(3)),
        ("tcm".into(), "tcm".into(), "dram".into())
    );
    assert_eq!(mem(1), "ocram");
    let (code, out, err) = memplan(&["check", p, pl]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn pinned_buffers_that_cannot_fit_exit_5_naming_time_buffers_and_capacity() {
    let d = dir();
    let problem = d.join("pins.csv");
    std::fs::write(
        &problem,
        "id,lower,upper,size,memories\na,0,3,6,tcm\nb,1,2,6,tcm\nc,0,3,6,\n",
    )
    .unwrap();
    let out = d.join("pins.plan.csv");
    let (code, stdout, err) = memplan(&[
        "plan",
        problem.to_str().unwrap(),
        "--memories",
        "tcm:8,dram",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 5, "{err}");
    assert!(stdout.is_empty() && !out.exists(), "nothing written");
    assert!(
        err.contains("at time 1") && err.contains("'a', 'b'") && err.contains("capacity is 8"),
        "{err}"
    );
}
