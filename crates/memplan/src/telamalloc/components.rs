//! Dynamic decomposition for canonical searches (MiniMalloc §7, in TelaMalloc's engine).
//!
//! # Model
//!
//! A *boundary* is a time at which some buffer starts or ends. While the search runs,
//! `crossing[k]` counts the unplaced buffers live on both sides of boundary `k`
//! (`start < t_k < end`; gaps are ignored, which only merges more). When a placement
//! brings some `crossing[k]` to zero and unplaced buffers remain on both sides, the
//! unplaced buffers fall into *components*: groups whose lifetimes chain together and
//! never meet another group's.
//!
//! ```text
//!   placed:    [=========== x ===========]
//!   unplaced:  [ a ][  b  ]     |    [ c ][  d  ]
//!                               t_k: no unplaced buffer crosses it now
//!   components {a, b} and {c, d}: solved one after the other, each on its own
//! ```
//!
//! In a canonical sequence every unplaced buffer sits on its skyline floor, and the
//! placed buffers only matter through those floors. So each component is a fresh
//! problem whose domains start at the floors (lifted to the last offset), with its own
//! canonical order; by the compaction argument of MiniMalloc §5 a complete search of it
//! misses no plan. A component that fails fails the placement that split it, and no
//! choice in another component is undone for it: that is the whole gain.
//!
//! # Invariants
//!
//! `crossing` and `left` always describe the unplaced buffers: every `place` is matched
//! by an `unplace` when the search undoes it.

use crate::sections::Crossings;
use crate::types::{BufferIdx, Problem, Time};

/// Crossing counts per boundary and where the unplaced buffers start.
pub(super) struct Cuts {
    /// Per buffer, the boundaries strictly inside its lifetime, `[first, last)`.
    crossing: Crossings,
    /// `start_at[i]`: the boundary where buffer `i` starts.
    start_at: Vec<u32>,
    /// Fenwick tree over boundaries: unplaced buffers starting at each.
    starts: Vec<u32>,
    unplaced: usize,
    /// Set by `place` when it opened a cut with unplaced buffers on both sides.
    split: bool,
}

impl Cuts {
    /// Every buffer unplaced. O(n log n + boundaries).
    pub(super) fn new(problem: &Problem) -> Cuts {
        let bufs = problem.buffers();
        let times = crate::analysis::lifetime_boundaries(problem);
        let at = |t: Time| times.partition_point(|&x| x < t) as u32;
        let interior: Vec<(u32, u32)> = bufs
            .iter()
            .map(|b| (at(b.lifetime.start) + 1, at(b.lifetime.end)))
            .collect();
        let start_at: Vec<u32> = bufs.iter().map(|b| at(b.lifetime.start)).collect();
        let mut cuts = Cuts {
            crossing: Crossings::new(interior, times.len()),
            start_at,
            starts: vec![0; times.len() + 1],
            unplaced: 0,
            split: false,
        };
        for i in 0..bufs.len() {
            cuts.add_start(cuts.start_at[i], 1);
        }
        cuts.unplaced = bufs.len();
        cuts
    }

    fn add_start(&mut self, k: u32, delta: i32) {
        let mut i = k as usize + 1;
        while i < self.starts.len() {
            self.starts[i] = self.starts[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Unplaced buffers starting before boundary `k`.
    fn starting_before(&self, k: u32) -> u32 {
        let mut i = k as usize;
        let mut sum = 0;
        while i > 0 {
            sum += self.starts[i];
            i &= i - 1;
        }
        sum
    }

    /// True when no unplaced buffer crosses boundary `k` and some lie on each side.
    fn separates(&self, k: u32) -> bool {
        if self.crossing.count(k) != 0 {
            return false;
        }
        let left = self.starting_before(k) as usize;
        left > 0 && left < self.unplaced
    }

    /// Buffer `i` is placed. Remembers whether that opened a cut (see [`Cuts::take_split`]).
    pub(super) fn place(&mut self, i: BufferIdx) {
        self.add_start(self.start_at[i], -1);
        self.unplaced -= 1;
        self.crossing.remove(i.0, |_| {});
        let (first, last) = self.crossing.range(i.0);
        // Every boundary inside `i` was crossed by `i` until now, so only those can
        // have just opened.
        if !self.split {
            self.split = (first..last).any(|k| self.separates(k));
        }
    }

    /// Buffer `i` is unplaced again.
    pub(super) fn unplace(&mut self, i: BufferIdx) {
        self.add_start(self.start_at[i], 1);
        self.unplaced += 1;
        self.crossing.restore(i.0);
    }

    /// Whether the placements since the last call opened a cut; clears the flag.
    pub(super) fn take_split(&mut self) -> bool {
        std::mem::take(&mut self.split)
    }

    /// True when the unplaced buffers already fall into several components (the root).
    pub(super) fn is_split(&self) -> bool {
        (0..self.crossing.len() as u32).any(|k| self.separates(k))
    }
}

/// The unplaced buffers grouped into components, in time order: sorted by start, a new
/// group begins at a buffer starting at or after every end so far.
pub(super) fn components(
    problem: &Problem,
    unplaced: impl Iterator<Item = BufferIdx>,
) -> Vec<Vec<BufferIdx>> {
    let mut order: Vec<(Time, BufferIdx)> = unplaced
        .map(|i| (problem.buffer(i).lifetime.start, i))
        .collect();
    order.sort_unstable();
    let mut groups: Vec<Vec<BufferIdx>> = Vec::new();
    let mut end = Time(0);
    for (start, i) in order {
        if groups.is_empty() || start >= end {
            groups.push(Vec::new());
        }
        end = end.max(problem.buffer(i).lifetime.end);
        groups.last_mut().expect("pushed").push(i);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::types::Buffer;

    /// The flag after a placement against the components recomputed from scratch: with
    /// at most one component before (as in the search, which never goes on split), it
    /// is raised exactly when the unplaced buffers fall into several.
    #[test]
    fn a_split_is_flagged_exactly_when_components_appear() {
        let mut rng = Rng::new(5);
        for round in 0..300 {
            let n = 2 + round % 12;
            let bufs: Vec<Buffer> = (0..n)
                .map(|i| {
                    let s = rng.range(0, 16);
                    Buffer::new(format!("{i}"), s, s + 1 + rng.range(0, 6), 1)
                })
                .collect();
            let p = Problem::new(bufs).unwrap();
            let mut cuts = Cuts::new(&p);
            let mut placed = vec![false; n];
            let open = |placed: &[bool]| p.indices().filter(|&i| !placed[i]).collect::<Vec<_>>();
            let count = |placed: &[bool]| components(&p, open(placed).into_iter()).len();
            assert_eq!(cuts.is_split(), count(&placed) > 1, "round {round}: root");
            let mut stack: Vec<BufferIdx> = Vec::new();
            for _ in 0..40 {
                let open = open(&placed);
                if count(&placed) <= 1 && !open.is_empty() && rng.range(0, 3) > 0 {
                    let i = open[rng.range(0, open.len() as u64 - 1) as usize];
                    cuts.place(i);
                    placed[i] = true;
                    stack.push(i);
                    assert_eq!(cuts.take_split(), count(&placed) > 1, "round {round}");
                } else if let Some(i) = stack.pop() {
                    cuts.unplace(i);
                    placed[i] = false;
                }
                assert_eq!(cuts.is_split(), count(&placed) > 1, "round {round}");
            }
        }
    }
}
