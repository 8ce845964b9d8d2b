//! One level (a bounded memory against the rest): the stages in order, under one budget.
//!
//! ```text
//!   root bound; Infeasible when forced buffers alone overflow     bound.rs
//!   Lagrangian relaxation: a stronger bound, a cheap cover      cover.rs
//!   heuristic: a first valid solution, and the cover placed   heuristic.rs
//!   improvement (if on, and above the bound)   improve.rs
//!   first-fit insertion in three orders (if on)  greedy_starts, below
//!   exact search per time component (if on)    exact.rs
//! ```
//!
//! Invariant: the solution carried from stage to stage is always valid (its kept
//! buffers have a plan under the capacity), and a stage replaces it only with a cheaper
//! one.

use std::time::Instant;

use crate::analysis::time_components;
use crate::budget::Budget;

use super::baseline;
use super::bound::{lower_bound, Bound, BoundOptions};
use super::cover;
use super::heuristic::{self, Start};
use super::model::{sub_problem, Decision, LevelModel, Solution};
use super::place::{LifetimeIndex, Placer};
use super::{exact, improve, LevelStats, MemoriesOptions};
use crate::types::BufferIdx;

/// The share of the time limit the search may use; the slow plan and the final check
/// get the rest.
const SEARCH_SHARE: f64 = 0.9;

/// The share of the time limit the Lagrangian ascent may use at most.
const RELAXATION_SHARE: f64 = 0.25;

/// Under a time limit, each search's node limit is at most this many nodes per second of
/// the limit (and at least [`MIN_NODES`]; a work limit counts as many seconds as it is
/// multiples of [`crate::Budget::DEFAULT_WORK_LIMIT`]): a short limit is better spent on many cheap
/// placements than on a few thorough ones. On A–K at 90% of the max load with a 2 s
/// limit, 2,000 nodes per placement left the cost at 1.75 times the bound (geometric
/// mean) where 20,000 left it at 2.34; at 30 s, 20,000 did better (BENCHMARKS.md §12).
const NODES_PER_SECOND: f64 = 1_000.0;
/// The least node limit that [`NODES_PER_SECOND`] gives.
const MIN_NODES: u64 = 200;

/// `options` with the branch and bound's and the placements' node limits held to
/// [`NODES_PER_SECOND`] times the call's time (unchanged without a time or work limit).
fn scaled_to_time(options: &MemoriesOptions, time: Option<std::time::Duration>) -> MemoriesOptions {
    let Some(time) = time else {
        return options.clone();
    };
    let cap = ((time.as_secs_f64() * NODES_PER_SECOND) as u64).max(MIN_NODES);
    MemoriesOptions {
        exact_node_limit: options.exact_node_limit.min(cap),
        placement_node_limit: options.placement_node_limit.min(cap),
        ..options.clone()
    }
}

/// What one level's search gives.
pub(crate) struct LevelResult {
    /// `Found`: the cheapest valid choice found (its kept buffers placed under the
    /// capacity); `Infeasible`: the forced buffers cannot fit (proven); `Unknown`: no
    /// placement was found in time.
    pub(crate) start: Start,
    /// A proven lower bound on the cost of any valid choice (at most the found cost).
    pub(crate) bound: u64,
    /// Effort.
    pub(crate) stats: LevelStats,
}

/// Solves one level: which buffers leave the level's memory (cost `model.costs`), the
/// rest placed under its capacity. `call` is the level's budget, already started; the
/// search uses [`SEARCH_SHARE`] of it and leaves the rest for the later levels. `time`
/// is the level's part of the call's time limit (none without one), which holds the
/// node limits to [`NODES_PER_SECOND`].
pub(crate) fn run(
    model: &LevelModel<'_>,
    call: &Budget,
    time: Option<std::time::Duration>,
    options: &MemoriesOptions,
) -> LevelResult {
    let started = Instant::now();
    let budget = call.share(started, SEARCH_SHARE);
    let scaled = scaled_to_time(options, time);
    let options = &scaled;
    let problem = model.problem;
    let capacity = model.capacity;
    let bound_options = BoundOptions {
        rounding: options.rounding_bound,
        chain: options.chain_bound,
        holes: options.holes_bound,
    };
    let mut stats = LevelStats::default();
    let result = |start, bound, stats| LevelResult {
        start,
        bound,
        stats,
    };
    let root = match lower_bound(
        problem,
        capacity.get(),
        &model.costs,
        &model.base,
        bound_options,
    ) {
        Bound::Infeasible => return result(Start::Infeasible, 0, stats),
        Bound::AtLeast(b) => b,
    };
    let relaxation = if options.lagrangian && options.baseline.is_none() {
        cover::solve(model, &call.share(started, RELAXATION_SHARE))
    } else {
        cover::Relaxation {
            bound: 0,
            keys: None,
        }
    };
    let root = root.max(relaxation.bound);
    stats.root_bound = root;
    let index = LifetimeIndex::new(model);
    let start = match options.baseline {
        Some(b) => {
            let mut placer = Placer::new(model, options, &budget);
            let start = baseline::run(model, &mut placer, &index, b);
            stats.placements += placer.calls;
            start
        }
        None => first_solution(model, options, &budget, &index, &relaxation, &mut stats),
    };
    let mut sol = match start {
        Start::Found(s) => s,
        other => return result(other, root, stats),
    };
    let mut placer = Placer::new(model, options, &budget);
    stats.heuristic_cost = Some(sol.cost);
    if options.improve && options.baseline.is_none() && sol.cost > root {
        improve::run(
            model,
            &mut placer,
            &index,
            &mut sol,
            options.improve_rounds,
            options.seed,
        );
        stats.improved_cost = Some(sol.cost);
    }
    if options.greedy_starts && options.baseline.is_none() && sol.cost > root {
        greedy_starts(model, &index, &mut sol, &budget);
    }
    stats.placements += placer.calls;
    let mut bound = root;
    if options.exact && options.baseline.is_none() && sol.cost > root {
        let by_components =
            exact_components(model, options, &budget, bound_options, &mut sol, &mut stats);
        bound = bound.max(by_components);
    }
    debug_assert!(
        bound <= sol.cost,
        "bound {bound} above a valid cost {}",
        sol.cost
    );
    let bound = bound.min(sol.cost);
    result(Start::Found(sol), bound, stats)
}

/// A buffer's key in an order of [`greedy_starts`]: the lowest first (ties: index).
type OrderKey = fn(&LevelModel<'_>, BufferIdx) -> (u64, BufferIdx);

/// The orders of [`greedy_starts`].
const GREEDY_ORDERS: [OrderKey; 3] = [
    // Largest first, as ExecuTorch's banked greedy pass places buffers.
    |m, i| (u64::MAX - m.problem.buffer(i).size.get(), i),
    // The most traffic first.
    |m, i| (u64::MAX - m.costs[i], i),
    // The most traffic per unit of the room it takes, √(size × lifetime).
    |m, i| {
        let b = m.problem.buffer(i);
        let room = (b.size.get() as f64 * b.lifetime.len().max(1) as f64).sqrt();
        let per = m.costs[i] as f64 / room;
        // Non-negative floats order like their bits; the largest first.
        (u64::MAX - per.to_bits(), i)
    },
];

/// After the improvement phase, solutions built by insertion alone, the way a first-fit
/// allocator works: every free buffer out of the memory (the forced ones stay where
/// `sol` has them), then each put back at the lowest free address where it fits, in
/// each of [`GREEDY_ORDERS`]. Where the fast memory is about as large as single
/// buffers, which buffers pack well decides the traffic, and the covers of the
/// heuristic (chosen by load, then placed) can miss it: on efficientnet_b0's graph with
/// a TCM of 256 KB, largest-first insertion keeps 15.98 MB of traffic where the cover
/// and its improvement keep 15.15 MB, and 15.98 MB is the most any plan keeps. The
/// cheapest replaces `sol` when it is cheaper, and then gets the local search of the
/// improvement phase. O(n × live neighbours) per order, charged to `budget`. (Run
/// before the improvement phase instead, a cheaper start led it, within the same work,
/// to a costlier end: on the challenging H at 80% with two memories.)
fn greedy_starts(
    model: &LevelModel<'_>,
    index: &LifetimeIndex,
    sol: &mut Solution,
    budget: &Budget,
) {
    let mut empty = sol.clone();
    for i in model.decided(Decision::Free) {
        if !empty.spilled[i] {
            empty.spilled[i] = true;
            empty.cost += model.costs[i];
        }
    }
    for key in GREEDY_ORDERS {
        if budget.exhausted() {
            break;
        }
        let mut order: Vec<BufferIdx> = model.decided(Decision::Free).collect();
        order.sort_by_key(|&i| key(model, i));
        let mut start = empty.clone();
        improve::insert_in_order(model, index, &mut start, &order, budget);
        if start.cost < sol.cost {
            improve::local_search(model, index, &mut start, 8, budget);
            *sol = start;
        }
    }
}

/// Builds a cover of the overloads for a model's capacity.
type CoverFn<'a> = dyn Fn(&LevelModel<'_>) -> Vec<bool> + 'a;

/// The heuristic from the relaxation's cover when it is cheaper than the heuristic's own
/// (with half the time left), then from its own; the cheaper solution.
fn first_solution(
    model: &LevelModel<'_>,
    options: &MemoriesOptions,
    budget: &Budget,
    index: &LifetimeIndex,
    relaxation: &cover::Relaxation,
    stats: &mut LevelStats,
) -> Start {
    let own = model.cost_of(&heuristic::default_cover(model));
    let relaxed = |m: &LevelModel<'_>| {
        relaxation
            .cover(m)
            .unwrap_or_else(|| heuristic::default_cover(m))
    };
    let mut covers: Vec<&CoverFn<'_>> = Vec::new();
    if relaxation.keys.as_ref().is_some_and(|(_, c)| *c < own) {
        covers.push(&relaxed);
    }
    covers.push(&heuristic::default_cover);
    let mut best: Option<Solution> = None;
    for (k, cover) in covers.iter().enumerate() {
        let last = k + 1 == covers.len();
        // Every cover but the last gets at most half the time left.
        let share = if last {
            budget.clone()
        } else {
            budget.share(Instant::now(), 0.5)
        };
        let mut placer = Placer::new(model, options, &share);
        let start = heuristic::run(model, &mut placer, index, *cover);
        stats.placements += placer.calls;
        match start {
            Start::Found(s) if best.as_ref().is_none_or(|b| s.cost < b.cost) => best = Some(s),
            Start::Found(_) => {}
            Start::Infeasible => return Start::Infeasible,
            Start::Unknown if last && best.is_none() => return Start::Unknown,
            Start::Unknown => {}
        }
    }
    best.map_or(Start::Unknown, Start::Found)
}

/// The exact search on every time component with few enough undecided buffers (the
/// others keep their part of `sol` and their root bound). Updates `sol` with the cheaper
/// parts and returns the sum of the components' bounds.
fn exact_components(
    model: &LevelModel<'_>,
    options: &MemoriesOptions,
    budget: &Budget,
    bound_options: BoundOptions,
    sol: &mut Solution,
    stats: &mut LevelStats,
) -> u64 {
    let mut total = 0u64;
    for component in time_components(model.problem) {
        let members = &component.buffers;
        let sub = sub_problem(model.problem, members);
        let part = LevelModel {
            problem: &sub,
            capacity: model.capacity,
            costs: members.iter().map(|&i| model.costs[i]).collect(),
            base: members.iter().map(|&i| model.base[i]).collect(),
        };
        let spilled: Vec<bool> = members.iter().map(|&i| sol.spilled[i]).collect();
        let start = Solution {
            cost: part.cost_of(&spilled),
            offsets: members.iter().map(|&i| sol.offsets[i]).collect(),
            spilled,
        };
        let root = match lower_bound(
            &sub,
            part.capacity.get(),
            &part.costs,
            &part.base,
            bound_options,
        ) {
            Bound::AtLeast(b) => b.min(start.cost),
            Bound::Infeasible => 0, // not reached: `sol` is valid
        };
        let free = part.base.iter().filter(|&&d| d == Decision::Free).count();
        if root >= start.cost || free > options.exact_max_buffers || budget.exhausted() {
            total = total.saturating_add(root);
            continue;
        }
        stats.exact_components += 1;
        let index = LifetimeIndex::new(&part);
        let mut placer = Placer::new(&part, options, budget);
        let result = exact::search(
            &part,
            &mut placer,
            &index,
            bound_options,
            start,
            budget.nodes_at_most(options.exact_node_limit),
        );
        stats.placements += placer.calls;
        stats.branch_nodes += result.nodes;
        stats.exact_closed += usize::from(result.closed);
        total = total.saturating_add(result.bound.max(root));
        for (k, &i) in members.iter().enumerate() {
            sol.spilled[i] = result.best.spilled[k];
            sol.offsets[i] = result.best.offsets[k];
        }
    }
    sol.cost = model.cost_of(&sol.spilled);
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn node_limits_scale_with_the_time_limit_only() {
        let o = MemoriesOptions::default();
        let same = scaled_to_time(&o, None);
        assert_eq!(same.placement_node_limit, o.placement_node_limit);
        let two = scaled_to_time(&o, Some(Duration::from_secs(2)));
        assert_eq!(
            (two.exact_node_limit, two.placement_node_limit),
            (2_000, 2_000)
        );
        let long = scaled_to_time(&o, Some(Duration::from_secs(3_600)));
        assert_eq!(long.placement_node_limit, o.placement_node_limit);
        let none = scaled_to_time(&o, Some(Duration::ZERO));
        assert_eq!(none.placement_node_limit, MIN_NODES);
    }
}
