//! The CLI's modules import one another without a circle (issue 29, item 6), in layers:
//! `main` above the commands (`cmd`), the commands above their shared I/O (`shared`),
//! that above the flags (`flags`), and all above the exit codes (`exit`). A module
//! imports its own layer or lower ones, a command no other command (a command's files
//! import each other), and within a layer
//! the imports form no circle.
//!
//! The edges are read from the sources: every `use crate::…` and `use super::…` (groups
//! expanded, test modules left out), and the commands `main` calls by path. (That no
//! crate's modules import each other in a circle is `memplan`'s tests/import_graph.rs.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Module name (`cmd::plan`, `main`) → its source under `src`, test modules cut off.
fn modules(src: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
            if path.is_dir() {
                walk(&path, &[prefix, &[stem]].concat(), out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = match stem.as_str() {
                    "mod" | "main" => prefix.to_vec(),
                    _ => [prefix, &[stem]].concat(),
                };
                let name = if name.is_empty() {
                    "main".into()
                } else {
                    name.join("::")
                };
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
                out.insert(name, code.to_string());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, &[], &mut out);
    out
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap().trim();
        return vec![path.trim_end_matches("::self").to_string()];
    };
    let head = tree[..open].trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap()];
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| match p.as_str() {
            "self" => head.to_string(),
            _ => format!("{head}::{p}"),
        })
        .collect()
}

/// The modules each module imports.
fn edges(mods: &BTreeMap<String, String>) -> Graph {
    let resolve = |path: &str| {
        let segs: Vec<&str> = path.split("::").collect();
        (1..=segs.len())
            .rev()
            .map(|k| segs[..k].join("::"))
            .find(|m| mods.contains_key(m))
            .unwrap_or_else(|| "main".into())
    };
    let mut out = BTreeMap::new();
    for (name, code) in mods {
        let parent: Vec<&str> = name.split("::").collect();
        let parent = parent[..parent.len() - 1].join("::");
        let code: String = code
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        let mut paths = Vec::new();
        for stmt in code.split(';') {
            let Some(tree) = stmt.trim().strip_prefix("use ") else {
                continue;
            };
            for path in expand(tree) {
                if let Some(rest) = path.strip_prefix("crate::") {
                    paths.push(rest.to_string());
                } else if let Some(rest) = path.strip_prefix("super::") {
                    paths.push(format!("{parent}::{rest}"));
                }
            }
        }
        if name == "main" {
            for (i, _) in code.match_indices("cmd::") {
                let rest = &code[i..];
                let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'));
                paths.push(rest[..end.unwrap_or(rest.len())].to_string());
            }
        }
        let targets = paths.iter().map(|p| resolve(p)).filter(|t| t != name);
        out.insert(name.clone(), targets.collect());
    }
    out
}

/// The command a module of `cmd` belongs to (`cmd::plan` for `cmd::plan::memories`): a
/// command may be split into files, which import each other.
fn command(module: &str) -> String {
    module.split("::").take(2).collect::<Vec<_>>().join("::")
}

/// 0 for `exit`, up to 4 for `main`.
fn layer(module: &str) -> usize {
    match module.split("::").next().unwrap() {
        "exit" => 0,
        "flags" => 1,
        "shared" => 2,
        "cmd" => 3,
        "main" => 4,
        other => panic!("module {other} has no layer: add it to this test"),
    }
}

#[test]
fn the_cli_modules_import_each_other_in_layers_without_a_circle() {
    let mods = modules(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let edges = edges(&mods);
    assert!(edges["cmd::plan"].contains("shared::formats"), "{edges:?}");
    assert!(edges["main"].contains("cmd::check"), "{edges:?}");
    for (from, targets) in &edges {
        for to in targets {
            assert!(
                layer(to) <= layer(from),
                "{from} imports {to}, a layer above it"
            );
            assert!(
                !(from.starts_with("cmd::")
                    && to.starts_with("cmd")
                    && command(from) != command(to)),
                "the command {from} imports {to}"
            );
        }
    }
    let left = in_circles(&edges);
    assert!(left.is_empty(), "an import circle among {left:?}");
}

/// The modules on import circles: take away, one by one, the modules that no module
/// left imports or that import none left (Kahn's algorithm, both ways); what remains
/// cannot be put in order.
fn in_circles(edges: &Graph) -> BTreeSet<&String> {
    let mut left: BTreeSet<&String> = edges.keys().collect();
    while let Some(free) = left.iter().copied().find(|m| {
        !left.iter().any(|f| edges[*f].contains(*m)) || !edges[*m].iter().any(|t| left.contains(t))
    }) {
        left.remove(free);
    }
    left
}

/// The test sees a circle where there is one: the CLI before issue 29 had `files` import
/// `Failure` from `main`, which declares `files`, and `spill` and `commands` import each
/// other.
#[test]
fn a_circle_is_found() {
    let dir = std::env::temp_dir().join(format!("memplan-module-graph-{}", std::process::id()));
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "main.rs",
        "mod cmd;\nmod exit;\nfn main() { cmd::plan::plan(); }\n",
    );
    write("exit.rs", "pub struct Failure;\n");
    write("cmd/mod.rs", "pub mod plan;\npub mod spill;\n");
    write(
        "cmd/plan.rs",
        "use crate::exit::Failure;\nuse super::spill;\n",
    );
    write("cmd/spill.rs", "use crate::cmd::{self, plan::PlanArgs};\n");
    let edges = edges(&modules(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        edges["cmd::plan"],
        ["cmd::spill", "exit"].map(String::from).into()
    );
    assert_eq!(
        edges["cmd::spill"],
        ["cmd", "cmd::plan"].map(String::from).into()
    );
    let circle: Vec<&str> = in_circles(&edges).into_iter().map(String::as_str).collect();
    assert_eq!(circle, ["cmd::plan", "cmd::spill"]);
}

#[test]
fn use_groups_expand_to_every_path() {
    assert_eq!(
        expand("crate::shared::{files::{self, read_bytes}, numbers as n}"),
        [
            "crate::shared::files",
            "crate::shared::files::read_bytes",
            "crate::shared::numbers"
        ]
    );
    assert_eq!(
        expand("super::planning::Limits"),
        ["super::planning::Limits"]
    );
}
