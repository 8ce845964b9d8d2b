//! [`check_spill`]: the independent check of a two-level plan.
//!
//! A [`TwoLevelPlan`] is valid for a problem, a fast capacity `C` and an input when:
//!
//! 1. it has one entry per buffer, so every buffer is in exactly one level;
//! 2. buffers with a fixed offset or [`Memory::Fast`] are kept, [`Memory::Slow`] ones
//!    are spilled;
//! 3. the kept buffers, as a problem with capacity `C`, pass [`crate::check`];
//! 4. the spilled buffers, as a problem without capacity, pass [`crate::check`];
//! 5. its cost is the total cost of the spilled buffers, and its heights are those of
//!    the two levels.
//!
//! Each level is checked by memplan's own checker, which names the buffers at fault.

use crate::checker::{check, CheckFailure, CheckSummary, Violation};
use crate::types::{Problem, Size};

use super::model::{split_levels, Decision, SpillModel};
use super::{Memory, SpillInput, TwoLevelPlan};

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
    let model = SpillModel::new(problem, capacity, input).map_err(Violation::SpillInput)?;
    let levels =
        split_levels(problem, &plan.spilled, &plan.offsets).map_err(Violation::SpillInput)?;
    for (i, b) in problem.buffers().iter().enumerate() {
        let wanted = match model.base[i] {
            Decision::Fast if plan.spilled[i] => Memory::Fast,
            Decision::Slow if !plan.spilled[i] => Memory::Slow,
            _ => continue,
        };
        return Err(Violation::WrongMemory {
            index: i,
            id: b.id.clone(),
            wanted,
        }
        .into());
    }
    let actual = model.cost_of(&plan.spilled);
    if actual != plan.cost {
        return Err(Violation::SpillCost {
            claimed: plan.cost,
            actual,
        }
        .into());
    }
    let fast =
        check(&levels.fast, &levels.fast_plan, Some(capacity)).map_err(Violation::FastLevel)?;
    let slow = check(&levels.slow, &levels.slow_plan, None).map_err(Violation::SlowLevel)?;
    for (level, claimed, actual) in [
        ("fast", plan.fast_height, fast.height),
        ("slow", plan.slow_height, slow.height),
    ] {
        if claimed != actual {
            return Err(Violation::LevelHeight {
                level,
                claimed,
                actual,
            }
            .into());
        }
    }
    Ok(CheckSummary {
        slow_height: Some(slow.height),
        ..CheckSummary::new(problem.len(), fast.height)
    })
}
