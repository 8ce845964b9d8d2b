//! Spill, the two-memory form of several memories, in files: the per-buffer spill data
//! of a problem (its `cost` and `memory` columns or fields), the `memory` column of a
//! spill plan (`fast` or `slow`, the output of `plan --spill`), such a plan as a plan
//! across the two memories, and its check in spill's words. For `plan --spill`, `check`
//! and `render` alike.

use memplan::memories::{
    check_memories, spill_request, MemoriesCheckSummary, MemoriesError, MemoryIdx, MemoryPlan,
    SpillInput, SpillMemory,
};
use memplan::{Offset, Problem, Size, Violation};

use super::columns::{bad_field, csv_column, index_by_id};
use super::files::{display_path, read_failure};
use super::formats::input_format;
use crate::exit::{self, Failure};
use crate::flags::input::Format;

/// The per-buffer spill data read from a problem file.
#[derive(Default)]
pub struct SpillData {
    pub costs: Option<Vec<u64>>,
    pub memory: Option<Vec<SpillMemory>>,
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

type Fields = (Option<Vec<Option<u64>>>, Option<Vec<SpillMemory>>);

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
                    v.parse::<SpillMemory>()
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
            serde_json::Value::Null => Ok(SpillMemory::Either),
            serde_json::Value::String(s) => s
                .parse::<SpillMemory>()
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

/// The slow memory's index in a spill plan (the fast one's is 0).
pub const SLOW: MemoryIdx = MemoryIdx(1);

/// A plan file's rows (`id`, `offset`, and `true` for slow) as a plan across the two
/// memories of `problem`, matched by id, with its heights, traffic and cost computed (for
/// [`check_spill_plan`] to judge the rest); the rows' problems (unknown, repeated or
/// missing ids) otherwise.
pub fn spill_plan(
    problem: &Problem,
    data: &SpillData,
    placements: &[(String, Offset)],
    levels: &[bool],
) -> Result<MemoryPlan, Vec<String>> {
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
    let mut heights = [0u64; 2];
    let mut traffic = [0u64; 2];
    for (i, b) in problem.buffers().iter().enumerate() {
        let m = usize::from(spilled[i]);
        heights[m] = heights[m].max(offsets[i].get().saturating_add(b.size.get()));
        traffic[m] = traffic[m].saturating_add(data.cost(problem, i));
    }
    Ok(MemoryPlan {
        memory: spilled.iter().map(|&s| MemoryIdx(u32::from(s))).collect(),
        offsets,
        heights: heights.map(Size).to_vec(),
        traffic: traffic.to_vec(),
        cost: traffic[1],
    })
}

/// Checks a spill plan with `check_memories` across the spill request's two memories.
/// A failure is the first rule broken, in spill's words (see [`in_spill_words`]).
pub fn check_spill_plan(
    problem: &Problem,
    capacity: u64,
    input: &SpillInput<'_>,
    plan: &MemoryPlan,
) -> Result<MemoriesCheckSummary, Vec<String>> {
    let (memories, allowed) =
        spill_request(problem, Size(capacity), input).map_err(|e| vec![e.to_string()])?;
    check_memories(problem, &memories, &input.memories_input(&allowed), plan)
        .map_err(|f| f.violations.iter().take(1).map(in_spill_words).collect())
}

/// A violation of a plan across the two memories, as `memplan check` words a spill
/// plan's: the level a buffer must be in, `fast memory: …`, the spilled buffers' cost.
pub fn in_spill_words(v: &Violation) -> String {
    let internal =
        |e: &dyn std::fmt::Display| format!("internal error: the spill plan fails its check: {e}");
    let level = |memory: &str| if memory == "slow" { "slow" } else { "fast" };
    match v {
        Violation::NotAllowed {
            index, id, memory, ..
        } => {
            let wanted = if memory == "slow" { "fast" } else { "slow" };
            format!("buffer '{id}' (#{index}) must be in {wanted} memory")
        }
        Violation::MemoryCost { claimed, actual } => {
            format!("the plan claims cost {claimed}, its spilled buffers cost {actual}")
        }
        Violation::MemoryFigure {
            what: "height",
            memory,
            claimed,
            actual,
        } => format!(
            "the plan claims {} height {}, it is {actual}",
            level(memory),
            claimed.unwrap_or(0)
        ),
        Violation::InMemory { memory, failure } => format!("{} memory: {failure}", level(memory)),
        Violation::MemoriesInput(e) => match e {
            MemoriesError::PlanShape { expected, found } => format!(
                "the plan has {found} entries for {expected} buffer(s), or an offset overflows"
            ),
            MemoriesError::Overflow(_) => "the costs add up to more than 2^64 - 1".to_string(),
            MemoriesError::Plan(e) => e.to_string(),
            MemoriesError::InvalidPlan(s) => internal(s),
            // An input rule the plan's memories break (a fixed buffer above the fast
            // capacity): the user's input, not memplan's bug.
            other => other.to_string(),
        },
        other => other.to_string(),
    }
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
