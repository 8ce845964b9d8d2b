//! The exact planner: MiniMalloc's canonical search (Moffitt, ASPLOS 2023), written from
//! the paper.
//!
//! Two modes share one search ([`search`]):
//! - *capacity*: a plan with height ≤ C, a proof that none exists, or Unknown when the
//!   node limit, time limit or cancel handle stops it ([`solve_capacity`]);
//! - *minimise*, anytime: the greedy plan gives the upper bound and the max load the
//!   lower bound; capacity searches tighten them until they meet or time runs out
//!   ([`minimise`]).
//!
//! Every pruning rule is a switch of [`ExactOptions`], on by default. Several static
//! preorders (the tie-break and index-monotonic order, §7) are tried: with more than one
//! thread they race, each on its own thread; on one thread they alternate in rounds of a
//! doubling node limit, as minimalloc does. Either way the run kept is the one that
//! finishes with the fewest nodes (ties to the earlier preorder), so the plan is the same
//! whatever the thread count (see [`run_preorders`]). Node counts in [`ExactStats`]
//! include the losing runs, so they can vary from run to run with more than one thread.
//!
//! In capacity mode, [`ExactOptions::tighten`] adds, for each preorder, a run under the
//! max load when that is below the capacity: a plan it finds fits too, and its proofs of
//! infeasibility are ignored (they say nothing about the capacity asked for).
//!
//! Files: `model.rs` (sections, overlaps, fixed obstacles), `search.rs` (the search and
//! why its restrictions keep it complete; `search/propagate.rs`, the state a placement
//! changes and its undoing), `minimise.rs` (the anytime bisection).

mod minimise;
mod model;
mod search;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

pub(crate) use minimise::{minimise, minimise_until, Minimised};
pub(crate) use model::Model;
use search::{Limits, Search, Status, FOUND};

use crate::budget::{work, Budget};
use crate::outcome::{Halt, Verdict};
use crate::types::{Offset, Size};

/// A static preorder of the buffers (MiniMalloc §7): the order in which buffers at the
/// same offset are tried, and the order index monotonicity refers to. Every key sorts
/// larger first; the last tie goes to the input order. A buffer's *section total* is the
/// largest sum of unallocated sizes in one of its sections (the busiest stretch of time
/// it crosses). Each variant's doc gives its keys in order, the name the CLI also accepts
/// (`length-area-total`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preorder {
    /// Longest lifetime first, then largest area, then highest section total
    /// (length-area-total).
    LongestFirst,
    /// Highest section total first, then area, then lifetime (total-area-length).
    BusiestSectionThenArea,
    /// Highest section total first, then lifetime, then area (total-length-area).
    BusiestSectionThenLength,
    /// Largest size first, then lifetime, then area (size-length-area).
    LargestFirst,
}

impl Preorder {
    /// Every preorder.
    pub const ALL: [Preorder; 4] = [
        Preorder::LongestFirst,
        Preorder::BusiestSectionThenArea,
        Preorder::BusiestSectionThenLength,
        Preorder::LargestFirst,
    ];

    /// The name used by the CLI, e.g. `longest-first`.
    pub fn name(self) -> &'static str {
        match self {
            Preorder::LongestFirst => "longest-first",
            Preorder::BusiestSectionThenArea => "busiest-section-then-area",
            Preorder::BusiestSectionThenLength => "busiest-section-then-length",
            Preorder::LargestFirst => "largest-first",
        }
    }
}

/// Options of the exact planner. Every pruning rule is a switch, on by default; turning
/// one off never changes whether a plan exists, only how long the search takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactOptions {
    /// Only canonical sequences: offsets never decrease, equal offsets go in preorder
    /// rank order (§5, §6.1).
    pub canonical: bool,
    /// Section inference, eq. 3 of §6.2: placed top plus unallocated total per section.
    pub section_inference: bool,
    /// Strengthening 1 of §6.2: a section's level is at least the last offset placed
    /// (needs `canonical`).
    pub monotonic_floor: bool,
    /// Strengthening 2 of §6.2: a section's level is at least the lowest floor among its
    /// unallocated buffers (the effective height).
    pub unallocated_floor: bool,
    /// Dominance (§6.3): never place a buffer at or above the lowest top some other
    /// unallocated buffer could reach.
    pub dominance: bool,
    /// Dynamic temporal decomposition (§7).
    pub decomposition: bool,
    /// Static preordering heuristics (§7). Off: the input order, one run.
    pub static_preordering: bool,
    /// The preorders to alternate when `static_preordering` is on.
    pub preorders: Vec<Preorder>,
    /// Capacity mode: beside each preorder's search under the capacity, run one under the
    /// lower bound (the max load) when that is lower. Its plan also fits; its proof of
    /// infeasibility says nothing and is ignored. Section inference prunes hardest when
    /// sections are full, so on the challenging suite a plan under 105% of the max load
    /// is found sooner by looking for one at 100%.
    pub tighten: bool,
}

impl Default for ExactOptions {
    fn default() -> ExactOptions {
        ExactOptions {
            canonical: true,
            section_inference: true,
            monotonic_floor: true,
            unallocated_floor: true,
            dominance: true,
            decomposition: true,
            static_preordering: true,
            preorders: vec![
                Preorder::LongestFirst,
                Preorder::BusiestSectionThenArea,
                Preorder::BusiestSectionThenLength,
            ],
            tighten: true,
        }
    }
}

/// Search effort of the exact planner, summed over every run it made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExactStats {
    /// Search nodes visited.
    pub nodes: u64,
    /// Search steps: one per node plus one per candidate scanned at it (what the work
    /// limit counts).
    pub steps: u64,
    /// Nodes at which every child failed.
    pub backtracks: u64,
    /// Capacity searches run (one in capacity mode; several when minimising).
    pub probes: u64,
}

impl ExactStats {
    pub(crate) fn add(&mut self, other: ExactStats) {
        self.nodes += other.nodes;
        self.steps += other.steps;
        self.backtracks += other.backtracks;
        self.probes += other.probes;
    }
}

/// Stack for the search threads: recursion is as deep as the number of buffers.
const STACK_BYTES: usize = 512 << 20;

/// Up to this many buffers, one search thread runs on the caller's stack.
const INLINE_MAX_BUFFERS: usize = 1000;

/// Searches for a plan with height ≤ `capacity`: the offsets of every buffer (problem
/// order; fixed buffers keep theirs), a proof that none fits, or stopped first.
/// `lower_bound` is a proven bound (the max load); below it the answer is Infeasible at
/// once.
pub(crate) fn solve_capacity(
    model: &Model,
    problem: &crate::Problem,
    capacity: Size,
    lower_bound: Size,
    opt: &ExactOptions,
    budget: &Budget,
    threads: usize,
) -> (Verdict<Vec<Offset>>, ExactStats) {
    let mut stats = ExactStats {
        probes: 1,
        ..ExactStats::default()
    };
    if lower_bound > capacity || model.fixed_top > capacity {
        return (Verdict::Infeasible, stats);
    }
    if budget.exhausted() {
        return (Verdict::Stopped(Halt::Budget), stats);
    }
    let preorders: Vec<Option<Preorder>> = if opt.static_preordering && !opt.preorders.is_empty() {
        opt.preorders.iter().copied().map(Some).collect()
    } else {
        vec![None]
    };
    let tight = lower_bound.max(model.fixed_top);
    let mut runs: Vec<Run> = preorders
        .iter()
        .map(|&preorder| Run { preorder, capacity })
        .collect();
    if opt.tighten && tight > Size::ZERO && tight < capacity {
        runs.extend(preorders.iter().map(|&preorder| Run {
            preorder,
            capacity: tight,
        }));
    }
    // The runs share the work left: each is held to its share of steps (and to the node
    // limit, when there is one).
    let charged_runs = runs.len() as u64;
    let steps = budget.steps_per_run(charged_runs);
    let max_nodes = budget.node_limit().unwrap_or(u64::MAX);
    // The work charged, the same on one thread (rounds) as on several (one race), so
    // that the meter does not depend on the thread count: when a run won, what a race
    // needs to reach its answer (each run charged the winner's steps); when none did,
    // the steps of every run (the tightened runs that failed, in whichever round they
    // did, and the others as the last round left them). A run stopped by the clock or a
    // cancellation charges what it did.
    let mut tight_steps = 0u64;
    let charge = |end: &RoundEnd, halt: Option<Halt>, tight_steps: u64| {
        let steps = match (end.winner_steps, halt) {
            (Some(n), _) => charged_runs.saturating_mul(n),
            (None, Some(Halt::Budget)) => end.stats.steps,
            (None, _) => tight_steps.saturating_add(end.unfinished_steps),
        };
        budget.charge(work::units(steps, work::EXACT_STEPS_PER_UNIT));
    };
    if runs.len() > 1 && threads > 1 {
        // Several cores: race the runs once, with no restarts.
        let end = run_preorders(
            model,
            problem,
            capacity,
            opt,
            &runs,
            (max_nodes, steps),
            budget,
            None,
        );
        stats.add(end.stats);
        let why = if budget.exhausted() {
            Halt::Budget
        } else {
            Halt::Limit
        };
        charge(&end, end.verdict.is_none().then_some(why), end.tight_steps);
        return (end.verdict.unwrap_or(Verdict::Stopped(why)), stats);
    }
    // One thread: rounds with a doubling node limit (one run: a single round).
    let mut limit = if runs.len() == 1 {
        max_nodes
    } else {
        (2 * model.len() as u64).max(64).min(max_nodes)
    };
    loop {
        let mut end = run_preorders(
            model,
            problem,
            capacity,
            opt,
            &runs,
            (limit, steps),
            budget,
            Some(1),
        );
        stats.add(end.stats);
        tight_steps = tight_steps.saturating_add(end.tight_steps);
        // A tightened run that proved its capacity infeasible cannot win later rounds.
        let mut failed = end.failed_tight.iter();
        runs.retain(|_| !failed.next().copied().unwrap_or(false));
        match end.verdict.take() {
            Some(v) => {
                charge(&end, None, tight_steps);
                return (v, stats);
            }
            // No run stopped at the node limit: a larger one would change nothing.
            None if limit >= max_nodes || !end.node_limited => {
                charge(&end, Some(Halt::Limit), tight_steps);
                return (Verdict::Stopped(Halt::Limit), stats);
            }
            None if budget.exhausted() => {
                charge(&end, Some(Halt::Budget), tight_steps);
                return (Verdict::Stopped(Halt::Budget), stats);
            }
            None => limit = limit.saturating_mul(2).min(max_nodes),
        }
    }
}

/// How a round of [`run_preorders`] ended.
struct RoundEnd {
    /// The winner's answer, if a run answered.
    verdict: Option<Verdict<Vec<Offset>>>,
    /// The effort of every run.
    stats: ExactStats,
    /// Per run: a tightened run that proved its capacity infeasible.
    failed_tight: Vec<bool>,
    /// The winner's steps.
    winner_steps: Option<u64>,
    /// The steps of the runs that did not finish, together.
    unfinished_steps: u64,
    /// The steps of the tightened runs that failed, together.
    tight_steps: u64,
    /// Some run that did not finish stopped at the node limit (not at its steps, not by
    /// the budget or a lost race): a larger node limit could let it finish.
    node_limited: bool,
}

/// One search of [`solve_capacity`]: a preorder under a capacity (the asked one, or the
/// tightened one of [`ExactOptions::tighten`]).
#[derive(Clone, Copy, Debug)]
struct Run {
    preorder: Option<Preorder>,
    capacity: Size,
}

/// Runs every run with node and step limits `limits` and keeps the one that finishes (a
/// plan, or a proof under the asked `capacity`) with the fewest nodes, ties to the
/// earlier run. A tightened run's proof is no answer: it neither wins nor stops the
/// others, and is flagged in [`RoundEnd::failed_tight`]. `workers: None` gives each run
/// its own thread (a race; the OS shares the cores between them); `Some(w)` runs them on
/// `w` workers in turn.
///
/// Searches are deterministic, so that winner does not depend on timing or on the
/// workers: a run stops as soon as it has visited more nodes than some finished run (it
/// can no longer win), and the winner is never stopped, since no run finishes with fewer
/// nodes. Rounds of a growing node limit pick the same winner too: in the first round in
/// which any run finishes, every run that did not has more nodes than the limit. A run
/// stopped by its steps stops there in every round.
#[allow(clippy::too_many_arguments)]
fn run_preorders(
    model: &Model,
    problem: &crate::Problem,
    capacity: Size,
    opt: &ExactOptions,
    runs: &[Run],
    (limit, steps): (u64, u64),
    budget: &Budget,
    workers: Option<usize>,
) -> RoundEnd {
    let fewest = AtomicU64::new(limit);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<RunEnd>>> = Mutex::new(vec![None; runs.len()]);
    // A proof under a tightened capacity is no answer.
    let answers = |k: usize, status: Status| {
        status == FOUND || (status == Verdict::Infeasible && runs[k].capacity >= capacity)
    };
    let stats = Mutex::new(ExactStats::default());
    let run = |k: usize| {
        if budget.exhausted() {
            return;
        }
        let limits = Limits {
            nodes: limit,
            steps,
            budget,
            race: Some(&fewest),
        };
        let mut search = Search::new(model, opt, runs[k].preorder, runs[k].capacity, limits);
        let status = search.run();
        if answers(k, status) {
            fewest.fetch_min(search.nodes, Ordering::Relaxed);
        }
        {
            let mut st = stats.lock().expect("no panic while locked");
            st.nodes += search.nodes;
            st.steps += search.steps;
            st.backtracks += search.backtracks;
        }
        // Stopped at the node limit: not at its steps, and not by the budget or a lost
        // race (which stop with `Halt::Budget`).
        let node_limited = status == Verdict::Stopped(Halt::Limit) && !search.out_of_steps;
        results.lock().expect("no panic while locked")[k] = Some(RunEnd {
            status,
            solution: std::mem::take(&mut search.solution),
            nodes: search.nodes,
            steps: search.steps,
            node_limited,
        });
    };
    let worker = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= runs.len() {
            break;
        }
        run(k);
    };
    match workers {
        Some(1) if model.len() <= INLINE_MAX_BUFFERS => worker(),
        _ => {
            let threads = workers.unwrap_or(runs.len()).clamp(1, runs.len());
            std::thread::scope(|s| {
                for _ in 0..threads {
                    std::thread::Builder::new()
                        .stack_size(STACK_BYTES)
                        .spawn_scoped(s, worker)
                        .expect("spawning a search thread");
                }
            });
        }
    }
    let stats = stats.into_inner().expect("joined");
    let results = results.into_inner().expect("joined");
    let failed_tight: Vec<bool> = results
        .iter()
        .enumerate()
        .map(|(k, r)| {
            r.as_ref()
                .is_some_and(|r| r.status == Verdict::Infeasible && !answers(k, r.status))
        })
        .collect();
    let tight_steps = results
        .iter()
        .zip(&failed_tight)
        .filter(|&(_, &failed)| failed)
        .filter_map(|(r, _)| r.as_ref().map(|r| r.steps))
        .sum();
    let unfinished = || {
        results
            .iter()
            .flatten()
            .filter(|r| matches!(r.status, Verdict::Stopped(_)))
    };
    let unfinished_steps = unfinished().map(|r| r.steps).sum();
    let node_limited = unfinished().any(|r| r.node_limited);
    let winner = results
        .into_iter()
        .enumerate()
        .filter_map(|(k, r)| r.map(|r| (k, r)))
        .filter(|(k, r)| answers(*k, r.status))
        .min_by_key(|(k, r)| (r.nodes, *k))
        .map(|(_, r)| r);
    let winner_steps = winner.as_ref().map(|r| r.steps);
    let verdict = winner.map(|r| match r.status {
        Verdict::Found(()) => Verdict::Found(to_offsets(model, problem, &r.solution)),
        _ => Verdict::Infeasible,
    });
    RoundEnd {
        verdict,
        stats,
        failed_tight,
        winner_steps,
        unfinished_steps,
        tight_steps,
        node_limited,
    }
}

/// How one run of [`run_preorders`] ended.
#[derive(Clone)]
struct RunEnd {
    status: Status,
    /// Offsets of the free buffers (valid when `status` is [`FOUND`]).
    solution: Vec<Offset>,
    nodes: u64,
    steps: u64,
    node_limited: bool,
}

/// Problem-order offsets from the free buffers' offsets.
fn to_offsets(model: &Model, problem: &crate::Problem, free: &[Offset]) -> Vec<Offset> {
    let mut out: Vec<Offset> = problem
        .buffers()
        .iter()
        .map(|b| b.fixed_offset.unwrap_or(Offset::ZERO))
        .collect();
    for (&i, &o) in model.free.iter().zip(free) {
        out[i] = o;
    }
    out
}

#[cfg(test)]
mod tests;
