//! Issue 44: the checker stands alone, below every planner. No file of it
//! (`src/checker.rs`, `src/checker/`) names a planner module by path, in code or in a doc
//! link: what it shares with the planners (the memories' model, spill's input) lives
//! below both, in `memory_types`.

use std::path::Path;

/// The planner families and the modules that run them.
const PLANNERS: [&str; 12] = [
    "driver",
    "memories",
    "spill",
    "greedy",
    "exact",
    "boxing",
    "telamalloc",
    "bounds",
    "sections",
    "storage",
    "tiles",
    "shared_objects",
];

#[test]
fn the_checker_names_no_planner_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("checker.rs")];
    for entry in std::fs::read_dir(src.join("checker")).unwrap() {
        files.push(entry.unwrap().path());
    }
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for planner in PLANNERS {
                if line.contains(&format!("crate::{planner}")) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(files.len() >= 3, "{files:?}");
    assert!(
        found.is_empty(),
        "the checker names planners:\n{}",
        found.join("\n")
    );
}
