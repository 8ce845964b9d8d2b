//! The result of planning, for every planning problem of the crate: a plan with its
//! proven bound, a proof that none fits, or neither with the best so far.
//!
//! One vocabulary serves [`crate::plan`] (`Outcome<Plan>`, bounds on the height),
//! `memories::MemoriesProblem::plan` and its two-memory form `memories::plan_spill`
//! (`Outcome<MemoryPlan, u64>`, bounds on the cost), [`crate::tiles::plan_tiles`] (`Outcome<TilePlan>`, bounds on the peak) and
//! [`crate::shared_objects::plan_shared_objects`] (`Outcome<SharedAssignment>`, bounds
//! on the total). Invariants: a plan in `Optimal` or `Feasible` meets the request's goal
//! (under its capacity, if any); `Optimal` means its measure equals a proven lower bound;
//! `Infeasible` is a proof; `Unknown`'s best plan, if any, misses the capacity.

use crate::types::{Plan, Size};

/// The result of planning. `P` is the plan (indexed like the problem's buffers), `B` the
/// measure its bounds are in (the height for [`crate::plan`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<P = Plan, B = Size> {
    /// The plan's measure equals a proven lower bound (the max load, the fixed buffers'
    /// top, or a search's proof): it is minimal.
    Optimal(P),
    /// A valid plan (under the capacity, if any) and the best proven lower bound.
    Feasible {
        /// The plan.
        plan: P,
        /// No plan is lower than this.
        lower_bound: B,
    },
    /// Proven: no plan fits under the capacity.
    Infeasible,
    /// No plan under the capacity was found, and none was proven impossible.
    Unknown {
        /// The lowest plan found, which does **not** fit under the capacity (`None`: no
        /// plan was made).
        best_so_far: Option<P>,
        /// No plan is lower than this.
        lower_bound: B,
    },
}

impl<P, B> Outcome<P, B> {
    /// The plan, if it meets the goal (under the capacity, if any).
    pub fn plan(&self) -> Option<&P> {
        match self {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => Some(p),
            Outcome::Infeasible | Outcome::Unknown { .. } => None,
        }
    }

    /// The outcome's name, as every door writes it: `optimal`, `feasible`,
    /// `infeasible` or `unknown`.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Optimal(_) => "optimal",
            Outcome::Feasible { .. } => "feasible",
            Outcome::Infeasible => "infeasible",
            Outcome::Unknown { .. } => "unknown",
        }
    }

    /// The plan, or else the best plan found over the capacity.
    pub fn best(&self) -> Option<&P> {
        match self {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => Some(p),
            Outcome::Unknown { best_so_far, .. } => best_so_far.as_ref(),
            Outcome::Infeasible => None,
        }
    }
}

impl<P, B: Copy + Ord> Outcome<P, B> {
    /// The outcome of a heuristic's `plan` of measure `measure`, with a proven
    /// `lower_bound` and the goal's `capacity`: `Infeasible` when the bound exceeds the
    /// capacity (a proof), `Unknown` with the plan when the plan does, else `Optimal` when
    /// the plan meets the bound and `Feasible` otherwise.
    #[cfg(any(feature = "tiles", feature = "shared_objects"))]
    pub(crate) fn judge(plan: P, measure: B, lower_bound: B, capacity: Option<B>) -> Self {
        if capacity.is_some_and(|c| lower_bound > c) {
            Outcome::Infeasible
        } else if capacity.is_some_and(|c| measure > c) {
            Outcome::Unknown {
                best_so_far: Some(plan),
                lower_bound,
            }
        } else if measure <= lower_bound {
            Outcome::Optimal(plan)
        } else {
            Outcome::Feasible { plan, lower_bound }
        }
    }
}

/// How one search ended: the one word every family (the greedy placement kernel, the
/// exact search, TelaMalloc's search) answers with, inside the crate.
///
/// The invariant, for every family: `Found` holds a complete answer (a plan, or what
/// the caller asked for) that meets the search's bound; `Infeasible` is a **proof** that
/// none exists under that bound; `Stopped` proves nothing, whatever the reason. So a
/// caller may end its own search on `Found` or `Infeasible` alone, and may always run
/// again (with more budget, another bound or another planner) after `Stopped`.
///
/// The driver's capacity race answers with it too, keeping the lowest plan over the
/// capacity beside a `Stopped` (`driver/race.rs`, `RaceEnd`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict<T> {
    /// The answer.
    Found(T),
    /// Proven: no answer exists under the search's bound.
    Infeasible,
    /// Ended without an answer or a proof.
    Stopped(Halt),
}

/// Why a search stopped without an answer or a proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Halt {
    /// Its budget said so: the deadline, a cancellation (a lost race included).
    Budget,
    /// It reached its own limit: nodes or steps (or the memory the exact search may hold).
    Limit,
    /// A greedy pass would have ended above the bound it was given.
    OverBound,
    /// A heuristic search ran out of candidates, which proves nothing.
    Exhausted,
}

impl<T> Verdict<T> {
    /// The answer, if found.
    pub(crate) fn found(self) -> Option<T> {
        match self {
            Verdict::Found(t) => Some(t),
            Verdict::Infeasible | Verdict::Stopped(_) => None,
        }
    }
}
