//! Placing kept buffers in fast memory: memplan's planner on a kept set ([`Placer`]), and
//! cheap moves on an existing fast plan (inserting a buffer into a free address window,
//! finding the cheapest window to clear), helped by an index of lifetimes.

use std::time::Instant;

use crate::budget::Budget;
use crate::greedy::{Fit, Order as GreedyOrder};
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::types::{BufferIdx, Offset, Time};

use super::model::{members, sub_problem, LevelModel};
use super::MemoriesOptions;

/// Up to this many kept buffers, a placement runs memplan's exact search (after its
/// greedy pass, under a node limit); above, see [`Effort`].
const EXACT_PLACEMENT_MAX_BUFFERS: usize = 5_000;

/// The answer of [`Placer::place`]. Offsets are indexed like the problem; only the kept
/// buffers' entries mean anything.
#[derive(Clone, Debug)]
pub(crate) enum Placement {
    /// A plan of the kept buffers under the capacity.
    Fits(Vec<Offset>),
    /// Proven: the kept buffers do not fit.
    Infeasible,
    /// Neither; the lowest plan found, over the capacity, if any.
    Unknown(Option<Vec<Offset>>),
}

/// How hard a placement of more than 5,000 kept buffers tries (smaller sets always get
/// memplan's exact search under the placement node limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effort {
    /// The greedy portfolio, with at most half the time left (its first plan always
    /// finishes): the heuristic's placement.
    Best,
    /// Start-best-fit alone, a sweep (O(n log n) without gaps or fixed buffers): the
    /// improvement's re-planning, many times over.
    Quick,
}

/// Runs memplan's planner on kept sets, under the call's budget.
pub(crate) struct Placer<'a> {
    model: &'a LevelModel<'a>,
    options: &'a MemoriesOptions,
    budget: &'a Budget,
    /// Calls made.
    pub(crate) calls: u64,
}

impl<'a> Placer<'a> {
    pub(crate) fn new(
        model: &'a LevelModel<'a>,
        options: &'a MemoriesOptions,
        budget: &'a Budget,
    ) -> Placer<'a> {
        Placer {
            model,
            options,
            budget,
            calls: 0,
        }
    }

    /// The call's budget.
    pub(crate) fn budget(&self) -> &Budget {
        self.budget
    }

    /// True once the budget is spent.
    pub(crate) fn exhausted(&self) -> bool {
        self.budget.exhausted()
    }

    /// Plans the buffers with `kept[i]` under the capacity, keeping fixed offsets.
    pub(crate) fn place(&mut self, kept: &[bool], effort: Effort) -> Placement {
        let members = members(kept);
        let n = self.model.len();
        if members.is_empty() {
            return Placement::Fits(vec![Offset::ZERO; n]);
        }
        if self.budget.exhausted() {
            return Placement::Unknown(None);
        }
        self.calls += 1;
        let problem = self.model.problem;
        let sub = sub_problem(problem, &members);
        let large = members.len() > EXACT_PLACEMENT_MAX_BUFFERS;
        // A child of the call's budget: the same deadline and cancellation (at most half
        // the time left for the portfolio), the first greedy plan let finish on large
        // sets, and the placement's node limit for each search (held to the call's).
        let budget = self
            .budget
            .child()
            .with_finish_first_plan(large)
            .with_node_limit(self.budget.nodes_at_most(self.options.placement_node_limit));
        let (planner, budget) = match (large, effort) {
            (false, _) => (Planner::Exact, budget),
            (true, Effort::Best) => (Planner::GreedyPortfolio, budget.share(Instant::now(), 0.5)),
            (true, Effort::Quick) => (Planner::Greedy(GreedyOrder::Start, Fit::BestFit), budget),
        };
        let options = Options {
            planner,
            threads: self.options.threads,
            verify: false,
            ..Options::default()
        };
        let capacity = Some(self.model.capacity);
        let Ok(report) = crate::driver::run_within(&sub, capacity, &options, &budget) else {
            return Placement::Unknown(None);
        };
        let spread = |offsets: &[Offset]| {
            let mut all = vec![Offset::ZERO; n];
            for (&i, &o) in members.iter().zip(offsets) {
                all[i] = o;
            }
            all
        };
        match &report.outcome {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => {
                Placement::Fits(spread(p.offsets()))
            }
            Outcome::Infeasible => Placement::Infeasible,
            Outcome::Unknown { best_so_far, .. } => {
                Placement::Unknown(best_so_far.as_ref().map(|p| spread(p.offsets())))
            }
        }
    }
}

/// An index of lifetimes for the question "which buffers overlap `[s, e)`?", answered in
/// time proportional to the answer: those whose lifetime contains `s` (a segment tree
/// over the event times, each lifetime stored in its O(log n) canonical nodes, walked
/// from the root to the leaf of `s`), plus those that start inside `(s, e)` (a range of
/// the buffers sorted by start). Gaps are ignored here; callers test `live_together`.
pub(crate) struct LifetimeIndex {
    /// The distinct lifetime starts and ends, sorted: leaf `k` is `[times[k], times[k+1])`.
    times: Vec<Time>,
    /// For each tree node, the buffers whose lifetime covers the node's whole range.
    covering: Vec<Vec<BufferIdx>>,
    /// Buffer indices by lifetime start, and those starts.
    by_start: Vec<BufferIdx>,
    starts: Vec<Time>,
}

impl LifetimeIndex {
    pub(crate) fn new(model: &LevelModel<'_>) -> LifetimeIndex {
        let problem = model.problem;
        let times = crate::analysis::lifetime_boundaries(problem);
        let leaves = times.len().max(1);
        let mut index = LifetimeIndex {
            covering: vec![Vec::new(); 4 * leaves],
            by_start: problem.indices().collect(),
            starts: Vec::new(),
            times,
        };
        for (i, b) in problem.indexed() {
            let at = |t: Time| index.times.partition_point(|&x| x < t);
            let range = (at(b.lifetime.start), at(b.lifetime.end));
            index.insert(1, 0, leaves, range, i);
        }
        index
            .by_start
            .sort_unstable_by_key(|&i| (problem.buffer(i).lifetime.start, i));
        index.starts = index
            .by_start
            .iter()
            .map(|&i| problem.buffer(i).lifetime.start)
            .collect();
        index
    }

    fn insert(&mut self, node: usize, lo: usize, hi: usize, range: (usize, usize), i: BufferIdx) {
        let (from, to) = range;
        if to <= lo || hi <= from {
            return;
        }
        if from <= lo && hi <= to {
            self.covering[node].push(i);
            return;
        }
        let mid = (lo + hi) / 2;
        self.insert(2 * node, lo, mid, range, i);
        self.insert(2 * node + 1, mid, hi, range, i);
    }

    /// Every buffer other than `x` that is kept and live together with `x`.
    pub(crate) fn kept_neighbours(
        &self,
        model: &LevelModel<'_>,
        spilled: &[bool],
        x: BufferIdx,
    ) -> Vec<BufferIdx> {
        let bufs = model.problem.buffers();
        let lt = bufs[x].lifetime;
        let mut out = Vec::new();
        let mut keep = |j: BufferIdx| {
            if j != x && !spilled[j] && bufs[x].live_together(&bufs[j]) {
                out.push(j);
            }
        };
        // Lifetimes that contain the start of x.
        let leaf = self.times.partition_point(|&t| t < lt.start);
        let (mut node, mut lo, mut hi) = (1, 0, self.times.len().max(1));
        loop {
            for &j in &self.covering[node] {
                keep(j);
            }
            if hi - lo <= 1 {
                break;
            }
            let mid = (lo + hi) / 2;
            if leaf < mid {
                (node, hi) = (2 * node, mid);
            } else {
                (node, lo) = (2 * node + 1, mid);
            }
        }
        // Lifetimes that start inside (start, end).
        let from = self.starts.partition_point(|&s| s <= lt.start);
        let to = self.starts.partition_point(|&s| s < lt.end);
        for &j in &self.by_start[from..to] {
            keep(j);
        }
        out
    }
}

/// Spills the kept buffers that end above the capacity in `offsets`. True when that
/// leaves a valid plan (no forced-fast buffer overflows); otherwise also spills the free
/// buffers live together with an overflowing forced-fast one, for another placement.
pub(crate) fn repair(
    model: &LevelModel<'_>,
    index: &LifetimeIndex,
    spilled: &mut [bool],
    offsets: &[Offset],
) -> bool {
    let over: Vec<BufferIdx> = model
        .problem
        .indexed()
        .filter(|&(i, b)| !spilled[i] && offsets[i] + b.size > model.capacity)
        .map(|(i, _)| i)
        .collect();
    let mut valid = true;
    for &i in &over {
        if model.forced_fast(i) {
            valid = false;
            for j in index.kept_neighbours(model, spilled, i) {
                spilled[j] |= !model.forced_fast(j);
            }
        } else {
            spilled[i] = true;
        }
    }
    valid
}

/// The address ranges `[offset, offset + size)` of `neighbours`, sorted.
fn ranges(
    model: &LevelModel<'_>,
    offsets: &[Offset],
    neighbours: &[BufferIdx],
) -> Vec<(Offset, Offset)> {
    let mut r: Vec<(Offset, Offset)> = neighbours
        .iter()
        .map(|&j| (offsets[j], offsets[j] + model.problem.buffer(j).size))
        .collect();
    r.sort_unstable();
    r
}

/// The lowest aligned offset at which `x` fits under the capacity without touching any
/// of its kept neighbours, if any.
pub(crate) fn free_window(
    model: &LevelModel<'_>,
    offsets: &[Offset],
    neighbours: &[BufferIdx],
    x: BufferIdx,
) -> Option<Offset> {
    let b = model.problem.buffer(x);
    let mut at = Offset::ZERO;
    for (lo, hi) in ranges(model, offsets, neighbours) {
        if at.checked_add(b.size)? <= lo {
            break;
        }
        if hi > at {
            at = hi.checked_align_up(b.alignment)?;
        }
    }
    (at.checked_add(b.size)? <= model.capacity).then_some(at)
}

/// The cheapest window for `x`: an aligned offset under the capacity and the kept
/// neighbours it overlaps there (none of them forced fast), with their total cost, the
/// lowest total first. Candidate offsets: 0 and the top of every neighbour, rounded up.
pub(crate) fn cheapest_window(
    model: &LevelModel<'_>,
    offsets: &[Offset],
    neighbours: &[BufferIdx],
    x: BufferIdx,
) -> Option<(Offset, Vec<BufferIdx>, u64)> {
    let bufs = model.problem.buffers();
    let (size, align) = (bufs[x].size, bufs[x].alignment);
    let mut candidates: Vec<Offset> = std::iter::once(Offset::ZERO)
        .chain(
            neighbours
                .iter()
                .filter_map(|&j| (offsets[j] + bufs[j].size).checked_align_up(align)),
        )
        .filter(|&o| o.checked_add(size).is_some_and(|top| top <= model.capacity))
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut best: Option<(Offset, Vec<BufferIdx>, u64)> = None;
    for o in candidates {
        let mut blockers = Vec::new();
        let mut cost = 0u64;
        let mut blocked = false;
        for &j in neighbours {
            let (lo, hi) = (offsets[j], offsets[j] + bufs[j].size);
            if lo < o + size && o < hi {
                if model.forced_fast(j) {
                    blocked = true;
                    break;
                }
                blockers.push(j);
                cost = cost.saturating_add(model.costs[j]);
            }
        }
        if !blocked && best.as_ref().is_none_or(|&(_, _, c)| cost < c) {
            best = Some((o, blockers, cost));
        }
    }
    best
}
