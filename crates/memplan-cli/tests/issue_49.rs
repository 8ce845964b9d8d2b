//! Issue 49, the first hour's frictions, through the binary: each test is named after
//! the item it fixes.

mod common;

use common::memplan;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn temp(name: &str, text: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-issue49-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Item 7: a JSON problem that starts with a UTF-8 byte-order mark is read, as a CSV one
/// is, by `plan` and `check`.
#[test]
fn issue_49_7_json_with_a_byte_order_mark_is_read() {
    let json =
        b"\xEF\xBB\xBF{\"buffers\": [{\"id\": \"a\", \"start\": 0, \"end\": 3, \"size\": 4}]}";
    let problem = temp("bom.json", json);
    let plan = problem.with_extension("plan.json");
    let p = problem.to_str().unwrap();
    let out = memplan(&["plan", p, "-q", "-o", plan.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend(std::fs::read(&plan).unwrap());
    let plan = temp("bom.plan.json", &with_bom);
    let out = memplan(&["check", p, plan.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Item 9: an unknown planner's error lists the names that exist.
#[test]
fn issue_49_9_an_unknown_planner_lists_the_valid_names() {
    let problem = temp("p.csv", b"id,lower,upper,size\na,0,3,4\n");
    let out = memplan(
        &["plan", problem.to_str().unwrap(), "--planner", "bestfit"],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // clap's usage error: its first line names the value, then every planner.
    let err = stderr(&out);
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.contains("unknown planner 'bestfit' (expected one of: "),
        "{err}"
    );
    for name in [
        "start-best-fit",
        "greedy",
        "telamalloc",
        "boxing",
        "exact",
        "auto",
    ] {
        assert!(first.contains(name), "{name}: {err}");
    }
}

/// Item 10: `check` with its two files swapped says what the order is.
#[test]
fn issue_49_10_check_with_the_files_swapped_gives_the_order() {
    let problem = temp("s.csv", b"id,lower,upper,size\na,0,3,4\n");
    let p = problem.to_str().unwrap();
    let out = memplan(&["plan", p, "-q"], None);
    let plan = temp("s.plan.csv", &out.stdout);
    let q = plan.to_str().unwrap();
    assert_eq!(memplan(&["check", p, q], None).status.code(), Some(0));
    let out = memplan(&["check", q, p], None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("missing column 'offset'")
            && err.contains("the order is `memplan check PROBLEM PLAN`"),
        "{err}"
    );
}
