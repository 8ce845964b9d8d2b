//! What [`crate::plan`] returns: the [`Outcome`] and how it was reached (which planner,
//! every candidate's height, the time, the exact search's effort).

use std::time::Duration;

use crate::exact::ExactStats;
use crate::options::Planner;
use crate::outcome::Outcome;
use crate::types::Size;

/// One planner's result inside a portfolio run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CandidateResult {
    /// The planner.
    pub planner: Planner,
    /// Its plan's height, or `None` when it was stopped early or did not count (it came
    /// after the first good-enough plan: optimal, or in capacity mode one that fits).
    pub height: Option<Size>,
}

/// What [`crate::plan`] returns: the outcome and how it was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The result.
    pub outcome: Outcome,
    /// The planner whose plan is in the outcome (the requested one when there is no plan).
    pub planner: Planner,
    /// The max load: a lower bound on any plan's height.
    pub max_load: Size,
    /// The lower bound every output reports ([`crate::lower_bound`]): the max load, or the
    /// top of the fixed buffers when higher. The fragmentation is `height − lower_bound`.
    pub lower_bound: Size,
    /// Every planner that was run, in portfolio order.
    pub candidates: Vec<CandidateResult>,
    /// Wall time spent.
    pub elapsed: Duration,
    /// Effort of the exact search, when it ran.
    pub exact: Option<ExactStats>,
}

impl Report {
    /// The best proven lower bound on the height: [`Report::lower_bound`], raised by the
    /// exact search's proofs. The outcome is `Optimal` exactly when the plan's height
    /// equals it (it is then that height).
    pub fn proven_lower_bound(&self) -> Size {
        match &self.outcome {
            Outcome::Optimal(p) => p.height(),
            Outcome::Feasible { lower_bound, .. } | Outcome::Unknown { lower_bound, .. } => {
                (*lower_bound).max(self.lower_bound)
            }
            Outcome::Infeasible => self.lower_bound,
        }
    }

    /// The plan's height above [`Report::lower_bound`], when there is a plan (over the
    /// capacity included).
    pub fn fragmentation(&self) -> Option<Size> {
        self.outcome
            .best()
            .map(|p| Size(p.height().get().saturating_sub(self.lower_bound.get())))
    }
}
