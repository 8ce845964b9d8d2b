//! Keeps the README's command-line examples working: every line starting with `memplan `
//! inside a ```sh block runs, from a scratch directory that sees the benchmarks, and must
//! succeed. (The Rust example is a doctest of the library.)

use std::path::Path;
use std::process::Command;

#[test]
fn readme_commands_succeed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let scratch = std::env::temp_dir().join(format!("memplan-readme-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let link = scratch.join("benchmarks");
    if !link.exists() {
        std::os::unix::fs::symlink(root.join("benchmarks"), &link).unwrap();
    }
    let mut in_sh = false;
    let mut ran = 0;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        let Some(args) = line.strip_prefix("memplan ").filter(|_| in_sh) else {
            continue;
        };
        let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
            .args(args.split_whitespace())
            .current_dir(&scratch)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{line}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 5, "the README shows the CLI");
}
