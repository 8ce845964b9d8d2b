//! The capacity race, a step of the driver's refinement in capacity mode of the default
//! planner, once the greedy pass found no plan under the capacity.
//!
//! ```text
//!   head start   capacity search, every thread, a third of the time left (≤ 1 s;
//!                a half on one thread)
//!                  └─ answered (plan / proof) ──> done
//!   then, < 3 threads:  anytime minimisation, every thread ──> plan / proof / lower plan
//!         ≥ 3 threads:  race:  minimisation (threads − 1) ──┐ first answer wins; the
//!                              TelaMalloc   (1 thread)    ──┘ other is cancelled
//! ```
//!
//! The head start answers most capacity problems (the challenging suite at 1,048,576).
//! After it, the exact side is the anytime minimisation (`exact::minimise_until`) from
//! the incumbent: it stops at the first plan under the capacity or a proof that none
//! exists, and meanwhile lowers the best plan over it, so that a run that finds no plan
//! under the capacity returns the lowest plan it could. TelaMalloc races it only when a
//! thread can be spared without halving it ([`RACE_MIN_THREADS`]). A plan from either
//! racer is a plan; `Infeasible` from either is a proof (the exact search is complete;
//! TelaMalloc answers `Infeasible` only from the max load, the fixed buffers, or a
//! complete configuration that ran out of candidates). Which racer answers first can
//! depend on timing, as can any run cut by a time limit. Without a time limit (the exact
//! search bounded by the work limit or its node limit) there is no race: the capacity
//! search on a third of the work left, then the minimisation on the rest, so that the
//! result depends on the input and the options alone.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::budget::Budget;
use crate::exact;
use crate::options::{Options, Planner};
use crate::outcome::{Halt, Outcome, Verdict};
use crate::types::{Offset, Problem, Size};

/// The longest head start of the capacity search alone, before the minimisation (and
/// TelaMalloc, when it races) take over.
const HEAD_START: Duration = Duration::from_secs(1);

/// The share of the work left that the capacity search takes before the minimisation,
/// without a time limit.
const HEAD_START_WORK_SHARE: f64 = 1.0 / 3.0;

/// TelaMalloc races the exact search only when the call has this many threads: one for
/// it and at least two for the exact search. With fewer, the exact search keeps every
/// thread (measured in BENCHMARKS.md §8, "The capacity race": on two threads the race
/// answered no capacity problem sooner, and halved the minimisation that lowers the
/// best plan over the capacity).
const RACE_MIN_THREADS: usize = 3;

/// A plan (offsets in problem order) and who found it ([`Planner::Exact`] or
/// [`Planner::Telamalloc`]).
pub(crate) type Racer = (Vec<Offset>, Planner);

/// How the race ended, in the crate's one word for how a search ended: `Found`, a plan
/// under the capacity; `Infeasible`, proved by either racer; `Stopped`, neither answered,
/// with `lowest` the lowest plan over the capacity either found (lower than the incumbent
/// the race started from). `lowest` is `None` beside `Found` and `Infeasible`.
pub(crate) struct RaceEnd {
    pub(crate) verdict: Verdict<Racer>,
    pub(crate) lowest: Option<Racer>,
    pub(crate) stats: exact::ExactStats,
}

impl RaceEnd {
    fn answered(verdict: Verdict<Racer>, stats: exact::ExactStats) -> RaceEnd {
        RaceEnd {
            verdict,
            lowest: None,
            stats,
        }
    }

    /// The end of a side that answered (`Ok`) or stopped with the lowest plan it found
    /// over the capacity (`Err`), stopped by the budget or else by the node limit.
    fn of(
        answer: Result<Verdict<Racer>, Option<Racer>>,
        stats: exact::ExactStats,
        budget: &Budget,
    ) -> RaceEnd {
        match answer {
            Ok(v) => RaceEnd::answered(v, stats),
            Err(lowest) => RaceEnd {
                verdict: Verdict::Stopped(if budget.exhausted() {
                    Halt::Budget
                } else {
                    Halt::Limit
                }),
                lowest,
                stats,
            },
        }
    }
}

/// Runs the race under `capacity`, from the incumbent `start` (over the capacity).
/// `threads` is the thread budget of the call; the exact search gets all but one of them
/// when TelaMalloc races.
#[allow(clippy::too_many_arguments)]
pub(crate) fn race_capacity(
    problem: &Problem,
    model: &exact::Model,
    start: &[Offset],
    capacity: Size,
    lower_bound: Size,
    options: &Options,
    budget: &Budget,
    threads: usize,
) -> RaceEnd {
    let start_height = problem.height_of(start);
    // The anytime exact search from `from` (a plan and a proven bound): a plan under the
    // capacity, a proof, or a lower plan over it, which the next run starts from.
    let minimise_run = |from: &exact::Minimised, budget: &Budget, threads: usize| {
        let m = exact::minimise_until(
            model,
            problem,
            from.offsets.clone(),
            from.lower_bound,
            &options.exact,
            budget,
            threads,
            Some(capacity),
        );
        let answer = if m.height <= capacity {
            Ok(Verdict::Found((m.offsets.clone(), Planner::Exact)))
        } else if m.lower_bound > capacity {
            Ok(Verdict::Infeasible)
        } else {
            Err(m.improved.then(|| (m.offsets.clone(), Planner::Exact)))
        };
        (answer, m)
    };
    let from_start = exact::Minimised::start(problem, start.to_vec(), lower_bound);
    let exact_run = |budget: &Budget, threads: usize| {
        exact::solve_capacity(
            model,
            problem,
            capacity,
            lower_bound,
            &options.exact,
            budget,
            threads,
        )
    };
    let tela_run = |budget: &Budget| {
        crate::telamalloc::solve_capacity(
            problem,
            capacity,
            &options.telamalloc,
            &budget.strict(),
            1,
        )
    };
    // TelaMalloc's answer, or its best plan over the capacity when lower than `start`.
    let tela_answer = |o: Outcome| match o {
        Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => {
            Ok(Verdict::Found((p.into_offsets(), Planner::Telamalloc)))
        }
        Outcome::Infeasible => Ok(Verdict::Infeasible),
        Outcome::Unknown { best_so_far, .. } => Err(best_so_far
            .filter(|p| p.height() < start_height)
            .map(|p| (p.into_offsets(), Planner::Telamalloc))),
    };
    let exact_answer = |v: Verdict<Vec<Offset>>| match v {
        Verdict::Found(o) => Some(Verdict::Found((o, Planner::Exact))),
        Verdict::Infeasible => Some(Verdict::Infeasible),
        Verdict::Stopped(_) => None,
    };

    let Some(deadline) = budget.deadline() else {
        // No time limit (a work limit, or only the node limit, bounds the run): which
        // racer answers first would depend on timing, so the exact search runs alone,
        // the capacity search first on a third of the work left (as the head start below
        // has a third of the time), then the minimisation on the rest.
        let (verdict, mut stats) = exact_run(&budget.share_work(HEAD_START_WORK_SHARE), threads);
        if let Some(v) = exact_answer(verdict) {
            return RaceEnd::answered(v, stats);
        }
        let (answer, m) = minimise_run(&from_start, budget, threads);
        stats.add(m.stats);
        return RaceEnd::of(answer, stats, budget);
    };

    // A head start: the capacity search alone, on every thread, for a third of the time
    // left (a half on one thread; at most HEAD_START). It answers most capacity problems
    // in that time (the challenging suite at 1,048,576), and leaves the rest to the
    // minimisation, which needs it to lower the best plan when nothing fits.
    let now = Instant::now();
    let left = deadline.saturating_duration_since(now);
    let share = if threads > 1 { 3 } else { 2 };
    let head = now + (left / share).min(HEAD_START);
    let (verdict, mut exact_stats) = exact_run(&budget.until(head), threads);
    if let Some(v) = exact_answer(verdict) {
        return RaceEnd::answered(v, exact_stats);
    }
    if budget.strict().exhausted() {
        return RaceEnd::of(Err(None), exact_stats, budget);
    }
    if threads < RACE_MIN_THREADS {
        // No thread to spare for TelaMalloc: the anytime minimisation on every thread,
        // which still stops at a plan under the capacity or a proof, and otherwise
        // lowers the best plan over it as far as a minimise run would.
        let (answer, m) = minimise_run(&from_start, budget, threads);
        exact_stats.add(m.stats);
        return RaceEnd::of(answer, exact_stats, budget);
    }

    // The race. Both racers hold a child of the call's budget: the first answer cancels
    // it, and the user's cancel handle reaches it through its parent. Each racer's best
    // plan over the capacity is kept too, for when neither answers.
    let race = budget.child();
    let first: Mutex<Option<Verdict<Racer>>> = Mutex::new(None);
    let answer = |a: Verdict<Racer>| {
        let mut slot = first.lock().expect("no panic while locked");
        if slot.is_none() {
            *slot = Some(a);
        }
        race.cancel();
    };
    let mut tela_best = None;
    let mut exact_best = None;
    std::thread::scope(|s| {
        let tela = s.spawn(|| match tela_answer(tela_run(&race)) {
            Ok(a) => {
                answer(a);
                None
            }
            Err(best) => best,
        });
        let (a, m) = minimise_run(&from_start, &race, threads - 1);
        exact_stats.add(m.stats);
        // Stopped without an answer (deadline, node limit, the user, or TelaMalloc
        // answered first): TelaMalloc goes on until it answers or stops too.
        match a {
            Ok(a) => answer(a),
            Err(best) => exact_best = best,
        }
        tela_best = tela.join().expect("TelaMalloc does not panic");
    });
    match first.into_inner().expect("joined") {
        Some(v) => RaceEnd::answered(v, exact_stats),
        None => {
            // The lower of the two, ties to the exact search's.
            let height = |b: &Option<Racer>| {
                b.as_ref()
                    .map_or(Size(u64::MAX), |(o, _)| problem.height_of(o))
            };
            let lowest = if height(&tela_best) < height(&exact_best) {
                tela_best
            } else {
                exact_best
            };
            RaceEnd::of(Err(lowest), exact_stats, budget)
        }
    }
}
