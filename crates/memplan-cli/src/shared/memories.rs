//! Several memories on the command line, for `plan`, `check`, `render` and `stats`
//! alike: which memories a command works across (`--memories`, spill's `--capacity C
//! --spill`, which is `--memories fast:C,slow`, or a JSON problem's own `memories`
//! section), the problem across them as the library reads it
//! (`memplan::memories::ProblemFile::into_memories`), a plan file across them, and their
//! figures for people.

use memplan::memories::{validate_memories, MemoriesProblem, Memory, MemoryPlan};
use memplan::memories::{MemoriesOf, ProblemFile};
use memplan::{ReadErrorKind, Size};

use super::files::{display_path, read_failure};
use super::formats::input_format;
use super::numbers::thousands;
use crate::exit::{self, Failure};
use crate::flags::input::Format;

fn number(v: &str) -> Result<u64, String> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "not a non-negative integer: '{}'",
            v.escape_debug()
        ));
    }
    v.parse()
        .map_err(|_| format!("number too large for 64 bits: '{v}'"))
}

/// `--memories NAME[:CAPACITY[:ALIGNMENT[:COST]]],...`: an empty or `inf` capacity is
/// unbounded.
pub fn parse_spec(spec: &str) -> Result<Vec<Memory>, String> {
    let mut memories = Vec::new();
    for item in spec.split(',') {
        let parts: Vec<&str> = item.split(':').map(str::trim).collect();
        if parts.len() > 4 {
            return Err(format!(
                "'{}': expected NAME[:CAPACITY[:ALIGNMENT[:COST]]]",
                item.escape_debug()
            ));
        }
        let mut m = Memory::new(parts[0]);
        let field = |k: usize, what: &str| -> Result<Option<u64>, String> {
            match parts.get(k).filter(|v| !v.is_empty() && **v != "inf") {
                None => Ok(None),
                Some(v) => number(v)
                    .map(Some)
                    .map_err(|e| format!("memory '{}': {what}: {e}", parts[0])),
            }
        };
        m.capacity = field(1, "capacity")?.map(Size);
        if let Some(a) = field(2, "alignment")? {
            m.alignment = Size(a);
        }
        m.cost = field(3, "cost")?;
        memories.push(m);
    }
    validate_memories(&memories).map_err(|e| e.to_string())?;
    Ok(memories)
}

/// The memories a command works across: `--memories` (`flag`), else spill under
/// `--capacity` (`spill`: the fast memory's size), else the file's own section; `None`
/// for one memory.
pub fn memories_of(
    flag: Option<&str>,
    spill: Option<u64>,
    file: &ProblemFile,
) -> Result<Option<MemoriesOf>, Failure> {
    Ok(match (flag, spill) {
        (Some(spec), _) => {
            Some(MemoriesOf::Given(parse_spec(spec).map_err(|e| {
                Failure::new(exit::INPUT, format!("--memories: {e}"))
            })?))
        }
        (None, Some(capacity)) => Some(MemoriesOf::Spill(Size(capacity))),
        (None, None) if file.has_memories() => Some(MemoriesOf::File),
        (None, None) => None,
    })
}

/// The problem across the memories `of`, its errors naming the file.
pub fn into_memories(
    path: &str,
    file: ProblemFile,
    of: MemoriesOf,
) -> Result<MemoriesProblem, Failure> {
    file.into_memories(of).map_err(|e| read_failure(path, e))
}

/// Warns (unless `quiet`) about the fields of several memories that the file gives and
/// a command without them ignores (one memory: `memories` and `accesses`; spill:
/// `memories` and `accesses` too, its own being `cost` and `memory`).
pub fn warn_ignored(path: &str, file: &ProblemFile, quiet: bool) {
    let names: Vec<String> = file
        .memories_fields()
        .into_iter()
        .filter(|f| matches!(*f, "memories" | "accesses"))
        .map(|c| format!("'{c}'"))
        .collect();
    if names.is_empty() || quiet {
        return;
    }
    let (what, them) = match names.len() {
        1 => (format!("a {} column", names[0]), "it is"),
        _ => (format!("{} columns", names.join(" and ")), "they are"),
    };
    eprintln!(
        "memplan: warning: {} has {what} of several memories; without --memories {them} ignored (docs/memories.md)",
        display_path(path),
    );
}

/// What a plan file is checked or drawn against: the problem across memories, or the
/// file's one-memory problem.
pub enum Against {
    Memories(MemoriesProblem),
    One(ProblemFile),
}

/// The problem a plan file goes with, for `check` and `render`: across the memories of
/// `--memories` (`flag`) or the file's section; across spill's `fast` (under
/// `--capacity`) and `slow` when the plan has a `memory` column and nothing else names
/// the memories; else one memory.
pub fn against(
    path: &str,
    file: ProblemFile,
    (plan_path, plan_bytes): (&str, &[u8]),
    flag: Option<&str>,
    capacity: Option<u64>,
) -> Result<Against, Failure> {
    let spill = match flag.is_none() && !file.has_memories() && plan_has_memory(plan_path, plan_bytes) {
        true => Some(capacity.ok_or_else(|| {
            Failure::usage(format!(
                "{}: a plan with a memory column needs --capacity (the fast memory's size) or --memories",
                display_path(plan_path)
            ))
        })?),
        false => None,
    };
    Ok(match memories_of(flag, spill, &file)? {
        Some(of) => Against::Memories(into_memories(path, file, of)?),
        None => Against::One(file),
    })
}

/// True when a plan file has a `memory` column (CSV) or field (JSON): a plan across
/// memories.
fn plan_has_memory(path: &str, bytes: &[u8]) -> bool {
    match input_format(path, bytes, None) {
        Format::Csv => memplan::io::read_rows_csv(bytes)
            .is_ok_and(|(names, _)| names.iter().any(|n| n.eq_ignore_ascii_case("memory"))),
        Format::Json => {
            let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|v| {
                v["buffers"]
                    .as_array()
                    .is_some_and(|b| b.iter().any(|b| !b["memory"].is_null()))
            })
        }
    }
}

/// Reads a plan file across the memories of `problem` (`id`, `offset`, `memory`).
pub fn read_memory_plan(
    path: &str,
    bytes: &[u8],
    problem: &MemoriesProblem,
) -> Result<MemoryPlan, Failure> {
    match input_format(path, bytes, None) {
        Format::Csv => memplan::memories::read_memory_plan_csv(bytes, problem),
        Format::Json => memplan::memories::read_memory_plan_json(bytes, problem),
    }
    .map_err(|e| match &e.kind {
        // Rows that do not match the problem: the plan is wrong, not malformed.
        ReadErrorKind::UnknownBuffer(_)
        | ReadErrorKind::DuplicatePlacement(_)
        | ReadErrorKind::MissingPlacement(_)
        | ReadErrorKind::Memories(_) => Failure::invalid(display_path(path), "plan", &[e], 0),
        _ => read_failure(path, e),
    })
}

/// The plan's per-memory figures, `name height H of C, traffic T`.
pub fn memory_figures(problem: &MemoriesProblem, p: &MemoryPlan) -> Vec<String> {
    problem
        .memories()
        .iter()
        .enumerate()
        .map(|(m, mem)| {
            let cap = mem
                .capacity
                .map_or("unbounded".to_string(), |c| thousands(c.get()));
            format!(
                "{} height {} of {}, traffic {}",
                mem.name,
                thousands(p.heights[m].get()),
                cap,
                thousands(p.traffic[m])
            )
        })
        .collect()
}
