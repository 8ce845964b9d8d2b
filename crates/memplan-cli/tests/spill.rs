//! `memplan plan --spill` and `memplan check` of two-level plans, through the binary.

mod common;

use common::memplan;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The spill module's example: a, b, c of 4 bytes, b cheapest; d asks to be slow.
const PROBLEM: &str =
    "id,lower,upper,size,cost,memory\na,0,3,4,9,\nb,0,2,4,3,\nc,1,3,4,5,\nd,0,3,2,,slow\n";

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-spill-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `(id, memory, offset)` of each row of a plan CSV.
fn rows(csv: &str) -> Vec<(String, String, u64)> {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (id, mem, off) = (col("id"), col("memory"), col("offset"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[id].into(), f[mem].into(), f[off].parse().unwrap())
        })
        .collect()
}

#[test]
fn spill_writes_memory_and_offset_columns_and_check_accepts_the_plan() {
    let problem = temp("p.csv", PROBLEM);
    let out = memplan(
        &[
            "plan",
            problem.to_str().unwrap(),
            "--capacity",
            "8",
            "--spill",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = stdout(&out);
    assert!(
        plan.starts_with("id,lower,upper,size,cost,memory,offset\n"),
        "{plan}"
    );
    let got = rows(&plan);
    let levels: Vec<&str> = got.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(levels, ["fast", "slow", "fast", "slow"]);
    // The summary of a plan across memories: spill is `--memories fast:8,slow`.
    let summary = stderr(&out);
    for part in [
        "4 buffers",
        "fast height 8 of 8, traffic 14",
        "slow height 6 of unbounded, traffic 5",
        "cost 5",
        "proven ≥ 5",
        "gap 0;",
        "every memory optimal",
        "; optimal",
    ] {
        assert!(summary.contains(part), "{part}: {summary}");
    }
    let plan_path = temp("plan.csv", &plan);
    let (p, q) = (problem.to_str().unwrap(), plan_path.to_str().unwrap());
    let check = memplan(&["check", p, q, "--capacity", "8"], None);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    assert!(
        stdout(&check).contains("slow height 6 of unbounded, traffic 5; cost 5"),
        "{}",
        stdout(&check)
    );
    // Without the fast capacity a two-level plan cannot be checked.
    assert_eq!(memplan(&["check", p, q], None).status.code(), Some(2));

    // JSON output: the same levels and offsets, and `check` reads it too.
    let out = memplan(
        &[
            "plan",
            p,
            "--capacity",
            "8",
            "--spill",
            "--output-format",
            "json",
            "--summary-json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bufs = json["buffers"].as_array().unwrap();
    for (b, (id, mem, off)) in bufs.iter().zip(&got) {
        assert_eq!(
            (b["id"].as_str(), b["memory"].as_str()),
            (Some(&id[..]), Some(&mem[..]))
        );
        assert_eq!(b["offset"].as_u64(), Some(*off));
    }
    assert_eq!(json["cost"], 5);
    let summary: serde_json::Value = serde_json::from_str(stderr(&out).trim()).unwrap();
    assert_eq!(summary["outcome"], "optimal");
    assert_eq!(
        (summary["cost"].as_u64(), summary["lower_bound"].as_u64()),
        (Some(5), Some(5))
    );
    let slow = &summary["memories"][1];
    assert_eq!(
        (&slow["name"], &slow["buffers"], &slow["bytes"]),
        (&"slow".into(), &2.into(), &6.into())
    );
    let jpath = temp("plan.json", &stdout(&out));
    let check = memplan(
        &["check", p, jpath.to_str().unwrap(), "--capacity", "8"],
        None,
    );
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
}

#[test]
fn a_corrupted_two_level_plan_is_rejected() {
    let problem = temp("q.csv", PROBLEM);
    let p = problem.to_str().unwrap();
    let out = memplan(&["plan", p, "--capacity", "8", "--spill"], None);
    let plan = stdout(&out);
    let got = rows(&plan);
    // Move slow buffer b onto slow buffer d (both live at times 0 and 1).
    let (b, d) = (&got[1], &got[3]);
    assert_eq!((b.1.as_str(), d.1.as_str()), ("slow", "slow"));
    let moved = plan.replace(
        &format!("b,0,2,4,3,slow,{}", b.2),
        &format!("b,0,2,4,3,slow,{}", d.2),
    );
    assert_ne!(moved, plan);
    let bad = temp("bad.csv", &moved);
    let check = memplan(
        &["check", p, bad.to_str().unwrap(), "--capacity", "8"],
        None,
    );
    assert_eq!(check.status.code(), Some(4), "{}", stderr(&check));
    let err = stderr(&check);
    assert!(
        err.contains("memory 'slow'") && err.contains("'b'") && err.contains("'d'"),
        "{err}"
    );
    // A buffer that asks to be slow, put in fast memory, breaks its preference.
    let fast_d = plan.replace(&format!("d,0,3,2,,slow,{}", d.2), "d,0,3,2,,fast,100");
    let bad = temp("bad2.csv", &fast_d);
    let check = memplan(
        &["check", p, bad.to_str().unwrap(), "--capacity", "8"],
        None,
    );
    assert_eq!(check.status.code(), Some(4), "{}", stderr(&check));
    assert!(
        stderr(&check)
            .contains("buffer 'd' (#3) is in memory 'fast', outside its allowed set slow"),
        "{}",
        stderr(&check)
    );
    // A memory that is neither fast nor slow breaks the plan, named by line and column.
    let odd = temp("bad3.csv", &plan.replace(",slow,", ",either,"));
    let check = memplan(
        &["check", p, odd.to_str().unwrap(), "--capacity", "8"],
        None,
    );
    assert_eq!(check.status.code(), Some(4), "{}", stderr(&check));
    assert!(
        stderr(&check).contains("line 3, column 'memory': unknown memory 'either'"),
        "{}",
        stderr(&check)
    );
}

/// A fixed buffer above the fast capacity is the input's fault, said as such: not an
/// internal error.
#[test]
fn a_fixed_buffer_above_the_capacity_is_not_an_internal_error() {
    let problem = temp(
        "fixed.csv",
        "id,lower,upper,size,offset\na,0,2,8,0\nb,1,3,4,\n",
    );
    let plan = temp("fixed-plan.csv", "id,offset,memory\na,0,fast\nb,0,slow\n");
    let check = memplan(
        &[
            "check",
            problem.to_str().unwrap(),
            plan.to_str().unwrap(),
            "--capacity",
            "4",
        ],
        None,
    );
    assert_eq!(check.status.code(), Some(4), "{}", stderr(&check));
    let err = stderr(&check);
    assert!(
        err.contains("buffer 'a' (#0) needs 8 bytes of memory 'fast', whose capacity is 4"),
        "{err}"
    );
    assert!(!err.contains("internal error"), "{err}");
}

#[test]
fn spill_without_capacity_is_a_usage_error() {
    let out = memplan(&["plan", "-", "--spill"], Some(PROBLEM.as_bytes()));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--capacity"), "{}", stderr(&out));
}

#[test]
fn bad_cost_and_memory_cells_name_the_line_and_field() {
    let text = "id,lower,upper,size,cost\na,0,3,4,1\nb,0,3,4,-2\n";
    let out = memplan(
        &["plan", "-", "--capacity", "8", "--spill"],
        Some(text.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert!(
        err.contains("<stdin>: line 3, column 'cost': not a non-negative integer: '-2'"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let text = "id,lower,upper,size,memory\na,0,3,4,sram\n";
    let out = memplan(
        &["plan", "-", "--capacity", "8", "--spill"],
        Some(text.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("line 2, column 'memory': unknown memory 'sram'"));
    let json = r#"{"buffers": [{"id": "a", "start": 0, "end": 3, "size": 4, "memory": "sram"}]}"#;
    let out = memplan(
        &[
            "plan",
            "-",
            "--capacity",
            "8",
            "--spill",
            "--format",
            "json",
        ],
        Some(json.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("buffers[0].memory: unknown memory 'sram'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn forced_fast_buffers_that_cannot_fit_exit_5() {
    let text = "id,lower,upper,size,memory\na,0,3,4,fast\nb,1,2,8,fast\nc,0,3,8,\n";
    let out = memplan(
        &["plan", "-", "--capacity", "8", "--spill"],
        Some(text.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    // The buffers that must stay fast, named, and the memory they overfill.
    assert!(
        stderr(&out).contains(
            "no plan exists: at time 1, the buffers that can only go in memory 'fast' ('a', 'b') need 12 bytes, its capacity is 8"
        ),
        "{}",
        stderr(&out)
    );
    // JSON input: the cost and memory fields, the same answer as CSV.
    let json = r#"{"buffers": [
        {"id": "a", "start": 0, "end": 3, "size": 4, "cost": 9},
        {"id": "b", "start": 0, "end": 2, "size": 4, "cost": 3},
        {"id": "c", "start": 1, "end": 3, "size": 4, "cost": 5, "memory": "fast"}]}"#;
    let out = memplan(
        &[
            "plan",
            "-",
            "--capacity",
            "8",
            "--spill",
            "--format",
            "json",
            "--output-format",
            "csv",
        ],
        Some(json.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let got = rows(&stdout(&out));
    assert_eq!(got[1].1, "slow");
    assert!(stdout(&out).starts_with("id,lower,upper,size,cost,memory,offset\n"));
}

#[test]
fn render_draws_the_spilled_buffers_in_a_second_panel() {
    let problem = temp("r.csv", PROBLEM);
    let p = problem.to_str().unwrap();
    let out = memplan(&["plan", p, "--capacity", "8", "--spill"], None);
    let plan = temp("rplan.csv", &stdout(&out));
    let q = plan.to_str().unwrap();
    let svg = memplan(&["render", p, q, "--capacity", "8"], None);
    assert_eq!(svg.status.code(), Some(0), "{}", stderr(&svg));
    let text = stdout(&svg);
    assert!(
        text.contains("memory fast (capacity 8 B): 2 buffers"),
        "{text}"
    );
    assert!(text.contains("memory slow (unbounded): 2 buffers"));
    assert!(!text.contains("INVALID"));
    assert_eq!(memplan(&["render", p, q], None).status.code(), Some(2));
}

/// `--capacity C --spill` is `--memories fast:C,slow`: the same plan, byte for byte (CSV
/// and JSON), and the same summary but for the time; the `cost` column is each buffer's
/// traffic in both.
#[test]
fn spill_and_two_memories_write_the_same_bytes() {
    let problem = temp(
        "same.csv",
        "id,lower,upper,size,cost\na,0,3,4,9\nb,0,2,4,3\nc,1,3,4,5\nd,0,3,2,\n",
    );
    let p = problem.to_str().unwrap();
    for format in ["csv", "json"] {
        let run = |how: &[&str]| {
            let mut args = vec!["plan", p, "--output-format", format, "--summary-json"];
            args.extend_from_slice(how);
            let out = memplan(&args, None);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            let mut summary: serde_json::Value = serde_json::from_str(stderr(&out).trim()).unwrap();
            summary.as_object_mut().unwrap().remove("elapsed_ms");
            (stdout(&out), summary)
        };
        let spill = run(&["--capacity", "8", "--spill"]);
        let two = run(&["--memories", "fast:8,slow"]);
        assert_eq!(spill, two, "{format}");
        assert_eq!(
            spill.1["cost"], 5,
            "b (cost 3) and d (2) spilled: {}",
            spill.1
        );
    }
}
