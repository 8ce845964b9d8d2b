//! The depth-first canonical search for one capacity (MiniMalloc §5–7).
//!
//! # The model the search explores
//!
//! Each unallocated buffer `b` has a *floor*: the lowest offset at or above the top of
//! every placed buffer it is live with, aligned and clear of fixed buffers
//! ([`Model::fit`]). A node places one buffer exactly at its floor. The search only
//! builds *canonical* sequences (§5): offsets never decrease, and buffers at the same
//! offset come in preorder rank order. The node order is lowest offset first, ties by
//! rank (§7, dynamic ordering), so a run without backtracking is a greedy plan.
//!
//! # Why the restrictions keep the search complete
//!
//! *Compaction.* Take any plan; visit its free buffers by offset and drop each to the
//! fit of the highest top of the already visited buffers it is live with. Its old offset
//! is one candidate, and `fit` is monotone, so no buffer rises and the plan stays valid.
//! Sorting the result by (offset, rank) gives a canonical sequence in which each buffer
//! sits exactly at its floor: this holds with alignment (the old offset is aligned), with
//! fixed buffers (they are obstacles that `fit` steps over; they never move), and with
//! gaps (live-together is what "overlap" means throughout). So no relaxation for those
//! buffers is needed; `tests/exact.rs` checks this against brute force.
//!
//! *Dominance* (§6.3). Among all compacted canonical plans take one with the least sum
//! of offsets. If at a node on its path the next buffer sits at `o ≥ floor(d) + size(d)`
//! for another unallocated `d`, moving `d` down to its floor gives a valid plan (nothing
//! placed later is below `o`) with a smaller sum — a contradiction. So pruning
//! `o ≥ min_d (floor(d) + size(d))` never cuts that plan's path.
//!
//! *Section inference* (§6.2, eq. 3). All unallocated buffers of a section are live
//! together and live with every placed buffer of the section, so they stack above the
//! section's highest placed top; in a canonical sequence also above the last offset
//! (the monotonic floor), and above the lowest floor among them (the effective height).
//! A node fails when that level plus their total size (plus what fixed buffers take up
//! above it) exceeds the capacity.
//!
//! *Dynamic decomposition* (§7). When no unallocated buffer spans a section boundary,
//! the buffers on either side never meet again: each side is solved on its own, and a
//! failure on one side fails the node with no backtracking into the other. Each side is
//! a fresh floor-model problem whose floors are lifted to the last offset, re-ranked with
//! the static preorder; a fresh canonical search is complete for it by the argument above.
//!
//! # State
//!
//! Incremental, undone on backtrack (never copied): floors (with a trail), per-section
//! placed top / effective height (with a trail) and unallocated total (with a max-tree,
//! refreshed a run of sections at a time), and per-boundary counts of unallocated spans
//! crossing it. A placed buffer's floor reads NONE, so that the overlap and member scans
//! need not look at the offsets. A placement marks the sections whose effective height
//! may rise by one sweep outwards from the placed buffer's run, not section by section
//! for every buffer it lifts ([`Search::mark_lifted`]); small models read the member
//! index as flat lists ([`Model::flat`]). What a node costs on minimalloc's D is in
//! BENCHMARKS.md §1. Candidate lists live in one arena stack:
//! O(size of the part) entries per part being solved, however deep the search goes
//! (see [`Search::search`]), not O(depth × part).
//!
//! No result depends on the order in which the model yields a section's members or a
//! buffer's overlaps: a placement lifts each overlapping floor independently, and a
//! section's level is a minimum over its members.

use std::sync::atomic::{AtomicU64, Ordering};

use super::model::{FreeIdx, Model};
use super::{ExactOptions, Preorder};
use crate::budget::Budget;
use crate::outcome::{Halt, Verdict};
use crate::sections::Crossings;
use crate::types::{Offset, Size};
use crate::units::Key;

mod propagate;

/// No offset: an unplaced buffer's, or the floor of one that can never fit.
const NONE: Offset = Offset(u64::MAX);

/// How a search (or a part of it) ended: a plan under the capacity (in
/// [`Search::solution`]), a proof that none exists, or stopped by the node limit or the
/// trail's cap ([`Halt::Limit`]), the deadline, a cancellation or a lost race
/// ([`Halt::Budget`]).
pub(crate) type Status = Verdict<()>;

/// [`Status`]: a plan.
pub(crate) const FOUND: Status = Verdict::Found(());

/// How often (in nodes) a search reads the clock. A node on a dense instance can cost
/// hundreds of microseconds (minimalloc's D, 213 buffers: every 1,024 nodes overran a
/// 0.05 s limit by 0.3 s); a clock read costs tens of nanoseconds.
const POLL_EVERY: u64 = 16;

/// Trail entries (both trails together) a search may hold beyond [`TRAIL_PER_BUFFER`]
/// per buffer: 2^21 entries, 24 MiB. A dive that needs more stops, as at the node limit
/// (the probe is unknown), so that the search's memory is bounded by the instance and not
/// by the budget: on iopddl-S (43M overlapping pairs) a 60 s search otherwise held
/// hundreds of megabytes of trail per thread. The trails' length depends only on the
/// search path, so the stop is deterministic.
const TRAIL_BASE: usize = 1 << 21;
/// See [`TRAIL_BASE`].
const TRAIL_PER_BUFFER: usize = 8;

/// How many children after the first a node selects at a time (see [`Search::search`]).
const REST_BATCH: usize = 64;

/// Where a search must stop.
pub(crate) struct Limits<'a> {
    pub(crate) nodes: u64,
    /// The most steps (candidates scanned, [`Search::steps`]): what a work limit holds
    /// the search to.
    pub(crate) steps: u64,
    pub(crate) budget: &'a Budget,
    /// In a race of preorders: the fewest nodes any finished run needed. A run that has
    /// visited more can no longer win, and stops.
    pub(crate) race: Option<&'a AtomicU64>,
}

#[derive(Clone, Copy, Debug)]
struct Cand {
    off: Offset,
    rank: u32,
    b: FreeIdx,
}

impl Cand {
    /// The order children are tried in: (offset, rank).
    #[inline]
    fn key(&self) -> Key {
        Key::new(self.off, self.rank)
    }
}

/// A trail entry: an index (buffer or section) and the offset it had (a floor or a
/// section's level). Packed to 12 bytes: the trails hold every change along the current
/// path, up to one per overlapping pair on a deep dive, so they are the search's largest
/// state.
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
struct Saved {
    index: u32,
    value: Offset,
}

impl Saved {
    #[inline]
    fn new(index: usize, value: Offset) -> Saved {
        Saved {
            index: index as u32,
            value,
        }
    }

    #[inline]
    fn get(self) -> (usize, Offset) {
        (self.index as usize, self.value)
    }
}

/// One run of the search for one capacity and one preorder.
pub(crate) struct Search<'a> {
    m: &'a Model,
    opt: &'a ExactOptions,
    preorder: Option<Preorder>,
    cap: Size,
    limits: Limits<'a>,
    offset: Vec<Offset>,
    floor: Vec<Offset>,
    sec_floor: Vec<Offset>,
    sec_total: Vec<Size>,
    /// Max-tree over `sec_total` (leaves at `leaves..2 * leaves`), for the monotonic floor.
    total_tree: Vec<Size>,
    leaves: usize,
    cuts: Crossings,
    floor_trail: Vec<Saved>,
    sec_trail: Vec<Saved>,
    /// The most trail entries a dive may hold ([`TRAIL_BASE`]).
    trail_cap: usize,
    stamp: Vec<u32>,
    generation: u32,
    affected: Vec<u32>,
    /// The lifts of one placement, for [`Search::mark_lifted`]: per section `k`, the
    /// lowest old floor of a lifted buffer whose run starts at `k` (`before`) or ends
    /// at `k` (`after`), outside the run of the buffer placed; NONE elsewhere.
    before: Vec<Offset>,
    after: Vec<Offset>,
    /// The sections of `before` and `after` in use: `[lowest start, highest end)`.
    lifted: (u32, u32),
    arena: Vec<Cand>,
    /// Offsets of the free buffers of the plan found (valid after [`FOUND`]).
    pub(crate) solution: Vec<Offset>,
    /// Nodes visited.
    pub(crate) nodes: u64,
    /// Steps: one per node, plus one per candidate scanned at it (a node's cost grows
    /// with the unplaced buffers of its component, so steps measure work where nodes do
    /// not).
    pub(crate) steps: u64,
    /// True when the search stopped on its step limit.
    pub(crate) out_of_steps: bool,
    /// Nodes all of whose children failed.
    pub(crate) backtracks: u64,
}

impl<'a> Search<'a> {
    pub(crate) fn new(
        m: &'a Model,
        opt: &'a ExactOptions,
        preorder: Option<Preorder>,
        cap: Size,
        limits: Limits<'a>,
    ) -> Search<'a> {
        let n = m.len();
        let s = m.sections.len();
        let floor: Vec<Offset> = m
            .indices()
            .map(|b| m.fit(b, Offset::ZERO, cap).unwrap_or(NONE))
            .collect();
        let mut sec_total = vec![Size::ZERO; s];
        let mut sec_floor = vec![Offset::ZERO; s];
        for (sec, (total, fl)) in sec_total.iter_mut().zip(&mut sec_floor).enumerate() {
            let mut low = NONE;
            m.sections.for_each_member(sec, |b| {
                let b = FreeIdx(b);
                *total += m.size[b];
                low = low.min(floor[b]);
                true
            });
            if opt.unallocated_floor && low != NONE {
                *fl = low;
            }
        }
        let leaves = s.next_power_of_two().max(1);
        let mut total_tree = vec![Size::ZERO; 2 * leaves];
        total_tree[leaves..leaves + s].copy_from_slice(&sec_total);
        for i in (1..leaves).rev() {
            total_tree[i] = total_tree[2 * i].max(total_tree[2 * i + 1]);
        }
        // Boundary k lies between sections k and k + 1; a span [lo, hi) crosses lo..hi-1.
        let cuts = Crossings::new(
            (0..n)
                .map(|b| {
                    let (lo, hi) = m.sections.span(b);
                    (lo, hi.saturating_sub(1).max(lo))
                })
                .collect(),
            s.saturating_sub(1),
        );
        Search {
            m,
            opt,
            preorder,
            cap,
            limits,
            offset: vec![NONE; n],
            floor,
            sec_floor,
            sec_total,
            total_tree,
            leaves,
            cuts,
            floor_trail: Vec::new(),
            sec_trail: Vec::new(),
            trail_cap: TRAIL_BASE.saturating_add(TRAIL_PER_BUFFER.saturating_mul(n)),
            stamp: vec![0; s],
            generation: 0,
            affected: Vec::new(),
            before: vec![NONE; s + 1],
            after: vec![NONE; s + 1],
            lifted: (u32::MAX, 0),
            arena: Vec::with_capacity(4 * n + 16),
            solution: vec![NONE; n],
            nodes: 0,
            steps: 0,
            out_of_steps: false,
            backtracks: 0,
        }
    }

    /// Runs the search from the root.
    pub(crate) fn run(&mut self) -> Status {
        let n = self.m.len();
        if n == 0 {
            return FOUND;
        }
        let sections = self.m.sections.len() as u32;
        if !self.consistent_scan(0, sections, Offset::ZERO) {
            return Verdict::Infeasible;
        }
        let cuts: Vec<u32> = if self.opt.decomposition {
            (0..self.cuts.len() as u32)
                .filter(|&k| self.cuts.count(k) == 0)
                .collect()
        } else {
            Vec::new()
        };
        // The root list: every buffer, in input order.
        self.arena.clear();
        let root = self.m.indices().map(|b| Cand {
            off: Offset::ZERO,
            rank: 0,
            b,
        });
        self.arena.extend(root);
        let status = self.solve_parts(0, n, 0, sections, &cuts, Offset::ZERO);
        self.arena.clear();
        status
    }

    fn should_stop(&self) -> bool {
        self.limits.budget.exhausted()
    }

    /// The static preorder key of `b`: larger first.
    fn preorder_key(&self, b: FreeIdx) -> [u64; 3] {
        let total = || {
            self.m
                .sections
                .runs(b.index())
                .iter()
                .flat_map(|&(lo, hi)| lo..hi)
                .map(|s| self.sec_total[s as usize])
                .max()
                .unwrap_or(Size::ZERO)
                .get()
        };
        let (length, area) = (self.m.length[b], self.m.area[b]);
        match self.preorder {
            None => [0, 0, 0],
            Some(Preorder::LongestFirst) => [length, area, total()],
            Some(Preorder::BusiestSectionThenArea) => [total(), area, length],
            Some(Preorder::BusiestSectionThenLength) => [total(), length, area],
            Some(Preorder::LargestFirst) => [self.m.size[b].get(), length, area],
        }
    }

    /// Solves the unallocated buffers of the list `arena[l0..l1]` (all inside sections
    /// `[lo, hi)`), split at the boundaries `cuts` (sorted) into independent parts, each
    /// re-ranked by the static preorder and searched with every offset at or above `base`.
    /// Each part's list is a fresh copy above the arena's top.
    fn solve_parts(
        &mut self,
        l0: usize,
        l1: usize,
        lo: u32,
        hi: u32,
        cuts: &[u32],
        base: Offset,
    ) -> Status {
        let mut bounds = Vec::with_capacity(cuts.len() + 2);
        bounds.push(lo);
        bounds.extend(cuts.iter().map(|&k| k + 1));
        bounds.push(hi);
        for w in bounds.windows(2) {
            let (plo, phi) = (w[0], w[1]);
            let mut part: Vec<(std::cmp::Reverse<[u64; 3]>, FreeIdx)> = self.arena[l0..l1]
                .iter()
                .map(|c| c.b)
                .filter(|&b| {
                    let (slo, shi) = self.m.sections.span(b.index());
                    self.offset[b] == NONE && slo >= plo && shi <= phi
                })
                .map(|b| (std::cmp::Reverse(self.preorder_key(b)), b))
                .collect();
            if part.is_empty() {
                continue;
            }
            if self.preorder.is_some() && self.opt.static_preordering {
                part.sort_unstable();
            }
            let a0 = self.arena.len();
            for (rank, &(_, b)) in part.iter().enumerate() {
                self.arena.push(Cand {
                    off: Offset::ZERO,
                    rank: rank as u32,
                    b,
                });
            }
            let a1 = self.arena.len();
            drop(part);
            let status = self.search(a0, a1, plo, phi, Key::new(base, 0));
            self.arena.truncate(a0);
            if status != FOUND {
                return status;
            }
        }
        FOUND
    }

    /// A node: the unallocated buffers are those of the list `arena[a0..a1]` not yet
    /// placed; the next placement must have a (offset, rank) key at or above `min_key`.
    ///
    /// The lists on a path take at most twice the part's size, whatever the depth: a
    /// node passes its own list on to its children unless more than half of it is
    /// placed, and only then copies the unplaced rest above the arena's top (so the
    /// copies on a path shrink geometrically); it tries the children after the first in
    /// batches of
    /// [`REST_BATCH`], selected afresh from the list (the floors are as they were at
    /// entry once a child is undone). The order of the children is (offset, rank), as
    /// if all were sorted at once.
    fn search(&mut self, a0: usize, a1: usize, lo: u32, hi: u32, min_key: Key) -> Status {
        self.nodes += 1;
        self.steps += 1 + (a1 - a0) as u64;
        if self.nodes > self.limits.nodes {
            return Verdict::Stopped(Halt::Limit);
        }
        if self.steps > self.limits.steps {
            self.out_of_steps = true;
            return Verdict::Stopped(Halt::Limit);
        }
        // A lost race, or the budget.
        if self
            .limits
            .race
            .is_some_and(|r| self.nodes > r.load(Ordering::Relaxed))
            || (self.nodes.is_multiple_of(POLL_EVERY) && self.should_stop())
        {
            return Verdict::Stopped(Halt::Budget);
        }
        if self.floor_trail.len() + self.sec_trail.len() > self.trail_cap {
            return Verdict::Stopped(Halt::Limit);
        }
        // The first candidate in (offset, rank) order by selection (most nodes try one).
        let floor_key = if self.opt.canonical {
            min_key
        } else {
            Key::default()
        };
        let mut unplaced = 0usize;
        let mut min_height = NONE;
        // The least key at or above `floor_key` so far; a buffer that can fit has a floor
        // below NONE, so no candidate's key is `least`'s starting value.
        let mut least = Key::new(NONE, u32::MAX);
        let mut first = a1;
        for i in a0..a1 {
            let c = self.arena[i];
            let b = c.b;
            let f = self.floor[b];
            if f == NONE {
                // A placed buffer's floor is NONE.
                if self.offset[b] != NONE {
                    continue;
                }
                // It can never fit: floors only rise.
                self.backtracks += 1;
                return Verdict::Infeasible;
            }
            unplaced += 1;
            min_height = min_height.min(f + self.m.size[b]);
            let k = Key::new(f, c.rank);
            if k >= floor_key && k < least {
                (least, first) = (k, i);
            }
        }
        if unplaced == 0 {
            return FOUND;
        }
        if first == a1 {
            self.backtracks += 1;
            return Verdict::Infeasible;
        }
        let first = Cand {
            off: least.offset,
            ..self.arena[first]
        };
        if self.opt.dominance && first.off >= min_height {
            self.backtracks += 1;
            return Verdict::Infeasible;
        }
        let start = self.arena.len();
        let (l0, l1) = if 2 * unplaced < a1 - a0 {
            for i in a0..a1 {
                let c = self.arena[i];
                if self.offset[c.b] == NONE {
                    self.arena.push(c);
                }
            }
            (start, self.arena.len())
        } else {
            (a0, a1)
        };
        let status = self.children(first, min_height, l0, l1, lo, hi);
        self.arena.truncate(start);
        if status == Verdict::Infeasible {
            self.backtracks += 1;
        }
        status
    }

    /// Tries the children of a node whose list is `arena[l0..l1]`: `first`, then every
    /// other candidate above it in (offset, rank) order, below the dominance bound
    /// `min_height`, until one does not fail.
    fn children(
        &mut self,
        first: Cand,
        min_height: Offset,
        l0: usize,
        l1: usize,
        lo: u32,
        hi: u32,
    ) -> Status {
        match self.place_and_recurse(first, l0, l1, lo, hi) {
            Verdict::Infeasible => {}
            s => return s,
        }
        let key = |c: &Cand| c.key();
        let bound = if self.opt.dominance { min_height } else { NONE };
        let mut after = key(&first);
        loop {
            let batch = self.arena.len();
            self.steps += (l1 - l0) as u64;
            for i in l0..l1 {
                let c = self.arena[i];
                // A placed buffer's floor is NONE, never below `bound` (nor can a
                // buffer that never fits be placed).
                let off = self.floor[c.b];
                if off != NONE && Key::new(off, c.rank) > after && off < bound {
                    self.arena.push(Cand { off, ..c });
                }
            }
            let found = self.arena.len() - batch;
            if found == 0 {
                return Verdict::Infeasible;
            }
            if found > REST_BATCH {
                crate::sort::least_by_key(&mut self.arena[batch..], REST_BATCH, key);
                self.arena.truncate(batch + REST_BATCH);
            }
            // At most REST_BATCH, and (offset, rank) orders every pair of candidates.
            crate::sort::short_by_key(&mut self.arena[batch..], key);
            let taken = self.arena.len();
            for i in batch..taken {
                let c = self.arena[i];
                match self.place_and_recurse(c, l0, l1, lo, hi) {
                    Verdict::Infeasible => {}
                    s => {
                        self.arena.truncate(batch);
                        return s;
                    }
                }
            }
            after = key(&self.arena[taken - 1]);
            self.arena.truncate(batch);
            if found <= REST_BATCH {
                return Verdict::Infeasible;
            }
        }
    }

    fn place_and_recurse(&mut self, c: Cand, start: usize, end: usize, lo: u32, hi: u32) -> Status {
        let m = self.m;
        let b = c.b;
        let size = m.size[b];
        let top = c.off + size;
        let mut precheck = None;
        if self.opt.canonical && self.opt.monotonic_floor && self.opt.section_inference {
            // Cheap pre-check of the monotonic floor on the sections `b` does not span
            // (their totals do not change): fail without placing.
            let (slo, shi) = m.sections.span(b.index());
            let outside = self
                .max_total(lo as usize, (slo.max(lo)) as usize)
                .max(self.max_total((shi.min(hi)) as usize, hi as usize));
            if outside > Size::ZERO && c.off.saturating_add(outside) > self.cap {
                return Verdict::Infeasible;
            }
            precheck = Some(outside);
        }
        self.offset[b] = c.off;
        // A placed buffer's floor is NONE: above every top, so that `lift` and the
        // rescans of `propagate` skip it without looking at `offset`.
        let own_floor = std::mem::replace(&mut self.floor[b], NONE);
        let floor_mark = self.floor_trail.len();
        let sec_mark = self.sec_trail.len();
        self.propagate(b, top);
        let mut cut_points: Vec<u32> = Vec::new();
        if self.opt.decomposition {
            self.cuts.remove(b.0, |k| {
                if k >= lo && k + 1 < hi {
                    cut_points.push(k);
                }
            });
        }

        let status = if !self.consistent(lo, hi, c.off, b, precheck) {
            Verdict::Infeasible
        } else if !cut_points.is_empty() {
            let base = if self.opt.canonical {
                c.off
            } else {
                Offset::ZERO
            };
            self.solve_parts(start, end, lo, hi, &cut_points, base)
        } else {
            self.search(start, end, lo, hi, Key::new(c.off, c.rank + 1))
        };
        if status == FOUND {
            self.solution[b] = c.off;
        }

        if self.opt.decomposition {
            self.cuts.restore(b.0);
        }
        self.undo(b, sec_mark, floor_mark);
        self.floor[b] = own_floor;
        self.offset[b] = NONE;
        status
    }

    /// Section inference after placing `b` at `last`, incrementally: only the sections
    /// whose level changed (those of `b`, and those whose effective height rose) are
    /// rechecked, the others passed at the parent; the monotonic floor `last` rises for
    /// all of them at once, which one range-max query over the totals covers (or, for a
    /// `b` of one run, the largest total `outside` its span, from the pre-check of
    /// [`Search::place_and_recurse`], and the largest of its own sections).
    fn consistent(
        &self,
        lo: u32,
        hi: u32,
        last: Offset,
        b: FreeIdx,
        outside: Option<Size>,
    ) -> bool {
        if self.m.has_fixed {
            return self.consistent_scan(lo, hi, last);
        }
        let monotonic = self.opt.canonical && self.opt.monotonic_floor;
        let ok = |s: usize| {
            let total = self.sec_total[s];
            if total == Size::ZERO || (s as u32) < lo || s as u32 >= hi {
                return true;
            }
            let mut level = self.sec_floor[s];
            if monotonic {
                level = level.max(last);
            }
            if self.opt.section_inference {
                level = level.saturating_add(total);
            }
            level <= self.cap
        };
        let runs = self.m.sections.runs(b.index());
        let mut own = Size::ZERO;
        for &(slo, shi) in runs {
            for s in slo as usize..shi as usize {
                if !ok(s) {
                    return false;
                }
                own = own.max(self.sec_total[s]);
            }
        }
        if self.opt.unallocated_floor && !self.affected.iter().all(|&s| ok(s as usize)) {
            return false;
        }
        if monotonic && self.opt.section_inference {
            let t = match (outside, runs.len()) {
                (Some(outside), 1) => outside.max(own),
                _ => self.max_total(lo as usize, hi as usize),
            };
            if t > Size::ZERO && last.saturating_add(t) > self.cap {
                return false;
            }
        }
        true
    }

    /// Section inference (eq. 3 with the monotonic floor and the effective height) over
    /// every section of `[lo, hi)`, after placing a buffer at `last`.
    fn consistent_scan(&self, lo: u32, hi: u32, last: Offset) -> bool {
        let monotonic = self.opt.canonical && self.opt.monotonic_floor;
        for s in lo as usize..hi as usize {
            let total = self.sec_total[s];
            if total == Size::ZERO {
                continue;
            }
            let mut level = self.sec_floor[s];
            if monotonic {
                level = level.max(last);
            }
            let mut need = level;
            if self.opt.section_inference {
                need = need.saturating_add(total);
                if self.m.has_fixed {
                    for &(flo, fhi) in self.m.section_fixed.get(s) {
                        let (a, z) = (flo.max(level), fhi.min(self.cap.as_offset()));
                        need = need.saturating_add(z.saturating_distance_from(a));
                    }
                }
            }
            if need > self.cap {
                return false;
            }
        }
        true
    }
}
