//! Refinement, the driver's second stage: the exact search and boxing, from the greedy
//! pass's plan, while it is above the proven bound (or, in capacity mode, above the
//! capacity).
//!
//! Small problems try the exact search first (MiniMalloc's search proves optimality on
//! most ML traces in well under a second); large ones try boxing first (idealloc's
//! boxing algorithm), the main hope at that size. A step runs only while the incumbent is
//! unfinished and no proof of infeasibility stands. In capacity mode the default planner
//! races the exact search against TelaMalloc (`race.rs`); `--planner exact` runs the
//! exact search alone, on every thread.
//!
//! The default planner always refines, until its work limit (or time limit) is spent
//! or the exact search has finished. The greedy portfolio alone is [`Planner::GreedyPortfolio`].

use super::race::{race_capacity, RaceEnd};
use super::{height_of, Incumbent, Stage};
use crate::boxing;
use crate::budget::{work, Budget};
use crate::exact;
use crate::options::{Options, Planner};
use crate::outcome::Verdict;
use crate::report::CandidateResult;
use crate::types::Problem;

/// Up to this many buffers, `Auto` tries the exact search before boxing.
const EXACT_FIRST_MAX_BUFFERS: usize = 5_000;

/// Runs the refinement steps on `best`.
pub(super) fn run(stage: &Stage<'_>, best: &mut Incumbent) {
    let Stage {
        problem,
        capacity,
        options,
        budget,
        threads,
        ..
    } = *stage;
    let run_exact = matches!(options.planner, Planner::Exact | Planner::Auto);
    let run_boxing = options.planner == Planner::Auto && options.boxing.in_portfolio;
    let steps: [Planner; 2] = if problem.len() <= EXACT_FIRST_MAX_BUFFERS {
        [Planner::Exact, Planner::Boxing]
    } else {
        [Planner::Boxing, Planner::Exact]
    };
    for step in steps {
        let unfinished = match capacity {
            Some(c) => best.height > c,
            None => best.height > best.proven,
        };
        // A spent budget (deadline passed, or cancelled) starts no step.
        if !unfinished || best.proved_infeasible || budget.strict().exhausted() {
            break;
        }
        if budget.too_short_for_setup(problem.len()) {
            break;
        }
        if step == Planner::Exact && run_exact {
            exact_step(stage, best);
        }
        if step == Planner::Boxing && run_boxing {
            boxing_step(problem, options, budget, threads, best);
        }
    }
}

/// The exact search: in capacity mode a plan under the capacity or a proof that none
/// exists (racing TelaMalloc for the default planner); in minimise mode a lower plan and
/// a better bound (MiniMalloc's search, run anytime).
fn exact_step(stage: &Stage<'_>, best: &mut Incumbent) {
    let Stage {
        problem,
        capacity,
        options,
        budget,
        threads,
        ..
    } = *stage;
    // The search starts from the best proven bound (the prover's, when it ran).
    let lower_bound = best.proven;
    let Some(model) = exact::Model::new(problem, budget) else {
        return;
    };
    budget.charge(work::units(
        problem.len() as u64,
        work::SETUP_BUFFERS_PER_UNIT,
    ));
    let mut by = Planner::Exact;
    let found = match capacity {
        // `--planner exact`: the exact search alone, on every thread, so that it can be
        // compared with TelaMalloc.
        Some(c) if options.planner == Planner::Exact => {
            let (verdict, stats) = exact::solve_capacity(
                &model,
                problem,
                c,
                lower_bound,
                &options.exact,
                budget,
                threads,
            );
            best.exact = Some(stats);
            match verdict {
                Verdict::Found(o) => Some(o),
                Verdict::Infeasible => {
                    best.proved_infeasible = true;
                    None
                }
                // Stopped by its node limit (or the clock): what time is left lowers the
                // best plan over the capacity, still stopping at one that fits.
                Verdict::Stopped(_) => {
                    let m = exact::minimise_until(
                        &model,
                        problem,
                        best.offsets.clone(),
                        lower_bound,
                        &options.exact,
                        budget,
                        threads,
                        Some(c),
                    );
                    best.exact.get_or_insert_with(Default::default).add(m.stats);
                    best.proven = best.proven.max(m.lower_bound);
                    if m.lower_bound > c {
                        best.proved_infeasible = true;
                    }
                    m.improved.then_some(m.offsets)
                }
            }
        }
        // The default planner: the exact search races TelaMalloc.
        Some(c) => {
            let RaceEnd {
                verdict,
                lowest,
                stats,
            } = race_capacity(
                problem,
                &model,
                &best.offsets,
                c,
                lower_bound,
                options,
                budget,
                threads,
            );
            best.exact = Some(stats);
            match verdict {
                Verdict::Found((o, racer)) => {
                    by = racer;
                    Some(o)
                }
                Verdict::Infeasible => {
                    best.proved_infeasible = true;
                    None
                }
                // No plan under the capacity: the lowest over it, when lower.
                Verdict::Stopped(_) => lowest.map(|(o, racer)| {
                    by = racer;
                    o
                }),
            }
        }
        None => {
            let m = exact::minimise(
                &model,
                problem,
                best.offsets.clone(),
                lower_bound,
                &options.exact,
                budget,
                threads,
            );
            best.exact = Some(m.stats);
            best.proven = best.proven.max(m.lower_bound);
            m.improved.then_some(m.offsets)
        }
    };
    if let Some(o) = found {
        let h = height_of(problem, &o);
        best.summary.push(CandidateResult {
            planner: by,
            height: Some(h),
        });
        let newly_fits = capacity.is_some_and(|c| h <= c && best.height > c);
        if h < best.height || newly_fits {
            (best.offsets, best.height, best.planner) = (o, h, by);
        }
    }
}

/// Boxing from the incumbent, which it polishes and tries to beat.
fn boxing_step(
    problem: &Problem,
    options: &Options,
    budget: &Budget,
    threads: usize,
    best: &mut Incumbent,
) {
    // It starts from the greedy pass's plan: no first plan to let finish.
    let budget = budget.strict();
    if budget.exhausted() {
        return;
    }
    let incumbent = Some(best.offsets.clone());
    let (o, _) = boxing::run(problem, &options.boxing, threads, &budget, incumbent);
    let h = height_of(problem, &o);
    best.summary.push(CandidateResult {
        planner: Planner::Boxing,
        height: Some(h),
    });
    // Ties go to the earlier plan.
    if h < best.height {
        (best.offsets, best.height, best.planner) = (o, h, Planner::Boxing);
    }
}
