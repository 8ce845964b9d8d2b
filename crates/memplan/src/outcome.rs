//! The result of planning: a plan with its proven bound, a proof that none fits, or
//! neither. Plans are indexed like the problem's buffers.

use crate::types::{Plan, Size};

/// The result of planning. The plan, when there is one, is indexed like the problem's buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The plan's height equals a proven lower bound (the max load, the fixed buffers'
    /// top, or the exact search's proof): it is minimal.
    Optimal(Plan),
    /// A valid plan (under the capacity, if any) and the best proven lower bound on the height.
    Feasible {
        /// The plan.
        plan: Plan,
        /// No plan can be lower than this.
        lower_bound: Size,
    },
    /// Proven: no plan fits under the capacity.
    Infeasible,
    /// No plan under the capacity was found, and none was proven impossible.
    Unknown {
        /// The lowest plan found, which does **not** fit under the capacity.
        best_so_far: Option<Plan>,
        /// No plan can be lower than this.
        lower_bound: Size,
    },
}

impl Outcome {
    /// The plan, if it is valid for the problem (including its capacity).
    pub fn plan(&self) -> Option<&Plan> {
        match self {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => Some(p),
            Outcome::Infeasible | Outcome::Unknown { .. } => None,
        }
    }
}
