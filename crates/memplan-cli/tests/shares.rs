//! Shares through the command line (issue 45): plan, check, stats and render of a problem
//! whose buffers may share storage, and the errors of bad shares and broken plans.

mod common;

/// `common::memplan` with its arguments given in steps.
struct Cmd(Vec<String>);

fn cmd() -> Cmd {
    Cmd(Vec::new())
}

impl Cmd {
    fn args<S: AsRef<str>>(mut self, args: impl IntoIterator<Item = S>) -> Cmd {
        self.0
            .extend(args.into_iter().map(|a| a.as_ref().to_string()));
        self
    }

    fn output(self) -> std::io::Result<std::process::Output> {
        let args: Vec<&str> = self.0.iter().map(String::as_str).collect();
        Ok(common::memplan(&args, None))
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-shares-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// conv -> relu (in place) -> add (in place), a skip beside them, a cache update inside
/// its cache (required).
const PROBLEM: &str = "id,lower,upper,size,shares
conv,0,3,8,
relu,2,5,8,in_place:conv
add,4,7,8,in_place:relu
skip,0,7,4,
cache,0,8,16,
update,3,6,16,inside:cache@0!
";

fn offsets(plan_csv: &str) -> Vec<(String, u64)> {
    let mut lines = plan_csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = head.iter().position(|h| *h == "offset").unwrap();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[col].parse().unwrap())
        })
        .collect()
}

#[test]
fn plan_check_stats_and_render_with_shares() {
    let input = temp("p.csv", PROBLEM);
    let plan = input.with_file_name("p.plan.csv");
    let out = cmd()
        .args([
            "plan",
            input.to_str().unwrap(),
            "-o",
            plan.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary = text(&out.stderr);
    assert!(summary.contains("3 of 3 shares taken"), "{summary}");
    assert!(
        summary.contains("height 28") && summary.contains("optimal"),
        "{summary}"
    );
    let placed = offsets(&std::fs::read_to_string(&plan).unwrap());
    let at = |id: &str| placed.iter().find(|(i, _)| i == id).unwrap().1;
    assert_eq!(at("conv"), at("relu"));
    assert_eq!(at("relu"), at("add"));
    assert_eq!(at("cache"), at("update"));
    // The plan file keeps the shares column; check reads it back.
    let out = cmd()
        .args(["check", input.to_str().unwrap(), plan.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = cmd()
        .args(["stats", input.to_str().unwrap()])
        .output()
        .unwrap();
    let stats = text(&out.stdout);
    assert!(
        stats.contains("3 (2 in place, 1 inside; 1 required)"),
        "{stats}"
    );
    assert!(stats.contains("max load, shared   28"), "{stats}");
    let svg = input.with_file_name("p.svg");
    let out = cmd()
        .args([
            "render",
            input.to_str().unwrap(),
            plan.to_str().unwrap(),
            "-o",
            svg.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(svg).unwrap();
    assert_eq!(
        svg.matches("share taken: ").count(),
        3,
        "one outline per share"
    );
    assert!(
        svg.contains("&#39;relu&#39; in place of &#39;conv&#39;")
            || svg.contains("'relu' in place of 'conv'")
    );
    // The ablation: without the optional shares, only the required one is taken.
    let out = cmd()
        .args([
            "plan",
            input.to_str().unwrap(),
            "--shares-no-optional",
            "--summary-json",
        ])
        .args(["-o", plan.to_str().unwrap()])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(json["shares"], 3);
    assert_eq!(json["shares_taken"], 1);
}

#[test]
fn a_broken_share_is_named_by_check() {
    let input = temp("b.csv", PROBLEM);
    // relu at conv's offset + 4 while conv is live: the share's offset is wrong.
    let plan = temp(
        "b.plan.csv",
        "id,offset\nconv,0\nrelu,4\nadd,4\nskip,12\ncache,16\nupdate,16\n",
    );
    let out = cmd()
        .args(["check", input.to_str().unwrap(), plan.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = text(&out.stderr);
    assert!(
        err.contains("'relu'") && err.contains("'conv'") && err.contains("in_place"),
        "{err}"
    );
    // The required update outside its cache.
    let plan = temp(
        "c.plan.csv",
        "id,offset\nconv,0\nrelu,0\nadd,0\nskip,8\ncache,12\nupdate,28\n",
    );
    let out = cmd()
        .args(["check", input.to_str().unwrap(), plan.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = text(&out.stderr);
    assert!(
        err.contains("required share inside of 'update' over 'cache' is not taken"),
        "{err}"
    );
}

#[test]
fn bad_shares_name_the_file_line_and_field() {
    for (body, line, needle) in [
        (
            "a,0,2,8,\nb,1,3,8,sideways:a\n",
            3,
            "bad share 'sideways:a'",
        ),
        (
            "a,0,2,8,\nb,1,3,8,in_place:zz\n",
            3,
            "'zz', which is not a buffer",
        ),
        ("a,0,4,8,\nb,1,3,8,in_place:a!\n", 3, "read later"),
        ("a,0,2,8,\nb,1,3,4,inside:a@6\n", 3, "ends past its size 8"),
    ] {
        let input = temp("bad.csv", &format!("id,lower,upper,size,shares\n{body}"));
        let out = cmd()
            .args(["plan", input.to_str().unwrap(), "-o", "-"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{body}");
        let err = text(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        assert!(
            err.contains("bad.csv")
                && err.contains(&format!("line {line}"))
                && err.contains("shares"),
            "{err}"
        );
        assert!(err.contains(needle), "{needle}: {err}");
    }
}

#[test]
fn json_problems_carry_their_shares() {
    let input = temp(
        "j.json",
        r#"{"buffers": [{"id": "x", "start": 0, "end": 3, "size": 8},
            {"id": "y", "start": 2, "end": 5, "size": 8, "shares": [{"target": "x"}]}]}"#,
    );
    let plan = input.with_file_name("j.plan.json");
    let out = cmd()
        .args([
            "plan",
            input.to_str().unwrap(),
            "-o",
            plan.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    assert_eq!(written["height"], 8);
    assert_eq!(written["buffers"][1]["shares"][0]["target"], "x");
    let out = cmd()
        .args(["check", input.to_str().unwrap(), plan.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}
