//! The default planner: run a portfolio of planners, keep the lowest plan.
//!
//! Candidates run on scoped worker threads (no global pool) that take tasks in portfolio
//! order. The winner is the lowest height, ties going to the earlier candidate, so the
//! result does not depend on the thread count. As soon as a candidate reaches the max
//! load its plan is optimal; every *later* candidate is told to stop, while earlier ones
//! finish, so that the earliest optimal candidate wins whatever the timing.
//!
//! A time limit or cancellation stops every candidate but the first, which is
//! O(n log n) and always completes, so there is always a plan to return.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::analysis::max_load;
use crate::boxing;
use crate::checker::{check_with_capacity, CheckFailure};
use crate::greedy::{self, Fit, Order};
use crate::types::{Offset, Plan, Problem, Size};
use crate::{CandidateResult, Options, Outcome, PlanError, Planner, Report};

/// The greedy candidates in portfolio (and tie-break) order.
pub(crate) fn greedy_portfolio() -> Vec<(Order, Fit)> {
    let mut v = Vec::new();
    for o in Order::ALL {
        for f in Fit::ALL {
            v.push((o, f));
        }
    }
    v
}

pub(crate) fn run(problem: &Problem, options: &Options) -> Result<Report, PlanError> {
    let started = Instant::now();
    let lower_bound = max_load(problem);
    let mut candidates: Vec<Planner> = match options.planner {
        Planner::Auto => greedy_portfolio()
            .into_iter()
            .map(|(o, f)| Planner::Greedy(o, f))
            .collect(),
        p => vec![p],
    };
    let report = |outcome, planner, results| Report {
        outcome,
        planner,
        max_load: lower_bound,
        candidates: results,
        elapsed: started.elapsed(),
    };

    if let Some(cap) = problem.capacity() {
        let fixed_top = problem
            .buffers()
            .iter()
            .filter_map(|b| b.fixed_offset.map(|o| o.0 + b.size.0))
            .max();
        if lower_bound > cap || fixed_top.is_some_and(|t| t > cap.0) {
            return Ok(report(Outcome::Infeasible, options.planner, Vec::new()));
        }
    }

    // ---- TelaMalloc (crate::search): one search, not a portfolio candidate. ----
    if options.planner == Planner::Telamalloc {
        let deadline = options.time_limit.map(|d| started + d);
        let outcome = crate::search::plan(problem, options, deadline);
        let height = outcome.plan().map(|p| p.height());
        if options.verify {
            if let Some(p) = outcome.plan() {
                check_with_capacity(problem, p.offsets(), problem.capacity()).map_err(
                    |f: CheckFailure| PlanError::InvalidPlan {
                        planner: Planner::Telamalloc.name(),
                        detail: f.to_string(),
                    },
                )?;
            }
        }
        let results = vec![CandidateResult {
            planner: Planner::Telamalloc,
            height,
        }];
        return Ok(report(outcome, Planner::Telamalloc, results));
    }
    // ---- end TelaMalloc ----

    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    };
    // One candidate gets every thread; a portfolio gives one thread to each candidate.
    let inner_threads = if candidates.len() == 1 { threads } else { 1 };
    let threads_all = threads;
    let threads = threads.min(candidates.len());
    let deadline = options.time_limit.map(|d| started + d);
    let optimal_at = AtomicUsize::new(usize::MAX);
    let next_task = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Vec<Offset>>>> = Mutex::new(vec![None; candidates.len()]);
    let worker = || loop {
        let k = next_task.fetch_add(1, Ordering::Relaxed);
        if k >= candidates.len() {
            break;
        }
        let abort = || {
            k > 0
                && (optimal_at.load(Ordering::Relaxed) < k
                    || deadline.is_some_and(|d| Instant::now() >= d)
                    || options.cancel.as_ref().is_some_and(|c| c.is_cancelled()))
        };
        if abort() {
            continue;
        }
        let offsets = match candidates[k] {
            Planner::Greedy(o, f) => greedy::run(problem, o, f, inner_threads, &abort),
            Planner::Naive => Some(greedy::naive(problem)),
            // Boxing keeps its own budget: its first iteration always completes.
            Planner::Boxing => {
                let budget = boxing::Budget {
                    deadline,
                    cancel: options.cancel.as_ref(),
                };
                Some(boxing::run(problem, &options.boxing, inner_threads, &budget, None).0)
            }
            Planner::Auto | Planner::Telamalloc => unreachable!("handled above"),
        };
        if let Some(offsets) = offsets {
            let height = height_of(problem, &offsets);
            if height <= lower_bound {
                optimal_at.fetch_min(k, Ordering::Relaxed);
            }
            results
                .lock()
                .expect("no worker panics while holding the lock")[k] = Some(offsets);
        }
    };
    if threads <= 1 {
        worker();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(worker);
            }
        });
    }

    let mut results = results.into_inner().expect("workers joined");

    // --- Boxing joins the portfolio -------------------------------------------------
    // When greedy leaves fragmentation, boxing iterates from the best greedy plan, within
    // the time limit; without one, it may take as long again as greedy took (at least 1 s).
    if options.planner == Planner::Auto && options.boxing.in_portfolio {
        let best_greedy = results
            .iter()
            .enumerate()
            .filter_map(|(k, r)| r.as_ref().map(|o| (height_of(problem, o), k)))
            .min();
        if let Some((_, k)) = best_greedy.filter(|&(h, _)| h > lower_bound) {
            let greedy_time = started.elapsed().max(std::time::Duration::from_secs(1));
            let budget = boxing::Budget {
                deadline: deadline.or(Some(Instant::now() + greedy_time)),
                cancel: options.cancel.as_ref(),
            };
            if budget.deadline.is_none_or(|d| Instant::now() < d) {
                let incumbent = results[k].clone();
                let (offsets, _) =
                    boxing::run(problem, &options.boxing, threads_all, &budget, incumbent);
                // Ties go to the earlier (greedy) candidate.
                candidates.push(Planner::Boxing);
                results.push(Some(offsets));
            }
        }
    }
    // ---------------------------------------------------------------------------------
    let mut best: Option<(usize, Size)> = None;
    let mut summary = Vec::with_capacity(candidates.len());
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
    let (k, height) = best.expect("the first candidate always completes");
    let offsets = results
        .into_iter()
        .nth(k)
        .flatten()
        .expect("best has offsets");
    let planner = candidates[k];
    let plan = Plan::new(problem, offsets).expect("planners place every buffer without overflow");
    let fits = problem.capacity().is_none_or(|c| height <= c);
    if options.verify {
        // A plan over the capacity is still checked for everything else.
        let capacity = if fits { problem.capacity() } else { None };
        check_with_capacity(problem, plan.offsets(), capacity).map_err(|f: CheckFailure| {
            PlanError::InvalidPlan {
                planner: planner.name(),
                detail: f.to_string(),
            }
        })?;
    }
    let outcome = if !fits {
        Outcome::Unknown {
            best_so_far: Some(plan),
            lower_bound,
        }
    } else if height <= lower_bound {
        Outcome::Optimal(plan)
    } else {
        Outcome::Feasible { plan, lower_bound }
    };
    Ok(report(outcome, planner, summary))
}

fn height_of(problem: &Problem, offsets: &[Offset]) -> Size {
    Size(
        problem
            .buffers()
            .iter()
            .zip(offsets)
            .map(|(b, o)| o.0 + b.size.0)
            .max()
            .unwrap_or(0),
    )
}
