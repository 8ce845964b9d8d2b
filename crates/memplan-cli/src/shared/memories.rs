//! Several memories in files: the memories (`--memories` or a JSON problem's
//! `memories` section), the per-buffer `memories` (allowed set) and `accesses` columns
//! (CSV) or fields (JSON), and a plan's `memory` column of memory names. For `plan`,
//! `check` and `render` alike.

use memplan::memories::{
    memory_named, validate_memories, MemoriesError, MemoriesInput, Memory, MemoryIdx, MemoryPlan,
    MemorySet,
};
use memplan::{Offset, Problem, Size};

use super::columns::{bad_field, index_by_id};
use super::files::{display_path, read_failure};
use crate::exit::{self, Failure};
use crate::flags::input::Format;

/// The memories and the per-buffer data of a multi-memory problem.
pub struct MemoriesData {
    pub memories: Vec<Memory>,
    pub allowed: Option<Vec<MemorySet>>,
    pub accesses: Option<Vec<u64>>,
}

impl MemoriesData {
    pub fn input(&self) -> MemoriesInput<'_> {
        MemoriesInput {
            allowed: self.allowed.as_deref(),
            accesses: self.accesses.as_deref(),
            traffic: None,
        }
    }
}

fn input_failure(path: &str, what: impl std::fmt::Display) -> Failure {
    Failure::new(exit::INPUT, format!("{}: {what}", display_path(path)))
}

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
        if let Some(&c) = parts.get(1).filter(|c| !c.is_empty() && **c != "inf") {
            m.capacity =
                Some(Size(number(c).map_err(|e| {
                    format!("memory '{}': capacity: {e}", parts[0])
                })?));
        }
        if let Some(&a) = parts.get(2).filter(|a| !a.is_empty()) {
            m.alignment =
                Size(number(a).map_err(|e| format!("memory '{}': alignment: {e}", parts[0]))?);
        }
        if let Some(&c) = parts.get(3).filter(|c| !c.is_empty()) {
            m.cost = Some(number(c).map_err(|e| format!("memory '{}': cost: {e}", parts[0]))?);
        }
        memories.push(m);
    }
    validate_memories(&memories).map_err(|e| e.to_string())?;
    Ok(memories)
}

/// The memories of a JSON problem's `memories` section (`None`: no section).
fn json_memories(path: &str, value: &serde_json::Value) -> Result<Option<Vec<Memory>>, Failure> {
    let Some(list) = value["memories"].as_array() else {
        return Ok(None);
    };
    let mut memories = Vec::new();
    for (k, m) in list.iter().enumerate() {
        let at = |what: String| input_failure(path, format!("memories[{k}]: {what}"));
        let Some(fields) = m.as_object() else {
            return Err(at(
                "expected an object such as {\"name\": \"tcm\", \"capacity\": 524288}".into(),
            ));
        };
        let mut memory = Memory::new("");
        for (key, v) in fields {
            let int = |v: &serde_json::Value| {
                v.as_u64().ok_or_else(|| {
                    at(format!(
                        "field '{key}': expected a non-negative integer, found {v}"
                    ))
                })
            };
            match key.as_str() {
                "name" => {
                    memory.name = v
                        .as_str()
                        .ok_or_else(|| at(format!("field 'name': expected a string, found {v}")))?
                        .to_string()
                }
                "capacity" if v.is_null() => {}
                "capacity" => memory.capacity = Some(Size(int(v)?)),
                "alignment" => memory.alignment = Size(int(v)?),
                "cost" if v.is_null() => {}
                "cost" => memory.cost = Some(int(v)?),
                other => {
                    return Err(at(format!(
                        "unknown field '{}': expected name, capacity, alignment or cost",
                        other.escape_debug()
                    )))
                }
            }
        }
        if !fields.contains_key("name") {
            return Err(at("missing field 'name'".into()));
        }
        memories.push(memory);
    }
    validate_memories(&memories).map_err(|e| input_failure(path, e))?;
    Ok(Some(memories))
}

/// An allowed set from names (`|`-, `,`- or space-separated); `Ok(None)`: empty text,
/// the default.
fn allowed_from(memories: &[Memory], names: &[&str]) -> Result<Option<MemorySet>, String> {
    let mut set = MemorySet::EMPTY;
    for name in names {
        let m = memory_named(memories, name).map_err(|e| e.to_string())?;
        set = MemorySet(set.0 | MemorySet::single(m).0);
    }
    Ok(Some(set))
}

fn split_names(text: &str) -> Vec<&str> {
    text.split(['|', ',', ' ', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The memories (`--memories`, else the JSON problem's section) and the per-buffer
/// `memories` and `accesses` columns or fields; `None` when no memories are given.
pub fn read_memories_data(
    path: &str,
    bytes: &[u8],
    format: Format,
    problem: &Problem,
    flag: Option<&str>,
) -> Result<Option<MemoriesData>, Failure> {
    let json = match format {
        Format::Json => Some(
            serde_json::from_slice::<serde_json::Value>(bytes)
                .map_err(|e| input_failure(path, format!("malformed json: {e}")))?,
        ),
        Format::Csv => None,
    };
    let memories = match (flag, &json) {
        (Some(spec), _) => {
            parse_spec(spec).map_err(|e| Failure::new(exit::INPUT, format!("--memories: {e}")))?
        }
        (None, Some(v)) => match json_memories(path, v)? {
            Some(m) => m,
            None => return Ok(None),
        },
        (None, None) => return Ok(None),
    };
    let all = MemorySet::all(memories.len());
    let n = problem.len();
    let (allowed, accesses) = match &json {
        Some(v) => {
            let bufs = v["buffers"].as_array().cloned().unwrap_or_default();
            let has = |f: &str| bufs.iter().any(|b| !b[f].is_null());
            let allowed = if has("memories") {
                let mut sets = Vec::with_capacity(n);
                for (i, b) in bufs.iter().enumerate() {
                    let at = |w: String| input_failure(path, format!("buffers[{i}].memories: {w}"));
                    let names: Vec<&str> = match &b["memories"] {
                        serde_json::Value::Null => {
                            sets.push(all);
                            continue;
                        }
                        serde_json::Value::String(s) => vec![s.as_str()],
                        serde_json::Value::Array(a) => {
                            a.iter().filter_map(|x| x.as_str()).collect()
                        }
                        other => {
                            return Err(at(format!(
                                "expected a name or a list of names, found {other}"
                            )))
                        }
                    };
                    if names.is_empty() {
                        return Err(at("the set of memories is empty".into()));
                    }
                    sets.push(allowed_from(&memories, &names).map_err(at)?.unwrap_or(all));
                }
                Some(sets)
            } else {
                None
            };
            let accesses = has("accesses").then(|| {
                bufs.iter()
                    .map(|b| b["accesses"].as_u64().unwrap_or(1))
                    .collect()
            });
            (allowed, accesses)
        }
        None => {
            let column = |name: &str| {
                super::columns::csv_column(bytes, name).map_err(|e| read_failure(path, e))
            };
            let allowed = column("memories")?
                .map(|rows| {
                    rows.into_iter()
                        .map(|(line, v)| {
                            let names = split_names(&v);
                            if names.is_empty() && v.trim().is_empty() {
                                return Ok(all);
                            }
                            if names.is_empty() {
                                let w = "the set of memories is empty".to_string();
                                return Err(bad_field(path, line, "memories", w));
                            }
                            allowed_from(&memories, &names)
                                .map(|s| s.unwrap_or(all))
                                .map_err(|w| bad_field(path, line, "memories", w))
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()?;
            let accesses = column("accesses")?
                .map(|rows| {
                    rows.into_iter()
                        .map(|(line, v)| match v.trim() {
                            "" => Ok(1),
                            v => number(v).map_err(|w| bad_field(path, line, "accesses", w)),
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()?;
            (allowed, accesses)
        }
    };
    for (what, len) in [
        ("memories", allowed.as_ref().map(Vec::len)),
        ("accesses", accesses.as_ref().map(Vec::len)),
    ] {
        if len.is_some_and(|l| l != n) {
            return Err(input_failure(
                path,
                format!("the {what} column does not match the buffers"),
            ));
        }
    }
    let data = MemoriesData {
        memories,
        allowed,
        accesses,
    };
    // The input rules (pins, sizes, fixed offsets), as one-line input errors naming
    // the buffer's line (CSV) or entry (JSON).
    if let Err(e) = memplan::memories::allowed_of(problem, &data.memories, &data.input()) {
        let index = match &e {
            MemoriesError::EmptyAllowed { index, .. }
            | MemoriesError::FixedInSeveral { index, .. }
            | MemoriesError::MisalignedFixed { index, .. }
            | MemoriesError::TooLarge { index, .. } => Some(*index),
            _ => None,
        };
        let at = match (index, &json) {
            (Some(i), Some(_)) => format!("buffers[{i}]: "),
            (Some(i), None) => super::columns::csv_column(bytes, "id")
                .ok()
                .flatten()
                .and_then(|rows| rows.get(i).map(|(line, _)| format!("line {line}: ")))
                .unwrap_or_default(),
            (None, _) => String::new(),
        };
        return Err(input_failure(path, format!("{at}{e}")));
    }
    memplan::memories::traffic_of(problem, &data.input()).map_err(|e| input_failure(path, e))?;
    Ok(Some(data))
}

/// The first buffer whose `memory` column (CSV) or field (JSON) is not empty, as
/// (line or entry, value): with memories that column is the plan's output, and an input
/// that gives one would have it silently overwritten.
fn given_memory(bytes: &[u8], format: Format) -> Option<(String, String)> {
    match format {
        Format::Csv => super::columns::csv_column(bytes, "memory")
            .ok()
            .flatten()?
            .into_iter()
            .find(|(_, v)| !v.trim().is_empty())
            .map(|(line, v)| (format!("line {line}, column 'memory'"), v)),
        Format::Json => {
            let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
            let bufs = value["buffers"].as_array()?.clone();
            bufs.iter()
                .enumerate()
                .find_map(|(i, b)| match &b["memory"] {
                    serde_json::Value::Null => None,
                    serde_json::Value::String(s) if s.trim().is_empty() => None,
                    v => Some((format!("buffers[{i}].memory"), v.to_string())),
                })
        }
    }
}

/// An input error when the problem gives a buffer's `memory` (see [`given_memory`]):
/// with memories, allowed sets and pins go in the `memories` column.
pub fn reject_given_memory(path: &str, bytes: &[u8], format: Format) -> Result<(), Failure> {
    match given_memory(bytes, format) {
        None => Ok(()),
        Some((at, v)) => Err(input_failure(
            path,
            format!(
                "{at}: '{}': with memories, a buffer's memory is the plan's output; pin it or give its allowed memories in the 'memories' column",
                v.trim().escape_debug()
            ),
        )),
    }
}

/// The per-buffer columns (CSV) or fields (JSON) of several memories that `path` gives
/// with a value (`memories`, `accesses`): without memories they mean nothing, and
/// `plan` warns that it ignores them.
pub fn memories_columns(path: &str) -> Vec<&'static str> {
    if path == "-" {
        return Vec::new();
    }
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let json = match super::formats::input_format(path, &bytes, None) {
        Format::Json => serde_json::from_slice::<serde_json::Value>(&bytes).ok(),
        Format::Csv => None,
    };
    ["memories", "accesses"]
        .into_iter()
        .filter(|&name| match &json {
            Some(v) => v["buffers"]
                .as_array()
                .is_some_and(|b| b.iter().any(|b| !b[name].is_null())),
            None => super::columns::csv_column(&bytes, name)
                .ok()
                .flatten()
                .is_some_and(|rows| rows.iter().any(|(_, v)| !v.trim().is_empty())),
        })
        .collect()
}

/// A plan file's `memory` column (CSV) or fields (JSON) as memory names, in the
/// file's order; `None` when the plan has none.
pub fn read_plan_memory_names(path: &str, bytes: &[u8]) -> Result<Option<Vec<String>>, Failure> {
    match super::formats::input_format(path, bytes, None) {
        Format::Csv => Ok(super::columns::csv_column(bytes, "memory")
            .map_err(|e| read_failure(path, e))?
            .map(|rows| {
                rows.into_iter()
                    .map(|(_, v)| v.trim().to_string())
                    .collect()
            })),
        Format::Json => {
            let value: serde_json::Value = serde_json::from_slice(bytes)
                .map_err(|e| input_failure(path, format!("malformed json: {e}")))?;
            let bufs = value["buffers"].as_array().cloned().unwrap_or_default();
            if bufs.iter().all(|b| b["memory"].is_null()) {
                return Ok(None);
            }
            Ok(Some(
                bufs.iter()
                    .map(|b| b["memory"].as_str().unwrap_or("").to_string())
                    .collect(),
            ))
        }
    }
}

/// A plan file's rows (`id`, `offset`, memory name) as a [`MemoryPlan`] of `problem`,
/// matched by id, with its heights, traffic and cost computed from the rows (for
/// `check_memories` to judge the rest); the rows' problems otherwise.
pub fn memory_plan(
    problem: &Problem,
    data: &MemoriesData,
    placements: &[(String, Offset)],
    names: &[String],
) -> Result<MemoryPlan, Vec<String>> {
    let n = problem.len();
    let k = data.memories.len();
    let index = index_by_id(problem);
    let mut slots: Vec<Option<(MemoryIdx, Offset)>> = vec![None; n];
    let mut wrong = Vec::new();
    for ((id, off), name) in placements.iter().zip(names) {
        let m = match memory_named(&data.memories, name) {
            Ok(m) => m,
            Err(e) => {
                wrong.push(format!("buffer '{}': {e}", id.escape_debug()));
                continue;
            }
        };
        match index.get(id.as_str()) {
            None => wrong.push(format!("unknown buffer '{}'", id.escape_debug())),
            Some(&i) if slots[i].is_some() => {
                wrong.push(format!("buffer '{}' is placed twice", id.escape_debug()))
            }
            Some(&i) => slots[i] = Some((m, *off)),
        }
    }
    for (i, s) in slots.iter().enumerate() {
        if s.is_none() && wrong.is_empty() {
            let id = problem.buffers()[i].id.escape_debug();
            wrong.push(format!("buffer '{id}' has no offset"));
        }
    }
    if !wrong.is_empty() {
        return Err(wrong);
    }
    let (memory, offsets): (Vec<MemoryIdx>, Vec<Offset>) = slots.into_iter().flatten().unzip();
    let traffic_each = memplan::memories::traffic_of(problem, &data.input()).unwrap_or_default();
    let mut heights = vec![Size(0); k];
    let mut traffic = vec![0u64; k];
    for (i, b) in problem.buffers().iter().enumerate() {
        let m = memory[i].index();
        heights[m] = heights[m].max(Size(offsets[i].get().saturating_add(b.size.get())));
        traffic[m] = traffic[m].saturating_add(traffic_each.get(i).copied().unwrap_or(0));
    }
    let priced = data.memories.iter().all(|m| m.cost.is_some());
    let cost = (0..n)
        .map(|i| {
            let m = memory[i].index();
            let unit = if priced {
                data.memories[m].cost.unwrap_or(0)
            } else {
                u64::from(m > 0)
            };
            traffic_each
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_mul(unit)
        })
        .fold(0u64, u64::saturating_add);
    Ok(MemoryPlan {
        memory,
        offsets,
        heights,
        traffic,
        cost,
    })
}

/// The plan's per-memory figures, `name height/capacity, traffic`.
pub fn memory_figures(data: &MemoriesData, p: &MemoryPlan) -> Vec<String> {
    data.memories
        .iter()
        .enumerate()
        .map(|(m, mem)| {
            let cap = mem.capacity.map_or("unbounded".to_string(), |c| {
                super::numbers::thousands(c.get())
            });
            format!(
                "{} height {} of {}, traffic {}",
                mem.name,
                super::numbers::thousands(p.heights[m].get()),
                cap,
                super::numbers::thousands(p.traffic[m])
            )
        })
        .collect()
}

/// True when the problem file (not stdin) is a JSON problem with a `memories` section.
pub fn has_section(path: &str) -> bool {
    if path == "-" {
        return false;
    }
    std::fs::read(path).is_ok_and(|bytes| bytes_have_section(path, &bytes))
}

/// True when `bytes` are a JSON problem with a `memories` section.
pub fn bytes_have_section(path: &str, bytes: &[u8]) -> bool {
    super::formats::input_format(path, bytes, None) == Format::Json
        && serde_json::from_slice::<serde_json::Value>(bytes)
            .is_ok_and(|v| v.get("memories").is_some_and(|m| !m.is_null()))
}
