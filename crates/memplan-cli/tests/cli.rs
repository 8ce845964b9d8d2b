//! End-to-end tests of the `memplan` binary: outputs, one-line errors, exit codes.

mod common;

use common::{memplan, repo_root};
use std::path::PathBuf;
use std::process::Output;

fn temp_file(name: &str, content: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Plans `content` read from a file named `name`; expects failure with `code` and a
/// single-line message containing every `needle`.
fn expect_input_error(name: &str, content: &[u8], code: i32, needles: &[&str]) {
    let path = temp_file(name, content);
    let out = memplan(&["plan", path.to_str().unwrap(), "-o", "-"], None);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{name}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{name}: one line: {err}");
    assert!(err.starts_with("memplan: error: "), "{err}");
    assert!(err.contains(name), "{name}: names the file: {err}");
    for n in needles {
        assert!(err.contains(n), "{name}: expected '{n}' in: {err}");
    }
    assert!(out.stdout.is_empty(), "{name}: no partial output");
}

#[test]
fn malformed_inputs_get_one_line_errors_with_exit_code_3() {
    expect_input_error(
        "bad_number.csv",
        b"id,lower,upper,size\na,0,3,4\nb,0,3,12x\n",
        3,
        &["line 3", "'size'", "'12x'"],
    );
    expect_input_error(
        "missing_column.csv",
        b"id,lower,size\na,0,4\n",
        3,
        &["line 1", "missing column 'upper'"],
    );
    expect_input_error(
        "size_zero.csv",
        b"id,lower,upper,size\na,0,3,0\n",
        3,
        &["line 2", "'size'", "buffer 'a'"],
    );
    expect_input_error(
        "start_after_end.csv",
        b"id,lower,upper,size\na,0,3,1\nb,5,5,1\n",
        3,
        &["line 3", "'upper'", "buffer 'b'", "[5, 5)"],
    );
    expect_input_error(
        "duplicate_id.csv",
        b"id,lower,upper,size\na,0,3,1\na,1,2,1\n",
        3,
        &["line 3", "'id'", "duplicate id"],
    );
    expect_input_error("empty.csv", b"", 3, &["empty input"]);
    expect_input_error(
        "huge_size.csv",
        b"id,lower,upper,size\na,0,3,18446744073709551615\nb,0,3,18446744073709551000\n",
        3,
        &["line 3", "'size'", "overflow"],
    );
    expect_input_error(
        "too_big.csv",
        b"id,lower,upper,size\na,0,3,18446744073709551616\n",
        3,
        &["line 2", "too large"],
    );
    expect_input_error(
        "negative.csv",
        b"id,lower,upper,size\na,-2,3,4\n",
        3,
        &["line 2", "'lower'", "'-2'"],
    );
    let out = memplan(&["plan", "/nonexistent/memplan/input.csv"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn crlf_and_bom_are_accepted() {
    let path = temp_file(
        "crlf_bom.csv",
        b"\xEF\xBB\xBFid,lower,upper,size\r\na,0,3,4\r\nb,3,9,4\r\nc,0,9,4\r\n",
    );
    let out = memplan(&["plan", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("optimal"));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("id,lower,upper,size,offset\n"), "{text}");
}

#[test]
fn plan_writes_offsets_that_check_accepts() {
    let input = repo_root().join("benchmarks/minimalloc-challenging/example.12.csv");
    let out_path = temp_file("example.plan.csv", b"");
    let out = memplan(
        &[
            "plan",
            input.to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = stderr(&out);
    for needle in [
        "5 buffers",
        "max load 12",
        "height 12",
        "fragmentation 0 (0.00%)",
        "planner ",
        "optimal",
    ] {
        assert!(summary.contains(needle), "'{needle}' in {summary}");
    }
    let out = memplan(
        &["check", input.to_str().unwrap(), out_path.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok: 5 buffers; height 12"));
    let out = memplan(
        &[
            "check",
            input.to_str().unwrap(),
            out_path.to_str().unwrap(),
            "--capacity",
            "11",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
}

#[test]
fn check_names_the_overlapping_buffers() {
    let problem = temp_file("p.csv", b"id,lower,upper,size\na,0,4,12\nb,3,7,8\n");
    let plan = temp_file("bad.plan.csv", b"id,offset\na,0\nb,8\n");
    let out = memplan(
        &["check", problem.to_str().unwrap(), plan.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(4));
    let err = stderr(&out);
    assert!(
        err.contains("violation: buffers 'a'")
            && err.contains("'b'")
            && err.contains("[3, 4)")
            && err.contains("[8, 12)"),
        "{err}"
    );
    let plan = temp_file("missing.plan.csv", b"id,offset\na,0\n");
    let out = memplan(
        &["check", problem.to_str().unwrap(), plan.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("'b' is not placed"));
}

#[test]
fn stdin_and_stdout_with_dash() {
    let out = memplan(
        &["plan", "-", "--planner", "size-first-fit"],
        Some(b"id,lower,upper,size\nx,0,2,5\ny,1,3,5\n"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "id,lower,upper,size,offset\nx,0,2,5,0\ny,1,3,5,5\n"
    );
}

#[test]
fn capacity_exit_codes() {
    let input = b"id,lower,upper,size\na,0,2,4\nb,1,3,4\n";
    let out = memplan(&["plan", "-", "--capacity", "7"], Some(input));
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no plan fits under 7: proved"),
        "{}",
        stderr(&out)
    );
    let out = memplan(&["plan", "-", "--capacity", "8"], Some(input));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn time_limits_too_long_for_a_duration_are_no_limit() {
    let input = b"id,lower,upper,size\na,0,2,4\nb,1,3,4\n";
    for limit in ["1e300", "1.8e308", "inf"] {
        let out = memplan(&["plan", "-", "--time-limit", limit], Some(input));
        assert_eq!(out.status.code(), Some(0), "{limit}: {}", stderr(&out));
    }
    let out = memplan(&["plan", "-", "--time-limit", "NaN"], Some(input));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn unknown_planner_is_a_usage_error() {
    let out = memplan(
        &["plan", "-", "--planner", "magic"],
        Some(b"id,lower,upper,size\na,0,1,1\n"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown planner 'magic'"));
}

#[test]
fn help_documents_exit_codes() {
    let out = memplan(&["plan", "--help"], None);
    let text = String::from_utf8_lossy(&out.stdout);
    for code in [
        "0  success",
        "3  invalid input",
        "5  no plan fits",
        "6  no plan under",
    ] {
        assert!(text.contains(code), "{code}");
    }
}

#[test]
fn plan_help_fits_on_one_screen_and_help_all_lists_the_ablations() {
    for flag in ["-h", "--help"] {
        let out = memplan(&["plan", flag], None);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success());
        assert!(
            text.lines().count() <= 40,
            "{flag}: {} lines",
            text.lines().count()
        );
        assert!(text.contains("--time-limit") && text.contains("--help-all"));
        assert!(
            !text.contains("--no-canonical"),
            "{flag} hides the ablations"
        );
    }
    let out = memplan(&["plan", "--help-all"], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for heading in ["Exact search", "TelaMalloc", "Boxing"] {
        assert!(
            text.contains(&format!("{heading}: ablations and tuning")),
            "{heading}"
        );
    }
    assert!(text.contains("--no-canonical") && text.contains("--telamalloc-no-greedy-first"));
    // The earlier spellings are hidden aliases.
    assert!(!text.contains("--tm-no-greedy-first") && !text.contains("--bootstrap"));
}

#[test]
fn output_is_the_same_whatever_the_thread_count() {
    // The exact search is bounded by nodes, not by the clock: under a time limit, a
    // loaded machine may cut it at another point (a different, valid plan).
    let input = repo_root().join("benchmarks/idealloc/somas-resnet50.csv");
    let run = |threads: &str| {
        let input = input.to_str().unwrap();
        let bounded = ["--time-limit", "inf", "--node-limit", "100000"];
        let mut args = vec!["plan", input, "--threads", threads];
        args.extend(bounded);
        memplan(&args, None)
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one.status.code(), Some(0));
    assert!(stderr(&one).contains("optimal"), "{}", stderr(&one));
    assert!(one.stdout == two.stdout, "byte-for-byte identical");
}

#[test]
fn gen_is_seeded_and_stats_reads_it() {
    let a = memplan(&["gen", "--buffers", "2000", "--seed", "7"], None);
    let b = memplan(&["gen", "--buffers", "2000", "--seed", "7"], None);
    assert_eq!(a.status.code(), Some(0));
    assert!(a.stdout == b.stdout);
    let out = memplan(&["stats", "-"], Some(&a.stdout));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("buffers            2,000"), "{text}");
    let live: u64 = text
        .lines()
        .find(|l| l.starts_with("max live buffers"))
        .and_then(|l| l.split_whitespace().last())
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(
        live >= 100,
        "at least 100 buffers live at the peak, got {live}"
    );
}

/// `--lifetimes inclusive` reads JSON the way it reads CSV: the same numbers
/// `a 0..2`, `b 2..4` share time 2 (height 200) instead of meeting end to start (100).
#[test]
fn json_lifetimes_can_be_read_inclusive() {
    let json = br#"{"buffers": [{"id": "a", "start": 0, "end": 2, "size": 100},
                                 {"id": "b", "start": 2, "end": 4, "size": 100}]}"#;
    for (flags, height) in [
        (&[][..], "height 100"),
        (&["--lifetimes", "inclusive"][..], "height 200"),
    ] {
        let mut args = vec!["plan", "-", "--format", "json", "-o", "-"];
        args.extend_from_slice(flags);
        let out = memplan(&args, Some(json));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && err.contains(height),
            "{flags:?}: {err}"
        );
    }
}

/// `bench` plans with `plan`'s options and flags, so a table row is what `plan` gives
/// that file: the same height, and no fragmentation where `plan` proves the optimum.
/// (The budget is counted in nodes, not seconds, so that both runs are reproducible.)
#[test]
fn bench_rows_are_what_plan_gives() {
    let dir = std::env::temp_dir().join(format!("memplan-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let suite = repo_root().join("benchmarks/minimalloc-challenging");
    let budget = ["--time-limit", "inf", "--node-limit", "2000"];
    let names = [
        "A.1048576.csv",
        "C.1048576.csv",
        "G.1048576.csv",
        "example.12.csv",
    ];
    for name in names {
        std::fs::copy(suite.join(name), dir.join(name)).unwrap();
    }
    let mut args = vec!["bench", dir.to_str().unwrap()];
    args.extend(budget);
    let table = memplan(&args, None);
    assert!(table.status.success(), "{}", stderr(&table));
    let table = String::from_utf8_lossy(&table.stdout).into_owned();
    for name in names {
        let file = dir.join(name);
        let mut args = vec!["plan", file.to_str().unwrap(), "-o", "/dev/null"];
        args.extend(budget);
        let plan = memplan(&args, None);
        let summary = stderr(&plan);
        let height = summary
            .split("; ")
            .find_map(|f| f.strip_prefix("height "))
            .unwrap_or_else(|| panic!("{summary}"));
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row for {name}: {table}"));
        let cells: Vec<&str> = row.split(" | ").collect();
        assert_eq!(cells[3], height, "{name}: {row} vs {summary}");
        // The one proven bound, and the gap to it.
        let proven = summary
            .split("; ")
            .find_map(|f| f.strip_prefix("proven ≥ "))
            .unwrap_or_else(|| panic!("{summary}"));
        assert_eq!(cells[4], proven, "{name}: {row} vs {summary}");
        if summary.contains("; optimal") {
            assert_eq!(cells[5], "0", "{name}: {row}");
        }
    }
}

/// The same numbers read through `end` (inclusive) and `upper` (half-open) give different
/// plans; the summary says which reading was applied when it came from the column name.
#[test]
fn the_summary_names_the_inferred_lifetime_convention() {
    let run = |header: &str, extra: &[&str]| {
        let csv = format!("id,lower,{header},size\na,0,2,100\nb,2,4,100\n");
        let mut args = vec!["plan", "-", "-o", "-"];
        args.extend_from_slice(extra);
        stderr(&memplan(&args, Some(csv.as_bytes())))
    };
    let end = run("end", &[]);
    assert!(
        end.contains("height 200") && end.contains("lifetimes inclusive (column 'end'"),
        "{end}"
    );
    let upper = run("upper", &[]);
    assert!(
        upper.contains("height 100") && upper.contains("lifetimes half-open (column 'upper'"),
        "{upper}"
    );
    let forced = run("end", &["--lifetimes", "half-open"]);
    assert!(
        forced.contains("height 100") && !forced.contains("lifetimes"),
        "{forced}"
    );
}

/// `--alignment A` aligns the buffers whose input gives no alignment, in CSV and JSON;
/// a given alignment stands.
#[test]
fn alignment_flag_sets_the_default_alignment() {
    let csv = b"id,lower,upper,size,alignment\na,0,4,10,\nb,0,4,10,\nc,0,4,10,2\n";
    let json = br#"{"buffers": [{"id": "a", "start": 0, "end": 4, "size": 10},
        {"id": "b", "start": 0, "end": 4, "size": 10},
        {"id": "c", "start": 0, "end": 4, "size": 10, "alignment": 2}]}"#;
    for (input, format) in [(&csv[..], "csv"), (&json[..], "json")] {
        let args = [
            "plan",
            "-",
            "--format",
            format,
            "--output-format",
            "csv",
            "-o",
            "-",
        ];
        let mut aligned = args.to_vec();
        aligned.extend(["--alignment", "64"]);
        let out = memplan(&aligned, Some(input));
        assert!(out.status.success(), "{}", stderr(&out));
        let plan = String::from_utf8_lossy(&out.stdout).into_owned();
        let offsets: Vec<(String, u64)> = plan
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].to_string(), f.last().unwrap().parse().unwrap())
            })
            .collect();
        for (id, off) in &offsets {
            let a = if id == "c" { 2 } else { 64 };
            assert_eq!(off % a, 0, "{format}: {id} at {off}: {plan}");
        }
        let plain = memplan(&args, Some(input));
        let height = |o: &std::process::Output| {
            stderr(o)
                .split("; ")
                .find_map(|f| f.strip_prefix("height ").map(str::to_string))
        };
        assert_eq!(height(&plain).as_deref(), Some("30"), "{format}: unaligned");
        assert_ne!(height(&out), height(&plain), "{format}: alignment pads");
    }
    let zero = memplan(&["plan", "-", "--alignment", "0"], Some(&csv[..]));
    assert_eq!(zero.status.code(), Some(2));
}

/// `--capacity -5` and `--time-limit -1` are bad values, said so, without clap's tip to
/// pass them as `-- -5` (which would make them a file name).
#[test]
fn negative_numbers_get_a_clear_message() {
    let input = b"id,lower,upper,size\na,0,2,4\n";
    for (flag, value, says) in [
        (
            "--capacity",
            "-5",
            "must be a non-negative number of bytes, got -5",
        ),
        (
            "--time-limit",
            "-1",
            "must be a non-negative number of seconds, got -1",
        ),
    ] {
        let out = memplan(&["plan", "-", flag, value], Some(input));
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(!stderr(&out).contains("-- -"), "{}", stderr(&out));
    }
}

/// A plan made with `--lifetimes inclusive`, then checked or drawn without it: the error
/// about an empty lifetime says to give the flag again.
#[test]
fn an_inclusive_plan_read_half_open_gets_a_hint() {
    let problem = temp_file("inclusive.csv", b"id,lower,upper,size\na,0,0,4\nb,1,3,4\n");
    let problem = problem.to_str().unwrap();
    let plan = temp_file("inclusive.plan.csv", b"");
    let plan = plan.to_str().unwrap();
    let out = memplan(
        &[
            "plan",
            problem,
            "--lifetimes",
            "inclusive",
            "-o",
            plan,
            "-q",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    for command in ["check", "render"] {
        let out = memplan(
            &[command, problem, plan, "-o", "/dev/null"][..if command == "check" { 3 } else { 5 }],
            None,
        );
        assert_eq!(out.status.code(), Some(3), "{command}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("is empty")
                && stderr(&out).contains("give --lifetimes inclusive here too"),
            "{command}: {}",
            stderr(&out)
        );
        let ok = memplan(
            &[
                command,
                problem,
                plan,
                "--lifetimes",
                "inclusive",
                "-o",
                "/dev/null",
            ][..if command == "check" { 5 } else { 7 }],
            None,
        );
        assert!(ok.status.success(), "{command}: {}", stderr(&ok));
    }
}
