//! Two-level plan files (the output of `plan --spill`): reading their `memory` column,
//! matching their rows to a problem's buffers, and `check` of both levels.

use memplan::spill::{check_spill, TwoLevelPlan};
use memplan::{Offset, Problem, Size};

use crate::files::display_path;
use crate::fmt::{count, thousands};
use crate::formats::Format;
use crate::spill::{bad_field, read_spill_data, SpillData};
use crate::{Failure, EXIT_INPUT};

/// The `memory` column (CSV) or fields (JSON) of a plan file, `true` for slow, in the
/// file's order; `None` when the plan has none (a one-level plan).
pub fn read_plan_levels(path: &str, bytes: &[u8]) -> Result<Option<Vec<bool>>, Failure> {
    let level = |v: &str| match v.trim().to_ascii_lowercase().as_str() {
        "fast" => Ok(false),
        "slow" => Ok(true),
        _ => Err(format!(
            "a plan's memory must be fast or slow, found '{}'",
            v.escape_debug()
        )),
    };
    match crate::formats::input_format(path, bytes, None) {
        Format::Csv => memplan::io::read_column_csv(bytes, "memory")
            .map_err(|e| crate::files::read_failure(path, e))?
            .map(|rows| {
                rows.into_iter()
                    .map(|(line, v)| level(&v).map_err(|w| bad_field(path, line, "memory", w)))
                    .collect()
            })
            .transpose(),
        Format::Json => {
            let bad = |w: String| Failure::new(EXIT_INPUT, format!("{}: {w}", display_path(path)));
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

/// `check` of a two-level plan: matches the plan's rows to the buffers by id, then
/// [`check_spill`] (fast buffers under the capacity, slow ones among themselves, the
/// problem's `memory` preferences).
pub fn check(
    args: &crate::commands::CheckArgs,
    problem_bytes: &[u8],
    problem: &Problem,
    placements: &[(String, Offset)],
    levels: &[bool],
) -> Result<(), Failure> {
    let Some(capacity) = args.capacity else {
        return Err(Failure::new(
            2,
            format!(
                "{}: a plan with a memory column needs --capacity (the fast memory's size)",
                display_path(&args.plan)
            ),
        ));
    };
    let format = crate::formats::input_format(&args.problem, problem_bytes, args.input_args.format);
    let data = read_spill_data(&args.problem, problem_bytes, format, problem)?;
    let plan_file = display_path(&args.plan);
    let plan = two_level_plan(problem, &data, placements, levels)
        .map_err(|wrong| Failure::invalid(plan_file, "plan", &wrong, 0))?;
    let n = problem.len();
    if let Err(v) = check_spill(problem, Size(capacity), &data.input(), &plan) {
        return Err(Failure::invalid(plan_file, "two-level plan", &[v], 0));
    }
    let slow = plan.spilled.iter().filter(|&&s| s).count();
    println!(
        "ok: {}; fast: {}, height {} under capacity {}; slow: {}, height {}; cost {}",
        count(n as u64, "buffer"),
        count((n - slow) as u64, "buffer"),
        thousands(plan.fast_height.get()),
        thousands(capacity),
        count(slow as u64, "buffer"),
        thousands(plan.slow_height.get()),
        thousands(plan.cost)
    );
    Ok(())
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
    let index = crate::render::index_by_id(problem);
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
