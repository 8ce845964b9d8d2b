//! Planning a problem with [`crate::Share`]s: the storages of the shares taken are
//! planned as a problem without shares, and their plan expanded to the buffers.
//!
//! ```text
//!   storages with the optional shares that lower or keep the load   storage::build
//!     └ the stages of run_started (greedy, bounds, refinement)      mod.rs
//!   at the max load with shares? ──> Optimal, done
//!   storages with the required shares only (the fallback)           ShareOptions::fallback
//!     └ the same stages, with the rest of the budget
//!   the lower of the two (ties to the one with the shares), expanded and checked
//! ```
//!
//! The bound every output reports is the max load with shares (`storage::bound`),
//! which holds whichever optional shares a plan takes. The storages' own proofs do not
//! hold for the buffers: a storage reserves its largest member's bytes over its whole
//! span, which the buffers do not need (an in-place output larger than its input, an
//! inside buffer that outlives its target), so the storages' problem can be harder.

use std::time::Instant;

use crate::analysis::fixed_top;
use crate::budget::Budget;
use crate::error::PlanError;
use crate::options::Options;
use crate::outcome::Outcome;
use crate::report::Report;
use crate::storage::{self, Storages};
use crate::types::{Plan, Problem, Size};

/// Share of the budget for the plan with the optional shares, when a fallback may follow.
const FIRST_SHARE: f64 = 0.6;

/// One candidate: its storages and the report of planning them.
struct Candidate {
    storages: Storages,
    report: Report,
}

impl Candidate {
    fn height(&self) -> Option<Size> {
        self.report.outcome.best().map(|p| p.height())
    }

    fn fits(&self) -> bool {
        self.report.outcome.plan().is_some()
    }
}

fn plan_storages(
    problem: &Problem,
    optional: bool,
    capacity: Option<Size>,
    options: &Options,
    budget: &Budget,
) -> Result<Candidate, PlanError> {
    let storages = storage::build(problem, None, optional).map_err(|e| PlanError::Shares {
        detail: e.to_string(),
    })?;
    let report = super::run_started(&storages.problem, capacity, options, budget, Instant::now())?;
    Ok(Candidate { storages, report })
}

/// [`crate::plan`] for a problem with shares, within a started budget.
pub(super) fn run(
    problem: &Problem,
    capacity: Option<Size>,
    options: &Options,
    budget: &Budget,
    started: Instant,
) -> Result<Report, PlanError> {
    let shared_load = storage::shared_max_load(problem);
    let bound = shared_load.max(fixed_top(problem));
    let all_required = problem.shares().iter().all(|s| s.required);
    let optional = options.shares.optional && !all_required;
    let may_fall_back = optional && options.shares.fallback;
    if capacity.is_some_and(|c| bound > c) {
        let figures = (bound, shared_load);
        let infeasible = Outcome::Infeasible;
        return Ok(report_of(
            options.planner,
            None,
            infeasible,
            figures,
            budget,
            started,
        ));
    }
    let first_budget = if may_fall_back {
        budget.share(Instant::now(), FIRST_SHARE)
    } else {
        budget.clone()
    };
    let mut best = plan_storages(problem, optional, capacity, options, &first_budget)?;
    let done = best.fits() && best.height().is_some_and(|h| h <= bound);
    if may_fall_back && !done && !budget.exhausted() {
        let other = plan_storages(problem, false, capacity, options, budget)?;
        if better(&other, &best) {
            best = other;
        }
    }
    let Candidate { storages, report } = best;
    let expand = |p: &Plan| {
        Plan::new(problem, storages.expand(p.offsets()))
            .expect("storages' plans expand without overflow")
    };
    // The storages reserve each storage's full size over its whole span, so their
    // problem is stricter than the buffers': its proofs do not carry over, the bound
    // with shares does.
    let (outcome, proven) = match (report.outcome.plan(), report.outcome.best()) {
        (Some(p), _) if p.height() <= bound => (Outcome::Optimal(expand(p)), p.height()),
        (Some(p), _) => {
            let plan = expand(p);
            (
                Outcome::Feasible {
                    plan,
                    lower_bound: bound,
                },
                bound,
            )
        }
        (None, best) => {
            let best_so_far = best.map(expand);
            (
                Outcome::Unknown {
                    best_so_far,
                    lower_bound: bound,
                },
                bound,
            )
        }
    };
    if options.verify {
        if let Some(p) = outcome.best() {
            let fits = capacity.is_none_or(|c| p.height() <= c);
            crate::checker::check_offsets(problem, p.offsets(), capacity.filter(|_| fits))
                .map_err(|f| PlanError::InvalidPlan {
                    planner: report.planner.name(),
                    detail: f.to_string(),
                })?;
        }
    }
    let mut out = report_of(
        report.planner,
        Some(&report),
        outcome,
        (proven, shared_load),
        budget,
        started,
    );
    // Taken: the buffer sits at its target's offset plus the share's (by the storages,
    // or where the plan happens to put the two).
    out.taken_shares = out
        .outcome
        .best()
        .map_or_else(Vec::new, |p| problem.taken_shares(p.offsets(), |_| ()));
    Ok(out)
}

/// Is `a` better than `b`: a plan that fits beats one that does not, then the lower.
/// Ties go to `b` (the plan with the optional shares).
fn better(a: &Candidate, b: &Candidate) -> bool {
    match (a.fits(), b.fits()) {
        (true, false) => true,
        (false, true) => false,
        _ => match (a.height(), b.height()) {
            (Some(x), Some(y)) => x < y,
            (Some(_), None) => true,
            _ => false,
        },
    }
}

/// The report of `outcome`, with `(proven bound, max load)`.
fn report_of(
    planner: crate::options::Planner,
    inner: Option<&Report>,
    outcome: Outcome,
    (proven, max_load): (Size, Size),
    budget: &Budget,
    started: Instant,
) -> Report {
    Report {
        outcome,
        planner,
        max_load,
        lower_bound: proven,
        candidates: inner.map_or_else(Vec::new, |r| r.candidates.clone()),
        elapsed: started.elapsed(),
        exact: inner.and_then(|r| r.exact),
        work: budget.work_spent(),
        stopped_by: budget.stop(),
        taken_shares: Vec::new(),
    }
}
