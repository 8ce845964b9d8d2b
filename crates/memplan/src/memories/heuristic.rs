//! The first solution, fast on large inputs:
//!
//! ```text
//!   1. cover the overloads   sweep time; wherever the kept load exceeds C, spill the live
//!                            buffer with the lowest cost per byte-time of overload
//!   2. un-spill by load      the most expensive spilled buffers first, while the load
//!                            stays under C at every time (a max-plus segment tree)
//!   3. place                 memplan's planner on the kept buffers, under C
//!   4. repair                if the plan overflows: spill the overflowing buffers (and,
//!                            when a forced-fast one overflows, its free neighbours; then
//!                            place again)
//!   5. insert                put spilled buffers back into free address windows
//! ```
//!
//! Steps 1 and 2 cost O(n log n); step 3 is one call of [`crate::plan`] in most cases.

use std::collections::BTreeSet;

use crate::budget::Budget;
use crate::types::{BufferIdx, Offset, Size};

use super::improve::insert_pass;
use super::load::{events, overload_time, Event, LoadTree};
use super::model::{Decision, LevelModel, Solution};
use super::place::{repair, Effort, LifetimeIndex, Placement, Placer};

/// The heuristic's answer.
pub(crate) enum Start {
    /// A valid solution.
    Found(Solution),
    /// The forced-fast buffers alone are proven not to fit.
    Infeasible,
    /// The forced-fast buffers alone could not be placed, nor proven not to fit.
    Unknown,
}

/// Placement rounds before keeping only the forced-fast buffers.
const REPAIR_ROUNDS: usize = 4;

/// The heuristic's own cover: steps 1 and 2 under the model's capacity.
pub(crate) fn default_cover(model: &LevelModel<'_>) -> Vec<bool> {
    let mut spilled: Vec<bool> = model.base.iter().map(|&d| d == Decision::Slow).collect();
    cover_overloads(model, &mut spilled);
    unspill_by_load(model, &mut spilled);
    spilled
}

/// Placements with a shaved capacity before falling back to repairs.
const SHAVE_ROUNDS: usize = 6;

/// Runs the heuristic (see the module docs) from the covers that `cover` builds for a
/// capacity. A cover whose load reaches the capacity rarely has a plan under it (that
/// takes a plan without fragmentation), so when the placement overflows by `h − C`, the
/// cover is built again for a capacity shaved by half of that (by 1/64 of the
/// capacity when the placement found no plan at all), twice as much each round, up to
/// [`SHAVE_ROUNDS`] times; the insertion step then gives back what the shave took where
/// the plan has room. The cheapest valid solution wins; the overflowing placements are
/// repaired into valid fallbacks.
pub(crate) fn run(
    model: &LevelModel<'_>,
    placer: &mut Placer<'_>,
    index: &LifetimeIndex,
    cover: &dyn Fn(&LevelModel<'_>) -> Vec<bool>,
) -> Start {
    let mut best: Option<Solution> = None;
    let mut shave = Size::ZERO;
    for _ in 0..SHAVE_ROUNDS {
        let target = LevelModel {
            capacity: model.capacity.saturating_sub(shave),
            ..model.clone()
        };
        let spilled = cover(&target);
        let kept: Vec<bool> = spilled.iter().map(|&s| !s).collect();
        let offsets = match placer.place(&kept, Effort::Best) {
            Placement::Fits(offsets) => {
                let sol = finish(model, index, spilled, offsets, placer.budget());
                return Start::Found(cheaper(best, sol));
            }
            Placement::Unknown(Some(offsets)) => offsets,
            Placement::Infeasible | Placement::Unknown(None) => {
                if placer.exhausted() {
                    break;
                }
                shave = next_shave(shave, model.capacity / 64);
                continue;
            }
        };
        let height = model.height_of(&kept, &offsets);
        let mut repaired = spilled;
        if repair(model, index, &mut repaired, &offsets) {
            let sol = finish(model, index, repaired, offsets, placer.budget());
            best = Some(match best {
                Some(b) => cheaper(Some(b), sol),
                None => sol,
            });
        }
        if placer.exhausted() {
            break;
        }
        let over = height.saturating_sub(model.capacity);
        shave = next_shave(shave, over / 2);
    }
    match best {
        Some(b) => Start::Found(b),
        None => place_cover(model, placer, index, cover(model)),
    }
}

/// The first shave is `first` (at least 1 byte), each later one twice the last.
fn next_shave(shave: Size, first: Size) -> Size {
    if shave == Size::ZERO {
        first.max(Size(1))
    } else {
        shave.saturating_add(shave)
    }
}

fn cheaper(a: Option<Solution>, b: Solution) -> Solution {
    match a {
        Some(a) if a.cost <= b.cost => a,
        _ => b,
    }
}

/// Steps 3 to 5 from a spill set that covers the overloads (forced-slow buffers spilled).
fn place_cover(
    model: &LevelModel<'_>,
    placer: &mut Placer<'_>,
    index: &LifetimeIndex,
    mut spilled: Vec<bool>,
) -> Start {
    for round in 0.. {
        let only_forced = model.only_forced_kept(&spilled);
        if round >= REPAIR_ROUNDS && !only_forced {
            model.spill_every_free(&mut spilled);
            continue;
        }
        let kept: Vec<bool> = spilled.iter().map(|&s| !s).collect();
        match placer.place(&kept, Effort::Best) {
            Placement::Fits(offsets) => {
                return Start::Found(finish(model, index, spilled, offsets, placer.budget()))
            }
            Placement::Infeasible if only_forced => return Start::Infeasible,
            Placement::Unknown(_) if only_forced => return Start::Unknown,
            Placement::Infeasible | Placement::Unknown(None) => {
                model.spill_every_free(&mut spilled)
            }
            Placement::Unknown(Some(offsets)) => {
                if repair(model, index, &mut spilled, &offsets) {
                    return Start::Found(finish(model, index, spilled, offsets, placer.budget()));
                }
            }
        }
    }
    unreachable!("the loop returns once only forced-fast buffers are kept")
}

fn finish(
    model: &LevelModel<'_>,
    index: &LifetimeIndex,
    spilled: Vec<bool>,
    offsets: Vec<Offset>,
    budget: &Budget,
) -> Solution {
    let mut sol = Solution {
        cost: model.cost_of(&spilled),
        spilled,
        offsets,
    };
    insert_pass(model, index, &mut sol, budget);
    sol
}

/// Step 1: wherever the kept load exceeds the capacity, spill live free buffers, lowest
/// cost per byte-time of overload first, until it does not.
fn cover_overloads(model: &LevelModel<'_>, spilled: &mut [bool]) {
    let ev = events(model, spilled);
    let overload = overload_time(model, spilled, &ev);
    // Non-negative floats order like their bits.
    let key = |i: BufferIdx| {
        let per = model.problem.buffer(i).size.get() as f64 * overload[i].max(1) as f64;
        ((model.costs[i] as f64 / per).to_bits(), i)
    };
    sweep_cover(model, spilled, &ev, key);
}

/// A spill priority: the lowest key is spilled first.
pub(crate) type SpillKey = (u64, BufferIdx);

/// Wherever the kept load exceeds the capacity, spills live free buffers, lowest `key`
/// first, until it does not.
pub(crate) fn cover_overloads_by(
    model: &LevelModel<'_>,
    spilled: &mut [bool],
    key: impl Fn(BufferIdx) -> SpillKey,
) {
    let ev = events(model, spilled);
    sweep_cover(model, spilled, &ev, key);
}

fn sweep_cover(
    model: &LevelModel<'_>,
    spilled: &mut [bool],
    ev: &[Event],
    key: impl Fn(BufferIdx) -> SpillKey,
) {
    let size = |i: BufferIdx| model.problem.buffer(i).size;
    let mut live: BTreeSet<SpillKey> = BTreeSet::new();
    let mut load = Size::ZERO;
    let mut k = 0;
    while k < ev.len() {
        let t = ev[k].time;
        while k < ev.len() && ev[k].time == t {
            let Event {
                start, buffer: i, ..
            } = ev[k];
            k += 1;
            if spilled[i] {
                continue;
            }
            let free = model.base[i] == Decision::Free;
            if start {
                load += size(i);
                if free {
                    live.insert(key(i));
                }
            } else {
                load -= size(i);
                if free {
                    live.remove(&key(i));
                }
            }
        }
        while load > model.capacity {
            let Some((_, i)) = live.pop_first() else {
                break; // forced-fast buffers alone overflow: the bound says so
            };
            spilled[i] = true;
            load -= size(i);
        }
    }
}

/// Step 2: un-spill free buffers, most expensive first, whenever the load stays at most
/// the capacity over all their live segments.
pub(crate) fn unspill_by_load(model: &LevelModel<'_>, spilled: &mut [bool]) {
    let mut tree = LoadTree::new(model, spilled);
    for i in model.spilled_by_cost(spilled) {
        if tree.fits(i) {
            tree.add(i);
            spilled[i] = false;
        }
    }
}
