//! The incremental state of [`Search`] under one placement and its undoing: the
//! sections' placed tops, effective heights (MiniMalloc §6.2, strengthening 2) and
//! unallocated totals, and the floors of the buffers a placement lifts. Every change
//! goes on a trail and is undone on backtrack, never copied (see the parent's docs,
//! *State*).

use super::{FreeIdx, Saved, Search, NONE};
use crate::types::{Offset, Size};

impl Search<'_> {
    /// Propagates the placement of `b` (its top at `top`): raises the placed top of its
    /// sections and takes its size out of their unallocated totals, lifts the floors of
    /// the unplaced buffers it overlaps, and (with `unallocated_floor`) re-derives the
    /// level of every section whose lowest unallocated floor may have moved. Every change
    /// goes on the trails, for [`Search::undo`].
    #[inline]
    pub(super) fn propagate(&mut self, b: FreeIdx, top: Offset) {
        let m = self.m;
        let size = m.size[b];
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
        self.affected.clear();
        // The sections of `b`: raise their placed top. `b` leaves their unallocated
        // members, which may raise their lowest floor: rescan them.
        let runs = m.sections.runs(b.index());
        for &(slo, shi) in runs {
            self.steps += u64::from(shi - slo);
            for s in slo as usize..shi as usize {
                // Only changes go on the trail: it holds O(changes on the path), not
                // O(sections of every buffer placed).
                if top > self.sec_floor[s] {
                    self.sec_trail.push(Saved::new(s, self.sec_floor[s]));
                    self.sec_floor[s] = top;
                }
                self.sec_total[s] -= size;
                if self.opt.unallocated_floor {
                    self.stamp[s] = self.generation;
                    self.affected.push(s as u32);
                }
            }
            self.set_tree(slo as usize, shi as usize);
        }
        // The sections of a one-run `b` are all marked above: `lift` skips them.
        let own = match runs {
            &[run] => run,
            _ => (0, 0),
        };
        // A step per buffer live with `b`; a placed buffer's floor is NONE, above every
        // top, and is not lifted.
        match &m.flat {
            Some(flat) => {
                let live = flat.overlaps.get(b.index());
                self.steps += live.len() as u64;
                for &u in live {
                    let u = FreeIdx(u);
                    if self.floor[u] < top {
                        self.lift(u, top, own);
                    }
                }
            }
            None => m.sections.for_each_overlap(b.index(), |u| {
                let u = FreeIdx(u);
                self.steps += 1;
                if self.floor[u] < top {
                    self.lift(u, top, own);
                }
            }),
        }
        if self.opt.unallocated_floor && own.0 < own.1 {
            self.mark_lifted(own);
        }
        if self.opt.unallocated_floor {
            for i in 0..self.affected.len() {
                let s = self.affected[i] as usize;
                let level = self.sec_floor[s];
                let mut low = NONE;
                let mut scanned = 0u64;
                let floor = &self.floor;
                // A placed buffer's floor is NONE. The scan stops once the level cannot
                // rise.
                match &m.flat {
                    Some(flat) => {
                        // The running minimum reaches the level at the first member at
                        // or below it; past all of them, the minimum is the new level.
                        let members = flat.members.get(s);
                        scanned = members.len() as u64;
                        for (k, &u) in members.iter().enumerate() {
                            let f = floor[FreeIdx(u)];
                            if f <= level {
                                (scanned, low) = (k as u64 + 1, f);
                                break;
                            }
                            low = low.min(f);
                        }
                    }
                    None => m.sections.for_each_member(s, |u| {
                        scanned += 1;
                        low = low.min(floor[FreeIdx(u)]);
                        low > level
                    }),
                }
                self.steps += scanned;
                if low != NONE && low > self.sec_floor[s] {
                    self.sec_trail.push(Saved::new(s, self.sec_floor[s]));
                    self.sec_floor[s] = low;
                }
            }
        }
    }

    /// Lifts the floor of the unplaced buffer `u` (below `top`), live with a buffer just
    /// placed whose top is at `top`, and marks the sections whose level may rise for
    /// [`Search::propagate`], except those of `marked` (sections `[lo, hi)` already
    /// marked).
    fn lift(&mut self, u: FreeIdx, top: Offset, marked: (u32, u32)) {
        let m = self.m;
        let old = self.floor[u];
        self.floor_trail.push(Saved::new(u.index(), old));
        self.floor[u] = m.fit(u, top, self.cap).unwrap_or(NONE);
        if !self.opt.unallocated_floor {
            return;
        }
        let runs = m.sections.runs(u.index());
        if let (&[(slo, shi)], true) = (runs, marked.0 < marked.1) {
            // One run each, and `u` meets the run of `b`: what sticks out of it on
            // either side, marked at once by `mark_lifted`.
            if slo < marked.0 {
                self.before[slo as usize] = self.before[slo as usize].min(old);
                self.lifted.0 = self.lifted.0.min(slo);
            }
            if shi > marked.1 {
                self.after[shi as usize] = self.after[shi as usize].min(old);
                self.lifted.1 = self.lifted.1.max(shi);
            }
            return;
        }
        for &(slo, shi) in runs {
            for s in slo..shi {
                self.mark(s as usize, old);
            }
        }
    }

    /// Marks section `s` for the rescan of [`Search::propagate`] after a member's floor
    /// rose from `old`. Invariant: a section's level is max(placed top, lowest
    /// unallocated floor) exactly. When the member was above the level it was not the
    /// lowest, and the level stays.
    #[inline]
    fn mark(&mut self, s: usize, old: Offset) {
        if old <= self.sec_floor[s] && self.stamp[s] != self.generation {
            self.stamp[s] = self.generation;
            self.affected.push(s as u32);
        }
    }

    /// Marks, as [`Search::lift`] would section by section, the sections outside
    /// `run` (the one run of the buffer placed) of the buffers lifted with one run:
    /// each sticks out on one side or both, so the lowest old floor over a section is
    /// a running minimum from `run` outwards. O(sections marked), not O(sections of
    /// every lifted buffer).
    fn mark_lifted(&mut self, (lo, hi): (u32, u32)) {
        let (first, last) = std::mem::replace(&mut self.lifted, (u32::MAX, 0));
        let mut low = NONE;
        for s in first.min(lo)..lo {
            let s = s as usize;
            low = low.min(std::mem::replace(&mut self.before[s], NONE));
            self.mark(s, low);
        }
        let mut low = NONE;
        for s in (hi..last.max(hi)).rev() {
            let s = s as usize;
            low = low.min(std::mem::replace(&mut self.after[s + 1], NONE));
            self.mark(s, low);
        }
    }

    /// Undoes [`Search::propagate`] of `b` back to the trail marks.
    #[inline]
    pub(super) fn undo(&mut self, b: FreeIdx, sec_mark: usize, floor_mark: usize) {
        let m = self.m;
        let size = m.size[b];
        while self.sec_trail.len() > sec_mark {
            let (s, v) = self.sec_trail.pop().expect("non-empty").get();
            self.sec_floor[s] = v;
        }
        for &(slo, shi) in m.sections.runs(b.index()) {
            for s in slo as usize..shi as usize {
                self.sec_total[s] += size;
            }
            self.set_tree(slo as usize, shi as usize);
        }
        while self.floor_trail.len() > floor_mark {
            let (u, v) = self.floor_trail.pop().expect("non-empty").get();
            self.floor[u] = v;
        }
    }

    /// Refreshes the max-tree over the totals of sections `[lo, hi)` (non-empty): the
    /// leaves, then each level's parents of the range, O(hi - lo + log sections).
    #[inline]
    fn set_tree(&mut self, lo: usize, hi: usize) {
        let (mut l, mut r) = (self.leaves + lo, self.leaves + hi - 1);
        self.total_tree[l..=r].copy_from_slice(&self.sec_total[lo..hi]);
        while l > 1 {
            (l, r) = (l / 2, r / 2);
            for i in l..=r {
                self.total_tree[i] = self.total_tree[2 * i].max(self.total_tree[2 * i + 1]);
            }
        }
    }

    /// The largest unallocated total among sections `[lo, hi)`.
    pub(super) fn max_total(&self, lo: usize, hi: usize) -> Size {
        let (mut l, mut r) = (lo + self.leaves, hi + self.leaves);
        let mut best = Size::ZERO;
        while l < r {
            if l & 1 == 1 {
                best = best.max(self.total_tree[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                best = best.max(self.total_tree[r]);
            }
            l /= 2;
            r /= 2;
        }
        best
    }
}
