//! The workspace's Rust modules import one another without a circle (issue 44), read from
//! the sources of every crate (`crates/*/src`). (The Python package's imports are read
//! by `crates/memplan-py/tests/test_import_graph.py`, with Python's own parser.)
//!
//! - **Between files:** every module of a crate, file or folder, with an edge `a → b`
//!   when `a` names a path into `b` (`crate::…` in a `use`, a path or a macro call, or
//!   `super::…`; `crate::Problem` counts as the module the root re-exports it from), `b`
//!   the longest module the path names. Test code (`#[cfg(test)]` items, `tests.rs`) and
//!   comments are left out.
//! - **Between rooms:** the same edges between a crate's top-level modules (`types`,
//!   `checker`, `memories`, …), where a parent's use of its own children counts too.
//!
//! The checker stands below every planner: it imports the model's modules only (the
//! problem's, and the data of the families it checks: `memory_types`, `tile_types`,
//! `shared_object_types`), and those import nothing above the model.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The workspace read: this one, or `MEMPLAN_IMPORT_GRAPH_ROOT` (to read another
/// checkout, e.g. an older commit's, with this build of the test).
fn workspace() -> PathBuf {
    match std::env::var_os("MEMPLAN_IMPORT_GRAPH_ROOT") {
        Some(root) => PathBuf::from(root),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
    }
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// The source without comments, string and character literals, and `#[cfg(test)]` items.
fn code(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && b.get(i + 1).is_some_and(|&c| c == b'#' || c == b'"') {
            // A raw string: r"…" or r#"…"#.
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            i += 2 + hashes;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{..}'), or a lifetime ('a), kept.
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|p| i + 2 + p)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    out.push_str("' '");
                    i = e + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            // Copy one UTF-8 character.
            let len = src[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&src[i..i + len]);
            i += len;
        }
    }
    without_test_items(&out)
}

/// Drops each `#[cfg(test)]` item: up to its `;` or through its balanced `{ … }`.
fn without_test_items(src: &str) -> String {
    let mut out = String::new();
    let mut rest = src;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let semi = after.find(';');
        let brace = after.find('{');
        let end = match (semi, brace) {
            (Some(s), Some(b)) if s < b => s + 1,
            (Some(s), None) => s + 1,
            (_, Some(b)) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, c) in after[b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, None) => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path after `prefix` (`crate::`, `super::`), as its segments, use groups
/// expanded: `crate::a::b` gives `[a, b]`, `crate::{a, b::{c, d as e}}` gives `[a]`,
/// `[b, c]` and `[b, d]`.
fn paths(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find(prefix) {
        let at = from + k;
        from = at + prefix.len();
        if code[..at].chars().next_back().is_some_and(is_ident) || code[..at].ends_with("::") {
            continue;
        }
        let chars: Vec<char> = code[from..].chars().take(4096).collect();
        tree(&chars, &mut 0, &mut Vec::new(), &mut out);
    }
    out
}

/// Reads a use tree at `chars[*at..]` below `stem`: `ident(::tree)?` or `{tree, …}`.
fn tree(chars: &[char], at: &mut usize, stem: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let skip_space = |at: &mut usize| {
        while chars.get(*at).is_some_and(|c| c.is_whitespace()) {
            *at += 1;
        }
    };
    skip_space(at);
    if chars.get(*at) == Some(&'{') {
        *at += 1;
        loop {
            tree(chars, at, stem, out);
            skip_space(at);
            match chars.get(*at) {
                Some(',') => *at += 1,
                Some('}') => {
                    *at += 1;
                    return;
                }
                _ => return,
            }
            skip_space(at);
            if chars.get(*at) == Some(&'}') {
                *at += 1;
                return;
            }
        }
    }
    let name: String = chars[*at..].iter().take_while(|&&c| is_ident(c)).collect();
    if name.is_empty() {
        if !stem.is_empty() {
            out.push(stem.clone());
        }
        return;
    }
    *at += name.chars().count();
    stem.push(name);
    if chars[*at..].starts_with(&[':', ':']) {
        *at += 2;
        tree(chars, at, stem, out);
    } else {
        out.push(stem.clone());
        // `x as y`: the alias names nothing new.
        let rest: String = chars[*at..].iter().take(4).collect();
        if rest.trim_start().starts_with("as ") {
            skip_space(at);
            *at += 2;
            skip_space(at);
            *at += chars[*at..].iter().take_while(|&&c| is_ident(c)).count();
        }
    }
    stem.pop();
}

/// The first segments of every path after `prefix`.
fn heads(code: &str, prefix: &str) -> BTreeSet<String> {
    paths(code, prefix)
        .into_iter()
        .filter_map(|p| p.into_iter().next())
        .collect()
}

/// One Rust crate: each module's path (`["storage", "groups"]`; the root is `[]`) and
/// its code.
fn rust_crate(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut paths = Vec::new();
    files(src, "rs", &mut paths);
    let mut out = BTreeMap::new();
    for p in paths {
        let rel = p.strip_prefix(src).expect("under src").with_extension("");
        let mut parts: Vec<String> = rel
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if parts.iter().any(|s| s == "tests") {
            continue;
        }
        if parts.last().is_some_and(|s| s == "mod") {
            parts.pop();
        }
        if parts.last().is_some_and(|s| s == "tests") {
            continue;
        }
        if parts == ["lib"] || parts == ["main"] {
            parts.clear();
        }
        let text = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        out.insert(parts, code(&text));
    }
    out
}

/// The names the crate root re-exports, each with the module it comes from.
fn root_names(root: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for stmt in root.split(';') {
        let s = stmt.trim();
        let Some(rest) = s.strip_prefix("pub use ") else {
            continue;
        };
        let rest = rest
            .trim_start_matches("crate::")
            .trim_start_matches("self::");
        let module: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        let tail = &rest[module.len()..];
        let names = tail.trim_start_matches("::");
        for name in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = name.rsplit(" as ").next().unwrap_or("").trim();
            let name = name.rsplit("::").next().unwrap_or("");
            if !name.is_empty()
                && name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_lowercase())
            {
                out.insert(name.to_string(), module.clone());
            }
        }
    }
    out
}

/// The graph between a crate's top-level modules: [`files_graph`]'s edges, each file
/// standing for its room.
fn rooms(modules: &BTreeMap<Vec<String>, String>) -> Graph {
    let room = |m: &str| m.split("::").next().unwrap_or(m).to_string();
    let mut g = Graph::new();
    for (file, targets) in files_graph(modules) {
        if file == ROOT {
            continue;
        }
        let me = room(&file);
        let edges = g.entry(me.clone()).or_default();
        edges.extend(targets.iter().map(|t| room(t)).filter(|t| *t != me));
    }
    g
}

/// The crate root's name in [`files_graph`].
const ROOT: &str = "crate";

/// The graph between every module of a crate, files and folders alike: `a → b` when
/// `a` names a path into `b` (`crate::…`, or `super::…` from `a`'s parent), `b` the
/// longest module the path names. A parent declaring its children is not an edge.
fn files_graph(modules: &BTreeMap<Vec<String>, String>) -> Graph {
    let reexports = modules
        .get(&Vec::new())
        .map(|r| root_names(r))
        .unwrap_or_default();
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|k| path[..k].to_vec())
            .find(|m| modules.contains_key(m))
            .or_else(|| {
                let via = vec![reexports.get(path.first()?)?.clone()];
                modules.contains_key(&via).then_some(via)
            })
    };
    let mut g = Graph::new();
    for (me, code) in modules {
        let name = |p: &[String]| {
            if p.is_empty() {
                ROOT.to_string()
            } else {
                p.join("::")
            }
        };
        let edges = g.entry(name(me)).or_default();
        let parent = &me[..me.len().saturating_sub(1)];
        let mut targets: Vec<Vec<String>> = paths(code, "crate::");
        targets.extend(
            paths(code, "super::")
                .into_iter()
                .map(|p| [parent, &p[..]].concat()),
        );
        for t in targets {
            if let Some(m) = resolve(&t).filter(|m| m != me && !m.is_empty()) {
                edges.insert(name(&m));
            }
        }
    }
    g
}

/// A circle of the graph, or `None`.
fn circle(g: &Graph) -> Option<Vec<String>> {
    fn visit<'a>(
        g: &'a Graph,
        m: &'a str,
        open: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        open.push(m);
        for n in g.get(m).into_iter().flatten() {
            if let Some(k) = open.iter().position(|o| o == n) {
                let mut c: Vec<String> = open[k..].iter().map(|s| s.to_string()).collect();
                c.push(n.clone());
                return Some(c);
            }
            if !done.contains(n.as_str()) {
                if let Some(c) = visit(g, n, open, done) {
                    return Some(c);
                }
            }
        }
        open.pop();
        done.insert(m);
        None
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        if !done.contains(m.as_str()) {
            if let Some(c) = visit(g, m, &mut Vec::new(), &mut done) {
                return Some(c);
            }
        }
    }
    None
}

fn rust_crates() -> Vec<(String, BTreeMap<Vec<String>, String>)> {
    let mut dirs: Vec<_> = fs::read_dir(workspace().join("crates"))
        .expect("crates/")
        .map(|e| e.expect("an entry").path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.iter()
        .map(|d| {
            (
                d.parent()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                rust_crate(d),
            )
        })
        .collect()
}

#[test]
fn rust_rooms_import_without_a_circle() {
    let crates = rust_crates();
    assert!(
        crates.iter().any(|(n, m)| n == "memplan" && m.len() > 100),
        "the core's modules are read"
    );
    for (name, modules) in &crates {
        let g = rooms(modules);
        if let Some(c) = circle(&g) {
            panic!(
                "{name}: the modules import each other in a circle: {}",
                c.join(" -> ")
            );
        }
        if let Some(c) = circle(&files_graph(modules)) {
            panic!(
                "{name}: the files import each other in a circle: {}",
                c.join(" -> ")
            );
        }
    }
}

/// The model: the problem's modules, and the families' data that their planner and the
/// checker both read (several memories, shared objects, tiles).
const MODEL: [&str; 9] = [
    "units",
    "error",
    "share",
    "types",
    "memory_types",
    "shared_object_types",
    "tile_types",
    "index",
    "sort",
];

#[test]
fn the_checker_imports_the_model_only() {
    let crates = rust_crates();
    let core = &crates
        .iter()
        .find(|(n, _)| n == "memplan")
        .expect("the core crate")
        .1;
    let g = rooms(core);
    let model: BTreeSet<&str> = MODEL.into();
    let checker = g.get("checker").expect("the checker is read");
    let planners: Vec<&String> = checker
        .iter()
        .filter(|m| !model.contains(m.as_str()))
        .collect();
    assert!(
        planners.is_empty(),
        "the checker imports {planners:?}, beyond the model {model:?}"
    );
    for low in MODEL {
        let up: Vec<&String> = g[low]
            .iter()
            .filter(|m| !model.contains(m.as_str()))
            .collect();
        assert!(up.is_empty(), "{low} imports {up:?}, above the model");
    }
    // Nor do its docs link to a planner: a reader of the checker needs none of them.
    let src = workspace().join("crates/memplan/src");
    let mut files_of_checker = vec![src.join("checker.rs")];
    files(&src.join("checker"), "rs", &mut files_of_checker);
    let tops: BTreeSet<String> = core.keys().filter_map(|k| k.first().cloned()).collect();
    for path in files_of_checker {
        let text = fs::read_to_string(&path).expect("a checker file");
        let named: Vec<String> = heads(&without_test_items(&text), "crate::")
            .into_iter()
            .filter(|m| tops.contains(m) && m != "checker" && !model.contains(m.as_str()))
            .collect();
        assert!(
            named.is_empty(),
            "{} names {named:?}, beyond the model",
            path.display()
        );
    }
}

/// The reader itself, on made-up sources: each form of import is an edge, and a circle
/// through any of them is found.
#[test]
fn the_reader_finds_circles_in_every_form() {
    let module = |path: &[&str], src: &str| {
        (
            path.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            code(src),
        )
    };
    let forms = [
        "use crate::b::Thing;",
        "use crate::{b, c::D};",
        "fn f() { crate::b::g!(); }",
        "use crate::Thing;",
        "fn f() -> crate::b::T { todo!() }",
    ];
    for form in forms {
        let modules: BTreeMap<_, _> = [
            module(&[], "mod a; mod b; mod c; pub use b::Thing;"),
            module(&["a"], form),
            module(&["b"], "use crate::a::X;"),
            module(&["c"], ""),
        ]
        .into();
        let c =
            circle(&rooms(&modules)).unwrap_or_else(|| panic!("no circle found through {form:?}"));
        assert!(
            c.contains(&"a".to_string()) && c.contains(&"b".to_string()),
            "{form}: {c:?}"
        );
    }
    for quiet in [
        "// use crate::b::X;",
        "/* crate::b */",
        "const S: &str = \"crate::b::X\";",
        "const S: &str = r#\"crate::b\"#;",
        "#[cfg(test)]\nmod tests { use crate::b::X; }",
        "const C: char = '\"'; // crate::b",
    ] {
        let modules: BTreeMap<_, _> = [
            module(&[], "mod a; mod b;"),
            module(&["a"], quiet),
            module(&["b"], "use crate::a::X;"),
        ]
        .into();
        assert_eq!(circle(&rooms(&modules)), None, "{quiet:?} is not an import");
    }
    let siblings: BTreeMap<_, _> = [
        module(&["s"], "mod x; mod y;"),
        module(&["s", "x"], "use super::y::Y;"),
        module(&["s", "y"], "use crate::s::x::X;"),
    ]
    .into();
    assert!(
        circle(&files_graph(&siblings)).is_some(),
        "a circle between siblings"
    );
    let files: BTreeMap<_, _> = [
        module(&[], "mod a; mod b;"),
        module(&["a"], "mod x;"),
        module(&["a", "x"], "use crate::b::{self, B};"),
        module(&["b"], "fn f() { super::a::x::g(); }"),
    ]
    .into();
    let c = circle(&files_graph(&files)).expect("a circle between files of two rooms");
    assert!(
        c.contains(&"a::x".to_string()) && c.contains(&"b".to_string()),
        "{c:?}"
    );
}

/// The front door stays small enough to read (issue 44): the crate root exports at most
/// 60 names (re-exported items, public modules and functions), grouping the rest in
/// public modules (`budget`, `memories`, `share`, …).
#[test]
fn the_front_door_exports_at_most_60_names() {
    let root = fs::read_to_string(workspace().join("crates/memplan/src/lib.rs")).expect("lib.rs");
    let root = code(&root);
    let reexported = root_names(&root).len();
    let items = root
        .split([';', '{', '}', '\n'])
        .map(str::trim)
        .filter(|s| s.starts_with("pub mod ") || s.starts_with("pub fn "))
        .count();
    assert!(
        reexported > 20 && items > 5,
        "the root's names are read ({reexported} + {items})"
    );
    assert!(
        reexported + items <= 60,
        "lib.rs exports {reexported} items and {items} modules or functions, over 60"
    );
}
