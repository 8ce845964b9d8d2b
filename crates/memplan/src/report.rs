//! What [`crate::plan`] returns: the [`Outcome`] and how it was reached (which planner,
//! every candidate's height, the time, the exact search's effort).

use std::time::Duration;

use crate::budget::Stop;
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
    /// The max load: a lower bound on any plan's height (with [`crate::Share`]s, the
    /// max load with shares of [`crate::max_load`]).
    pub max_load: Size,
    /// The best proven lower bound on the height, the one every output reports: the max
    /// load (or the fixed buffers' top when higher), raised by the cheap bounds of
    /// [`crate::BoundOptions`] when the plan is above it, by every capacity the exact
    /// search (or the prover) proved infeasible, and in `Optimal` equal to the plan's
    /// height. The outcome's own bound (in `Feasible` and `Unknown`) is this number.
    pub lower_bound: Size,
    /// Every planner that was run, in portfolio order.
    pub candidates: Vec<CandidateResult>,
    /// Wall time spent.
    pub elapsed: Duration,
    /// Effort of the exact search, when it ran.
    pub exact: Option<ExactStats>,
    /// The work charged, in work units ([`crate::Budget::with_work_limit`]): the same on
    /// every run when no clock stopped it. A user chooses a work limit from it.
    pub work: u64,
    /// Which limit stopped the call, if one did: [`Stop::Work`] (the result is
    /// reproducible), [`Stop::Clock`] (it may differ from run to run) or
    /// [`Stop::Cancel`]. `None` when the call ended on its own.
    pub stopped_by: Option<Stop>,
    /// The shares the plan takes, as indices into [`crate::Problem::shares`], in
    /// increasing order (empty without shares).
    pub taken_shares: Vec<usize>,
}

impl Report {
    /// The plan's height above the proven [`Report::lower_bound`] (0 when `Optimal`), when
    /// there is a plan (over the capacity included): the gap to the optimum, at most.
    pub fn fragmentation(&self) -> Option<Size> {
        self.outcome
            .best()
            .map(|p| p.height().saturating_sub(self.lower_bound))
    }
}
