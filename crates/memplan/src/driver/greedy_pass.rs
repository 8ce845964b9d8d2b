//! The greedy pass, the driver's first stage: every greedy planner (for the default and
//! the exact planner) or the one planner asked for, keeping the lowest plan.
//!
//! Several planners run on scoped worker threads that take them in portfolio order. The
//! winner is the lowest height, ties going to the earlier planner, so the result does not
//! depend on the thread count. As soon as a plan is good enough (at the max load, so
//! optimal; in capacity mode, under the capacity) every *later* planner is told to stop
//! and does not count, while earlier ones finish, so that the winner is the lowest plan up
//! to the first good-enough one, whatever the timing ([`crate::greedy::all_of`]). In
//! capacity mode a plan that fits is the answer: the later planners could only lower a
//! height that already fits, at up to a second each on 30k buffers.
//!
//! The budget stops every planner, the first included, so that the limit holds even when
//! one greedy pass is longer than it (a second or more on 30k buffers with 40M
//! overlapping pairs); when the budget lets the first plan finish, the first planner is
//! exempt from the deadline. The first is start-best-fit, a sweep in start order that
//! costs O(n log n) when no buffer is fixed or gapped (the free address ranges of
//! `greedy::free_ranges`), so a short budget still ends with a real plan. When no planner finished, the plan is the naive one (every
//! buffer at its own addresses, O(n)): valid, rarely good.

use super::{height_of, Incumbent, Stage};
use crate::boxing;
use crate::budget::{work, Budget};
use crate::greedy::{self, Fit, Order};
use crate::options::{Options, Planner};
use crate::report::CandidateResult;
use crate::types::{Offset, Problem, Size};

/// Runs the pass and returns its best plan as the incumbent.
pub(super) fn run(stage: &Stage<'_>) -> Incumbent {
    let Stage {
        problem,
        capacity,
        options,
        lower_bound,
        budget,
        threads,
    } = *stage;
    let candidates: Vec<Planner> = match options.planner {
        Planner::Auto | Planner::GreedyPortfolio | Planner::Exact => {
            // Start-best-fit first, in both modes: a sweep, O(n log n) when no buffer is
            // fixed or gapped, so that the first plan (the one a budget lets finish) is
            // cheap even on dense traces; then breadth-best-fit and the others in the
            // order of `greedy::portfolio` (likeliest at the max load on dense traces
            // first). Capacity mode stops at the first plan that fits, minimise
            // mode at the first at the max load.
            greedy::portfolio()
                .into_iter()
                .map(|(o, f)| Planner::Greedy(o, f))
                .collect()
        }
        p => vec![p],
    };
    let results = if candidates.len() > 1 {
        // The first plan that is good enough: optimal (at the max load) or, in capacity
        // mode, under the capacity. Later planners stop; earlier ones finish.
        let good_enough = capacity.map_or(lower_bound, |c| c.max(lower_bound));
        portfolio(problem, &candidates, good_enough, budget, threads)
    } else {
        vec![alone(problem, options, candidates[0], budget, threads)]
    };
    best_of(problem, &candidates, results, lower_bound)
}

/// Several greedy planners, one thread each: [`greedy::all_of`].
fn portfolio(
    problem: &Problem,
    candidates: &[Planner],
    good_enough: Size,
    budget: &Budget,
    threads: usize,
) -> Vec<Option<Vec<Offset>>> {
    let planners: Vec<(Order, Fit)> = candidates
        .iter()
        .map(|c| match c {
            Planner::Greedy(o, f) => (*o, *f),
            _ => unreachable!("a portfolio holds greedy planners only"),
        })
        .collect();
    let threads = threads.min(candidates.len());
    greedy::all_of(problem, &planners, threads, 1, good_enough, budget)
}

/// One planner, on every thread, as the run's first plan ([`Budget::first_plan`]).
fn alone(
    problem: &Problem,
    options: &Options,
    planner: Planner,
    budget: &Budget,
    threads: usize,
) -> Option<Vec<Offset>> {
    let first = budget.first_plan();
    if first.exhausted() {
        return None;
    }
    match planner {
        Planner::Greedy(o, f) => {
            let plan = greedy::run(problem, o, f, threads, &first);
            budget.charge(work::units(
                problem.len() as u64,
                work::GREEDY_BUFFERS_PER_UNIT,
            ));
            plan
        }
        Planner::Naive => Some(greedy::naive(problem)),
        // Boxing makes its own first plan (its plan to beat) on the budget.
        Planner::Boxing => Some(boxing::run(problem, &options.boxing, threads, budget, None).0),
        Planner::Auto | Planner::GreedyPortfolio | Planner::Exact | Planner::Telamalloc => {
            unreachable!("not a single planner of the greedy pass")
        }
    }
}

/// The lowest plan of `results` (ties to the earlier candidate), or the naive plan when
/// none finished, with every candidate's height in the summary.
fn best_of(
    problem: &Problem,
    candidates: &[Planner],
    results: Vec<Option<Vec<Offset>>>,
    lower_bound: Size,
) -> Incumbent {
    let mut best: Option<(usize, Size)> = None;
    let mut summary = Vec::with_capacity(candidates.len() + 2);
    for (k, r) in results.iter().enumerate() {
        let height = r.as_ref().map(|o| height_of(problem, o));
        if let Some(h) = height {
            if best.is_none_or(|(_, bh)| h < bh) {
                best = Some((k, h));
            }
        }
        summary.push(CandidateResult {
            planner: candidates[k],
            height,
        });
    }
    let (offsets, height, planner) = match best {
        Some((k, h)) => (
            results
                .into_iter()
                .nth(k)
                .flatten()
                .expect("best has offsets"),
            h,
            candidates[k],
        ),
        // Nothing finished within the budget: the naive plan, which costs O(n).
        None => {
            let naive = greedy::naive(problem);
            let h = height_of(problem, &naive);
            summary.push(CandidateResult {
                planner: Planner::Naive,
                height: Some(h),
            });
            (naive, h, Planner::Naive)
        }
    };
    Incumbent {
        offsets,
        height,
        planner,
        summary,
        proven: lower_bound,
        exact: None,
        proved_infeasible: false,
    }
}
