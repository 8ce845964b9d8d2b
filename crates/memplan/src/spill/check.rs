//! [`check_spill`]: the two-memory form of [`crate::memories::check_memories`].
//!
//! A [`TwoLevelPlan`] is valid for a problem, a fast capacity `C` and an input when, as
//! a plan across memories `fast` (capacity `C`) and `slow` (unbounded):
//!
//! 1. it has one entry per buffer, so every buffer is in exactly one level;
//! 2. buffers with a fixed offset or [`Memory::Fast`] are kept, [`Memory::Slow`] ones
//!    are spilled;
//! 3. the kept buffers, as a problem with capacity `C`, pass [`crate::check`];
//! 4. the spilled buffers, as a problem without capacity, pass [`crate::check`];
//! 5. its cost is the total cost of the spilled buffers, and its heights are those of
//!    the two levels.
//!
//! Violations are reported in spill's words (`WrongMemory`, `FastLevel`, …).

use crate::checker::{CheckFailure, CheckSummary, Violation};
use crate::memories::{check_memories, MemoriesInput, MemoryIdx, MemoryPlan};
use crate::types::{Problem, Size};

use super::solve::{error, translate};
use super::{Memory, SpillError, SpillInput, TwoLevelPlan};

/// Checks a two-level plan against its problem, fast capacity and input (see the module
/// docs of [`crate::spill`] for the model). Reports the first rule broken, a failure
/// with one violation; each level's violations come from [`crate::check`]. The summary's
/// `height` is the fast level's, `slow_height` the slow level's.
pub fn check_spill(
    problem: &Problem,
    capacity: Size,
    input: &SpillInput<'_>,
    plan: &TwoLevelPlan,
) -> Result<CheckSummary, CheckFailure> {
    let (banks, allowed) = translate(problem, capacity, input).map_err(Violation::SpillInput)?;
    let n = problem.len();
    if plan.spilled.len() != n || plan.offsets.len() != n {
        return Err(Violation::SpillInput(SpillError::PlanShape {
            expected: n,
            found: plan.spilled.len().min(plan.offsets.len()),
        })
        .into());
    }
    // The plan's own figures, so that the check compares them.
    let traffic: Vec<u64> = match input.costs {
        Some(c) => c.to_vec(),
        None => problem.buffers().iter().map(|b| b.size.get()).collect(),
    };
    let mut level_traffic = [0u64; 2];
    for (i, &s) in plan.spilled.iter().enumerate() {
        level_traffic[usize::from(s)] = level_traffic[usize::from(s)].saturating_add(traffic[i]);
    }
    let multi = MemoryPlan {
        memory: plan
            .spilled
            .iter()
            .map(|&s| MemoryIdx(u32::from(s)))
            .collect(),
        offsets: plan.offsets.clone(),
        heights: vec![plan.fast_height, plan.slow_height],
        traffic: level_traffic.to_vec(),
        cost: plan.cost,
    };
    let memories_input = MemoriesInput {
        allowed: Some(&allowed),
        accesses: None,
        traffic: input.costs,
    };
    let summary = check_memories(problem, &banks, &memories_input, &multi).map_err(|f| {
        let Some(v) = f.violations.into_iter().next() else {
            return CheckFailure {
                violations: Vec::new(),
                more: f.more,
            };
        };
        in_spill_words(v).into()
    })?;
    Ok(CheckSummary {
        slow_height: Some(summary.heights[1]),
        ..CheckSummary::new(problem.len(), summary.heights[0])
    })
}

/// A multi-memory violation in spill's words.
fn in_spill_words(v: Violation) -> Violation {
    match v {
        Violation::NotAllowed {
            index, id, memory, ..
        } => Violation::WrongMemory {
            index,
            id,
            wanted: if memory == "slow" {
                Memory::Fast
            } else {
                Memory::Slow
            },
        },
        Violation::MemoryCost { claimed, actual } => Violation::SpillCost { claimed, actual },
        Violation::MemoryFigure {
            what: "height",
            memory,
            claimed,
            actual,
        } => Violation::LevelHeight {
            level: if memory == "slow" { "slow" } else { "fast" },
            claimed: Size(claimed.unwrap_or(0)),
            actual: Size(actual),
        },
        Violation::InMemory { memory, failure } if memory == "fast" => {
            Violation::FastLevel(failure)
        }
        Violation::InMemory { failure, .. } => Violation::SlowLevel(failure),
        Violation::MemoriesInput(e) => Violation::SpillInput(error(e)),
        other => other,
    }
}
