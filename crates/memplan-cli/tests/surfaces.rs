//! The CLI's surfaces: JSON input and output, `render` (SVG), `--quiet`, `--json`, and
//! Ctrl-C keeping the best plan.

mod common;

use common::memplan;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-surfaces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const EXAMPLE: &str = "benchmarks/minimalloc-challenging/example.12.csv";
const RESNET: &str = "benchmarks/idealloc/somas-resnet50.csv";

#[test]
fn json_and_csv_give_the_same_plan() {
    let csv_plan = ok(&memplan(&["plan", RESNET, "--quiet"], None));
    let json_plan = ok(&memplan(
        &["plan", RESNET, "--output-format", "json", "-q"],
        None,
    ));
    let v: serde_json::Value = serde_json::from_str(&json_plan).unwrap();
    let json_offsets: Vec<u64> = v["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["offset"].as_u64().unwrap())
        .collect();
    let csv_offsets: Vec<u64> = csv_plan
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(json_offsets, csv_offsets);
    let height = v["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["offset"].as_u64().unwrap() + b["size"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(v["height"], height);
    assert!(v["lower_bound"].as_u64().unwrap() <= height);

    // The JSON plan checks against the CSV problem, and a JSON problem (from stdin,
    // detected by content) plans to the same offsets.
    let plan_path = scratch("resnet.plan.json");
    std::fs::write(&plan_path, &json_plan).unwrap();
    ok(&memplan(
        &["check", RESNET, plan_path.to_str().unwrap()],
        None,
    ));
    let problem_path = scratch("resnet.json");
    let gen = memplan(
        &[
            "gen",
            "--buffers",
            "300",
            "--seed",
            "5",
            "-o",
            problem_path.to_str().unwrap(),
        ],
        None,
    );
    ok(&gen);
    let text = std::fs::read(&problem_path).unwrap();
    assert!(text.starts_with(b"{"), "gen writes JSON for a .json name");
    let from_stdin = ok(&memplan(&["plan", "-", "-q"], Some(&text)));
    assert!(
        from_stdin.starts_with("{"),
        "JSON in, JSON out: {from_stdin:.80}"
    );
    let forced_csv = ok(&memplan(
        &["plan", "-", "-q", "--output-format", "csv"],
        Some(&text),
    ));
    assert!(
        forced_csv.starts_with("id,lower,upper,size"),
        "{forced_csv:.80}"
    );
    let from_file = ok(&memplan(
        &["plan", problem_path.to_str().unwrap(), "-q"],
        None,
    ));
    assert_eq!(from_stdin, from_file);
}

#[test]
fn json_errors_name_the_file_and_line() {
    let bad = scratch("bad.json");
    std::fs::write(
        &bad,
        "{\"buffers\": [\n  {\"id\": \"a\", \"start\": 0, \"end\": 3, \"size\": \"big\"}\n]}",
    )
    .unwrap();
    let out = memplan(&["plan", bad.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("bad.json") && err.contains("line 2"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1);
}

#[test]
fn quiet_prints_nothing_and_json_prints_a_summary() {
    let out = memplan(
        &[
            "plan",
            EXAMPLE,
            "-o",
            scratch("q.csv").to_str().unwrap(),
            "--quiet",
        ],
        None,
    );
    ok(&out);
    assert!(out.stderr.is_empty());
    let out = memplan(
        &[
            "plan",
            EXAMPLE,
            "-o",
            scratch("j.csv").to_str().unwrap(),
            "--json",
        ],
        None,
    );
    ok(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(v["outcome"], "optimal");
    assert_eq!(v["height"], v["max_load"]);
    assert_eq!(v["buffers"], 5);
    assert_eq!(v["interrupted"], false);
    let out = memplan(&["plan", EXAMPLE, "--capacity", "5", "--json"], None);
    assert_eq!(out.status.code(), Some(5));
    let first = String::from_utf8_lossy(&out.stderr)
        .lines()
        .next()
        .unwrap()
        .to_string();
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["outcome"], "infeasible");
    assert!(v["height"].is_null());
}

fn count(s: &str, needle: &str) -> usize {
    s.matches(needle).count()
}

#[test]
fn render_draws_every_buffer_with_a_tooltip() {
    let plan = scratch("ex.plan.csv");
    ok(&memplan(
        &["plan", EXAMPLE, "-q", "-o", plan.to_str().unwrap()],
        None,
    ));
    let svg = ok(&memplan(
        &[
            "render",
            EXAMPLE,
            plan.to_str().unwrap(),
            "--capacity",
            "16",
        ],
        None,
    ));
    assert!(svg.starts_with("<svg"), "{svg:.100}");
    assert!(svg.trim_end().ends_with("</svg>"));
    for id in ["b1", "b2", "b3", "b4", "b5"] {
        assert!(svg.contains(&format!("<title>{id}\n")), "tooltip for {id}");
    }
    assert_eq!(count(&svg, "<g fill="), 5, "one group per buffer");
    assert!(svg.contains("capacity 16"), "the capacity line");
    assert!(svg.contains("<title>load:"), "the load panel");
    assert!(svg.contains("optimal"));
    // Well-formed enough for an XML parser's first test: tags balance.
    assert_eq!(count(&svg, "<g "), count(&svg, "</g>"));
    assert_eq!(count(&svg, "<title>"), count(&svg, "</title>"));
}

#[test]
fn render_draws_a_window_highlights_buffers_and_names_the_input_columns() {
    let plan = scratch("win.plan.csv");
    ok(&memplan(
        &["plan", EXAMPLE, "-q", "-o", plan.to_str().unwrap()],
        None,
    ));
    let whole = ok(&memplan(&["render", EXAMPLE, plan.to_str().unwrap()], None));
    // The load has its own panel (a filled area), and the plan panel a max-load level.
    assert!(whole.contains(r##"fill="#9ecae1""##) && whole.contains(">max load "));
    // Tooltips name the input's columns; time labels have separators past 999.
    assert!(
        whole.contains("input: id=b1, lower=0, upper=3, size=4"),
        "{whole:.2000}"
    );
    // b1 lives [0, 3), b2 [3, 9), b4 [9, 21): the window [5, 21) shows b2 and b4, not b1.
    let args = [
        "render",
        EXAMPLE,
        plan.to_str().unwrap(),
        "--from",
        "5",
        "--to",
        "21",
    ];
    let mut with_highlight = args.to_vec();
    with_highlight.extend(["--buffers", "b4,b5"]);
    let svg = ok(&memplan(&with_highlight, None));
    assert!(svg.contains("time [5, 21)"));
    assert!(svg.contains("<title>b4\n") && !svg.contains("<title>b1\n"));
    assert_eq!(
        count(&svg, r##"stroke="#000" stroke-width="2.5""##),
        2 + 1,
        "b4, b5, legend"
    );
    assert!(
        svg.contains("<title>b2\n") && svg.contains(r#"opacity="0.35""#),
        "b2 fades"
    );
    let bad = memplan(
        &[
            "render",
            EXAMPLE,
            plan.to_str().unwrap(),
            "--buffers",
            "nope",
        ],
        None,
    );
    assert_eq!(bad.status.code(), Some(2));
    let bad = memplan(
        &[
            "render",
            EXAMPLE,
            plan.to_str().unwrap(),
            "--from",
            "5",
            "--to",
            "5",
        ],
        None,
    );
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn render_of_a_bad_plan_says_so_and_an_unknown_id_fails() {
    let plan = scratch("bad.plan.csv");
    std::fs::write(&plan, "id,offset\nb1,0\nb2,0\nb3,0\nb4,0\nb5,0\n").unwrap();
    let svg = ok(&memplan(&["render", EXAMPLE, plan.to_str().unwrap()], None));
    assert!(svg.contains("INVALID PLAN"));
    std::fs::write(&plan, "id,offset\nzz,0\n").unwrap();
    let out = memplan(&["render", EXAMPLE, plan.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("zz"));
}

#[test]
fn render_of_100k_buffers_stays_small() {
    let problem = scratch("big.csv");
    let plan = scratch("big.plan.csv");
    ok(&memplan(
        &[
            "gen",
            "--buffers",
            "100000",
            "--seed",
            "9",
            "-o",
            problem.to_str().unwrap(),
        ],
        None,
    ));
    ok(&memplan(
        &[
            "plan",
            problem.to_str().unwrap(),
            "--planner",
            "size-best-fit",
            "-q",
            "-o",
            plan.to_str().unwrap(),
        ],
        None,
    ));
    let svg_path = scratch("big.svg");
    ok(&memplan(
        &[
            "render",
            problem.to_str().unwrap(),
            plan.to_str().unwrap(),
            "-o",
            svg_path.to_str().unwrap(),
        ],
        None,
    ));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.len() < 3_000_000, "{} bytes", svg.len());
    let detailed = count(&svg, "<g fill=");
    assert!(
        detailed > 100 && detailed <= 5000,
        "{detailed} buffers drawn alone"
    );
    assert!(
        svg.contains("buffers, merged into"),
        "the merged path says what it holds"
    );
}

#[test]
fn ctrl_c_still_writes_a_valid_plan() {
    let problem = scratch("int.csv");
    let plan = scratch("int.plan.csv");
    ok(&memplan(
        &[
            "gen",
            "--buffers",
            "60000",
            "--seed",
            "4",
            "-o",
            problem.to_str().unwrap(),
        ],
        None,
    ));
    let child = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args([
            "plan",
            problem.to_str().unwrap(),
            "-o",
            plan.to_str().unwrap(),
            "--threads",
            "1",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let it read the input and start planning, then interrupt it.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // Whether the signal came during planning or not, the plan written is valid.
    ok(&memplan(
        &["check", problem.to_str().unwrap(), plan.to_str().unwrap()],
        None,
    ));
    if err.contains("interrupted") {
        assert!(err.contains("height"), "the summary follows: {err}");
    }
}
