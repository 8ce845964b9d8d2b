//! The free addresses of a sweep in start order, for best-fit in O(log n) a placement.
//!
//! Placing buffers in order of their start times is an online allocation: when buffer
//! `b` is placed, the placed buffers it conflicts with are exactly those still live at
//! `b.start` (every placed buffer started no later), and those are pairwise disjoint in
//! address (they are all live at that instant). So the addresses free for `b` are the
//! complement of the live spans: finitely many *holes* between them and the *top*,
//! everything above the highest live span.
//!
//! ```text
//!   live at t:   [0, 3)       [5, 9)   [10, 12)
//!   address      0  1  2  3  4  5  6  7  8  9 10 11 12 ...
//!                ########|     |###########|  |#####|
//!   holes                 [3, 5)            [9, 10)
//!   top                                              [12, ...)
//! ```
//!
//! [`FreeRanges`] keeps the holes twice, by start (to merge a freed span with its
//! neighbours) and by length (to find the best fit), and the live spans in a heap by
//! the end of their lifetimes (to free them when the sweep passes it). Best-fit picks the
//! hole whose room above the aligned offset is smallest among those that fit, the lowest
//! such offset on ties, and the top when no hole fits: the same offset as
//! [`super::choose_offset`] given the live spans sorted by address, so a sweep with it
//! gives the same plan as one with [`super::place::LiveSpans`], in O(log n) per placement
//! instead of O(live). With alignment 1 the best hole is the first of the length index at
//! or above the size; with alignment `a`, holes are read in length order until their
//! length exceeds the best room found by `a - 1`.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use super::Span;
use crate::types::{Offset, Size, Time};

/// The end of the top, the free range above every live span.
const NO_END: Offset = Offset(u64::MAX);

/// The free address ranges at the current time of a sweep in start order.
#[derive(Debug)]
pub(crate) struct FreeRanges {
    /// Every free range, `start -> end`; the top's end is [`NO_END`].
    by_start: BTreeMap<Offset, Offset>,
    /// The holes (free ranges below the top), as `(length, start)`.
    by_length: BTreeSet<(Size, Offset)>,
    /// Live spans: `(end of lifetime, offset, end address)`, soonest end first.
    live: BinaryHeap<Reverse<(Time, Offset, Offset)>>,
}

impl Default for FreeRanges {
    fn default() -> FreeRanges {
        FreeRanges {
            by_start: BTreeMap::from([(Offset::ZERO, NO_END)]),
            by_length: BTreeSet::new(),
            live: BinaryHeap::new(),
        }
    }
}

impl FreeRanges {
    /// Frees the spans whose lifetime ends at or before `time` (half-open lifetimes).
    pub(crate) fn expire(&mut self, time: Time) {
        while let Some(&Reverse((end, lo, hi))) = self.live.peek() {
            if end > time {
                break;
            }
            self.live.pop();
            self.free(lo, hi);
        }
    }

    /// The best-fit offset for `size` bytes aligned to `alignment`: the hole with the
    /// least room above the aligned offset among those that fit (the lowest offset on
    /// ties), else the aligned start of the top.
    pub(crate) fn best_fit(&self, size: Size, alignment: Size) -> Offset {
        // A hole's aligned offset is at most this far above its start.
        let slack = alignment - Size(1);
        let mut best: Option<(Size, Offset)> = None; // (room, offset)
        for &(length, start) in self.by_length.range((size, Offset::ZERO)..) {
            if let Some((room, _)) = best {
                if length - slack.min(length) > room {
                    break; // every later hole has more room than the best
                }
            }
            let offset = start.align_up(alignment);
            let end = start + length;
            if offset <= end && end - offset >= size {
                let candidate = (end - offset, offset);
                if best.is_none_or(|b| candidate < b) {
                    best = Some(candidate);
                }
            }
        }
        match best {
            Some((_, offset)) => offset,
            None => {
                let (&top, _) = self
                    .by_start
                    .last_key_value()
                    .expect("the top is always free");
                top.align_up(alignment)
            }
        }
    }

    /// Marks `[lo, hi)` taken until time `end` (exclusive). The range must be free.
    pub(crate) fn take(&mut self, (lo, hi): Span, end: Time) {
        let (&start, &stop) = self
            .by_start
            .range(..=lo)
            .next_back()
            .expect("a placement inside a free range");
        debug_assert!(hi <= stop, "[{lo}, {hi}) is not free");
        self.remove(start, stop);
        if start < lo {
            self.insert(start, lo);
        }
        if hi < stop {
            self.insert(hi, stop);
        }
        self.live.push(Reverse((end, lo, hi)));
    }

    fn free(&mut self, mut lo: Offset, mut hi: Offset) {
        if let Some((&start, &stop)) = self.by_start.range(..lo).next_back() {
            if stop == lo {
                self.remove(start, stop);
                lo = start;
            }
        }
        if let Some(&stop) = self.by_start.get(&hi) {
            self.remove(hi, stop);
            hi = stop;
        }
        self.insert(lo, hi);
    }

    fn insert(&mut self, start: Offset, stop: Offset) {
        self.by_start.insert(start, stop);
        if stop != NO_END {
            self.by_length.insert((stop - start, start));
        }
    }

    fn remove(&mut self, start: Offset, stop: Offset) {
        self.by_start.remove(&start);
        if stop != NO_END {
            self.by_length.remove(&(stop - start, start));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::greedy::tests::choose;
    use crate::greedy::Fit;

    /// Best-fit from raw numbers.
    fn best_fit(free: &FreeRanges, size: u64, alignment: u64) -> u64 {
        free.best_fit(Size(size), Size(alignment)).get()
    }

    /// Takes `[lo, hi)` until `end`, from raw numbers.
    fn take(free: &mut FreeRanges, lo: u64, hi: u64, end: u64) {
        free.take((Offset(lo), Offset(hi)), Time(end));
    }

    /// A tiny deterministic generator, so the test needs no crate.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn best_fit_matches_choose_offset_on_the_live_spans_of_a_sweep() {
        for seed in 1..=40u64 {
            let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let n = 200 + (next(&mut state) % 300) as usize;
            // (start, end, size, alignment), in start order.
            let mut bufs: Vec<(u64, u64, u64, u64)> = (0..n)
                .map(|_| {
                    let start = next(&mut state) % 100;
                    let end = start + 1 + next(&mut state) % 30;
                    let size = 1 + next(&mut state) % [16, 5000, 1 << 40][(seed % 3) as usize];
                    let alignment = [1, 1, 2, 8, 64, 4096][(next(&mut state) % 6) as usize];
                    (start, end, size, alignment)
                })
                .collect();
            bufs.sort_by_key(|b| b.0);
            let mut free = FreeRanges::default();
            let mut live: Vec<(u64, u64, u64)> = Vec::new(); // (end, lo, hi)
            for &(start, end, size, alignment) in &bufs {
                free.expire(Time(start));
                live.retain(|&(e, _, _)| e > start);
                let mut spans: Vec<(u64, u64)> = live.iter().map(|&(_, lo, hi)| (lo, hi)).collect();
                spans.sort_unstable();
                let expected = choose(&spans, size, alignment, Fit::BestFit);
                let got = best_fit(&free, size, alignment);
                assert_eq!(
                    got, expected,
                    "seed {seed}: live {spans:?}, size {size}, alignment {alignment}"
                );
                take(&mut free, got, got + size, end);
                live.push((end, got, got + size));
            }
        }
    }

    #[test]
    fn freed_spans_merge_with_their_neighbours_and_lower_the_top() {
        let mut free = FreeRanges::default();
        take(&mut free, 0, 4, 5);
        take(&mut free, 4, 6, 3);
        take(&mut free, 6, 10, 5);
        assert_eq!(best_fit(&free, 1, 1), 10);
        free.expire(Time(3)); // [4, 6) is a hole now
        assert_eq!(best_fit(&free, 2, 1), 4);
        assert_eq!(best_fit(&free, 3, 1), 10);
        assert_eq!(best_fit(&free, 2, 4), 4);
        assert_eq!(best_fit(&free, 2, 8), 16);
        free.expire(Time(5)); // everything merges into the top again
        assert_eq!(free.by_start.len(), 1);
        assert!(free.by_length.is_empty());
        assert_eq!(best_fit(&free, 7, 1), 0);
    }
}
