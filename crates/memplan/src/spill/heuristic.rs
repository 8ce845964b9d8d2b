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
use crate::types::Offset;

use super::improve::insert_pass;
use super::model::{Decision, SpillModel};
use super::place::{Effort, LifetimeIndex, Placement, Placer};

/// A valid choice: the spilled set and the fast offsets of the kept buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    /// `true`: spilled. Indexed like the problem.
    pub(crate) spilled: Vec<bool>,
    /// Fast offsets; only kept buffers' entries mean anything.
    pub(crate) offsets: Vec<Offset>,
    /// The cost of the spilled buffers.
    pub(crate) cost: u64,
}

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
pub(crate) fn default_cover(model: &SpillModel<'_>) -> Vec<bool> {
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
    model: &SpillModel<'_>,
    placer: &mut Placer<'_>,
    index: &LifetimeIndex,
    cover: &dyn Fn(&SpillModel<'_>) -> Vec<bool>,
) -> Start {
    let bufs = model.problem.buffers();
    let mut best: Option<Solution> = None;
    let mut shave = 0u64;
    for _ in 0..SHAVE_ROUNDS {
        let target = SpillModel {
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
        let height = (0..model.len())
            .filter(|&i| kept[i])
            .map(|i| offsets[i].0 + bufs[i].size.0)
            .max()
            .unwrap_or(0);
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
fn next_shave(shave: u64, first: u64) -> u64 {
    if shave == 0 {
        first.max(1)
    } else {
        shave.saturating_mul(2)
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
    model: &SpillModel<'_>,
    placer: &mut Placer<'_>,
    index: &LifetimeIndex,
    mut spilled: Vec<bool>,
) -> Start {
    let n = model.len();
    for round in 0.. {
        let only_forced = (0..n).all(|i| spilled[i] || model.forced_fast(i));
        if round >= REPAIR_ROUNDS && !only_forced {
            spill_all_free(model, &mut spilled);
            continue;
        }
        let kept: Vec<bool> = spilled.iter().map(|&s| !s).collect();
        match placer.place(&kept, Effort::Best) {
            Placement::Fits(offsets) => {
                return Start::Found(finish(model, index, spilled, offsets, placer.budget()))
            }
            Placement::Infeasible if only_forced => return Start::Infeasible,
            Placement::Unknown(_) if only_forced => return Start::Unknown,
            Placement::Infeasible | Placement::Unknown(None) => spill_all_free(model, &mut spilled),
            Placement::Unknown(Some(offsets)) => {
                if repair(model, index, &mut spilled, &offsets) {
                    return Start::Found(finish(model, index, spilled, offsets, placer.budget()));
                }
            }
        }
    }
    unreachable!("the loop returns once only forced-fast buffers are kept")
}

fn spill_all_free(model: &SpillModel<'_>, spilled: &mut [bool]) {
    for (i, s) in spilled.iter_mut().enumerate() {
        *s |= model.base[i] == Decision::Free;
    }
}

/// Spills the kept buffers that end above the capacity in `offsets`. True when that
/// leaves a valid plan (no forced-fast buffer overflows); otherwise also spills the free
/// buffers live together with an overflowing forced-fast one, for another placement.
pub(crate) fn repair(
    model: &SpillModel<'_>,
    index: &LifetimeIndex,
    spilled: &mut [bool],
    offsets: &[Offset],
) -> bool {
    let bufs = model.problem.buffers();
    let over: Vec<usize> = (0..model.len())
        .filter(|&i| !spilled[i] && offsets[i].0 + bufs[i].size.0 > model.capacity)
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

fn finish(
    model: &SpillModel<'_>,
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

/// Sweep events of the live segments of the kept buffers: `(time, kind, buffer)`, kind
/// 0 for an end and 1 for a start, so that ends sort first (half-open lifetimes).
pub(crate) fn events(model: &SpillModel<'_>, spilled: &[bool]) -> Vec<(u64, u8, u32)> {
    let mut ev = Vec::new();
    for (i, b) in model.problem.buffers().iter().enumerate() {
        if !spilled[i] {
            for seg in b.live_segments() {
                ev.push((seg.start.0, 1, i as u32));
                ev.push((seg.end.0, 0, i as u32));
            }
        }
    }
    ev.sort_unstable();
    ev
}

/// The kept load from each event time of `ev` (see [`events`]) to the next.
pub(crate) fn load_steps(model: &SpillModel<'_>, ev: &[(u64, u8, u32)]) -> Vec<(u64, u64)> {
    let bufs = model.problem.buffers();
    let mut steps = Vec::new();
    let (mut load, mut k) = (0u64, 0);
    while k < ev.len() {
        let t = ev[k].0;
        while k < ev.len() && ev[k].0 == t {
            let size = bufs[ev[k].2 as usize].size.0;
            if ev[k].1 == 1 {
                load += size;
            } else {
                load -= size;
            }
            k += 1;
        }
        steps.push((t, load));
    }
    steps
}

/// For each buffer, the time during which it is live and the kept load exceeds the
/// capacity (0 for spilled ones).
pub(crate) fn overload_time(
    model: &SpillModel<'_>,
    spilled: &[bool],
    ev: &[(u64, u8, u32)],
) -> Vec<u64> {
    let bufs = model.problem.buffers();
    // (time, overloaded time from the first event to it)
    let mut marks: Vec<(u64, u64)> = Vec::new();
    let (mut acc, mut prev) = (0u64, None::<(u64, bool)>);
    for (t, load) in load_steps(model, ev) {
        if let Some((pt, over)) = prev {
            acc += if over { t - pt } else { 0 };
        }
        marks.push((t, acc));
        prev = Some((t, load > model.capacity));
    }
    let at = |t: u64| marks[marks.partition_point(|m| m.0 < t)].1;
    (0..model.len())
        .map(|i| {
            if spilled[i] {
                return 0;
            }
            bufs[i]
                .live_segments()
                .map(|s| at(s.end.0) - at(s.start.0))
                .sum()
        })
        .collect()
}

/// Step 1: wherever the kept load exceeds the capacity, spill live free buffers, lowest
/// cost per byte-time of overload first, until it does not.
fn cover_overloads(model: &SpillModel<'_>, spilled: &mut [bool]) {
    let bufs = model.problem.buffers();
    let ev = events(model, spilled);
    let overload = overload_time(model, spilled, &ev);
    // Non-negative floats order like their bits.
    let key = |i: usize| {
        let per = bufs[i].size.0 as f64 * overload[i].max(1) as f64;
        ((model.costs[i] as f64 / per).to_bits(), i as u32)
    };
    sweep_cover(model, spilled, &ev, key);
}

/// Wherever the kept load exceeds the capacity, spills live free buffers, lowest `key`
/// first, until it does not.
pub(crate) fn cover_overloads_by(
    model: &SpillModel<'_>,
    spilled: &mut [bool],
    key: impl Fn(usize) -> (u64, u32),
) {
    let ev = events(model, spilled);
    sweep_cover(model, spilled, &ev, key);
}

fn sweep_cover(
    model: &SpillModel<'_>,
    spilled: &mut [bool],
    ev: &[(u64, u8, u32)],
    key: impl Fn(usize) -> (u64, u32),
) {
    let bufs = model.problem.buffers();
    let mut live: BTreeSet<(u64, u32)> = BTreeSet::new();
    let mut load = 0u64;
    let mut k = 0;
    while k < ev.len() {
        let t = ev[k].0;
        while k < ev.len() && ev[k].0 == t {
            let (_, kind, i) = ev[k];
            let i = i as usize;
            k += 1;
            if spilled[i] {
                continue;
            }
            let free = model.base[i] == Decision::Free;
            if kind == 1 {
                load += bufs[i].size.0;
                if free {
                    live.insert(key(i));
                }
            } else {
                load -= bufs[i].size.0;
                if free {
                    live.remove(&key(i));
                }
            }
        }
        while load > model.capacity {
            let Some((_, i)) = live.pop_first() else {
                break; // forced-fast buffers alone overflow: the bound says so
            };
            spilled[i as usize] = true;
            load -= bufs[i as usize].size.0;
        }
    }
}

/// Step 2: un-spill free buffers, most expensive first, whenever the load stays at most
/// the capacity over all their live segments.
pub(crate) fn unspill_by_load(model: &SpillModel<'_>, spilled: &mut [bool]) {
    let mut tree = LoadTree::new(model, spilled);
    let mut order: Vec<usize> = (0..model.len())
        .filter(|&i| spilled[i] && model.base[i] == Decision::Free)
        .collect();
    let bufs = model.problem.buffers();
    order.sort_by_key(|&i| (std::cmp::Reverse(model.costs[i]), bufs[i].size, i));
    for i in order {
        if tree.fits(i) {
            tree.add(i);
            spilled[i] = false;
        }
    }
}

/// The kept load over time as a segment tree over the elementary intervals between event
/// times, supporting "add a buffer" and "would it fit" (range add, range max), both
/// O(segments · log n).
pub(crate) struct LoadTree<'m> {
    model: &'m SpillModel<'m>,
    times: Vec<u64>,
    max: Vec<u64>,
    add: Vec<u64>,
}

impl<'m> LoadTree<'m> {
    /// The tree of the kept buffers' load.
    pub(crate) fn new(model: &'m SpillModel<'m>, spilled: &[bool]) -> LoadTree<'m> {
        let mut times: Vec<u64> = model
            .problem
            .buffers()
            .iter()
            .flat_map(|b| b.live_segments().flat_map(|s| [s.start.0, s.end.0]))
            .collect();
        times.sort_unstable();
        times.dedup();
        let leaves = times.len().max(1);
        let mut tree = LoadTree {
            model,
            times,
            max: vec![0; 4 * leaves],
            add: vec![0; 4 * leaves],
        };
        for i in (0..model.len()).filter(|&i| !spilled[i]) {
            tree.add(i);
        }
        tree
    }

    fn span(&self, s: u64, e: u64) -> (usize, usize) {
        let at = |t| self.times.partition_point(|&x| x < t);
        (at(s), at(e))
    }

    fn leaves(&self) -> usize {
        self.times.len().max(1)
    }

    fn update(&mut self, node: usize, lo: usize, hi: usize, range: (usize, usize), v: u64) {
        if range.1 <= lo || hi <= range.0 {
            return;
        }
        if range.0 <= lo && hi <= range.1 {
            self.max[node] += v;
            self.add[node] += v;
            return;
        }
        let mid = (lo + hi) / 2;
        self.update(2 * node, lo, mid, range, v);
        self.update(2 * node + 1, mid, hi, range, v);
        self.max[node] = self.add[node] + self.max[2 * node].max(self.max[2 * node + 1]);
    }

    fn query(&self, node: usize, lo: usize, hi: usize, range: (usize, usize)) -> u64 {
        if range.1 <= lo || hi <= range.0 {
            return 0;
        }
        if range.0 <= lo && hi <= range.1 {
            return self.max[node];
        }
        let mid = (lo + hi) / 2;
        self.add[node]
            + self
                .query(2 * node, lo, mid, range)
                .max(self.query(2 * node + 1, mid, hi, range))
    }

    /// True when adding buffer `i` keeps the load at most the capacity.
    pub(crate) fn fits(&self, i: usize) -> bool {
        let b = &self.model.problem.buffers()[i];
        b.live_segments().all(|s| {
            let r = self.span(s.start.0, s.end.0);
            self.query(1, 0, self.leaves(), r) + b.size.0 <= self.model.capacity
        })
    }

    /// Adds buffer `i`'s load.
    pub(crate) fn add(&mut self, i: usize) {
        let b = &self.model.problem.buffers()[i];
        let size = b.size.0;
        let segs: Vec<(u64, u64)> = b.live_segments().map(|s| (s.start.0, s.end.0)).collect();
        for (s, e) in segs {
            let r = self.span(s, e);
            let leaves = self.leaves();
            self.update(1, 0, leaves, r, size);
        }
    }
}
