//! End-to-end runs of `memplan share`, `memplan gen --tiled` and `memplan tiles`.

use std::process::Command;

fn memplan() -> Command {
    Command::new(env!("CARGO_BIN_EXE_memplan"))
}

fn bench(path: &str) -> String {
    format!("{}/../../benchmarks/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn share_writes_one_object_per_buffer_and_the_bound() {
    let out = memplan()
        .args(["share", &bench("minimalloc-challenging/example.12.csv")])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "id,object,object_size");
    assert_eq!(lines.len(), 6, "{stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("total 12; lower bound"), "{stderr}");
    for s in ["breadth", "size", "size-improved", "naive"] {
        let out = memplan()
            .args([
                "share",
                &bench("minimalloc-challenging/example.12.csv"),
                "--strategy",
                s,
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{s}");
    }
    let out = memplan()
        .args([
            "share",
            &bench("minimalloc-challenging/example.12.csv"),
            "--strategy",
            "nope",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_shared_accepts_share_output_and_rejects_a_bad_assignment() {
    let problem = bench("minimalloc-challenging/K.1048576.csv");
    let out = memplan().args(["share", &problem]).output().unwrap();
    assert!(out.status.success());
    let dir = std::env::temp_dir().join(format!("memplan-share-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.csv");
    std::fs::write(&good, &out.stdout).unwrap();
    let st = memplan()
        .args(["check-shared", &problem, good.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    // Everything in one object: buffers overlap in time.
    let text = String::from_utf8(out.stdout).unwrap();
    let mut bad = String::from("id,object,object_size\n");
    for line in text.lines().skip(1) {
        let id = line.split(',').next().unwrap();
        bad += &format!("{id},0,99999999\n");
    }
    let bad_path = dir.join("bad.csv");
    std::fs::write(&bad_path, bad).unwrap();
    let st = memplan()
        .args(["check-shared", &problem, bad_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(4));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generated_tiled_networks_plan_and_check() {
    let dir = std::env::temp_dir().join(format!("memplan-tiles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("net.json");
    let json = json.to_str().unwrap();
    for layout in ["nhwc", "nchw"] {
        let st = memplan()
            .args([
                "gen", "--tiled", "--layout", layout, "--blocks", "3", "--seed", "9", "-o", json,
            ])
            .status()
            .unwrap();
        assert!(st.success());
        let out = memplan()
            .args(["tiles", json, "--compare"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.starts_with("id,offset\n"));
        let plan = dir.join("plan.csv");
        std::fs::write(&plan, &stdout).unwrap();
        let st = memplan()
            .args(["check-tiles", json, plan.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        // Every tensor at 0: tiles of different tensors live together collide.
        let zero: String = stdout
            .lines()
            .map(|l| match l.rsplit_once(',') {
                Some((id, _)) if l != "id,offset" => format!("{id},0\n"),
                _ => format!("{l}\n"),
            })
            .collect();
        std::fs::write(&plan, zero).unwrap();
        let st = memplan()
            .args(["check-tiles", json, plan.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(st.status.code(), Some(4));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("tile-aware peak"), "{stderr}");
    }
    std::fs::write(json, "{\"tensors\": [{\"id\": 1}]}").unwrap();
    let out = memplan().args(["tiles", json]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    std::fs::remove_dir_all(&dir).unwrap();
}
