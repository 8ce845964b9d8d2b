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

use thiserror::Error;

use crate::checker::{check, CheckFailure};
use crate::types::{Problem, Size};

use super::model::{split_levels, Decision, SpillModel};
use super::{Memory, SpillError, SpillInput, TwoLevelPlan};

/// What [`check_spill`] found wrong.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SpillViolation {
    /// The input or the plan does not match the problem.
    #[error(transparent)]
    Input(#[from] SpillError),
    /// A buffer is in a level it may not be in.
    #[error("buffer '{id}' (#{index}) must be in {wanted} memory")]
    Memory {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
        /// Where it must be.
        wanted: Memory,
    },
    /// The plan's cost is not the total cost of its spilled buffers.
    #[error("the plan claims cost {claimed}, its spilled buffers cost {actual}")]
    Cost {
        /// The plan's figure.
        claimed: u64,
        /// The checker's.
        actual: u64,
    },
    /// A level's height is not what the plan claims.
    #[error("the plan claims {level} height {claimed}, it is {actual}")]
    Height {
        /// `fast` or `slow`.
        level: &'static str,
        /// The plan's figure.
        claimed: Size,
        /// The checker's.
        actual: Size,
    },
    /// The fast level fails memplan's checker (with the capacity).
    #[error("fast memory: {0}")]
    Fast(CheckFailure),
    /// The slow level fails memplan's checker.
    #[error("slow memory: {0}")]
    Slow(CheckFailure),
}

/// Checks a two-level plan against its problem, fast capacity and input (see the module
/// docs of [`crate::spill`] for the model). Reports the first rule broken; each level's
/// violations come from [`crate::check`].
pub fn check_spill(
    problem: &Problem,
    capacity: Size,
    input: &SpillInput<'_>,
    plan: &TwoLevelPlan,
) -> Result<(), SpillViolation> {
    let model = SpillModel::new(problem, capacity, input)?;
    let levels = split_levels(problem, &plan.spilled, &plan.offsets)?;
    for (i, b) in problem.buffers().iter().enumerate() {
        let wanted = match model.base[i] {
            Decision::Fast if plan.spilled[i] => Memory::Fast,
            Decision::Slow if !plan.spilled[i] => Memory::Slow,
            _ => continue,
        };
        return Err(SpillViolation::Memory {
            index: i,
            id: b.id.clone(),
            wanted,
        });
    }
    let actual = model.cost_of(&plan.spilled);
    if actual != plan.cost {
        return Err(SpillViolation::Cost {
            claimed: plan.cost,
            actual,
        });
    }
    let fast =
        check(&levels.fast, &levels.fast_plan, Some(capacity)).map_err(SpillViolation::Fast)?;
    let slow = check(&levels.slow, &levels.slow_plan, None).map_err(SpillViolation::Slow)?;
    for (level, claimed, actual) in [
        ("fast", plan.fast_height, fast.height),
        ("slow", plan.slow_height, slow.height),
    ] {
        if claimed != actual {
            return Err(SpillViolation::Height {
                level,
                claimed,
                actual,
            });
        }
    }
    Ok(())
}
