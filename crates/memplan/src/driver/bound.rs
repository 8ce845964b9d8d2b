//! The driver's bound stages: the one proven lower bound that every output reports.
//!
//! The model: the incumbent carries `proven`, a bound no plan goes below. It starts at
//! the max load (or the fixed buffers' top); the exact search raises it by its proofs
//! (`refine.rs`); the stages here raise it further with [`crate::bounds`]:
//!
//! ```text
//!   greedy pass
//!   raise         holes and granularity, when the plan is above the bound (or the capacity)
//!   prove         the prover, on half the time left (BoundOptions::prover, off by default)
//!   refinement    exact search (from the proven bound) and boxing
//!   raise         granularity, on the exact search's proofs
//! ```
//!
//! Invariant: `proven` only rises, and only by a proof; the outcome is `Optimal` exactly
//! when the plan's height equals it, and in capacity mode `Infeasible` once it exceeds
//! the capacity.

use std::time::Instant;

use super::{height_of, Incumbent, Stage};
use crate::bounds::{self, BoundOptions, Settled};
use crate::budget::work;
use crate::options::Planner;
use crate::report::CandidateResult;
use crate::types::{Offset, Size};

/// Share of the time left that the prover may take (the rest goes to refinement).
const PROVER_SHARE: f64 = 0.5;

/// True while the incumbent is unfinished: above the proven bound, or over the capacity
/// with no proof that nothing fits.
fn unfinished(stage: &Stage<'_>, best: &Incumbent) -> bool {
    match stage.capacity {
        Some(c) => best.height > c && !best.proved_infeasible,
        None => best.height > best.proven,
    }
}

/// The prover, when switched on and the greedy plan is unfinished: raises the bound (or
/// settles the capacity), and takes a plan at the bound (or under the capacity).
pub(super) fn prove(stage: &Stage<'_>, best: &mut Incumbent) {
    let Stage {
        problem,
        capacity,
        options,
        budget,
        ..
    } = *stage;
    if !options.bounds.prover || !unfinished(stage, best) || budget.strict().exhausted() {
        return;
    }
    let budget = budget.strict().share(Instant::now(), PROVER_SHARE);
    let prover = options.bounds.prover_options();
    let found = match capacity {
        None => {
            let p = bounds::lower_bound_with(problem, &budget, &prover);
            best.proven = best.proven.max(p.bound);
            p.plan
        }
        Some(c) => match bounds::settle_with(problem, c, &budget, &prover) {
            Settled::Infeasible(_) => {
                best.proven = best.proven.max(c + Size(1));
                best.proved_infeasible = true;
                None
            }
            Settled::Fits(plan) => Some(plan),
            Settled::Unknown => None,
        },
    };
    if let Some(o) = found {
        take(stage, best, o);
    }
}

/// The prover's plan, when lower (or, in capacity mode, when it newly fits).
fn take(stage: &Stage<'_>, best: &mut Incumbent, o: Vec<Offset>) {
    let h = height_of(stage.problem, &o);
    best.summary.push(CandidateResult {
        planner: Planner::Exact,
        height: Some(h),
    });
    let newly_fits = stage.capacity.is_some_and(|c| h <= c && best.height > c);
    if h < best.height || newly_fits {
        (best.offsets, best.height, best.planner) = (o, h, Planner::Exact);
    }
}

/// The cheap bounds, when the plan is unfinished (they cost a sweep, and a plan at the
/// max load needs none): after the greedy pass the holes bound and the granularity, so
/// that the exact search starts from them (and, fitting a capacity, a proof ends the run
/// before it); after the refinement the granularity again, on the exact search's proofs.
/// A capacity proven infeasible is itself a bound: the capacity plus one, rounded.
pub(super) fn raise(stage: &Stage<'_>, best: &mut Incumbent, after_refinement: bool) {
    if let (Some(c), true) = (stage.capacity, best.proved_infeasible) {
        best.proven = best.proven.max(c + Size(1));
    } else if !unfinished(stage, best) {
        return;
    }
    let options = BoundOptions {
        holes: stage.options.bounds.holes && !after_refinement,
        ..stage.options.bounds.clone()
    };
    // The holes bound sweeps the times, each in time linear in the buffers live, and
    // stops when the budget does (no bound is ever wrong to skip); the granularity is
    // one pass over the buffers, and runs even once the planners spent the budget.
    let bound = bounds::raise_cheaply(stage.problem, best.proven, &options, &stage.budget.strict());
    // A sweep over the buffers, charged like a greedy pass's.
    stage.budget.charge(work::units(
        stage.problem.len() as u64,
        work::SWEEP_BUFFERS_PER_UNIT,
    ));
    best.proven = best.proven.max(bound);
    if stage.capacity.is_some_and(|c| best.proven > c) {
        best.proved_infeasible = true;
    }
}
