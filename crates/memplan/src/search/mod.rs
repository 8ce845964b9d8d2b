//! TelaMalloc: heuristic-guided backtracking search for tight capacities.
//!
//! The model (TelaMalloc §4–§5): buffers are placed one at a time. At every *decision
//! point* a few heuristics each propose a buffer (the *candidates*); the first candidate
//! is placed at the lowest offset its domain allows, and propagation computes the new
//! domains of the unplaced buffers. If some domain becomes empty, the placement is undone
//! and the next candidate is tried (a *minor backtrack*); if every candidate failed, the
//! search jumps back to an earlier decision (a *major backtrack*).
//!
//! ```text
//!   capacity -----------------------------------------------
//!             [  e  ]        [    f     ]
//!             [    c    ][  d  ]    [  g  ]      each buffer sits at the lowest
//!             [        a       ][    b    ]      offset free during its lifetime
//!             +----------------------------------> time
//! ```
//!
//! The paper guides its search with a CP-SAT solver; we use our own propagation over
//! offset domains instead ([`domains`]), with no external solver. Invariants of the
//! search: every placed buffer avoids all placed buffers live at the same time, lies
//! under the capacity and on its alignment, and every unplaced buffer has a non-empty
//! domain. So a complete assignment is a valid plan; it is checked again anyway.
//!
//! Techniques, each a switch in [`TelamallocOptions`], all on by default:
//! - §5.1 `heuristics`: longest lifetime, largest size, largest area, tried in order at
//!   each decision point. Off: the §3.1 baseline's contention order alone.
//! - §5.2 `lowest_position`: place at the lowest valid offset. Off: on the §3.1 skyline.
//! - §5.3 `phases`: candidates come from the current contention phase first.
//! - §5.4 `backjump`: a major backtrack jumps to the second-to-last conflicting placement
//!   (off: one level up); `prepend_candidates`: the failed candidates go in front at the
//!   jump target, at most `max_candidates`; `subtree_limit`: leave a subtree that has
//!   seen more than `subtree_backtracks` backtracks.
//! - §5.5 alignment is always honoured (it is part of the problem, not a heuristic).
//! - Beyond the paper: `row_order` (the §3.1 baseline fills rows bottom-up: candidates
//!   sit at the lowest position of all), widened by `dominance` to positions below the
//!   lowest top of any unplaced buffer (MiniMalloc); `section_inference`, MiniMalloc's
//!   cross-section bound, used only with skyline placement where it is sound;
//!   `per_heuristic` candidates from each heuristic; and `widen`, which searches again
//!   with longer candidate lists when the root runs out.
//!
//! In capacity mode the search runs once ([`solve_capacity`]); in minimise mode, it
//! probes capacities between the max load and the best greedy height ([`minimise`]).

mod candidates;
mod domains;
mod engine;
mod maxtree;
mod microbench;
mod phases;

pub use microbench::{generate_microbenchmark, MicrobenchKind};

use std::time::Instant;

use crate::analysis::max_load;
use crate::greedy::{self, contention};
use crate::portfolio::greedy_portfolio;
use crate::types::{Offset, Plan, Problem, Size};
use crate::{CancelToken, Outcome};
use candidates::{Candidates, Heuristic};
use engine::{SearchEnd, SearchStats};

/// Options of the TelaMalloc planner. Every technique is on by default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TelamallocOptions {
    /// Stop after this many placements tried (per search; in minimise mode, per
    /// capacity probe) and answer `Unknown`.
    pub step_limit: u64,
    /// §5.1: try the longest-lifetime, largest-size and largest-area buffers at each
    /// decision point. Off: only the highest-contention buffer (§3.1).
    pub heuristics: bool,
    /// §5.2: place each buffer at the lowest offset its domain allows. Off: on top of
    /// the placed buffers live at the same time (the §3.1 skyline).
    pub lowest_position: bool,
    /// §5.3: group buffers into contention phases and take candidates from the current
    /// phase first.
    pub phases: bool,
    /// §5.4: on a major backtrack, jump to the second-to-last conflicting placement.
    /// Off: go back one decision.
    pub backjump: bool,
    /// §5.4: on a major backtrack, put the failed candidates in front of the jump
    /// target's candidates.
    pub prepend_candidates: bool,
    /// §5.4: at most this many candidates queued at a decision point after prepending.
    pub max_candidates: usize,
    /// §5.4: leave a subtree that has seen more than `subtree_backtracks` backtracks.
    pub subtree_limit: bool,
    /// The backtrack budget of a subtree (see `subtree_limit`).
    pub subtree_backtracks: u64,
    /// MiniMalloc's cross-section inference (its eq. (3)): fail a placement when, at
    /// some time, the highest placed buffer plus the unplaced load exceed the capacity.
    /// Sound only for skyline placement, so it applies when `lowest_position` is off.
    pub section_inference: bool,
    /// §3.1 (Fig. 4): fill bottom-up, row by row: the candidates are the buffers whose
    /// position is the lowest among all unplaced buffers.
    pub row_order: bool,
    /// With `row_order`: widen the row to every buffer whose position lies below the
    /// lowest top of any unplaced buffer (MiniMalloc's dominance rule), so that a hole
    /// may be left under a buffer when nothing fills it.
    pub dominance: bool,
    /// How many buffers each heuristic proposes at a decision point (the paper: 1).
    pub per_heuristic: usize,
    /// When the root runs out of candidates, search again with twice as many
    /// candidates per heuristic (up to 64), within the same step limit.
    pub widen: bool,
}

impl Default for TelamallocOptions {
    fn default() -> TelamallocOptions {
        TelamallocOptions {
            step_limit: 2_000_000,
            heuristics: true,
            lowest_position: true,
            phases: true,
            backjump: true,
            prepend_candidates: true,
            max_candidates: 16,
            subtree_limit: true,
            subtree_backtracks: 100,
            section_inference: true,
            row_order: true,
            dominance: true,
            per_heuristic: 1,
            widen: true,
        }
    }
}

/// [`crate::plan`] for [`crate::Planner::Telamalloc`]: capacity or minimise mode.
pub(crate) fn plan(
    problem: &Problem,
    options: &crate::Options,
    deadline: Option<Instant>,
) -> Outcome {
    let cancel = options.cancel.as_ref();
    match problem.capacity() {
        Some(c) => solve_capacity(problem, c, &options.telamalloc, deadline, cancel),
        None => minimise(problem, &options.telamalloc, deadline, cancel),
    }
}

/// One search under `capacity`.
pub(crate) fn search(
    problem: &Problem,
    capacity: u64,
    options: &TelamallocOptions,
    stop: &dyn Fn() -> bool,
) -> (SearchEnd, SearchStats) {
    // Every lowest-offset placement stays under the naive height; clamping keeps the
    // arithmetic far from overflow.
    let capacity = capacity.min(problem.naive_height().0);
    // A buffer that ends above the capacity wherever it goes: the max load misses it
    // when its gaps cover its whole lifetime (found by fuzzing), and the engine assumes
    // every buffer fits somewhere.
    let fits = |b: &crate::Buffer| b.fixed_offset.map_or(0, |o| o.0) + b.size.0 <= capacity;
    if !problem.buffers().iter().all(fits) {
        return (SearchEnd::Infeasible, SearchStats::default());
    }
    let heuristics = if options.heuristics {
        vec![Heuristic::Lifetime, Heuristic::Size, Heuristic::Area]
    } else {
        vec![Heuristic::Contention]
    };
    let contention = if options.heuristics {
        Vec::new()
    } else {
        contention(problem)
    };
    let (phase_of, count) = if options.phases {
        phases::phases(problem, capacity)
    } else {
        (vec![0; problem.len()], u32::from(!problem.is_empty()))
    };
    let cands = Candidates::new(problem, heuristics, &contention, phase_of, count);
    engine::search(problem, capacity, cands, options, stop)
}

fn to_plan(problem: &Problem, offsets: Vec<u64>) -> Plan {
    Plan::new(problem, offsets.into_iter().map(Offset).collect())
        .expect("placed buffers lie under the capacity")
}

/// The stop condition of a time limit and a cancel token.
fn stopper<'a>(
    deadline: Option<Instant>,
    cancel: Option<&'a CancelToken>,
) -> impl Fn() -> bool + 'a {
    move || {
        deadline.is_some_and(|d| Instant::now() >= d) || cancel.is_some_and(|c| c.is_cancelled())
    }
}

/// Capacity mode: one search under `capacity`. This is the hook for racing TelaMalloc
/// against another planner: it stops at `deadline`, when `cancel` is cancelled, or at
/// the step limit, and then answers `Unknown` (with the best greedy plan as
/// `best_so_far`). `Infeasible` only when the max load or the fixed buffers prove it.
pub(crate) fn solve_capacity(
    problem: &Problem,
    capacity: Size,
    options: &TelamallocOptions,
    deadline: Option<Instant>,
    cancel: Option<&CancelToken>,
) -> Outcome {
    let lower_bound = max_load(problem);
    if lower_bound > capacity {
        return Outcome::Infeasible;
    }
    let stop = stopper(deadline, cancel);
    let end = search_widening(problem, capacity.0, options, &stop);
    match end {
        SearchEnd::Found(offsets) => {
            let plan = to_plan(problem, offsets);
            if plan.height() <= lower_bound {
                Outcome::Optimal(plan)
            } else {
                Outcome::Feasible { plan, lower_bound }
            }
        }
        SearchEnd::Infeasible => Outcome::Infeasible,
        // The greedy plan may fit when the search did not (found by fuzzing: huge
        // alignments); `Unknown` promises that no plan under the capacity was found.
        SearchEnd::Exhausted | SearchEnd::Stopped => match first_greedy(problem) {
            Some(plan) if plan.height() <= capacity => {
                if plan.height() <= lower_bound {
                    Outcome::Optimal(plan)
                } else {
                    Outcome::Feasible { plan, lower_bound }
                }
            }
            best_so_far => Outcome::Unknown {
                best_so_far,
                lower_bound,
            },
        },
    }
}

/// Searches; when `widen` is on and the root runs out of candidates while steps and
/// time remain, searches again with twice the candidates per heuristic (and twice the
/// cap), so a small tree that was fully explored makes way for a larger one. The step
/// limit counts across all rounds.
fn search_widening(
    problem: &Problem,
    capacity: u64,
    options: &TelamallocOptions,
    stop: &dyn Fn() -> bool,
) -> SearchEnd {
    let mut round = options.clone();
    loop {
        let (end, stats) = search(problem, capacity, &round, stop);
        round.step_limit = round.step_limit.saturating_sub(stats.steps);
        let wider = round.per_heuristic.max(1) * 2;
        match end {
            SearchEnd::Exhausted
                if options.widen && round.step_limit > 0 && wider <= MAX_WIDTH && !stop() =>
            {
                round.per_heuristic = wider;
                round.max_candidates = round.max_candidates.max(1) * 2;
            }
            end => return end,
        }
    }
}

/// The widest candidate lists `widen` goes to, per heuristic.
const MAX_WIDTH: usize = 64;

/// The plan of the portfolio's first greedy planner (size order, best fit): O(n log n)
/// plus the overlapping pairs, so cheap enough to give `Unknown` a `best_so_far`.
fn first_greedy(problem: &Problem) -> Option<Plan> {
    let (order, fit) = greedy_portfolio()[0];
    greedy::run(problem, order, fit, 1, &|| false)
        .map(|offsets| Plan::new(problem, offsets).expect("greedy plans do not overflow"))
}

/// The lowest plan of the greedy portfolio, run on this thread. The first planner always
/// completes (so there is a plan); the others stop when `stop` says so (before, a 28k-buffer
/// instance spent 30 s here whatever the time limit).
fn best_greedy(problem: &Problem, stop: &(dyn Fn() -> bool + Sync)) -> Option<(Size, Plan)> {
    let never = || false;
    greedy_portfolio()
        .into_iter()
        .enumerate()
        .filter_map(|(k, (o, f))| {
            if k == 0 {
                greedy::run(problem, o, f, 1, &never)
            } else if stop() {
                None
            } else {
                greedy::run(problem, o, f, 1, stop)
            }
        })
        .map(|offsets| {
            let plan = Plan::new(problem, offsets).expect("greedy plans do not overflow");
            (plan.height(), plan)
        })
        .min_by_key(|(h, _)| *h)
}

/// Minimise mode: start from the best greedy plan, then search under lower capacities:
/// the max load first (success proves the plan optimal), then a bisection between the
/// lowest capacity not reached and the best height found. A failed probe proves
/// nothing, so the answer is `Feasible` unless the max load is reached.
pub(crate) fn minimise(
    problem: &Problem,
    options: &TelamallocOptions,
    deadline: Option<Instant>,
    cancel: Option<&CancelToken>,
) -> Outcome {
    let lower_bound = max_load(problem);
    let stop = stopper(deadline, cancel);
    let Some((mut best_height, mut best)) = best_greedy(problem, &stop) else {
        return Outcome::Infeasible; // unreachable: greedy always places everything
    };
    let probe_options = TelamallocOptions {
        step_limit: (options.step_limit / 16).max(1),
        ..options.clone()
    };
    let mut low = lower_bound.0; // lowest capacity not yet tried and failed
    let mut first = true;
    while low < best_height.0 && !stop() {
        let capacity = if first {
            low
        } else {
            low + (best_height.0 - 1 - low) / 2
        };
        first = false;
        match search(problem, capacity, &probe_options, &stop).0 {
            SearchEnd::Found(offsets) => {
                let plan = to_plan(problem, offsets);
                best_height = plan.height();
                best = plan;
            }
            // Infeasible is a proof, the others are not; either way, look higher.
            SearchEnd::Infeasible | SearchEnd::Exhausted | SearchEnd::Stopped => low = capacity + 1,
        }
    }
    if best_height <= lower_bound {
        Outcome::Optimal(best)
    } else {
        Outcome::Feasible {
            plan: best,
            lower_bound,
        }
    }
}

#[cfg(test)]
mod tests;
