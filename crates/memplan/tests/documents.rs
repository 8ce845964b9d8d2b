//! The benchmark documents stay a size a reader takes in, and every figure in them can be
//! regenerated (issue 44).
//!
//! - `BENCHMARKS.md` is at most 45,000 bytes and `RELIABILITY.md` at most 20,000.
//! - Every file under `benchmarks/results/` is written by a command: its first line names
//!   it (a *command*, below), and a script it names exists. Each is named by a document
//!   (`BENCHMARKS.md`, `RELIABILITY.md`, `README.md` or `docs/*.md`), and every
//!   `benchmarks/results/` file a document names exists.
//! - Every Markdown table of `BENCHMARKS.md` and `RELIABILITY.md` has a command in its
//!   section: between the `## ` heading above the table and the next one (or, before the
//!   first heading, from the top of the file).
//! - The sections of both documents are numbered 1, 2, 3, ... in order, and every
//!   reference of the form `BENCHMARKS §N`, `BENCHMARKS.md §N`, `RELIABILITY §N` or
//!   `RELIABILITY.md §N` in the repository's text (Rust, Python, shell, Markdown, TOML)
//!   names a section that exists.
//!
//! A *command* is a fenced code block, or an inline code span that contains a space and
//! either a path under `scripts/` or a word that is `memplan`, `cargo`, `python` or
//! `python3` (or a path ending in `/memplan`): `memplan plan FILE`,
//! `python scripts/tflite/table.py -o X`, `ROUNDS=2 scripts/race.sh OLD NEW`. A code span
//! may run over several lines, as Markdown allows.

use std::fs;
use std::path::{Path, PathBuf};

const BENCHMARKS_MAX_BYTES: usize = 45_000;
const RELIABILITY_MAX_BYTES: usize = 20_000;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Whether `code` (the text of an inline code span) is a command.
fn is_command(code: &str) -> bool {
    let code = code.trim();
    if !code.contains(char::is_whitespace) {
        return false;
    }
    code.split_whitespace().any(|word| {
        let word = word.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ';' | '"' | '\''));
        word.contains("scripts/")
            || matches!(word, "memplan" | "cargo" | "python" | "python3")
            || word.ends_with("/memplan")
    })
}

/// The code of a piece of Markdown: fenced blocks (whole) and inline code spans, each
/// with whether it is a fenced block.
fn code_spans(text: &str) -> Vec<(bool, String)> {
    let mut spans = Vec::new();
    let mut prose = String::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            match fence.take() {
                Some(block) => spans.push((true, block)),
                None => fence = Some(String::new()),
            }
            continue;
        }
        match fence.as_mut() {
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
    }
    // Inline spans: a run of n backticks up to the next run of exactly n.
    let chars: Vec<char> = prose.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let n = run_at(i);
        let start = i + n;
        let mut j = start;
        let mut end = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = run_at(j);
                if m == n {
                    end = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match end {
            Some(end) => {
                let code: String = chars[start..end].iter().collect();
                spans.push((false, code.replace('\n', " ")));
                i = end + n;
            }
            None => i = start,
        }
    }
    spans
}

fn has_command(text: &str) -> bool {
    code_spans(text)
        .iter()
        .any(|(fenced, code)| *fenced || is_command(code))
}

/// The sections of a Markdown document: (heading, text), the part before the first `## `
/// heading under the heading "".
fn sections(doc: &str) -> Vec<(String, String)> {
    let mut out = vec![(String::new(), String::new())];
    let mut in_fence = false;
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && line.starts_with("## ") {
            out.push((line.to_string(), String::new()));
        }
        let text = &mut out.last_mut().unwrap().1;
        text.push_str(line);
        text.push('\n');
    }
    out
}

/// The Markdown tables of a piece of text: the line of each table's header row.
fn tables(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut in_fence = false;
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if in_fence || i + 1 >= lines.len() {
            continue;
        }
        let delimiter = lines[i + 1].trim();
        let is_delimiter = delimiter.starts_with('|')
            && delimiter.contains('-')
            && delimiter
                .chars()
                .all(|c| matches!(c, '|' | '-' | ':' | ' '));
        let starts = i == 0 || !lines[i - 1].trim_start().starts_with('|');
        if line.trim_start().starts_with('|') && is_delimiter && starts {
            found.push(line.to_string());
        }
    }
    found
}

#[test]
fn the_documents_are_within_their_sizes() {
    let mut too_large = Vec::new();
    for (doc, max) in [
        ("BENCHMARKS.md", BENCHMARKS_MAX_BYTES),
        ("RELIABILITY.md", RELIABILITY_MAX_BYTES),
    ] {
        let size = read(doc).len();
        if size > max {
            too_large.push(format!("{doc}: {size} bytes, more than {max}"));
        }
    }
    assert!(
        too_large.is_empty(),
        "{}: shorten the prose, or move a full table to benchmarks/results/ (written by its \
         command) and keep its headline rows",
        too_large.join("; ")
    );
}

#[test]
fn every_table_has_its_command_in_its_section() {
    let mut missing = Vec::new();
    for doc in ["BENCHMARKS.md", "RELIABILITY.md"] {
        for (heading, text) in sections(&read(doc)) {
            let tables = tables(&text);
            if !tables.is_empty() && !has_command(&text) {
                let heading = if heading.is_empty() {
                    "(before the first section)"
                } else {
                    &heading
                };
                for table in tables {
                    missing.push(format!("{doc} {heading}: {table}"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "tables without a command in their section:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_result_file_names_the_command_that_wrote_it() {
    let dir = root().join("benchmarks/results");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("benchmarks/results/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "benchmarks/results/ is empty");
    let documents = {
        let mut text = read("BENCHMARKS.md") + &read("RELIABILITY.md") + &read("README.md");
        for entry in fs::read_dir(root().join("docs")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                text += &fs::read_to_string(&path).unwrap();
            }
        }
        text
    };
    let mut wrong = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let first = text.lines().next().unwrap_or("");
        let commands: Vec<String> = code_spans(first)
            .into_iter()
            .filter(|(fenced, code)| !fenced && is_command(code))
            .map(|(_, code)| code)
            .collect();
        if commands.is_empty() {
            wrong.push(format!(
                "{name}: the first line names no command: {first:?}"
            ));
        }
        for command in &commands {
            for word in command.split_whitespace() {
                let is_script =
                    word.contains("scripts/") && (word.ends_with(".sh") || word.ends_with(".py"));
                if is_script && !root().join(word).is_file() {
                    wrong.push(format!(
                        "{name}: its command names {word}, which does not exist"
                    ));
                }
            }
        }
        if !documents.contains(&format!("benchmarks/results/{name}")) {
            wrong.push(format!(
                "{name}: no document names benchmarks/results/{name}"
            ));
        }
    }
    // Every results file a document names exists.
    let mut rest = documents.as_str();
    while let Some(at) = rest.find("benchmarks/results/") {
        let tail = &rest[at + "benchmarks/results/".len()..];
        let name: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            .collect();
        let name = name.trim_end_matches('.');
        if !name.is_empty() && !root().join("benchmarks/results").join(name).is_file() {
            wrong.push(format!(
                "a document names benchmarks/results/{name}, which does not exist"
            ));
        }
        rest = tail;
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The numbers of a document's `## N. Title` sections, in order.
fn section_numbers(doc: &str) -> Vec<u32> {
    sections(doc)
        .iter()
        .filter(|(heading, _)| !heading.is_empty())
        .map(|(heading, _)| {
            let number = heading[3..].split('.').next().unwrap_or("");
            number
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("an unnumbered section: {heading}"))
        })
        .collect()
}

fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            text_files(&path, out);
        } else if ["rs", "py", "sh", "md", "toml", "h", "c"]
            .iter()
            .any(|e| path.extension().is_some_and(|x| x == *e))
        {
            out.push(path);
        }
    }
}

#[test]
fn sections_are_numbered_and_references_to_them_exist() {
    let mut wrong = Vec::new();
    let mut counts = Vec::new();
    for doc in ["BENCHMARKS", "RELIABILITY"] {
        let numbers = section_numbers(&read(&format!("{doc}.md")));
        let expected: Vec<u32> = (1..=numbers.len() as u32).collect();
        if numbers != expected {
            wrong.push(format!("{doc}.md's sections are numbered {numbers:?}"));
        }
        counts.push((doc, numbers.len() as u32));
    }
    let mut files = Vec::new();
    text_files(&root(), &mut files);
    for path in files {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        for (doc, count) in &counts {
            for prefix in [format!("{doc} §"), format!("{doc}.md §")] {
                let mut rest = text.as_str();
                while let Some(at) = rest.find(&prefix) {
                    let tail = &rest[at + prefix.len()..];
                    let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
                    if let Ok(n) = digits.parse::<u32>() {
                        if n == 0 || n > *count {
                            let shown = path
                                .strip_prefix(root())
                                .unwrap_or(&path)
                                .display()
                                .to_string();
                            wrong.push(format!(
                                "{shown}: {prefix}{n}, but {doc}.md has {count} sections"
                            ));
                        }
                    }
                    rest = tail;
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_rules_read_markdown_as_meant() {
    assert!(is_command("memplan plan FILE --time-limit 1"));
    assert!(is_command("ROUNDS=2 scripts/race.sh OLD NEW"));
    assert!(is_command(
        "python crates/memplan-py/scripts/banked_table.py --out X"
    ));
    assert!(is_command(
        "/usr/bin/time target/release/memplan plan chains.csv"
    ));
    assert!(!is_command(
        "memplan.executorch.banked_memory_planning_pass"
    ));
    assert!(!is_command("scripts/"));
    assert!(!is_command("tests/bad_inputs/"));
    let spans = code_spans("run `memplan bench\nbenchmarks --proven` and ``a ` b``\n```\nx\n```\n");
    assert_eq!(
        spans,
        vec![
            (true, "x\n".to_string()),
            (false, "memplan bench benchmarks --proven".to_string()),
            (false, "a ` b".to_string())
        ]
    );
    let doc = "# T\n\n| a |\n|---|\n| 1 |\n\n## 1. One\n\n| b | c |\n|--:|:--|\n\n## 2. Two\n";
    let parts = sections(doc);
    assert_eq!(parts.len(), 3);
    assert_eq!(tables(&parts[0].1), vec!["| a |"]);
    assert_eq!(tables(&parts[1].1), vec!["| b | c |"]);
    assert_eq!(section_numbers(doc), vec![1, 2]);
}
