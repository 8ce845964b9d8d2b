//! Two memory levels in files: the per-buffer spill data of a problem (its `cost` and
//! `memory` columns or fields), the `memory` column of a two-level plan (the output of
//! `plan --spill`), and the matching of a plan's rows to a problem's buffers by id. For
//! `plan --spill`, `check` and `render` alike.

use std::collections::HashMap;

use memplan::spill::{Memory, SpillInput, TwoLevelPlan};
use memplan::{Offset, Problem, ReadError, Size};

use super::files::{display_path, read_failure};
use super::formats::input_format;
use crate::exit::{self, Failure};
use crate::flags::input::Format;

/// The per-buffer spill data read from a problem file.
#[derive(Default)]
pub struct SpillData {
    pub costs: Option<Vec<u64>>,
    pub memory: Option<Vec<Memory>>,
}

impl SpillData {
    pub fn input(&self) -> SpillInput<'_> {
        SpillInput {
            costs: self.costs.as_deref(),
            memory: self.memory.as_deref(),
        }
    }

    /// The cost of buffer `i`: its `cost`, else its size.
    pub fn cost(&self, problem: &Problem, i: usize) -> u64 {
        self.costs
            .as_ref()
            .map_or(problem.buffers()[i].size.get(), |c| c[i])
    }
}

/// "FILE: line L, column 'C': WHAT", exit 3.
pub fn bad_field(path: &str, line: u64, column: &str, what: String) -> Failure {
    Failure::new(
        exit::INPUT,
        format!(
            "{}: line {line}, column '{column}': {what}",
            display_path(path)
        ),
    )
}

fn parse_cost(v: &str) -> Result<u64, String> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("not a non-negative integer: '{v}'"));
    }
    v.parse()
        .map_err(|_| format!("number too large for 64 bits: '{v}'"))
}

/// Reads the `cost` and `memory` columns (CSV) or fields (JSON) of a problem file. An
/// empty cost is the buffer's size; an empty memory is the planner's choice.
pub fn read_spill_data(
    path: &str,
    bytes: &[u8],
    format: Format,
    problem: &Problem,
) -> Result<SpillData, Failure> {
    let (costs, memory) = match format {
        Format::Csv => read_csv_fields(path, bytes)?,
        Format::Json => read_json_fields(path, bytes)?,
    };
    let sizes = problem.buffers().iter().map(|b| b.size.get());
    let costs = costs.map(|c| {
        c.into_iter()
            .zip(sizes)
            .map(|(c, s)| c.unwrap_or(s))
            .collect()
    });
    let data = SpillData { costs, memory };
    for (what, n) in [
        ("cost", data.costs.as_ref().map(Vec::len)),
        ("memory", data.memory.as_ref().map(Vec::len)),
    ] {
        if n.is_some_and(|n| n != problem.len()) {
            return Err(Failure::new(
                exit::INPUT,
                format!(
                    "{}: the {what} column does not match the buffers",
                    display_path(path)
                ),
            ));
        }
    }
    Ok(data)
}

type Fields = (Option<Vec<Option<u64>>>, Option<Vec<Memory>>);

/// The values of the CSV column named `name` (case-insensitive), each with its line;
/// `None` when the header has no such column.
pub fn csv_column(bytes: &[u8], name: &str) -> Result<Option<Vec<(u64, String)>>, ReadError> {
    let (names, rows) = memplan::io::read_rows_csv(bytes)?;
    let Some(k) = names.iter().position(|n| n.eq_ignore_ascii_case(name)) else {
        return Ok(None);
    };
    let field = |(line, mut fields): (u64, Vec<String>)| {
        let value = if k < fields.len() {
            fields.swap_remove(k)
        } else {
            String::new()
        };
        (line, value)
    };
    Ok(Some(rows.into_iter().map(field).collect()))
}

fn read_csv_fields(path: &str, bytes: &[u8]) -> Result<Fields, Failure> {
    let column = |name: &str| csv_column(bytes, name).map_err(|e| read_failure(path, e));
    let costs = column("cost")?
        .map(|rows| {
            rows.into_iter()
                .map(|(line, v)| match v.as_str() {
                    "" => Ok(None),
                    v => parse_cost(v)
                        .map(Some)
                        .map_err(|w| bad_field(path, line, "cost", w)),
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let memory = column("memory")?
        .map(|rows| {
            rows.into_iter()
                .map(|(line, v)| {
                    v.parse::<Memory>()
                        .map_err(|e| bad_field(path, line, "memory", e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    Ok((costs, memory))
}

fn read_json_fields(path: &str, bytes: &[u8]) -> Result<Fields, Failure> {
    let bad = |what: String| Failure::new(exit::INPUT, format!("{}: {what}", display_path(path)));
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| bad(format!("malformed json: {e}")))?;
    let bufs = value["buffers"].as_array().cloned().unwrap_or_default();
    let has = |f: &str| bufs.iter().any(|b| !b[f].is_null());
    let costs = has("cost").then(|| bufs.iter().map(|b| b["cost"].as_u64()).collect());
    let memory = if has("memory") {
        let parse = |(i, b): (usize, &serde_json::Value)| match &b["memory"] {
            serde_json::Value::Null => Ok(Memory::Either),
            serde_json::Value::String(s) => s
                .parse::<Memory>()
                .map_err(|e| bad(format!("buffers[{i}], field 'memory': {e}"))),
            other => Err(bad(format!(
                "buffers[{i}], field 'memory': expected fast, slow or either, found {other}"
            ))),
        };
        Some(
            bufs.iter()
                .enumerate()
                .map(parse)
                .collect::<Result<_, _>>()?,
        )
    } else {
        None
    };
    Ok((costs, memory))
}

/// The `memory` column (CSV) or fields (JSON) of a plan file, `true` for slow, in the
/// file's order; `None` when the plan has none (a one-level plan).
pub fn read_plan_levels(path: &str, bytes: &[u8]) -> Result<Option<Vec<bool>>, Failure> {
    let level = |v: &str| {
        match v.trim().to_ascii_lowercase().as_str() {
        "fast" => Ok(false),
        "slow" => Ok(true),
        _ => Err(format!(
            "a plan's memory must be fast or slow, found '{}' (a plan across several memories: give --memories NAME[:CAPACITY],...)",
            v.escape_debug()
        )),
    }
    };
    match input_format(path, bytes, None) {
        Format::Csv => csv_column(bytes, "memory")
            .map_err(|e| read_failure(path, e))?
            .map(|rows| {
                rows.into_iter()
                    .map(|(line, v)| level(&v).map_err(|w| bad_field(path, line, "memory", w)))
                    .collect()
            })
            .transpose(),
        Format::Json => {
            let bad = |w: String| Failure::new(exit::INPUT, format!("{}: {w}", display_path(path)));
            let value: serde_json::Value =
                serde_json::from_slice(bytes).map_err(|e| bad(format!("malformed json: {e}")))?;
            let bufs = value["buffers"].as_array().cloned().unwrap_or_default();
            if bufs.iter().all(|b| b["memory"].is_null()) {
                return Ok(None);
            }
            bufs.iter()
                .enumerate()
                .map(|(i, b)| {
                    level(b["memory"].as_str().unwrap_or("(none)"))
                        .map_err(|w| bad(format!("buffers[{i}], field 'memory': {w}")))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        }
    }
}

/// A plan file's rows (`id`, `offset`, and `true` for slow) as a [`TwoLevelPlan`] of
/// `problem`, matched by id, with its heights and cost computed (for [`check_spill`] to
/// judge the rest); the rows' problems (unknown, repeated or missing ids) otherwise.
pub fn two_level_plan(
    problem: &Problem,
    data: &SpillData,
    placements: &[(String, Offset)],
    levels: &[bool],
) -> Result<TwoLevelPlan, Vec<String>> {
    let n = problem.len();
    let index = index_by_id(problem);
    let mut slots: Vec<Option<(bool, Offset)>> = vec![None; n];
    let mut wrong = Vec::new();
    for ((id, off), &slow) in placements.iter().zip(levels) {
        match index.get(id.as_str()) {
            None => wrong.push(format!("unknown buffer '{}'", id.escape_debug())),
            Some(&i) if slots[i].is_some() => {
                wrong.push(format!("buffer '{}' is placed twice", id.escape_debug()))
            }
            Some(&i) => slots[i] = Some((slow, *off)),
        }
    }
    for (i, s) in slots.iter().enumerate() {
        if s.is_none() {
            let id = problem.buffers()[i].id.escape_debug();
            wrong.push(format!("buffer '{id}' has no offset"));
        }
    }
    if !wrong.is_empty() {
        return Err(wrong);
    }
    let (spilled, offsets): (Vec<bool>, Vec<Offset>) = slots.into_iter().flatten().unzip();
    let height = |slow: bool| {
        problem
            .buffers()
            .iter()
            .zip(spilled.iter().zip(&offsets))
            .filter(|(_, (s, _))| **s == slow)
            .map(|(b, (_, o))| o.get().saturating_add(b.size.get()))
            .max()
            .unwrap_or(0)
    };
    let cost = (0..n)
        .filter(|&i| spilled[i])
        .map(|i| data.cost(problem, i))
        .fold(0u64, u64::saturating_add);
    Ok(TwoLevelPlan {
        fast_height: Size(height(false)),
        slow_height: Size(height(true)),
        cost,
        spilled,
        offsets,
    })
}

/// Each buffer's index, by id.
pub fn index_by_id(problem: &Problem) -> HashMap<&str, usize> {
    problem
        .buffers()
        .iter()
        .enumerate()
        .map(|(i, b)| (b.id.as_str(), i))
        .collect()
}

/// The fast memory's size that a two-level plan file (named `plan`) is checked or drawn
/// under: `--capacity`, which such a plan requires.
pub fn fast_capacity(capacity: Option<u64>, plan: &str) -> Result<u64, Failure> {
    capacity.ok_or_else(|| {
        Failure::usage(format!(
            "{plan}: a plan with a memory column needs --capacity (the fast memory's size)"
        ))
    })
}
