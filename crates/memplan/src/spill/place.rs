//! Placing kept buffers in fast memory: memplan's planner on a kept set ([`Placer`]), and
//! cheap moves on an existing fast plan (inserting a buffer into a free address window,
//! finding the cheapest window to clear), helped by an index of lifetimes.

use std::time::Instant;

use crate::budget::Budget;
use crate::greedy::{Fit, Order as GreedyOrder};
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::types::{Offset, Size};

use super::model::{sub_problem, SpillModel};
use super::solve::capped;
use super::SpillOptions;

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
    model: &'a SpillModel<'a>,
    options: &'a SpillOptions,
    budget: &'a Budget,
    /// Calls made.
    pub(crate) calls: u64,
}

impl<'a> Placer<'a> {
    pub(crate) fn new(
        model: &'a SpillModel<'a>,
        options: &'a SpillOptions,
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
        let members: Vec<usize> = (0..kept.len()).filter(|&i| kept[i]).collect();
        let n = self.model.len();
        if members.is_empty() {
            return Placement::Fits(vec![Offset(0); n]);
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
            .with_node_limit(capped(self.options.placement_node_limit, self.budget));
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
        let capacity = Some(Size(self.model.capacity));
        let Ok(report) = crate::driver::run_within(&sub, capacity, &options, &budget) else {
            return Placement::Unknown(None);
        };
        let spread = |offsets: &[Offset]| {
            let mut all = vec![Offset(0); n];
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
    times: Vec<u64>,
    /// For each tree node, the buffers whose lifetime covers the node's whole range.
    covering: Vec<Vec<u32>>,
    /// Buffer indices by lifetime start, and those starts.
    by_start: Vec<u32>,
    starts: Vec<u64>,
}

impl LifetimeIndex {
    pub(crate) fn new(model: &SpillModel<'_>) -> LifetimeIndex {
        let bufs = model.problem.buffers();
        let times = crate::analysis::lifetime_boundaries(model.problem);
        let leaves = times.len().max(1);
        let mut index = LifetimeIndex {
            covering: vec![Vec::new(); 4 * leaves],
            by_start: (0..bufs.len() as u32).collect(),
            starts: Vec::new(),
            times,
        };
        for (i, b) in bufs.iter().enumerate() {
            let at = |t: u64| index.times.partition_point(|&x| x < t);
            let range = (at(b.lifetime.start.0), at(b.lifetime.end.0));
            index.insert(1, 0, leaves, range, i as u32);
        }
        index
            .by_start
            .sort_unstable_by_key(|&i| (bufs[i as usize].lifetime.start, i));
        index.starts = index
            .by_start
            .iter()
            .map(|&i| bufs[i as usize].lifetime.start.0)
            .collect();
        index
    }

    fn insert(&mut self, node: usize, lo: usize, hi: usize, range: (usize, usize), i: u32) {
        if range.1 <= lo || hi <= range.0 {
            return;
        }
        if range.0 <= lo && hi <= range.1 {
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
        model: &SpillModel<'_>,
        spilled: &[bool],
        x: usize,
    ) -> Vec<usize> {
        let bufs = model.problem.buffers();
        let lt = bufs[x].lifetime;
        let mut out = Vec::new();
        let mut keep = |j: usize| {
            if j != x && !spilled[j] && bufs[x].live_together(&bufs[j]) {
                out.push(j);
            }
        };
        // Lifetimes that contain the start of x.
        let leaf = self.times.partition_point(|&t| t < lt.start.0);
        let (mut node, mut lo, mut hi) = (1, 0, self.times.len().max(1));
        loop {
            for &j in &self.covering[node] {
                keep(j as usize);
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
        let from = self.starts.partition_point(|&s| s <= lt.start.0);
        let to = self.starts.partition_point(|&s| s < lt.end.0);
        for &j in &self.by_start[from..to] {
            keep(j as usize);
        }
        out
    }
}

/// The address ranges `[offset, offset + size)` of `neighbours`, sorted.
fn ranges(model: &SpillModel<'_>, offsets: &[Offset], neighbours: &[usize]) -> Vec<(u64, u64)> {
    let bufs = model.problem.buffers();
    let mut r: Vec<(u64, u64)> = neighbours
        .iter()
        .map(|&j| (offsets[j].0, offsets[j].0 + bufs[j].size.0))
        .collect();
    r.sort_unstable();
    r
}

/// The lowest aligned offset at which `x` fits under the capacity without touching any
/// of its kept neighbours, if any.
pub(crate) fn free_window(
    model: &SpillModel<'_>,
    offsets: &[Offset],
    neighbours: &[usize],
    x: usize,
) -> Option<Offset> {
    let b = &model.problem.buffers()[x];
    let (size, align) = (b.size.0, b.alignment.0);
    let mut at = 0u64;
    for (lo, hi) in ranges(model, offsets, neighbours) {
        if at.checked_add(size)? <= lo {
            break;
        }
        if hi > at {
            at = hi.checked_next_multiple_of(align)?;
        }
    }
    (at.checked_add(size)? <= model.capacity).then_some(Offset(at))
}

/// The cheapest window for `x`: an aligned offset under the capacity and the kept
/// neighbours it overlaps there (none of them forced fast), with their total cost, the
/// lowest total first. Candidate offsets: 0 and the top of every neighbour, rounded up.
pub(crate) fn cheapest_window(
    model: &SpillModel<'_>,
    offsets: &[Offset],
    neighbours: &[usize],
    x: usize,
) -> Option<(Offset, Vec<usize>, u64)> {
    let bufs = model.problem.buffers();
    let (size, align) = (bufs[x].size.0, bufs[x].alignment.0);
    let mut candidates: Vec<u64> = std::iter::once(0)
        .chain(
            neighbours
                .iter()
                .filter_map(|&j| (offsets[j].0 + bufs[j].size.0).checked_next_multiple_of(align)),
        )
        .filter(|&o| o.checked_add(size).is_some_and(|top| top <= model.capacity))
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut best: Option<(Offset, Vec<usize>, u64)> = None;
    for o in candidates {
        let mut blockers = Vec::new();
        let mut cost = 0u64;
        let mut blocked = false;
        for &j in neighbours {
            let (lo, hi) = (offsets[j].0, offsets[j].0 + bufs[j].size.0);
            if lo < o + size && o < hi {
                if model.forced_fast(j) {
                    blocked = true;
                    break;
                }
                blockers.push(j);
                cost = cost.saturating_add(model.costs[j]);
            }
        }
        if !blocked && best.as_ref().is_none_or(|b| cost < b.2) {
            best = Some((Offset(o), blockers, cost));
        }
    }
    best
}
