//! TelaMalloc's options: one field per technique, grouped as in the paper. Every technique
//! is on by default and has a `--telamalloc-no-…` switch on the command line, named after
//! its field, so that an ablation is a list of flags.

use std::ops::{Deref, DerefMut};

use crate::budget::{work, Budget};
use crate::types::Problem;

/// The step limit of a search when the call's budget sets no node limit
/// ([`Budget::node_limit`]): the restart cycle and minimise mode's probes are sized by
/// it, so TelaMalloc always has one.
pub(crate) const DEFAULT_STEP_LIMIT: u64 = 2_000_000;

/// The options one TelaMalloc search runs with: the techniques, and the most placements
/// it may try (its step limit) before it answers `Unknown`. The step limit comes from the
/// call's [`Budget`] ([`Config::new`]); the restart cycle and minimise mode hand smaller
/// ones to their rounds and probes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Config {
    pub(crate) techniques: TelamallocOptions,
    pub(crate) step_limit: u64,
}

impl Config {
    /// The techniques of `options`, with the budget's node limit as the step limit
    /// ([`DEFAULT_STEP_LIMIT`] when it has none), held to what the work left pays for.
    pub(crate) fn new(options: &TelamallocOptions, budget: &Budget) -> Config {
        let steps = budget.node_limit().unwrap_or(DEFAULT_STEP_LIMIT);
        let affordable = budget.work_left().map_or(u64::MAX, |left| {
            left.saturating_mul(work::TELAMALLOC_STEPS_PER_UNIT)
        });
        Config {
            techniques: options.clone(),
            step_limit: steps.min(affordable).max(1),
        }
    }

    /// The work a search with this step limit is charged: its whole limit (a search that
    /// answers sooner is charged as much, so that the charge does not depend on how its
    /// rounds shared the threads).
    pub(crate) fn work(&self) -> u64 {
        work::units(self.step_limit, work::TELAMALLOC_STEPS_PER_UNIT)
    }
}

#[cfg(any(test, feature = "testing"))]
impl Default for Config {
    fn default() -> Config {
        Config {
            techniques: TelamallocOptions::default(),
            step_limit: DEFAULT_STEP_LIMIT,
        }
    }
}

impl Deref for Config {
    type Target = TelamallocOptions;
    fn deref(&self) -> &TelamallocOptions {
        &self.techniques
    }
}

impl DerefMut for Config {
    fn deref_mut(&mut self) -> &mut TelamallocOptions {
        &mut self.techniques
    }
}

/// Options of the TelaMalloc planner, one field per technique (grouped below as in the
/// paper). Every technique is on by default. How long it searches is the call's
/// [`Budget`]'s: its node limit is the most placements one search may try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TelamallocOptions {
    /// §5.2: place each buffer at the lowest offset its domain allows. Off: on top of
    /// the placed buffers live at the same time (the §3.1 skyline).
    pub lowest_position: bool,

    // Candidates at a decision point (TelaMalloc §3.1, §5.1, §5.3, and MiniMalloc's dominance rule).
    /// §5.1: try the longest-lifetime, largest-size and largest-area buffers at each
    /// decision point. Off: only the highest-contention buffer (§3.1).
    pub heuristics: bool,
    /// How many buffers each heuristic proposes at a decision point (the paper: 1).
    /// 0 in canonical searches: none; decision points take the admissible buffers in
    /// canonical key order (MiniMalloc's node order), as the systematic rounds do.
    pub per_heuristic: usize,
    /// §5.3: group buffers into contention phases and take candidates from the current
    /// phase first.
    pub phases: bool,
    /// §3.1 (Fig. 4): fill bottom-up, row by row: the candidates are the buffers whose
    /// position is the lowest among all unplaced buffers.
    pub row_order: bool,
    /// With `row_order`: widen the row to every buffer whose position lies below the
    /// lowest top of any unplaced buffer (MiniMalloc's dominance rule), so that a hole
    /// may be left under a buffer when nothing fills it.
    pub dominance: bool,
    /// When a decision point's heuristic candidates (§5.1) have all failed, go on with
    /// every other admissible buffer, lowest position first, so the decision point is
    /// complete and a failure of the whole level means that its subtree has no plan
    /// (with chronological backtracking).
    pub complete_candidates: bool,
    /// When the root runs out of candidates, search again with twice as many
    /// candidates per heuristic (up to 64), within the same step limit.
    pub widen: bool,
    // Backtracking (TelaMalloc §5.4).
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
    // MiniMalloc's pruning, used where it is sound: canonical sequences (§5) and section inference (§6).
    /// MiniMalloc's canonical sequences (§5): offsets never decrease along a branch and
    /// buffers at the same offset go in one fixed rank order, so no permutation of the
    /// same plan is searched twice. Every plan compacts into such a sequence, so nothing
    /// is lost. In a canonical sequence the lowest valid position at or above the last
    /// offset *is* the skyline, so domains are skyline floors (the §5.2 and §3.1
    /// positions agree), and cross-section inference with the last offset as a floor is
    /// sound. Off when some buffer has a fixed offset (buffers may go below it).
    pub canonical: bool,
    /// MiniMalloc's cross-section inference (its eq. (3)): fail a placement when, at
    /// some time, the highest placed buffer plus the unplaced load exceed the capacity.
    /// Sound only for skyline placement, so it applies when `lowest_position` is off.
    pub section_inference: bool,
    /// With `section_inference`: MiniMalloc's effective height (§6.2, strengthening 2):
    /// a section's unplaced buffers all sit at or above the lowest of their domains, so
    /// that plus their load must fit under the capacity.
    pub section_floors: bool,
    // The rounds around the search: the greedy plan first (TelaMalloc §3) and the restart cycle (`rounds.rs`).
    /// Capacity mode: make a greedy plan before searching (start order, best fit, and
    /// when that does not fit, size order, best fit), and answer with it when it fits:
    /// the heuristic first, the search only where it fails (§3). The plan is made
    /// anyway, as `Unknown`'s `best_so_far`; off, the search runs even when it fits (as
    /// the microbenchmarks measure it).
    pub greedy_first: bool,
    /// Restart with a growing step budget, each §5.1 heuristic in turn setting the
    /// canonical order (see `rounds.rs`).
    pub restarts: bool,
    /// With `restarts`: some rounds search under a tighter capacity (the max load),
    /// where propagation prunes more.
    pub tighten: bool,
    // Splitting the problem into independent parts: before the search, and during it (MiniMalloc §7).
    /// Capacity mode: split the problem at the times no buffer crosses (§5.3 splits
    /// there before grouping into phases; MiniMalloc §7 decomposes the same way) and
    /// search the independent parts one after the other, each with its own restart
    /// cycle. A buffer alone in its part goes at its fixed offset or at 0. The parts
    /// share the step limit.
    pub independent_parts: bool,
    /// MiniMalloc's dynamic decomposition (§7), in canonical searches: when no unplaced
    /// buffer crosses some time any more, the buffers on either side are solved as
    /// separate problems, so a failure on one side undoes nothing on the other
    /// (`components.rs`).
    pub dynamic_decomposition: bool,
}

impl TelamallocOptions {
    /// True when running out of candidates proves that no plan exists: canonical
    /// sequences (every plan has one), complete decision points, and chronological
    /// backtracking that never leaves a subtree early.
    pub fn is_complete(&self, problem: &Problem) -> bool {
        self.canonical
            && self.complete_candidates
            && !self.backjump
            && !self.subtree_limit
            && problem.buffers().iter().all(|b| b.fixed_offset.is_none())
    }
}

impl Default for TelamallocOptions {
    fn default() -> TelamallocOptions {
        TelamallocOptions {
            lowest_position: true,
            heuristics: true,
            per_heuristic: 1,
            phases: true,
            row_order: true,
            dominance: true,
            complete_candidates: true,
            widen: true,
            backjump: true,
            prepend_candidates: true,
            max_candidates: 16,
            subtree_limit: true,
            subtree_backtracks: 100,
            canonical: true,
            section_inference: true,
            section_floors: true,
            greedy_first: true,
            restarts: true,
            tighten: true,
            independent_parts: true,
            dynamic_decomposition: true,
        }
    }
}
