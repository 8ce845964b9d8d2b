//! Keeps the README's and the guides' (`docs/*.md`) command-line examples working: every
//! line starting with `memplan ` inside a ```sh block runs, in order, from a scratch
//! directory that sees `benchmarks/` and `tests/`, and must succeed. (The Rust example is
//! a doctest of the library.)

use std::path::Path;
use std::process::Command;

/// The repository's root.
fn repo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The README, then the guides (`docs/*.md`) in name order.
fn pages(root: &Path) -> Vec<std::path::PathBuf> {
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut pages = vec![root.join("README.md")];
    pages.extend(docs);
    pages
}

#[test]
fn readme_commands_succeed() {
    let root = repo_root();
    let pages = pages(&root);
    let scratch = std::env::temp_dir().join(format!("memplan-readme-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for dir in ["benchmarks", "tests"] {
        let link = scratch.join(dir);
        if !link.exists() {
            std::os::unix::fs::symlink(root.join(dir), &link).unwrap();
        }
    }
    let mut ran = 0;
    for page in &pages {
        ran += run_sh_blocks(page, &scratch);
    }
    assert!(ran >= 7, "the README and the guides show the CLI");
    // What they wrote into the current directory is in .gitignore (as `/name`), so that
    // running them from the repository's root leaves `git status` clean.
    let ignored = std::fs::read_to_string(root.join(".gitignore")).unwrap();
    for entry in std::fs::read_dir(&scratch).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name == "benchmarks" || name == "tests" {
            continue;
        }
        assert!(
            ignored.lines().any(|l| l == format!("/{name}")),
            "the examples write {name}, which .gitignore does not list"
        );
    }
}

/// Runs the `memplan ` lines of a page's sh blocks; returns how many ran.
fn run_sh_blocks(page: &Path, scratch: &Path) -> usize {
    let text = std::fs::read_to_string(page).unwrap();
    let mut in_sh = false;
    let mut ran = 0;
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        let Some(args) = line.strip_prefix("memplan ").filter(|_| in_sh) else {
            continue;
        };
        let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
            .args(args.split_whitespace())
            .current_dir(scratch)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: `{line}` failed: {}",
            page.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    ran
}

/// Every relative link of the README and the guides (`[text](path)`, optionally with a
/// `#fragment`) names a file that exists.
#[test]
fn links_resolve() {
    let root = repo_root();
    let pages = pages(&root);
    let mut checked = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with('#') || target.contains(' ') {
                continue;
            }
            let path = target.split('#').next().unwrap();
            let resolved = page.parent().unwrap().join(path);
            assert!(
                resolved.exists(),
                "{}: the link to {target} goes nowhere",
                page.display()
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "the README links the guides ({checked} links)"
    );
}

/// The CSV and JSON examples of the formats guide (its ```text blocks that start like a
/// problem) plan as written.
#[test]
fn the_format_examples_plan() {
    let root = repo_root();
    let text = std::fs::read_to_string(root.join("docs/formats.md")).unwrap();
    let dir = std::env::temp_dir().join(format!("memplan-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut planned = 0;
    for (k, block) in text.split("```text\n").skip(1).enumerate() {
        let body = block.split("```").next().unwrap();
        let ext = if body.starts_with("id,") {
            "csv"
        } else if body.starts_with('{') {
            "json"
        } else {
            continue;
        };
        let file = dir.join(format!("example{k}.{ext}"));
        std::fs::write(&file, body).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
            .args(["plan", file.to_str().unwrap(), "-o", "-", "-q"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "docs/formats.md example {k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        planned += 1;
    }
    assert!(planned >= 2, "the CSV and the JSON example");
}
