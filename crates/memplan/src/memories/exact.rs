//! The exact search: branch and bound over the spill decisions of one time component.
//!
//! Buffers of different time components are never live together, so their decisions
//! are independent: the optimum is the sum of the components' optima, and the union of
//! their fast plans is a valid plan. Each component with few enough undecided buffers is
//! searched on its own.
//!
//! # The search
//!
//! The undecided buffers live at an overloaded time come first, each group in
//! decreasing cost (keeping an expensive buffer saves the most); *keep* before *spill*.
//! When a node's bound equals its spilled cost (no time needs more spilling), keeping
//! every undecided buffer is tried at once: if memplan's planner fits them, that is the
//! subtree's best. A node is a set of decisions plus a fast plan
//! of the buffers decided (or forced) fast, so that "spill every undecided buffer" is a
//! valid solution at every node: the incumbent improves from the first dive.
//!
//! ```text
//!   node (kept set K has a plan under C)
//!   ├─ keep x:  bound(K + x) < best?  x fits in a free window of K's plan?
//!   │           else memplan's exact search on K + x under C:
//!   │             plan → child;  Infeasible → no child (no superset of K + x fits);
//!   │             Unknown (node limit) → no child, its bound stays open
//!   └─ spill x: bound(S + x) < best? → child
//! ```
//!
//! Pruning uses the lower bound of `bound.rs` with the node's decisions; a subtree is
//! cut when its bound reaches the incumbent's cost. Completeness: a cut subtree holds
//! nothing cheaper than the final incumbent (bounds are valid and the incumbent only
//! improves), an infeasible kept set has no feasible superset, and a subtree abandoned
//! for a limit (placement or node limit, time) keeps its bound as *open*. So the optimum
//! is at least `min(incumbent, smallest open bound)`, and when nothing is open the
//! incumbent is optimal. The feasibility proofs are MiniMalloc's (Moffitt, ASPLOS 2023),
//! through [`crate::plan`] with [`crate::Planner::Exact`] and a capacity.

use crate::types::{BufferIdx, Offset};

use super::bound::{lower_bound, Bound, BoundOptions};
use super::load::{events, overload_time};
use super::model::{Decision, LevelModel, Solution};
use super::place::{free_window, Effort, LifetimeIndex, Placement, Placer};

/// The result of searching one component.
pub(crate) struct ComponentResult {
    /// The best solution found (at least as good as the one given).
    pub(crate) best: Solution,
    /// A proven lower bound on the component's optimum.
    pub(crate) bound: u64,
    /// True when the search finished: `best` is optimal.
    pub(crate) closed: bool,
    /// Nodes visited.
    pub(crate) nodes: u64,
}

struct Search<'s, 'm> {
    model: &'s LevelModel<'m>,
    placer: &'s mut Placer<'m>,
    index: &'s LifetimeIndex,
    options: BoundOptions,
    /// Undecided buffers, in decision order.
    order: Vec<BufferIdx>,
    /// `suffix[d]`: the cost of `order[d..]`.
    suffix: Vec<u64>,
    decisions: Vec<Decision>,
    best: Solution,
    /// The smallest bound of an abandoned subtree.
    open: u64,
    nodes: u64,
    node_limit: u64,
}

/// Searches `model` (one component) from the valid solution `start`.
pub(crate) fn search<'m>(
    model: &LevelModel<'m>,
    placer: &mut Placer<'m>,
    index: &LifetimeIndex,
    options: BoundOptions,
    start: Solution,
    node_limit: u64,
) -> ComponentResult {
    let bufs = model.problem.buffers();
    let mut order: Vec<BufferIdx> = model.decided(Decision::Free).collect();
    // Buffers live at an overloaded time first (their decisions matter), each group by
    // decreasing cost.
    let slow: Vec<bool> = model.base.iter().map(|&d| d == Decision::Slow).collect();
    let overload = overload_time(model, &slow, &events(model, &slow));
    order.sort_by_key(|&i| {
        let calm = overload[i] == 0;
        (calm, std::cmp::Reverse(model.costs[i]), bufs[i].size, i)
    });
    let mut suffix = vec![0u64; order.len() + 1];
    for d in (0..order.len()).rev() {
        suffix[d] = suffix[d + 1] + model.costs[order[d]];
    }
    let root = match lower_bound(
        model.problem,
        model.capacity.get(),
        &model.costs,
        &model.base,
        options,
    ) {
        Bound::AtLeast(b) => b,
        // The caller found a solution, so the forced-fast buffers fit.
        Bound::Infeasible => u64::MAX,
    };
    let mut s = Search {
        model,
        placer,
        index,
        options,
        order,
        suffix,
        decisions: model.base.clone(),
        best: start,
        open: u64::MAX,
        nodes: 0,
        node_limit,
    };
    let spilled_base = model.cost_of(
        &s.decisions
            .iter()
            .map(|&d| d == Decision::Slow)
            .collect::<Vec<_>>(),
    );
    // The root's kept set is the forced-fast buffers: the start solution's plan, minus
    // its other kept buffers, is a plan of it.
    let offsets = s.best.offsets.clone();
    s.dfs(0, spilled_base, offsets, root);
    let closed = s.open == u64::MAX;
    let bound = root.max(s.open.min(s.best.cost)).min(s.best.cost);
    ComponentResult {
        best: s.best,
        bound,
        closed,
        nodes: s.nodes,
    }
}

impl Search<'_, '_> {
    fn bound(&self) -> Option<u64> {
        // Sweeps over the buffers and their times: nine tenths of a search's time on D.
        self.placer.budget().charge(crate::budget::work::units(
            self.model.problem.len() as u64,
            crate::budget::work::BOUND_BUFFERS_PER_UNIT,
        ));
        match lower_bound(
            self.model.problem,
            self.model.capacity.get(),
            &self.model.costs,
            &self.decisions,
            self.options,
        ) {
            Bound::AtLeast(b) => Some(b),
            Bound::Infeasible => None,
        }
    }

    /// A node: decisions for `order[..depth]`, costing `spilled` so far, with `offsets` a
    /// plan of the kept buffers under the capacity and `lb` its bound.
    fn dfs(&mut self, depth: usize, spilled: u64, offsets: Vec<Offset>, lb: u64) {
        if lb >= self.best.cost {
            return;
        }
        if self.nodes >= self.node_limit || self.placer.exhausted() {
            self.open = self.open.min(lb);
            return;
        }
        self.nodes += 1;
        let all = spilled + self.suffix[depth];
        if all < self.best.cost {
            self.best = Solution {
                spilled: self
                    .decisions
                    .iter()
                    .map(|&d| d != Decision::Fast)
                    .collect(),
                offsets: offsets.clone(),
                cost: all,
            };
        }
        if depth < self.order.len() && lb == spilled && self.keep_the_rest(spilled) {
            return;
        }
        let Some(&x) = self.order.get(depth) else {
            return;
        };
        // Keep x.
        self.decisions[x] = Decision::Fast;
        if let Some(lb_keep) = self.bound().filter(|&b| b < self.best.cost) {
            match self.place_with(x, &offsets) {
                Placement::Fits(child) => self.dfs(depth + 1, spilled, child, lb_keep),
                Placement::Unknown(_) => self.open = self.open.min(lb_keep),
                Placement::Infeasible => {}
            }
        }
        // Spill x.
        self.decisions[x] = Decision::Slow;
        let cost = spilled + self.model.costs[x];
        if let Some(lb_spill) = self.bound().filter(|&b| b < self.best.cost) {
            self.dfs(depth + 1, cost, offsets, lb_spill);
        }
        self.decisions[x] = Decision::Free;
    }

    /// When the bound says nothing more needs spilling (`lb == spilled`), tries to keep
    /// every undecided buffer: if memplan's planner fits them all, that completion costs
    /// the bound, so it is the subtree's best; true then (the incumbent is updated).
    fn keep_the_rest(&mut self, spilled: u64) -> bool {
        let kept: Vec<bool> = self
            .decisions
            .iter()
            .map(|&d| d != Decision::Slow)
            .collect();
        let Placement::Fits(offsets) = self.placer.place(&kept, Effort::Best) else {
            return false;
        };
        self.best = Solution {
            spilled: kept.iter().map(|&k| !k).collect(),
            offsets,
            cost: spilled,
        };
        true
    }

    /// A plan of the kept buffers (now including `x`): `x` in a free window of
    /// `offsets`, else memplan's exact search on the whole kept set.
    fn place_with(&mut self, x: BufferIdx, offsets: &[Offset]) -> Placement {
        let spilled: Vec<bool> = self
            .decisions
            .iter()
            .map(|&d| d != Decision::Fast)
            .collect();
        let neighbours = self.index.kept_neighbours(self.model, &spilled, x);
        if let Some(o) = free_window(self.model, offsets, &neighbours, x) {
            let mut child = offsets.to_vec();
            child[x] = o;
            return Placement::Fits(child);
        }
        let kept: Vec<bool> = spilled.iter().map(|&s| !s).collect();
        self.placer.place(&kept, Effort::Best)
    }
}
