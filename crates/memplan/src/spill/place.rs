//! Placing kept buffers in fast memory: memplan's planner on a kept set ([`Placer`]), and
//! cheap moves on an existing fast plan (inserting a buffer into a free address window,
//! finding the cheapest window to clear), helped by an index of lifetimes.

use std::time::Instant;

use crate::budget::Budget;
use crate::exact::ExactOptions;
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::types::{Offset, Size};

use super::model::{sub_problem, SpillModel};
use super::SpillOptions;

/// Up to this many kept buffers, a placement runs memplan's exact search (after its
/// greedy pass, under a node limit); above, the greedy portfolio alone, so that one
/// placement never takes the whole time limit.
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

    /// True once the budget is spent.
    pub(crate) fn exhausted(&self) -> bool {
        self.budget.exhausted()
    }

    /// Plans the buffers with `kept[i]` under the capacity, keeping fixed offsets.
    pub(crate) fn place(&mut self, kept: &[bool]) -> Placement {
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
        let sub = sub_problem(problem, &members, Some(Size(self.model.capacity)));
        let options = Options {
            planner: if members.len() <= EXACT_PLACEMENT_MAX_BUFFERS {
                Planner::Exact
            } else {
                Planner::GreedyPortfolio
            },
            threads: self.options.threads,
            time_limit: self
                .budget
                .deadline()
                .map(|d| d.saturating_duration_since(Instant::now())),
            cancel: self.options.cancel.clone(),
            verify: false,
            exact: ExactOptions {
                node_limit: Some(self.options.placement_node_limit),
                ..ExactOptions::default()
            },
            finish_first_plan: false,
            ..Options::default()
        };
        let Ok(report) = crate::plan(&sub, &options) else {
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

/// Buffers sorted by lifetime start in blocks, each block with its latest end: the
/// buffers whose lifetimes overlap a query interval are found by skipping the blocks
/// that end before it. Gaps are ignored here (callers test `live_together`).
pub(crate) struct LifetimeIndex {
    /// Buffer indices by lifetime start.
    order: Vec<u32>,
    starts: Vec<u64>,
    block_end: Vec<u64>,
}

const BLOCK: usize = 32;

impl LifetimeIndex {
    pub(crate) fn new(model: &SpillModel<'_>) -> LifetimeIndex {
        let bufs = model.problem.buffers();
        let mut order: Vec<u32> = (0..bufs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| (bufs[i as usize].lifetime.start, i));
        let starts = order
            .iter()
            .map(|&i| bufs[i as usize].lifetime.start.0)
            .collect();
        let block_end = order
            .chunks(BLOCK)
            .map(|c| {
                c.iter()
                    .map(|&i| bufs[i as usize].lifetime.end.0)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        LifetimeIndex {
            order,
            starts,
            block_end,
        }
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
        let upto = self.starts.partition_point(|&s| s < lt.end.0);
        let mut out = Vec::new();
        for (b, &end) in self.block_end.iter().enumerate() {
            let lo = b * BLOCK;
            if lo >= upto {
                break;
            }
            if end <= lt.start.0 {
                continue;
            }
            for &j in &self.order[lo..upto.min(lo + BLOCK)] {
                let j = j as usize;
                if j != x
                    && !spilled[j]
                    && bufs[j].lifetime.end > lt.start
                    && bufs[x].live_together(&bufs[j])
                {
                    out.push(j);
                }
            }
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
