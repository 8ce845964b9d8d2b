//! The default planner: run a portfolio of planners, keep the lowest plan.
//!
//! Candidates run on scoped worker threads (no global pool) that take tasks in portfolio
//! order. The winner is the lowest height, ties going to the earlier candidate, so the
//! result does not depend on the thread count. As soon as a candidate's plan is good
//! enough (at the max load, so optimal; in capacity mode, under the capacity) every
//! *later* candidate is told to stop and does not count, while earlier ones finish, so
//! that the winner is the lowest plan up to the first good-enough one, whatever the
//! timing. In capacity mode a plan that fits is the answer: the later candidates could
//! only lower a height that already fits, at up to a second each on 30k buffers.
//!
//! A time limit or cancellation stops every candidate, the first included, so that the
//! limit holds even when one greedy pass is longer than it (a second or more on 30k
//! buffers with 40M overlapping pairs). When no candidate finished, the plan returned is
//! the naive one (every buffer at its own addresses, O(n)): valid, rarely good. With
//! [`Options::finish_first_plan`] the first candidate is exempt from the time limit
//! (not from cancellation).

use std::time::{Duration, Instant};

use crate::analysis::max_load;
use crate::boxing;
use crate::budget::Budget;
use crate::checker::{check_with_capacity, CheckFailure};
use crate::exact;
use crate::greedy::{self, Fit, Order};
use crate::types::{Offset, Plan, Problem, Size};
use crate::{CandidateResult, Options, Outcome, PlanError, Planner, Report};

/// Time the final check of a plan takes per buffer on the reference machine (2 cores,
/// release build): about 0.47 µs on 100,000 buffers, measured with `--no-check`. Rounded
/// up, because larger inputs miss the cache more.
const CHECK_TIME_PER_BUFFER: Duration = Duration::from_nanos(600);

/// When the planners must stop so that `plan()` as a whole, final check included, ends
/// within `options.time_limit`: the limit less an estimate of the check's time (at most
/// half the limit), when the check is on.
fn planning_deadline(problem: &Problem, options: &Options, started: Instant) -> Option<Instant> {
    let limit = options.time_limit?;
    let reserve = if options.verify {
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
    };
    // A limit too far ahead to be an `Instant` is no limit.
    started.checked_add(limit - reserve)
}

/// Up to this many buffers, `Auto` tries the exact search before boxing.
const EXACT_FIRST_MAX_BUFFERS: usize = 5_000;

pub(crate) fn run(problem: &Problem, options: &Options) -> Result<Report, PlanError> {
    let started = Instant::now();
    let lower_bound = max_load(problem);
    let candidates: Vec<Planner> = match options.planner {
        Planner::Auto | Planner::Exact => {
            // Capacity mode stops at the first plan that fits.
            let order = if problem.capacity().is_some() {
                greedy::planners_for_capacity()
            } else {
                greedy::planners()
            };
            order
                .into_iter()
                .map(|(o, f)| Planner::Greedy(o, f))
                .collect()
        }
        p => vec![p],
    };
    let report = |outcome, planner, results, exact| Report {
        outcome,
        planner,
        max_load: lower_bound,
        candidates: results,
        elapsed: started.elapsed(),
        exact,
    };

    if let Some(cap) = problem.capacity() {
        let fixed_top = problem
            .buffers()
            .iter()
            .filter_map(|b| b.fixed_offset.map(|o| o.0 + b.size.0))
            .max();
        if lower_bound > cap || fixed_top.is_some_and(|t| t > cap.0) {
            return Ok(report(
                Outcome::Infeasible,
                options.planner,
                Vec::new(),
                None,
            ));
        }
    }

    // ---- TelaMalloc (crate::search): one search, not a portfolio candidate. ----
    let budget = Budget::new(
        planning_deadline(problem, options, started),
        options.cancel.as_ref(),
        options.finish_first_plan,
    );
    if options.planner == Planner::Telamalloc {
        let threads = crate::workers::resolve(options.threads);
        let outcome = crate::search::plan(problem, &options.telamalloc, &budget, threads);
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
        return Ok(report(outcome, Planner::Telamalloc, results, None));
    }
    // ---- end TelaMalloc ----

    let threads = crate::workers::resolve(options.threads);
    let all_threads = threads;
    // One candidate gets every thread; a portfolio gives one thread to each candidate.
    let inner_threads = if candidates.len() == 1 { threads } else { 1 };
    let threads = threads.min(candidates.len());
    // The first candidate whose plan is good enough: optimal (at the max load) or, in
    // capacity mode, under the capacity. Later candidates stop; earlier ones finish.
    let good_enough = problem
        .capacity()
        .map_or(lower_bound, |c| c.max(lower_bound));
    let results: Vec<Option<Vec<Offset>>> = if candidates.len() > 1 {
        let planners: Vec<(Order, Fit)> = candidates
            .iter()
            .map(|c| match c {
                Planner::Greedy(o, f) => (*o, *f),
                _ => unreachable!("a portfolio holds greedy planners only"),
            })
            .collect();
        greedy::all_of(
            problem,
            &planners,
            threads,
            inner_threads,
            good_enough.0,
            &budget,
        )
    } else {
        let first = budget.first_plan();
        let offsets = if first.exhausted() {
            None
        } else {
            match candidates[0] {
                Planner::Greedy(o, f) => greedy::run(problem, o, f, inner_threads, &first),
                Planner::Naive => Some(greedy::naive(problem)),
                Planner::Boxing => {
                    Some(boxing::run(problem, &options.boxing, inner_threads, &budget, None).0)
                }
                Planner::Auto | Planner::Exact | Planner::Telamalloc => {
                    unreachable!("handled above")
                }
            }
        };
        vec![offsets]
    };
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
    // Nothing finished within the budget: the naive plan, which costs O(n).
    let (mut offsets, mut height, mut planner) = match best {
        Some((k, h)) => (
            results
                .into_iter()
                .nth(k)
                .flatten()
                .expect("best has offsets"),
            h,
            candidates[k],
        ),
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

    // ---- Improvers after greedy: the exact search and boxing. ----
    // Each runs only while the plan is above the lower bound (or the capacity). Small
    // problems try the exact search first (it proves optimality on most ML traces in well
    // under a second); large ones try boxing first, the main hope at that size.
    let mut proven = lower_bound;
    let mut exact_stats = None;
    let mut proved_infeasible = false;
    let run_exact = match options.planner {
        Planner::Exact => true,
        // `Auto` runs the improvers only with a budget (a cancel handle alone is not one),
        // so that a plain library call stays fast and its result depends on nothing but
        // the input and the options.
        Planner::Auto => options.time_limit.is_some() || options.exact.node_limit.is_some(),
        _ => false,
    };
    let run_boxing = options.planner == Planner::Auto
        && options.boxing.in_portfolio
        && options.time_limit.is_some();
    let steps: [Planner; 2] = if problem.len() <= EXACT_FIRST_MAX_BUFFERS {
        [Planner::Exact, Planner::Boxing]
    } else {
        [Planner::Boxing, Planner::Exact]
    };
    for step in steps {
        let unfinished = match problem.capacity() {
            Some(c) => height > c,
            None => height > proven,
        };
        if !unfinished || proved_infeasible {
            break;
        }
        if step == Planner::Exact && run_exact {
            let Some(model) = exact::Model::new(problem, &budget) else {
                continue;
            };
            let raw: Vec<u64> = offsets.iter().map(|o| o.0).collect();
            let mut by = Planner::Exact;
            let found = match problem.capacity() {
                // `--planner exact`: the exact search alone, on every thread, so that it
                // can be compared with TelaMalloc.
                Some(c) if options.planner == Planner::Exact => {
                    let (verdict, stats) = exact::solve_capacity(
                        &model,
                        problem,
                        c.0,
                        lower_bound.0,
                        &options.exact,
                        &budget,
                        all_threads,
                    );
                    exact_stats = Some(stats);
                    match verdict {
                        exact::Verdict::Feasible(o) => Some(o),
                        exact::Verdict::Infeasible => {
                            proved_infeasible = true;
                            None
                        }
                        exact::Verdict::Unknown => None,
                    }
                }
                // Capacity mode of the default planner: the exact search races
                // TelaMalloc (search/race.rs).
                Some(c) => {
                    use crate::search::race::{race_capacity, RaceAnswer};
                    let (answer, stats) = race_capacity(
                        problem,
                        &model,
                        c.0,
                        lower_bound.0,
                        options,
                        &budget,
                        all_threads,
                    );
                    exact_stats = Some(stats);
                    match answer {
                        RaceAnswer::Plan(o, from_exact) => {
                            if !from_exact {
                                by = Planner::Telamalloc;
                            }
                            Some(o)
                        }
                        RaceAnswer::Infeasible => {
                            proved_infeasible = true;
                            None
                        }
                        RaceAnswer::Unknown => None,
                    }
                }
                None => {
                    let m = exact::minimise(
                        &model,
                        problem,
                        raw,
                        lower_bound.0,
                        &options.exact,
                        &budget,
                        all_threads,
                    );
                    exact_stats = Some(m.stats);
                    proven = proven.max(Size(m.lower_bound));
                    m.improved.then_some(m.offsets)
                }
            };
            if let Some(o) = found {
                let o: Vec<Offset> = o.into_iter().map(Offset).collect();
                let h = height_of(problem, &o);
                summary.push(CandidateResult {
                    planner: by,
                    height: Some(h),
                });
                if h < height || problem.capacity().is_some_and(|c| h <= c && height > c) {
                    (offsets, height, planner) = (o, h, by);
                }
            }
        }
        if step == Planner::Boxing && run_boxing {
            // It starts from the portfolio's plan.
            let budget = budget.strict();
            if budget.deadline().is_some_and(|d| Instant::now() >= d) {
                continue;
            }
            let (o, _) = boxing::run(
                problem,
                &options.boxing,
                all_threads,
                &budget,
                Some(offsets.clone()),
            );
            let h = height_of(problem, &o);
            summary.push(CandidateResult {
                planner: Planner::Boxing,
                height: Some(h),
            });
            // Ties go to the earlier plan.
            if h < height {
                (offsets, height, planner) = (o, h, Planner::Boxing);
            }
        }
    }
    // ---- end of the improvers ----

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
    let outcome = if !fits && proved_infeasible {
        Outcome::Infeasible
    } else if !fits {
        Outcome::Unknown {
            best_so_far: Some(plan),
            lower_bound: proven,
        }
    } else if height <= proven {
        Outcome::Optimal(plan)
    } else {
        Outcome::Feasible {
            plan,
            lower_bound: proven,
        }
    };
    Ok(report(outcome, planner, summary, exact_stats))
}

fn height_of(problem: &Problem, offsets: &[Offset]) -> Size {
    Size(crate::analysis::height_of(problem, offsets))
}
