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
//! offset domains instead (`domains.rs`), with no external solver. Invariants of the
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
//! - Stronger search (MiniMalloc ideas, used where sound): `canonical` sequences (no
//!   permutation of one plan searched twice; skyline domains equal the lowest valid
//!   positions then), `complete_candidates` (a decision point goes on with every
//!   admissible buffer once the heuristics' picks failed), `section_floors` (the effective
//!   height of a section), `restarts` (rounds with a doubling step budget: the paper's
//!   search, then chronological canonical rounds under three orders, which take the
//!   admissible buffers in MiniMalloc's node order), `tighten` (rounds under tighter
//!   capacities) and `decomposition` (MiniMalloc's dynamic decomposition, in canonical
//!   searches: once no unplaced buffer crosses some time, each side is solved on its
//!   own, `components.rs`). A complete configuration that runs out of candidates
//!   proves infeasibility ([`TelamallocOptions::is_complete`]).
//!
//! The default planner's capacity mode races this search against the exact one
//! (the driver's `race.rs`).
//!
//! In capacity mode the search runs once (`solve_capacity`), on each independent part
//! of the problem in turn (`independent_parts`: split at the times no buffer crosses), as
//! a restart cycle that can use several threads and still gives the one-thread answer
//! (`rounds.rs`); in
//! minimise mode, it probes capacities between the max load and the best greedy height
//! (`minimise`).

mod candidates;
mod components;
mod domains;
mod engine;
#[cfg(feature = "testing")]
pub(crate) mod measure;
#[cfg(any(test, feature = "testing"))]
pub(crate) mod microbench;
mod options;
mod phases;
mod rounds;

use crate::analysis::max_load;
use crate::budget::Budget;
use crate::greedy::{self, contention, Fit, Order};
use crate::outcome::{Outcome, Verdict};
use crate::types::{Offset, Plan, Problem, Size};
use options::Config;
pub use options::TelamallocOptions;

use candidates::{Candidates, Heuristic};
use engine::{Component, SearchEnd, SearchStats};

/// [`crate::plan`] for [`crate::Planner::Telamalloc`]: capacity or minimise mode.
pub(crate) fn plan(
    problem: &Problem,
    capacity: Option<Size>,
    options: &TelamallocOptions,
    budget: &Budget,
    threads: usize,
) -> Outcome {
    match capacity {
        Some(c) => solve_capacity(problem, c, options, budget, threads),
        None => minimise(problem, options, budget),
    }
}

/// One search under `capacity`.
pub(crate) fn search(
    problem: &Problem,
    capacity: Size,
    options: &Config,
    stop: &dyn Fn() -> bool,
) -> (SearchEnd, SearchStats) {
    search_ranked(problem, capacity, 0, options, stop)
}

/// [`search`] with heuristic number `rank_by` setting the canonical order.
fn search_ranked(
    problem: &Problem,
    capacity: Size,
    rank_by: usize,
    options: &Config,
    stop: &dyn Fn() -> bool,
) -> (SearchEnd, SearchStats) {
    // Every lowest-offset placement stays under the naive height; clamping keeps the
    // arithmetic far from overflow.
    let capacity = capacity.min(problem.naive_height());
    // A buffer that ends above the capacity wherever it goes: the max load misses it
    // when its gaps cover its whole lifetime (found by fuzzing), and the engine assumes
    // every buffer fits somewhere.
    let fits = |b: &crate::Buffer| b.fixed_offset.unwrap_or(Offset::ZERO) + b.size <= capacity;
    if !problem.buffers().iter().all(fits) {
        return (Verdict::Infeasible, SearchStats::default());
    }
    search_component(
        problem,
        capacity,
        rank_by,
        options,
        stop,
        Component::default(),
    )
}

/// The search of one component of a decomposition (`components.rs`), or of the whole
/// problem: builds the candidates (heuristics, contention, phases) and runs the engine.
/// The capacity is taken as it is (a component's floors may lie above its own naive
/// height).
fn search_component(
    problem: &Problem,
    capacity: Size,
    rank_by: usize,
    options: &Config,
    stop: &dyn Fn() -> bool,
    at: Component<'_>,
) -> (SearchEnd, SearchStats) {
    // With restarts, two contention orders are kept too: they rank the canonical order
    // in some rounds, but propose no candidates.
    let heuristics = if options.heuristics && options.restarts {
        vec![
            Heuristic::Lifetime,
            Heuristic::Size,
            Heuristic::Area,
            Heuristic::ContentionLifetime,
            Heuristic::ContentionArea,
        ]
    } else if options.heuristics {
        vec![Heuristic::Lifetime, Heuristic::Size, Heuristic::Area]
    } else {
        vec![Heuristic::Contention]
    };
    let proposing = if options.heuristics { 3 } else { 1 };
    let contention = if heuristics.len() > proposing || !options.heuristics {
        contention(problem)
    } else {
        Vec::new()
    };
    let (phase_of, count) = if options.phases {
        phases::phases(problem, capacity)
    } else {
        (vec![0; problem.len()], u32::from(!problem.is_empty()))
    };
    let cands = Candidates::new(problem, heuristics, proposing, &contention, phase_of, count);
    engine::search(problem, capacity, cands, rank_by, options, stop, at)
}

fn to_plan(problem: &Problem, offsets: Vec<Offset>) -> Plan {
    Plan::new(problem, offsets).expect("placed buffers lie under the capacity")
}

/// Capacity mode: one search under `capacity`. This is the hook for racing TelaMalloc
/// against another planner: it stops at `deadline`, when `cancel` is cancelled, or at
/// the step limit, and then answers `Unknown` (with the best greedy plan as
/// `best_so_far`). `Infeasible` only when there is a proof: the max load, the fixed
/// buffers, or a complete configuration that ran out of candidates (on the whole
/// problem or on one of its independent parts).
/// The first greedy plan runs on [`Budget::first_plan`]. The restart cycle runs on up to
/// `threads` threads, with the same answer whatever their number (`rounds.rs`).
pub(crate) fn solve_capacity(
    problem: &Problem,
    capacity: Size,
    options: &TelamallocOptions,
    budget: &Budget,
    threads: usize,
) -> Outcome {
    let lower_bound = max_load(problem);
    if lower_bound > capacity {
        return Outcome::Infeasible;
    }
    // The fallback plan for `Unknown`, made first: made after a search the clock
    // stopped, it could only be the naive plan. When it fits, it is the answer (§3: the
    // heuristic first, the search only where it fails).
    let fallback = first_greedy(problem, capacity, budget);
    // A plan under the capacity, optimal when it reaches the max load.
    let fits = |plan: Plan| {
        if plan.height() <= lower_bound {
            Outcome::Optimal(plan)
        } else {
            Outcome::Feasible { plan, lower_bound }
        }
    };
    match fallback {
        Some(plan) if options.greedy_first && plan.height() <= capacity => return fits(plan),
        _ => {}
    }
    let config = Config::new(options, budget);
    let verdict = rounds::search_rounds(problem, capacity, &config, budget, threads);
    budget.charge(config.work());
    match verdict {
        Verdict::Found(offsets) => fits(to_plan(problem, offsets)),
        Verdict::Infeasible => Outcome::Infeasible,
        // The greedy plan may fit when the search did not (found by fuzzing: huge
        // alignments); `Unknown` promises that no plan under the capacity was found.
        Verdict::Stopped(_) => match fallback {
            Some(plan) if plan.height() <= capacity => fits(plan),
            best_so_far => Outcome::Unknown {
                best_so_far,
                lower_bound,
            },
        },
    }
}

/// A quick greedy plan, to answer with when it fits under `capacity` and to give
/// `Unknown` a `best_so_far` otherwise. First start order with best fit, which the
/// greedy kernel places by a sweep over the live buffers (0.24 s on iopddl-S's 28,526
/// buffers and 43M overlapping pairs, where size order takes 1.1 s); when that does
/// not fit, also size order with best fit (TFLite's), and the lower plan. The first pass
/// runs on [`Budget::first_plan`], the second on the budget. When both are cut short, the
/// naive plan (O(n)) stands in, so that the limit holds.
fn first_greedy(problem: &Problem, capacity: Size, budget: &Budget) -> Option<Plan> {
    let plan = |o: Vec<Offset>| Plan::new(problem, o).expect("greedy plans do not overflow");
    let first = budget.first_plan();
    let swept = greedy::run(problem, Order::Start, Fit::BestFit, 1, &first).map(plan);
    if swept.as_ref().is_some_and(|p| p.height() <= capacity) {
        return swept;
    }
    let sized = greedy::run(problem, Order::Size, Fit::BestFit, 1, budget).map(plan);
    let lower = match (swept, sized) {
        (Some(a), Some(b)) => Some(if b.height() < a.height() { b } else { a }),
        (a, b) => a.or(b),
    };
    Some(lower.unwrap_or_else(|| plan(greedy::naive(problem))))
}

/// Minimise mode: start from the best plan of the greedy planners (run on this thread;
/// the first on [`Budget::first_plan`]; the naive plan when not even the first
/// finished), then search under lower capacities: the max load first (success proves
/// the plan optimal), then a bisection between the lowest capacity not reached and the
/// best height found. A failed probe proves nothing, so the answer is `Feasible` unless
/// the max load is reached.
pub(crate) fn minimise(problem: &Problem, options: &TelamallocOptions, budget: &Budget) -> Outcome {
    let lower_bound = max_load(problem);
    let stop = || budget.exhausted();
    let greedy = greedy::best_of(problem, &greedy::portfolio(), 1, lower_bound, budget)
        .unwrap_or_else(|| greedy::naive(problem));
    let mut best = Plan::new(problem, greedy).expect("greedy plans do not overflow");
    let mut best_height = best.height();
    let whole = Config::new(options, budget);
    let probe_options = Config {
        step_limit: (whole.step_limit / 16).max(1),
        ..whole
    };
    let mut low = lower_bound; // lowest capacity not yet tried and failed
    let mut first = true;
    while low < best_height && !stop() {
        let capacity = if first {
            low
        } else {
            low + (best_height - low - Size(1)) / 2
        };
        first = false;
        let verdict = search(problem, capacity, &probe_options, &stop).0;
        budget.charge(probe_options.work());
        match verdict {
            Verdict::Found(offsets) => {
                let plan = to_plan(problem, offsets);
                best_height = plan.height();
                best = plan;
            }
            // Infeasible is a proof, the others are not; either way, look higher.
            Verdict::Infeasible | Verdict::Stopped(_) => low = capacity + Size(1),
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
