//! The driver: the only place that runs several planners, behind [`crate::plan`].
//!
//! The model: a run is a sequence of *stages* that each hand the next one the best plan
//! so far (the *incumbent*), all under one [`Budget`] made from the options:
//!
//! ```text
//!   capacity below the max load or a fixed buffer? ──> Infeasible, nothing runs
//!   greedy pass      every greedy planner (or the one planner asked for)   greedy_pass.rs
//!   raise            cheap lower bounds (holes, granularity), if unfinished bound.rs
//!   prove            the lower-bound prover, when switched on               bound.rs
//!   refinement       exact search and boxing, while fragmentation remains   refine.rs
//!     └ capacity race   exact search against TelaMalloc (capacity mode)     race.rs
//!   raise            the granularity on the exact search's proofs           bound.rs
//!   final check      the independent checker, then the outcome
//! ```
//!
//! Invariants: the incumbent is always a complete plan (the naive one when nothing
//! finished in time); a stage replaces it only with a lower plan (in capacity mode, also
//! with one that fits when it does not), ties going to the earlier plan; and without a
//! time limit every stage's result depends on the input and the options alone, whatever
//! the thread count. The families below (greedy, exact, boxing, TelaMalloc) take their
//! own options and a budget, and none of them imports the driver.
//!
//! The time limit covers the whole call, the final check included: the planners stop at
//! the limit less an estimate of the check's time.

mod bound;
mod greedy_pass;
mod race;
mod refine;
#[cfg(feature = "shares")]
mod shares;

use std::time::{Duration, Instant};

use crate::analysis::{fixed_top, max_load};
use crate::budget::Budget;
use crate::checker::{check_offsets, CheckFailure};
use crate::error::PlanError;
use crate::exact::ExactStats;
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::report::{CandidateResult, Report};
use crate::request::Request;
use crate::types::{Offset, Plan, Problem, Size};

/// Time the final check of a plan takes per buffer, rounded up because larger inputs miss
/// the cache more (the measurement: RELIABILITY.md §8).
const CHECK_TIME_PER_BUFFER: Duration = Duration::from_nanos(600);

/// The time kept from the limit for the final check, so that `plan()` as a whole ends
/// within its time limit: an estimate of the check's time (at most half the limit), when
/// the check is on.
fn check_reserve(problem: &Problem, options: &Options, limit: Option<Duration>) -> Duration {
    let Some(limit) = limit else {
        return Duration::ZERO;
    };
    if options.verify {
        let segments = problem.len()
            + problem
                .buffers()
                .iter()
                .map(|b| b.gaps.len())
                .sum::<usize>();
        CHECK_TIME_PER_BUFFER
            .saturating_mul(u32::try_from(segments).unwrap_or(u32::MAX))
            .min(limit / 2)
    } else {
        Duration::ZERO
    }
}

/// What every stage is given: the problem, the goal's capacity, the options, the one
/// bound, the call's (started) budget and its threads.
struct Stage<'a> {
    problem: &'a Problem,
    capacity: Option<Size>,
    options: &'a Options,
    lower_bound: Size,
    budget: &'a Budget,
    threads: usize,
}

/// The best plan so far and what the stages learnt on the way.
struct Incumbent {
    offsets: Vec<Offset>,
    height: Size,
    /// The planner whose plan it is.
    planner: Planner,
    /// Every planner run so far, in order (the report's candidates).
    summary: Vec<CandidateResult>,
    /// A proven lower bound on any height: the max load, or the exact search's bound.
    proven: Size,
    /// The exact search's effort, when it ran.
    exact: Option<ExactStats>,
    /// Proven: no plan fits under the capacity.
    proved_infeasible: bool,
}

/// [`crate::plan`]: starts the request's budget (its time limit becomes a deadline, less
/// the final check's reserve) and runs.
pub(crate) fn run(
    problem: &Problem,
    request: &Request,
    options: &Options,
) -> Result<Report, PlanError> {
    let started = Instant::now();
    let reserve = check_reserve(problem, options, request.budget.time_limit());
    let budget = request.budget.start(started, reserve);
    #[cfg(feature = "shares")]
    if !problem.shares().is_empty() {
        return shares::run(problem, request.capacity(), options, &budget, started);
    }
    run_started(problem, request.capacity(), options, &budget, started)
}

/// [`crate::plan`] within a budget already started: how the other families (memories,
/// tiles) ask the driver for a plan, with a budget derived from their own.
#[cfg(any(feature = "memories", feature = "tiles"))]
pub(crate) fn run_within(
    problem: &Problem,
    capacity: Option<Size>,
    options: &Options,
    budget: &Budget,
) -> Result<Report, PlanError> {
    #[cfg(feature = "shares")]
    if !problem.shares().is_empty() {
        return shares::run(problem, capacity, options, budget, Instant::now());
    }
    run_started(problem, capacity, options, budget, Instant::now())
}

fn run_started(
    problem: &Problem,
    capacity: Option<Size>,
    options: &Options,
    budget: &Budget,
    started: Instant,
) -> Result<Report, PlanError> {
    let max_load = max_load(problem);
    let fixed_top = fixed_top(problem);
    // The one bound every output reports (issue 27): computed here, once.
    let lower_bound = max_load.max(fixed_top);
    // The proven bound of the report: `lower_bound`, raised by the stages' proofs.
    let report = |outcome, planner, candidates, exact, proven: Size| Report {
        outcome: with_bound(outcome, proven),
        planner,
        max_load,
        lower_bound: proven,
        candidates,
        elapsed: started.elapsed(),
        exact,
        work: budget.work_spent(),
        stopped_by: budget.stop(),
        taken_shares: Vec::new(),
    };
    if let Some(cap) = capacity {
        if lower_bound > cap {
            let outcome = Outcome::Infeasible;
            return Ok(report(
                outcome,
                options.planner,
                Vec::new(),
                None,
                lower_bound,
            ));
        }
    }
    let threads = crate::workers::resolve(options.threads);
    if options.planner == Planner::Telamalloc {
        // One search, not a portfolio: it makes its own greedy plans.
        let outcome =
            crate::telamalloc::plan(problem, capacity, &options.telamalloc, budget, threads);
        if options.verify {
            if let Some(p) = outcome.plan() {
                verify(problem, p, capacity, Planner::Telamalloc)?;
            }
        }
        let candidates = vec![CandidateResult {
            planner: Planner::Telamalloc,
            height: outcome.plan().map(|p| p.height()),
        }];
        let proven = match &outcome {
            Outcome::Feasible { lower_bound: l, .. } | Outcome::Unknown { lower_bound: l, .. } => {
                (*l).max(lower_bound)
            }
            Outcome::Optimal(p) => p.height(),
            // A proof that nothing fits under the capacity bounds every plan above it.
            Outcome::Infeasible => capacity.map_or(lower_bound, |c| lower_bound.max(c + Size(1))),
        };
        return Ok(report(
            outcome,
            Planner::Telamalloc,
            candidates,
            None,
            proven,
        ));
    }
    let stage = Stage {
        problem,
        capacity,
        options,
        lower_bound,
        budget,
        threads,
    };
    let mut best = greedy_pass::run(&stage);
    bound::raise(&stage, &mut best, false);
    bound::prove(&stage, &mut best);
    refine::run(&stage, &mut best);
    bound::raise(&stage, &mut best, true);
    let planner = best.planner;
    let exact = best.exact;
    let proven = best.proven;
    let (outcome, candidates) = finish(problem, capacity, options, best)?;
    Ok(report(outcome, planner, candidates, exact, proven))
}

/// `outcome` with its bound raised to `lower_bound` (the report's proven bound), so that
/// a plan at that height is `Optimal` whichever planner made it.
fn with_bound(outcome: Outcome, lower_bound: Size) -> Outcome {
    match outcome {
        Outcome::Feasible { plan, .. } if plan.height() <= lower_bound => Outcome::Optimal(plan),
        Outcome::Feasible {
            plan,
            lower_bound: l,
        } => Outcome::Feasible {
            plan,
            lower_bound: l.max(lower_bound),
        },
        Outcome::Unknown {
            best_so_far,
            lower_bound: l,
        } => Outcome::Unknown {
            best_so_far,
            lower_bound: l.max(lower_bound),
        },
        o => o,
    }
}

/// The final check and the outcome of the incumbent.
fn finish(
    problem: &Problem,
    capacity: Option<Size>,
    options: &Options,
    best: Incumbent,
) -> Result<(Outcome, Vec<CandidateResult>), PlanError> {
    let plan =
        Plan::new(problem, best.offsets).expect("planners place every buffer without overflow");
    let fits = capacity.is_none_or(|c| best.height <= c);
    if options.verify {
        // A plan over the capacity is still checked for everything else.
        verify(problem, &plan, capacity.filter(|_| fits), best.planner)?;
    }
    let proven = best.proven;
    let outcome = if !fits && best.proved_infeasible {
        Outcome::Infeasible
    } else if !fits {
        Outcome::Unknown {
            best_so_far: Some(plan),
            lower_bound: proven,
        }
    } else if best.height <= proven {
        Outcome::Optimal(plan)
    } else {
        Outcome::Feasible {
            plan,
            lower_bound: proven,
        }
    };
    Ok((outcome, best.summary))
}

/// The independent checker on `plan`, as a [`PlanError::InvalidPlan`] naming `planner`.
fn verify(
    problem: &Problem,
    plan: &Plan,
    capacity: Option<Size>,
    planner: Planner,
) -> Result<(), PlanError> {
    check_offsets(problem, plan.offsets(), capacity).map_err(|f: CheckFailure| {
        PlanError::InvalidPlan {
            planner: planner.name(),
            detail: f.to_string(),
        }
    })?;
    Ok(())
}

fn height_of(problem: &Problem, offsets: &[Offset]) -> Size {
    Size(crate::analysis::height_of(problem, offsets))
}
