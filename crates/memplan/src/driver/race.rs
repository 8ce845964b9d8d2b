//! The capacity race, a step of the driver's refinement in capacity mode of the default
//! planner: the exact search (MiniMalloc's) and TelaMalloc's search race for a plan under
//! the capacity.
//!
//! ```text
//!   thread 1:  exact search ----------------------> plan / proof  --+
//!   thread 2:  TelaMalloc   ------------> plan --+                  |
//!                                                 first answer wins; the other is
//!                                                 cancelled through its budget
//! ```
//!
//! A plan from either is a plan; `Infeasible` from either is a proof (the exact search is
//! complete; TelaMalloc answers `Infeasible` only from the max load, the fixed buffers,
//! or a complete configuration that ran out of candidates). Which racer answers first can
//! depend on timing, so with two threads the plan may differ from run to run, as it may
//! under a time limit. With one thread they run in turn: the exact search first with half
//! of the remaining time, then TelaMalloc with the rest; that order depends on nothing
//! but the input, the options and the time limit. With more threads, the exact search
//! first runs alone on all of them for half the time left (at most a second), and the
//! race starts only if it has not answered by then; in the race the exact side is the
//! anytime minimisation (`exact::minimise_until`) from the incumbent, which stops at the
//! first plan under the capacity or a proof that none exists, and meanwhile lowers the
//! best plan over it, so that a run that finds no plan under the capacity still returns
//! the lowest plan it could (issue 27). Without a time limit (the exact search bounded by
//! its node limit alone) there is no race: the exact search runs alone, then, when its
//! node limit stopped it, the minimisation within the same node limit.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::budget::Budget;
use crate::exact;
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::types::{Offset, Problem, Size};

/// The longest head start of the exact search alone before TelaMalloc joins the race.
const HEAD_START: Duration = Duration::from_secs(1);

/// Who answered the race, and how.
pub(crate) enum RaceAnswer {
    /// A plan under the capacity (offsets in problem order), and who found it
    /// ([`Planner::Exact`] or [`Planner::Telamalloc`]).
    Plan(Vec<Offset>, Planner),
    /// No plan exists (proved by either racer).
    Infeasible,
    /// Neither answered in time: the lowest plan over the capacity either found, lower
    /// than the incumbent the race started from, and who found it.
    Unknown(Option<(Vec<Offset>, Planner)>),
}

/// Runs the race under `capacity`, from the incumbent `start` (over the capacity).
/// `threads` is the thread budget of the call; the exact search gets all but one of them
/// when they race.
#[allow(clippy::too_many_arguments)]
pub(crate) fn race_capacity(
    problem: &Problem,
    model: &exact::Model,
    start: &[Offset],
    capacity: u64,
    lower_bound: u64,
    options: &Options,
    budget: &Budget,
    threads: usize,
) -> (RaceAnswer, exact::ExactStats) {
    let start_height = crate::analysis::height_of(problem, start);
    // The anytime exact search: a plan under the capacity, a proof, or a lower plan.
    let minimise_run = |budget: &Budget, threads: usize| {
        let m = exact::minimise_until(
            model,
            problem,
            start.to_vec(),
            lower_bound,
            &options.exact,
            budget,
            threads,
            Some(capacity),
        );
        let answer = if m.height <= capacity {
            RaceAnswer::Plan(m.offsets, Planner::Exact)
        } else if m.lower_bound > capacity {
            RaceAnswer::Infeasible
        } else {
            RaceAnswer::Unknown(m.improved.then_some((m.offsets, Planner::Exact)))
        };
        (answer, m.stats)
    };
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
            Size(capacity),
            &options.telamalloc,
            &budget.strict(),
            1,
        )
    };
    // TelaMalloc's answer, or its best plan over the capacity when lower than `start`.
    let tela_answer = |o: Outcome| match o {
        Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => {
            Ok(RaceAnswer::Plan(p.into_offsets(), Planner::Telamalloc))
        }
        Outcome::Infeasible => Ok(RaceAnswer::Infeasible),
        Outcome::Unknown { best_so_far, .. } => Err(best_so_far
            .filter(|p| p.height().0 < start_height)
            .map(|p| (p.into_offsets(), Planner::Telamalloc))),
    };
    let exact_answer = |v: exact::Verdict| match v {
        exact::Verdict::Feasible(o) => Some(RaceAnswer::Plan(o, Planner::Exact)),
        exact::Verdict::Infeasible => Some(RaceAnswer::Infeasible),
        exact::Verdict::Unknown => None,
    };

    let Some(deadline) = budget.deadline() else {
        // No time limit (only the exact search's node limit bounds the run): TelaMalloc,
        // an anytime search, would run to its own step limit, so the exact search runs
        // alone, as it did before the race.
        let (verdict, mut stats) = exact_run(budget, threads);
        if let Some(a) = exact_answer(verdict) {
            return (a, stats);
        }
        let (answer, more) = minimise_run(budget, threads);
        stats.add(more);
        return (answer, stats);
    };
    if threads <= 1 {
        // In turn: the exact search with half of the remaining time, then TelaMalloc.
        let now = Instant::now();
        let half = now + deadline.saturating_duration_since(now) / 2;
        let (verdict, stats) = exact_run(&budget.until(half), 1);
        if let Some(a) = exact_answer(verdict) {
            return (a, stats);
        }
        return (
            tela_answer(tela_run(budget)).unwrap_or_else(RaceAnswer::Unknown),
            stats,
        );
    }

    // A head start: the exact search alone, on every thread, for half the time left (at
    // most HEAD_START). It answers most capacity problems in that time (the challenging
    // suite at 1,048,576: under 0.5 s on two threads), where racing TelaMalloc from the
    // start would take a core from it (3-5x slower in total); TelaMalloc joins only when
    // it has not answered, and still wins where the exact search stalls.
    let now = Instant::now();
    let head = now + deadline.saturating_duration_since(now).min(HEAD_START * 2) / 2;
    let (verdict, head_stats) = exact_run(&budget.until(head), threads);
    if let Some(a) = exact_answer(verdict) {
        return (a, head_stats);
    }
    if budget.strict().exhausted() {
        return (RaceAnswer::Unknown(None), head_stats);
    }

    // Both racers hold a child of the call's budget: the first answer cancels it, and
    // the user's cancel handle reaches it through its parent. Each racer's best plan over
    // the capacity is kept too, for when neither answers.
    let race = budget.child();
    let first: Mutex<Option<RaceAnswer>> = Mutex::new(None);
    let answer = |a: RaceAnswer| {
        let mut slot = first.lock().expect("no panic while locked");
        if slot.is_none() {
            *slot = Some(a);
        }
        race.cancel();
    };
    let mut exact_stats = head_stats;
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
        let (a, stats) = minimise_run(&race, threads - 1);
        exact_stats.add(stats);
        // Stopped without an answer (deadline, node limit, the user, or TelaMalloc
        // answered first): TelaMalloc goes on until it answers or stops too.
        match a {
            RaceAnswer::Unknown(best) => exact_best = best,
            a => answer(a),
        }
        tela_best = tela.join().expect("TelaMalloc does not panic");
    });
    let a = first.into_inner().expect("joined").unwrap_or_else(|| {
        // The lower of the two, ties to the exact search's.
        let height = |b: &Option<(Vec<Offset>, Planner)>| {
            b.as_ref()
                .map_or(u64::MAX, |(o, _)| crate::analysis::height_of(problem, o))
        };
        RaceAnswer::Unknown(if height(&tela_best) < height(&exact_best) {
            tela_best
        } else {
            exact_best
        })
    });
    (a, exact_stats)
}
