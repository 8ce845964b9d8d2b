//! Issue 49, the first hour's frictions, through the binary: each test is named after
//! the item it fixes.

mod common;

use common::{memplan, thousands};

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

/// The bold heading lines of each panel of an SVG (one per nested `<svg`).
fn headings(svg: &str) -> Vec<String> {
    svg.split("<svg ")
        .skip(1)
        .map(|panel| {
            panel
                .split("font-weight=\"bold\">")
                .skip(1)
                .map(|t| t.split('<').next().unwrap().to_string())
                .collect::<Vec<_>>()
                .join(" · ")
        })
        .filter(|h| !h.is_empty())
        .collect()
}

fn render(args: &[&str]) -> String {
    let svg = temp(&format!("r{}.svg", args.len()), b"");
    let mut all = vec!["render"];
    all.extend_from_slice(args);
    all.extend(["-o", svg.to_str().unwrap()]);
    let out = memplan(&all, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::read_to_string(&svg).unwrap()
}

/// Item 1: an invalid plan's picture never says "optimal", counts what the checker found
/// in its heading and hatches each violation's times and addresses; a plan over the
/// capacity says so.
#[test]
fn issue_49_1_an_invalid_plan_is_marked_and_never_optimal() {
    // a and b moved by hand to collide at times [2, 4), addresses [5, 10): the height
    // (15) is not the max load (20), and with c at the bottom the plan is 20 high,
    // equal to the max load.
    let problem = temp(
        "bad.csv",
        b"id,lower,upper,size\na,0,4,10\nb,2,6,10\nc,5,8,10\n",
    );
    let plan = temp("bad.plan.csv", b"id,offset\na,0\nb,5\nc,10\n");
    let (p, q) = (problem.to_str().unwrap(), plan.to_str().unwrap());
    let svg = render(&[p, q]);
    let heading = &headings(&svg)[0];
    assert!(heading.contains("INVALID PLAN: 1 overlap"), "{heading}");
    assert!(heading.contains("height 20 B · max load 20 B"), "{heading}");
    assert!(!heading.contains("optimal"), "{heading}");
    let faults = svg
        .split("class=\"faults\"")
        .nth(1)
        .expect("the faults are drawn");
    assert!(
        faults.contains("overlap at times [2, 4), addresses [5, 10)"),
        "{faults}"
    );
    // Over a capacity: said, and the part above it hatched.
    let svg = render(&[p, q, "--capacity", "18"]);
    let heading = &headings(&svg)[0];
    assert!(heading.contains("1 buffer over the capacity"), "{heading}");
    assert!(svg.contains("ends above the capacity 18"));
    // A valid plan at the max load: optimal, nothing hatched.
    let good = temp("good.plan.csv", b"id,offset\na,0\nb,10\nc,0\n");
    let svg = render(&[p, good.to_str().unwrap()]);
    assert!(headings(&svg)[0].contains("optimal") && !svg.contains("class=\"faults\""));
}

/// A label's box, `(left, top, right, bottom)`, and its text.
type LabelBox = (f64, f64, f64, f64, String);

/// The boxes of the level lines' labels (`max load …`, `capacity …`) per panel: right
/// end x, baseline y and text, each as wide as [`memplan_render`]'s generous estimate.
fn label_boxes(svg: &str) -> Vec<Vec<LabelBox>> {
    let num = |s: &str, attr: &str| -> f64 {
        let v = s.split(&format!("{attr}=\"")).nth(1).unwrap();
        v.split('"').next().unwrap().parse().unwrap()
    };
    svg.split("<svg ")
        .skip(1)
        .map(|panel| {
            panel
                .split("<text class=\"level\" ")
                .skip(1)
                .map(|t| {
                    let (x, y) = (num(t, "x"), num(t, "y"));
                    let text = t.split('>').nth(1).unwrap().split('<').next().unwrap();
                    let w = text.chars().count() as f64 * 0.6 * 12.0;
                    (x - w, y - 12.0, x, y + 2.0, text.to_string())
                })
                .collect()
        })
        .collect()
}

/// Item 2: the capacity's and the max load's labels never overlap, when the two lines
/// are close (7 px) or the same.
#[test]
fn issue_49_2_level_labels_do_not_overlap() {
    let close = temp("close.csv", b"id,lower,upper,size\na,0,2,990000\n");
    let plan = temp("close.plan.csv", b"id,offset\na,0\n");
    let three = "tests/memories/three.csv";
    let three_plan = temp("three.plan.csv", b"");
    let spec = "tcm:10,ocram:8:4,dram";
    let out = memplan(
        &[
            "plan",
            three,
            "--memories",
            spec,
            "-q",
            "-o",
            three_plan.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let pictures = [
        render(&[
            close.to_str().unwrap(),
            plan.to_str().unwrap(),
            "--capacity",
            "1000000",
        ]),
        render(&[
            close.to_str().unwrap(),
            plan.to_str().unwrap(),
            "--capacity",
            "990000",
        ]),
        render(&[three, three_plan.to_str().unwrap(), "--memories", spec]),
    ];
    let mut pairs = 0;
    for svg in &pictures {
        for panel in label_boxes(svg) {
            for (i, a) in panel.iter().enumerate() {
                for b in &panel[i + 1..] {
                    pairs += 1;
                    let apart = a.2 <= b.0 || b.2 <= a.0 || a.3 <= b.1 || b.3 <= a.1;
                    assert!(apart, "labels overlap: {a:?} and {b:?}");
                }
            }
        }
    }
    assert!(pairs >= 3, "{pairs} pairs of labels checked");
}

/// Item 4: with a fixed buffer above the max load, `plan` and `check` say what the
/// fragmentation is measured against.
#[test]
fn issue_49_4_fragmentation_names_the_fixed_buffers_bound() {
    let problem = temp(
        "fixed.csv",
        b"id,lower,upper,size,offset\na,0,3,4,100\nb,0,3,4,\n",
    );
    let p = problem.to_str().unwrap();
    let plan = problem.with_extension("plan.csv");
    let out = memplan(&["plan", p, "-o", plan.to_str().unwrap()], None);
    let said = "fragmentation 0 (0.00%) over the lower bound 104 that the fixed buffers set";
    assert!(stderr(&out).contains(said), "{}", stderr(&out));
    let out = memplan(&["check", p, plan.to_str().unwrap()], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("max load 8") && text.contains(said), "{text}");
    // Without fixed buffers, the line is as before.
    let plain = temp("plain.csv", b"id,lower,upper,size\na,0,3,4\n");
    let out = memplan(
        &[
            "plan",
            plain.to_str().unwrap(),
            "-o",
            plan.to_str().unwrap(),
        ],
        None,
    );
    assert!(!stderr(&out).contains("lower bound"), "{}", stderr(&out));
}

/// Item 5: merged small buffers say why they are merged, in words that fit their count.
#[test]
fn issue_49_5_merged_buffers_say_why() {
    let mut csv = b"id,lower,upper,size\nbig,0,100,100000\n".to_vec();
    for i in 0..4 {
        csv.extend(format!("s{i},{i},{},1\n", i + 1).bytes());
    }
    let problem = temp("small.csv", &csv);
    let p = problem.to_str().unwrap();
    let out = memplan(&["plan", p, "-q"], None);
    let plan = temp("small.plan.csv", &out.stdout);
    let svg = render(&[p, plan.to_str().unwrap()]);
    assert!(
        svg.contains("4 buffers, merged into 1 shape: each smaller than 2 square pixels"),
        "{}",
        svg.split("<path").nth(1).unwrap_or("no merged path")
    );
}

/// Item 12: `tflite --capacity` under the max load, with `--summary-json`: the outcome as
/// JSON, then `plan`'s words with separators.
#[test]
fn issue_49_12_tflite_no_fit_says_it_in_json_and_with_separators() {
    let model = "tests/tflite/models/densenet_int8.tflite";
    let out_model = temp("x.tflite", b"");
    let args = [
        "tflite",
        model,
        "-o",
        out_model.to_str().unwrap(),
        "--capacity",
        "1000",
    ];
    let mut with_json = args.to_vec();
    with_json.push("--summary-json");
    let out = memplan(&with_json, None);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let err = stderr(&out);
    let mut lines = err.lines();
    let summary: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(summary["outcome"], "infeasible");
    assert_eq!(summary["capacity"], 1000);
    let max_load = summary["max_load"].as_u64().unwrap();
    assert!(max_load > 1000);
    let line = lines.next().unwrap();
    let said = format!("fits under 1,000: proved (max load {}", thousands(max_load));
    assert!(line.contains(&said), "{line}");
    // Without --summary-json: the line alone.
    let out = memplan(&args, None);
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}

/// Item 13: `bench` on a folder without problem files says so and fails; a bad file gets
/// its row saying why, the others are still planned, and the exit code is INPUT's.
#[test]
fn issue_49_13_bench_reports_empty_folders_and_bad_files() {
    let dir = std::env::temp_dir().join(format!("memplan-issue49-bench-{}", std::process::id()));
    let empty = dir.join("empty");
    let bad = dir.join("bad");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&bad).unwrap();
    let out = memplan(&["bench", empty.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("no problem files found"),
        "{}",
        stderr(&out)
    );
    std::fs::write(bad.join("a.csv"), "id,lower,upper,size\na,0,2,4\n").unwrap();
    std::fs::write(bad.join("b.csv"), "id,lower,upper\nb,0,2\n").unwrap();
    std::fs::write(bad.join("c.csv"), "id,lower,upper,size\nc,0,2,4\n").unwrap();
    let out = memplan(&["bench", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
    };
    assert!(
        row("a.csv").is_some_and(|r| r.ends_with("| ok |")),
        "{table}"
    );
    assert!(
        row("c.csv").is_some_and(|r| r.ends_with("| ok |")),
        "{table}"
    );
    let b = row("b.csv").expect("the bad file's row");
    assert!(
        b.contains("not read") && b.contains("missing column 'size'"),
        "{b}"
    );
    // Every row has the header's number of cells.
    let cells = |l: &str| l.matches('|').count() - l.matches("\\|").count();
    assert!(
        table
            .lines()
            .all(|l| cells(l) == cells(table.lines().next().unwrap())),
        "{table}"
    );
    assert!(stderr(&out).contains("1 file(s) could not be read"));
}

/// Item 15: the help says what the default budget is (work, not a clock) and points the
/// shares' switches at the shares' document.
#[test]
fn issue_49_15_help_names_the_work_budget_and_the_shares_document() {
    let out = memplan(&["plan", "--help-all"], None);
    let help = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(help.contains("--shares-no-optional"), "{help}");
    assert!(!help.contains("within the time limit"), "{help}");
    assert!(!help.contains("within --time-limit"), "{help}");
    assert!(help.contains("within the budget: --work-limit"), "{help}");
    let optional = help.split("--shares-no-optional").nth(1).unwrap();
    let text = &optional[..optional.find(" --").unwrap_or(optional.len())];
    assert!(
        text.contains("docs/shares.md") && !text.contains("docs/formats.md"),
        "{text}"
    );
}

/// The README, from the repository's root.
fn readme() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join("README.md")).unwrap()
}

/// Item 16: the README's first command does what the README says: with `-o`, the plan
/// (with an `offset` column) goes to the file, only the summary to the terminal.
#[test]
fn issue_49_16_the_first_example_writes_the_plan_and_prints_a_summary() {
    let text = readme().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("write the plan (the problem's columns and an `offset` column) to `example.plan.csv`, print a summary line"),
        "the README's first example is worded otherwise"
    );
    let plan = temp("example.plan.csv", b"");
    let problem = "benchmarks/minimalloc-challenging/example.12.csv";
    let out = memplan(&["plan", problem, "-o", plan.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "with -o nothing goes to stdout");
    assert!(
        stderr(&out).starts_with("memplan: 5 buffers; max load 12"),
        "{}",
        stderr(&out)
    );
    let written = std::fs::read_to_string(&plan).unwrap();
    assert!(
        written
            .lines()
            .next()
            .unwrap()
            .split(',')
            .any(|c| c == "offset"),
        "{written}"
    );
}

/// Item 17: a CSV with an `end` column (read as inclusive) gets a line of its own saying
/// so, and the README's first example states the rule.
#[test]
fn issue_49_17_an_inclusive_end_column_is_said_loudly() {
    let text = readme().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("A CSV `end` column is read as *inclusive*"),
        "README"
    );
    let problem = temp("end.csv", b"ID,Start,End,Size\na,0,2,4\nb,2,4,4\n");
    let p = problem.to_str().unwrap();
    let out = memplan(
        &[
            "plan",
            p,
            "-o",
            problem.with_extension("plan.csv").to_str().unwrap(),
        ],
        None,
    );
    let err = stderr(&out);
    assert!(
        err.contains("max load 8"),
        "inclusive: a and b overlap at 2: {err}"
    );
    let note = err
        .lines()
        .find(|l| l.starts_with("memplan: note:"))
        .expect(&err);
    assert!(
        note.contains("'End' is inclusive") && note.contains("--lifetimes half-open"),
        "{note}"
    );
    // Half-open columns, or the reading forced: no note.
    for args in [
        vec!["plan", p, "--lifetimes", "inclusive"],
        vec!["plan", "benchmarks/minimalloc-challenging/example.12.csv"],
    ] {
        let out = memplan(&args, None);
        assert!(!stderr(&out).contains("note:"), "{}", stderr(&out));
    }
}

/// Item 19: the README shows the `Cargo.toml` line for the Rust door, and it names the
/// library crate where it is.
#[test]
fn issue_49_19_the_readme_gives_the_cargo_toml_line() {
    let text = readme();
    let line = text
        .lines()
        .find(|l| l.starts_with("memplan = { path = "))
        .expect("a Cargo.toml dependency line");
    assert!(line.contains("crates/memplan\" }"), "{line}");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = std::fs::read_to_string(root.join("crates/memplan/Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"memplan\""));
}

/// Item 6: a JSON problem's rule errors name the line and the JSON field
/// (`buffers[1].end`), not a CSV column.
#[test]
fn issue_49_6_json_errors_name_the_line_and_the_field() {
    let cases = [
        ("{\"buffers\": [\n {\"id\": \"a\", \"start\": 0, \"end\": 3, \"size\": 4},\n {\"id\": \"a\", \"start\": 0, \"end\": 3, \"size\": 4}\n]}\n", "line 3, buffers[1].id: buffer 'a' (#1): duplicate id"),
        ("{\"capacity\": 9, \"buffers\": [{\"id\": \"a\", \"start\": 0, \"end\": 3, \"size\": 4,\n \"shares\": [{\"target\": \"q\"}]},\n\n {\"id\": \"b\", \"start\": 3, \"end\": 3, \"size\": 4}]}", "line 4, buffers[1].end: buffer 'b' (#1): lifetime [3, 3) is empty"),
        ("{\"buffers\": [{\"id\": \"a\", \"start\": 0, \"end\": 3, \"size\": 4, \"alignment\": 8, \"fixed_offset\": 4}]}", "line 1, buffers[0].fixed_offset:"),
    ];
    for (k, (json, said)) in cases.iter().enumerate() {
        let problem = temp(&format!("e{k}.json"), json.as_bytes());
        let out = memplan(&["plan", problem.to_str().unwrap()], None);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(said), "{err}");
        assert!(!err.contains("column '"), "{err}");
    }
}

/// Item 8: a CSV separated by semicolons, and a header with a typo, get a hint naming the
/// separator or the unknown column and the name it is close to.
#[test]
fn issue_49_8_header_errors_suggest_the_separator_or_the_name() {
    let cases: [(&[u8], &str); 4] = [
        (b"id;lower;upper;size\na;0;2;4\n", "seems separated by ';'; memplan reads commas"),
        (b"id\tlower\tupper\tsize\na\t0\t2\t4\n", "seems separated by tabs"),
        (b"id,lower,uper,size\na,0,2,4\n", "missing column 'upper' in the header: the header has an unknown column 'uper': did you mean 'upper'?"),
        (b"ID,Start,End,Sise\na,0,2,4\n", "unknown column 'Sise': did you mean 'size'?"),
    ];
    for (csv, said) in cases {
        let out = memplan(&["plan", "-"], Some(csv));
        assert_eq!(out.status.code(), Some(3));
        assert!(stderr(&out).contains(said), "{}", stderr(&out));
    }
    // Nothing close: the plain message, no guess.
    let out = memplan(&["plan", "-"], Some(b"id,lower,upper,cost\na,0,2,4\n"));
    let err = stderr(&out);
    assert!(
        err.contains("missing column 'size' in the header") && !err.contains("did you mean"),
        "{err}"
    );
}
