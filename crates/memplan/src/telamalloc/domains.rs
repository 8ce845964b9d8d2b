//! Offset domains and their propagation: our replacement for TelaMalloc's CP-SAT solver.
//!
//! # Model
//!
//! Buffers are placed one at a time. For every *unplaced* buffer `y` we keep
//! `lowest[y]`, the lowest offset (a multiple of `y`'s alignment) at which `y` does not
//! overlap any *placed* buffer that is live together with it. `y`'s domain is
//! `{lowest[y], …}`, and it is empty when `lowest[y] + size(y) > capacity`: that is a
//! failure, and the placed buffers that push `y` up to there are its explanation (the
//! "conflicting variable assignments" of TelaMalloc §5.4).
//!
//! ```text
//!   address ^        capacity ----------------------------------
//!           |   [ z2 ]                      y needs 3 units; the chain z0, z1, z2
//!           |   [ z1  ]                     of placed neighbours pushes lowest[y]
//!           | [   z0   ]                    past capacity - 3: y fails, and
//!           +------------> time             {z0, z1, z2} is the explanation.
//! ```
//!
//! # Incremental update
//!
//! Placing `x` at `[o, e)` only touches the unplaced buffers live together with `x`
//! (found with a [`TimeIndex`] of unplaced buffers). For such a `y` with `[lo, lo + s)`:
//! - `e <= lo`: `x` lies below `y`'s domain and can never matter again on this branch;
//! - `o >= lo + s`: `x` lies above; it is remembered in `above[y]`, since it may block
//!   `y` once `lowest[y]` rises;
//! - otherwise `x` covers `lo`, and every offset in `[lo, e)` is blocked too, so the new
//!   lowest is the first fit at or above `e` among the intervals in `above[y]`.
//!
//! Every neighbour not in `above[y]` ends at or below `lowest[y]`, so this is exact. The
//! cost is O(1) per (placement, neighbour) pair plus the `above` entries scanned, which
//! is small when buffers are placed bottom-up. All changes go on a trail and are undone
//! on backtracking; nothing is copied.
//!
//! Alignment (§5.5) is part of the domain: candidate offsets are rounded up to the
//! buffer's alignment. Fixed buffers are placed first, at their offsets, like any other.

use crate::index::TimeIndex;
use crate::maxtree::MaxTree;
use crate::sections;
use crate::types::{Buffer, BufferIdx, Lifetime, Offset, Problem, Size};

pub(super) const UNPLACED: Offset = Offset(u64::MAX);

enum Undo {
    Placed(BufferIdx),
    Lowest(BufferIdx, Offset),
    Above(BufferIdx),
    Top(u32, Offset),
    Floor(u32, Offset),
}

/// Why a placement failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// This unplaced buffer has no offset left under the capacity.
    Buffer(BufferIdx),
    /// Cross-section `k`: its top plus its unplaced load exceed the capacity.
    Section(u32),
    /// Cross-section `k`: the lowest domain of its unplaced buffers plus their load
    /// exceed the capacity (MiniMalloc §6.2, the effective height).
    SectionFloor(u32),
}

/// Cross-section inference (MiniMalloc eq. (3), sound for skyline placement): the time
/// axis is cut into the steps of the load profile ([`sections::steps`]); in each, every
/// unplaced buffer will sit above the highest placed one, so `top + unplaced load <=
/// capacity`.
struct Sections {
    /// The steps, each buffer's runs of them and (with `floors`) their members.
    model: sections::Sections,
    unplaced_load: Vec<Size>,
    top: Vec<Offset>,
    /// The largest unplaced load of any section.
    max_unplaced: MaxTree<i64>,
    /// Whether section floors are kept (`floor` then has one entry per section).
    floors: bool,
    /// `floor[k]`: the lowest domain among the unplaced members of section `k` (a lower
    /// bound that only rises; exact after every placement).
    floor: Vec<Offset>,
    /// Sections to rescan, marked with `generation`.
    stamp: Vec<u32>,
    generation: u32,
    affected: Vec<u32>,
}

impl Sections {
    /// `None` when `stop()` said so between the steps of the setup.
    fn new(problem: &Problem, floors: bool, stop: &dyn Fn() -> bool) -> Option<Sections> {
        let steps = crate::analysis::load_profile(problem);
        let times: Vec<u64> = steps.iter().map(|s| s.time.get()).collect();
        let segments: Vec<Vec<(u64, u64)>> = problem
            .buffers()
            .iter()
            .map(|b| {
                b.live_segments()
                    .map(|g| (g.start.get(), g.end.get()))
                    .collect()
            })
            .collect();
        if stop() {
            return None;
        }
        let model = sections::Sections::new(sections::steps(&times), &segments, floors);
        drop(segments);
        if stop() {
            return None;
        }
        let unplaced_load: Vec<Size> = steps.iter().map(|s| s.load).collect();
        let kept = if floors { steps.len() } else { 0 };
        Some(Sections {
            floor: vec![Offset::ZERO; kept],
            stamp: vec![0; kept],
            generation: 0,
            affected: Vec::new(),
            floors,
            model,
            max_unplaced: MaxTree::of_sizes(&unplaced_load),
            unplaced_load,
            top: vec![Offset::ZERO; steps.len()],
        })
    }

    /// The time interval of section `k`.
    fn span(&self, k: u32) -> Lifetime {
        let (a, z) = self.model.bounds(k as usize);
        Lifetime::new(a, z)
    }

    /// The sections buffer `i` is live in, by runs `[first, last)`.
    #[inline]
    fn runs(&self, i: BufferIdx) -> &[(u32, u32)] {
        self.model.runs(i.index())
    }

    /// Calls `f` on every buffer live during section `k` until it returns false.
    #[inline]
    fn for_each_member(&self, k: usize, mut f: impl FnMut(BufferIdx) -> bool) {
        self.model.for_each_member(k, |z| f(BufferIdx(z)));
    }
}

/// The placed offsets, the domains of unplaced buffers, and the trail to undo them.
pub(super) struct Domains<'p> {
    bufs: &'p [Buffer],
    capacity: Size,
    offset: Vec<Offset>,
    lowest: Vec<Offset>,
    above: Vec<Vec<BufferIdx>>,
    trail: Vec<Undo>,
    unplaced: TimeIndex,
    placed: TimeIndex,
    placed_count: usize,
    scratch: Vec<BufferIdx>,
    intervals: Vec<(Offset, Offset)>,
    sections: Option<Sections>,
    /// Skyline mode: `lowest[y]` is the top of `y`'s placed neighbours, not the lowest
    /// hole that fits.
    skyline: bool,
    /// `lowest` of unplaced buffers (placed ones hold `UNPLACED`), for the minimum.
    min_tree: MinTree,
    /// `lowest + size` of unplaced buffers: the lowest top any of them can have.
    min_top: MinTree,
    /// Buffers whose domain rose during the current placement, with their old domain
    /// (section floors).
    raised: Vec<(BufferIdx, Offset)>,
}

/// A tournament tree over buffers: the smallest value and where it is. Raising a leaf
/// stops climbing as soon as an ancestor's minimum does not change, which is at once
/// when its sibling holds the same value (the common case: neighbours rise together).
struct MinTree {
    size: usize,
    min: Vec<Offset>,
}

impl MinTree {
    fn new(n: usize) -> MinTree {
        let size = n.next_power_of_two().max(1);
        let mut min = vec![UNPLACED; 2 * size];
        for leaf in &mut min[size..size + n] {
            *leaf = Offset::ZERO;
        }
        for node in (1..size).rev() {
            min[node] = min[2 * node].min(min[2 * node + 1]);
        }
        MinTree { size, min }
    }

    #[inline]
    fn set(&mut self, i: BufferIdx, value: Offset) {
        let mut node = self.size + i.index();
        self.min[node] = value;
        while node > 1 {
            node /= 2;
            let m = self.min[2 * node].min(self.min[2 * node + 1]);
            if self.min[node] == m {
                break;
            }
            self.min[node] = m;
        }
    }

    fn argmin(&self) -> Option<(Offset, BufferIdx)> {
        if self.min[1] == UNPLACED {
            return None;
        }
        let mut node = 1;
        while node < self.size {
            node = if self.min[2 * node] == self.min[node] {
                2 * node
            } else {
                2 * node + 1
            };
        }
        Some((self.min[1], BufferIdx::new(node - self.size)))
    }
}

impl<'p> Domains<'p> {
    /// Every buffer unplaced, every domain starting at 0, or at `base[i]` rounded up to
    /// the alignment when `base` is not empty (a component's skyline floors, see
    /// `components.rs`). With `section_inference`, placements also fail when some
    /// cross-section overflows (sound only when every buffer is placed on the skyline).
    /// `None` when `stop()` said so during the setup.
    pub(super) fn new(
        problem: &'p Problem,
        capacity: Size,
        skyline: bool,
        section_inference: bool,
        section_floors: bool,
        base: &[Offset],
        stop: &dyn Fn() -> bool,
    ) -> Option<Domains<'p>> {
        let n = problem.len();
        let sections = if skyline && section_inference {
            Some(Sections::new(problem, section_floors, stop)?)
        } else {
            None
        };
        let mut domains = Domains {
            bufs: problem.buffers(),
            capacity,
            offset: vec![UNPLACED; n],
            lowest: vec![Offset::ZERO; n],
            above: vec![Vec::new(); n],
            trail: Vec::new(),
            unplaced: TimeIndex::new(problem),
            placed: TimeIndex::new_empty(problem),
            placed_count: 0,
            scratch: Vec::new(),
            intervals: Vec::new(),
            sections,
            raised: Vec::new(),
            skyline,
            min_tree: MinTree::new(n),
            min_top: {
                let mut t = MinTree::new(n);
                for (i, b) in problem.indexed() {
                    t.set(i, Offset::ZERO + b.size);
                }
                t
            },
        };
        if !base.is_empty() {
            for (i, b) in problem.indexed() {
                let lo = base[i].align_up_saturating(b.alignment);
                domains.lowest[i] = lo;
                domains.set_lowest_key(i, lo);
            }
            // Section floors start exact (the lowest domain of each section's members).
            if let Some(sec) = domains.sections.as_mut().filter(|s| s.floors) {
                for k in 0..sec.floor.len() {
                    let mut low = None::<Offset>;
                    sec.for_each_member(k, |z| {
                        let l = domains.lowest[z];
                        low = Some(low.map_or(l, |m| m.min(l)));
                        true
                    });
                    sec.floor[k] = low.unwrap_or(Offset::ZERO);
                }
            }
        }
        Some(domains)
    }

    #[inline]
    pub(super) fn is_placed(&self, i: BufferIdx) -> bool {
        self.offset[i] != UNPLACED
    }

    #[inline]
    pub(super) fn placed_count(&self) -> usize {
        self.placed_count
    }

    /// The lowest feasible offset of an unplaced buffer (its domain's minimum).
    #[inline]
    pub(super) fn lowest(&self, i: BufferIdx) -> Offset {
        self.lowest[i]
    }

    #[inline]
    pub(super) fn trail_len(&self) -> usize {
        self.trail.len()
    }

    /// The offsets, once every buffer is placed.
    pub(super) fn offsets(&self) -> &[Offset] {
        &self.offset
    }

    #[inline]
    fn conflict(a: &Buffer, b: &Buffer) -> bool {
        (a.gaps.is_empty() && b.gaps.is_empty()) || a.live_together(b)
    }

    /// True when `[at, at + size)` fits under the capacity.
    #[inline]
    pub(super) fn fits(&self, i: BufferIdx, at: Offset) -> bool {
        at.saturating_add(self.bufs[i].size) <= self.capacity
    }

    /// The highest offset at which `i` still fits under the capacity (saturating at 0).
    #[inline]
    pub(super) fn capacity_left_for(&self, i: BufferIdx) -> Offset {
        self.capacity.as_offset().saturating_sub(self.bufs[i].size)
    }

    /// Places `x` at `at` (which must avoid its placed neighbours) and propagates.
    /// On failure returns the first unplaced buffer whose domain became empty; the
    /// caller undoes with [`Domains::undo_to`].
    pub(super) fn place(&mut self, x: BufferIdx, at: Offset) -> Result<(), Failure> {
        let bx = &self.bufs[x];
        debug_assert!(!self.is_placed(x));
        self.offset[x] = at;
        self.unplaced.remove(x);
        self.placed.insert(x, bx.lifetime.end);
        self.trail.push(Undo::Placed(x));
        self.placed_count += 1;
        self.min_tree.set(x, UNPLACED);
        self.min_top.set(x, UNPLACED);
        let end = at + bx.size;
        if let Some(sec) = &mut self.sections {
            let mut failed = None;
            for &(first, last) in sec.model.runs(x.index()) {
                sec.max_unplaced
                    .range_add(first as usize, last as usize, -(bx.size.get() as i64));
                for k in first..last {
                    let s = k as usize;
                    sec.unplaced_load[s] -= bx.size;
                    if end > sec.top[s] {
                        self.trail.push(Undo::Top(k, sec.top[s]));
                        sec.top[s] = end;
                    }
                    if failed.is_none()
                        && sec.top[s].saturating_add(sec.unplaced_load[s]) > self.capacity
                    {
                        failed = Some(k);
                    }
                }
            }
            if let Some(k) = failed {
                return Err(Failure::Section(k));
            }
        }
        let mut neighbours = std::mem::take(&mut self.scratch);
        neighbours.clear();
        self.raised.clear();
        self.unplaced
            .for_each_overlapping(bx.lifetime, |y| neighbours.push(y));
        let mut result = Ok(());
        for &y in &neighbours {
            let by = &self.bufs[y];
            if !Self::conflict(bx, by) {
                continue;
            }
            let lo = self.lowest[y];
            let size = by.size;
            if self.skyline {
                let top = end.align_up_saturating(by.alignment);
                if top > lo {
                    self.trail.push(Undo::Lowest(y, lo));
                    self.lowest[y] = top;
                    self.set_lowest_key(y, top);
                    if self.has_floors() {
                        self.raised.push((y, lo));
                    }
                    if top.saturating_add(size) > self.capacity {
                        result = Err(Failure::Buffer(y));
                        break;
                    }
                }
                continue;
            }
            if end <= lo {
                continue;
            }
            if at >= lo.saturating_add(size) {
                self.above[y].push(x);
                self.trail.push(Undo::Above(y));
                continue;
            }
            let new_lo = self.first_fit_above(y, end.align_up_saturating(by.alignment));
            self.trail.push(Undo::Lowest(y, lo));
            self.lowest[y] = new_lo;
            self.set_lowest_key(y, new_lo);
            if new_lo.saturating_add(size) > self.capacity {
                result = Err(Failure::Buffer(y));
                break;
            }
        }
        self.scratch = neighbours;
        result?;
        self.check_section_floors(x)
    }

    #[inline]
    fn has_floors(&self) -> bool {
        self.sections.as_ref().is_some_and(|s| s.floors)
    }

    /// Section floors (MiniMalloc §6.2, strengthening 2, sound for skyline placement):
    /// the unplaced buffers of a section all sit at or above the lowest of their
    /// domains, so that plus their load must fit. A section's floor can only rise when
    /// the buffer holding it is placed (`x`) or rises (`raised`, with its old domain);
    /// only those sections are rescanned, and a rescan stops at the first member still
    /// at the old floor.
    fn check_section_floors(&mut self, x: BufferIdx) -> Result<(), Failure> {
        if !self.has_floors() {
            return Ok(());
        }
        let at = self.offset[x];
        let sec = self.sections.as_mut().expect("has floors");
        sec.generation = sec.generation.wrapping_add(1);
        if sec.generation == 0 {
            sec.stamp.fill(0);
            sec.generation = 1;
        }
        let generation = sec.generation;
        sec.affected.clear();
        let mark = |sec: &mut Sections, i: BufferIdx, old: Offset| {
            for &(first, last) in sec.model.runs(i.index()) {
                for k in first..last {
                    let s = k as usize;
                    if sec.floor[s] >= old && sec.stamp[s] != generation {
                        sec.stamp[s] = generation;
                        sec.affected.push(k);
                    }
                }
            }
        };
        mark(sec, x, at);
        for &(y, old) in &self.raised {
            mark(sec, y, old);
        }
        let mut result = Ok(());
        for a in 0..sec.affected.len() {
            let k = sec.affected[a] as usize;
            let old = sec.floor[k];
            // Members come in no particular order: the floor is a lower bound on their
            // domains, so a member at or below it ends the scan with the same result.
            let mut low = UNPLACED;
            sec.for_each_member(k, |z| {
                if self.offset[z] == UNPLACED {
                    low = low.min(self.lowest[z]);
                }
                low > old
            });
            if low != UNPLACED && low > old {
                self.trail.push(Undo::Floor(k as u32, old));
                sec.floor[k] = low;
            }
            if result.is_ok()
                && low != UNPLACED
                && low.saturating_add(sec.unplaced_load[k]) > self.capacity
            {
                result = Err(Failure::SectionFloor(k as u32));
            }
        }
        result
    }

    /// The first offset at or above `from` where `y` avoids the intervals in `above[y]`.
    fn first_fit_above(&mut self, y: BufferIdx, from: Offset) -> Offset {
        let by = &self.bufs[y];
        self.intervals.clear();
        for &z in &self.above[y] {
            let o = self.offset[z];
            let e = o + self.bufs[z].size;
            if e > from {
                self.intervals.push((o, e));
            }
        }
        self.intervals.sort_unstable();
        let mut candidate = from;
        for &(lo, hi) in &self.intervals {
            if lo >= candidate.saturating_add(by.size) {
                break;
            }
            if hi > candidate {
                candidate = hi.align_up_saturating(by.alignment);
            }
        }
        candidate
    }

    /// With section inference and every future placement at or above `floor`: true
    /// when some section's unplaced load no longer fits between `floor` and the
    /// capacity (MiniMalloc's offset-monotonic bound on section height).
    pub(super) fn floor_overflows(&self, floor: Offset) -> bool {
        self.sections.as_ref().is_some_and(|sec| {
            let m = sec.max_unplaced.max();
            m > 0 && floor.saturating_add(Size(m as u64)) > self.capacity
        })
    }

    /// With section inference: one past the highest offset from which every section's
    /// unplaced load still fits under the capacity (`None` without sections).
    pub(super) fn floor_limit(&self) -> Option<Offset> {
        self.sections.as_ref().map(|sec| {
            let m = Size(sec.max_unplaced.max().max(0) as u64);
            (self.capacity + Size(1)).as_offset().saturating_sub(m)
        })
    }

    /// The smallest `lowest` among unplaced buffers, and one buffer that has it.
    pub(super) fn min_lowest(&self) -> Option<(Offset, BufferIdx)> {
        self.min_tree.argmin()
    }

    /// The lowest `lowest + size` among unplaced buffers: a buffer placed at or above it
    /// would leave room for some other buffer entirely below (MiniMalloc's dominance).
    pub(super) fn min_top(&self) -> Option<Offset> {
        self.min_top.argmin().map(|(v, _)| v)
    }

    #[inline]
    fn set_lowest_key(&mut self, y: BufferIdx, lowest: Offset) {
        self.min_tree.set(y, lowest);
        self.min_top
            .set(y, lowest.saturating_add(self.bufs[y].size));
    }

    /// Undoes every change made after the trail had length `mark`.
    pub(super) fn undo_to(&mut self, mark: usize, mut on_unplace: impl FnMut(BufferIdx)) {
        while self.trail.len() > mark {
            match self.trail.pop().expect("longer than mark") {
                Undo::Placed(x) => {
                    if let Some(sec) = &mut self.sections {
                        let size = self.bufs[x].size;
                        for &(first, last) in sec.model.runs(x.index()) {
                            sec.max_unplaced.range_add(
                                first as usize,
                                last as usize,
                                size.get() as i64,
                            );
                            for load in &mut sec.unplaced_load[first as usize..last as usize] {
                                *load += size;
                            }
                        }
                    }
                    self.offset[x] = UNPLACED;
                    self.placed.remove(x);
                    self.unplaced.insert(x, self.bufs[x].lifetime.end);
                    self.placed_count -= 1;
                    self.set_lowest_key(x, self.lowest[x]);
                    on_unplace(x);
                }
                Undo::Lowest(y, lo) => {
                    self.lowest[y] = lo;
                    self.set_lowest_key(y, lo);
                }
                Undo::Above(y) => {
                    self.above[y].pop();
                }
                Undo::Top(k, top) => {
                    if let Some(sec) = &mut self.sections {
                        sec.top[k as usize] = top;
                    }
                }
                Undo::Floor(k, floor) => {
                    if let Some(sec) = &mut self.sections {
                        sec.floor[k as usize] = floor;
                    }
                }
            }
        }
    }

    /// Calls `f(z)` for every placed buffer live together with `y`.
    fn for_each_placed_neighbour(&self, y: BufferIdx, mut f: impl FnMut(BufferIdx)) {
        let by = &self.bufs[y];
        self.placed.for_each_overlapping(by.lifetime, |z| {
            if Self::conflict(by, &self.bufs[z]) {
                f(z)
            }
        });
    }

    /// The end address of placed buffer `z`.
    #[inline]
    fn top_of(&self, z: BufferIdx) -> Offset {
        self.offset[z] + self.bufs[z].size
    }

    /// Why `y` has no offset under `limit` (usually the capacity): the chain of placed
    /// neighbours that, scanned from address 0 upward, push its first fit past `limit`.
    pub(super) fn explain(&self, y: BufferIdx) -> Vec<BufferIdx> {
        let by = &self.bufs[y];
        let mut placed: Vec<(Offset, Offset, BufferIdx)> = Vec::new();
        self.for_each_placed_neighbour(y, |z| placed.push((self.offset[z], self.top_of(z), z)));
        placed.sort_unstable();
        let mut chain = Vec::new();
        let mut candidate = Offset::ZERO;
        for (lo, hi, z) in placed {
            if lo >= candidate.saturating_add(by.size) {
                break;
            }
            if hi > candidate {
                candidate = hi.align_up_saturating(by.alignment);
                chain.push(z);
            }
        }
        chain
    }

    /// Why a placement failed: the placed buffers it blames.
    pub(super) fn explain_failure(&self, failure: Failure) -> Vec<BufferIdx> {
        match failure {
            Failure::Buffer(y) if self.skyline => {
                self.explain_skyline(y, self.capacity_left_for(y))
            }
            Failure::Buffer(y) => self.explain(y),
            Failure::SectionFloor(k) => {
                // What holds each unplaced buffer of the section above the room that
                // the section's load needs.
                let sec = self
                    .sections
                    .as_ref()
                    .expect("section failures need sections");
                let limit = self.room_under(sec, k);
                let mut out = Vec::new();
                sec.for_each_member(k as usize, |y| {
                    if self.offset[y] == UNPLACED {
                        out.extend(self.explain_skyline(y, limit));
                    }
                    true
                });
                out.sort_unstable();
                out.dedup();
                out
            }
            Failure::Section(k) => {
                // The placed buffers in the section that reach into the room the
                // unplaced ones need.
                let sec = self
                    .sections
                    .as_ref()
                    .expect("section failures need sections");
                let limit = self.room_under(sec, k);
                let mut out = Vec::new();
                self.placed.for_each_overlapping(sec.span(k), |z| {
                    if self.top_of(z) > limit && sec.runs(z).iter().any(|&(f, l)| f <= k && k < l) {
                        out.push(z);
                    }
                });
                out
            }
        }
    }

    /// The highest address section `k`'s unplaced load leaves free under the capacity.
    fn room_under(&self, sec: &Sections, k: u32) -> Offset {
        self.capacity
            .saturating_sub(sec.unplaced_load[k as usize])
            .as_offset()
    }

    /// The placed neighbours of `x` that reach above `limit`: why `x` cannot sit on the
    /// skyline under the capacity.
    pub(super) fn explain_skyline(&self, x: BufferIdx, limit: Offset) -> Vec<BufferIdx> {
        let mut out = Vec::new();
        self.for_each_placed_neighbour(x, |z| {
            if self.top_of(z) > limit {
                out.push(z);
            }
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The lowest feasible offset, recomputed from scratch.
    fn brute_lowest(p: &Problem, off: &[Offset], y: BufferIdx) -> Offset {
        let by = p.buffer(y);
        let mut taken: Vec<(Offset, Offset)> = p
            .indexed()
            .filter(|&(z, bz)| off[z] != UNPLACED && z != y && by.live_together(bz))
            .map(|(z, bz)| (off[z], off[z] + bz.size))
            .collect();
        taken.sort_unstable();
        let mut c = Offset::ZERO;
        for (lo, hi) in taken {
            if lo >= c + by.size {
                break;
            }
            if hi > c {
                c = hi.align_up_saturating(by.alignment);
            }
        }
        c
    }

    #[test]
    fn incremental_lowest_matches_recomputation() {
        let mut rng = Rng::new(7);
        for round in 0..300 {
            let n = 2 + rng.range(0, 14) as usize;
            let bufs: Vec<Buffer> = (0..n)
                .map(|i| {
                    let s = rng.range(0, 10);
                    let mut b = Buffer::new(
                        format!("{i}"),
                        s,
                        s + 1 + rng.range(0, 6),
                        1 + rng.range(0, 5),
                    )
                    .with_alignment([1, 1, 2, 4][rng.range(0, 3) as usize]);
                    if rng.chance(20) && b.lifetime.len() >= 3 {
                        b = b.with_gap(s + 1, s + 2);
                    }
                    b
                })
                .collect();
            let p = Problem::new(bufs).unwrap();
            let mut d =
                Domains::new(&p, Size(u64::MAX / 4), false, false, false, &[], &|| false).unwrap();
            let mut marks = Vec::new();
            for _ in 0..3 * n {
                let unplaced: Vec<BufferIdx> = p.indices().filter(|&i| !d.is_placed(i)).collect();
                if unplaced.is_empty() || (rng.chance(30) && !marks.is_empty()) {
                    if let Some(m) = marks.pop() {
                        d.undo_to(m, |_| {});
                    }
                } else {
                    let x = unplaced[rng.range(0, unplaced.len() as u64 - 1) as usize];
                    // Either the lowest position or somewhere higher that is still free.
                    let at = if rng.chance(50) {
                        d.lowest(x)
                    } else {
                        let bx = p.buffer(x);
                        let at =
                            (d.lowest(x) + Size(rng.range(0, 8))).align_up_saturating(bx.alignment);
                        let mut off = d.offsets().to_vec();
                        off[x] = at;
                        // Keep it only if it overlaps nobody.
                        let ok = p.indexed().all(|(z, bz)| {
                            z == x
                                || off[z] == UNPLACED
                                || !bz.live_together(bx)
                                || off[z] + bz.size <= at
                                || at + bx.size <= off[z]
                        });
                        if ok {
                            at
                        } else {
                            d.lowest(x)
                        }
                    };
                    marks.push(d.trail_len());
                    assert!(d.place(x, at).is_ok());
                }
                for y in p.indices() {
                    if !d.is_placed(y) {
                        assert_eq!(
                            d.lowest(y),
                            brute_lowest(&p, d.offsets(), y),
                            "round {round}, buffer {y}"
                        );
                    }
                }
            }
        }
    }
}
