//! The improvement phase: moves that lower the cost of a valid solution and keep it valid.
//!
//! - *insert*: put a spilled buffer into a free address window of the fast plan, live
//!   buffers untouched (most expensive first);
//! - *swap*: un-spill a buffer into the window whose kept occupants (none forced fast)
//!   cost least in total, when that total is below its cost; the occupants are spilled
//!   and then offered to *insert* elsewhere;
//! - *re-plan* (seeded): un-spill a few spilled buffers that fit by load, drawn at random
//!   with the most expensive first in expectation, and plan the kept set again from
//!   scratch with memplan's planner; a plan that overflows is repaired as in the
//!   heuristic. The new solution is kept when it costs less.
//!
//! Every move is deterministic given the seed; the time limit only cuts rounds short.

use crate::budget::{work, Budget};
use crate::types::{BufferIdx, Offset};

use super::load::LoadTree;
use super::model::{Decision, LevelModel, Solution};
use super::place::{
    cheapest_window, free_window, repair, Effort, LifetimeIndex, Placement, Placer,
};

/// Windows with more kept neighbours than this are not searched by *swap* (its cost is
/// quadratic in them).
const SWAP_MAX_NEIGHBOURS: usize = 512;

/// *Insert* for every spilled free buffer, most expensive first. True when one moved.
pub(crate) fn insert_pass(
    model: &LevelModel<'_>,
    index: &LifetimeIndex,
    sol: &mut Solution,
    budget: &Budget,
) -> bool {
    let order = model.spilled_by_cost(&sol.spilled);
    insert_in_order(model, index, sol, &order, budget)
}

/// *Insert* for the spilled free buffers of `order`, in that order, each at the lowest
/// free address (first fit). True when one moved.
pub(crate) fn insert_in_order(
    model: &LevelModel<'_>,
    index: &LifetimeIndex,
    sol: &mut Solution,
    order: &[BufferIdx],
    budget: &Budget,
) -> bool {
    let mut moved = false;
    // The load filter: a buffer that would overload some time fits in no window.
    let mut load = LoadTree::new(model, &sol.spilled);
    for &x in order {
        if !sol.spilled[x] || model.base[x] != Decision::Free {
            continue;
        }
        if budget.exhausted() {
            break;
        }
        if model.costs[x] == 0 || !load.fits(x) {
            continue;
        }
        let neighbours = index.kept_neighbours(model, &sol.spilled, x);
        // The neighbours' ranges are sorted, then scanned: k log k steps.
        let k = neighbours.len() as u64 + 1;
        budget.charge(work::units(
            k * (1 + u64::from(k.ilog2())),
            work::WINDOW_STEPS_PER_UNIT,
        ));
        if let Some(o) = free_window(model, &sol.offsets, &neighbours, x) {
            load.add(x);
            sol.spilled[x] = false;
            sol.offsets[x] = o;
            sol.cost -= model.costs[x];
            moved = true;
        }
    }
    moved
}

/// *Swap* for every spilled free buffer, most expensive first. True when one moved.
pub(crate) fn swap_pass(
    model: &LevelModel<'_>,
    index: &LifetimeIndex,
    sol: &mut Solution,
    budget: &Budget,
) -> bool {
    let mut moved = false;
    for x in model.spilled_by_cost(&sol.spilled) {
        if budget.exhausted() {
            break;
        }
        if !sol.spilled[x] {
            continue;
        }
        let neighbours = index.kept_neighbours(model, &sol.spilled, x);
        if neighbours.len() > SWAP_MAX_NEIGHBOURS {
            continue;
        }
        // Every candidate address (0 and each neighbour's top) against every neighbour.
        let k = neighbours.len() as u64;
        budget.charge(work::units((k + 1) * k.max(1), work::WINDOW_STEPS_PER_UNIT));
        let Some((o, blockers, cost)) = cheapest_window(model, &sol.offsets, &neighbours, x) else {
            continue;
        };
        if cost >= model.costs[x] {
            continue;
        }
        for &j in &blockers {
            sol.spilled[j] = true;
        }
        sol.spilled[x] = false;
        sol.offsets[x] = o;
        sol.cost = sol.cost - model.costs[x] + cost;
        moved = true;
    }
    moved
}

/// Insert and swap until neither moves (at most `passes` times).
pub(crate) fn local_search(
    model: &LevelModel<'_>,
    index: &LifetimeIndex,
    sol: &mut Solution,
    passes: usize,
    budget: &Budget,
) {
    for _ in 0..passes {
        let a = insert_pass(model, index, sol, budget);
        let b = swap_pass(model, index, sol, budget);
        if !(a || b) {
            break;
        }
    }
}

/// A SplitMix64 generator: small, seeded, the same on every platform.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The whole phase: local search, then `rounds` of seeded re-planning, each followed by
/// local search. `sol` only ever gets cheaper.
pub(crate) fn run(
    model: &LevelModel<'_>,
    placer: &mut Placer<'_>,
    index: &LifetimeIndex,
    sol: &mut Solution,
    rounds: u32,
    seed: u64,
) {
    local_search(model, index, sol, 8, placer.budget());
    let mut rng = Rng::new(seed);
    for _ in 0..rounds {
        if placer.exhausted() || sol.cost == 0 {
            break;
        }
        let Some(candidate) = replan(model, placer, index, sol, &mut rng) else {
            continue;
        };
        if candidate.cost < sol.cost {
            *sol = candidate;
        }
    }
}

/// One *re-plan* move; `None` when no buffer could be un-spilled or the planner failed.
fn replan(
    model: &LevelModel<'_>,
    placer: &mut Placer<'_>,
    index: &LifetimeIndex,
    sol: &Solution,
    rng: &mut Rng,
) -> Option<Solution> {
    let mut spilled = sol.spilled.clone();
    let mut tree = LoadTree::new(model, &spilled);
    let wanted = 1 + rng.next() % 4;
    let mut taken = 0u64;
    for x in model.spilled_by_cost(&sol.spilled) {
        // Each candidate is taken with chance 1/2 if it fits, so the most expensive ones
        // come first in expectation and the draws differ from round to round.
        if taken == wanted {
            break;
        }
        if rng.next() & 1 == 0 && tree.fits(x) {
            tree.add(x);
            spilled[x] = false;
            taken += 1;
        }
    }
    if taken == 0 {
        return None;
    }
    let kept: Vec<bool> = spilled.iter().map(|&s| !s).collect();
    let offsets: Vec<Offset> = match placer.place(&kept, Effort::Quick) {
        Placement::Fits(o) => o,
        Placement::Unknown(Some(o)) => {
            if !repair(model, index, &mut spilled, &o) {
                return None;
            }
            o
        }
        Placement::Infeasible | Placement::Unknown(None) => return None,
    };
    let mut next = Solution {
        cost: model.cost_of(&spilled),
        spilled,
        offsets,
    };
    local_search(model, index, &mut next, 8, placer.budget());
    Some(next)
}
