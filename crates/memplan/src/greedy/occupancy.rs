//! The occupied addresses over a time interval, for greedy placement in any order.
//!
//! **Model.** Placed buffers are rectangles: a time interval (a live segment: the
//! lifetime, or each piece of it between gaps) × an address range `[offset, offset +
//! size)`. To place a buffer, a fit needs the addresses taken at some time of its live
//! segments, and [`super::choose_offset`] depends on those only through their *union*
//! (see below). On a well-packed dense trace that union is a few ranges even when
//! thousands of placed buffers conflict with the buffer, so [`Occupancy`] keeps unions,
//! not buffers.
//!
//! **Structure.** A segment tree over the distinct starts of the live segments (two
//! half-open intervals overlap exactly when one contains the other's start, so the
//! starts are enough as time points). A rectangle covers the leaves of the starts inside
//! its interval; that range splits into O(log n) *canonical* nodes. Each node keeps two
//! unions of address ranges, as sorted vectors of disjoint, non-touching ranges:
//!
//! - `within`: the rectangles with a canonical node in its subtree (it or below), i.e.
//!   those added while visiting it;
//! - `cover` (inner nodes): the rectangles for which it is itself canonical.
//!
//! **Invariant.** A rectangle meets a query interval exactly when it has a canonical node
//! in the subtree of one of the query's canonical nodes, or at a strict ancestor of one
//! (every such ancestor is partly, not wholly, inside the query). So the query reads
//! `within` at its canonical nodes and `cover` at the nodes it passes on the way down:
//! O(log n) unions, whose ranges together cover the same addresses as the conflicting
//! rectangles. An insertion adds the range to `within` on the same kind of path and to
//! `cover` at its canonical nodes: O(log n) unions, each updated by binary search.
//!
//! **Why the union is enough.** [`super::choose_offset`] walks the taken spans in order
//! of their start with a candidate offset, the aligned highest end so far. A span
//! starting at or below that highest end (it overlaps or touches what came before)
//! cannot end a fitting gap, since the candidate is at least that end and the size is
//! positive; so only the starts of the union's ranges can end a gap, and each such gap
//! begins at the aligned end of the range before. The offset, for first-fit and for
//! best-fit (ties included), is thus a function of the union, and the plan is the one
//! the placed buffers themselves give.
//!
//! **Choosing from the runs.** A query hands its O(log n) lists (*runs*) to
//! [`super::unions`], which picks the offset without merging them all: first-fit by a
//! leapfrog over the runs' fronts, best-fit by that leapfrog up to the lowest fitting
//! candidate and a merge of what lies above it (see there).
//!
//! Costs: per insertion, O(log n) lists updated, each by one binary search, a scan over
//! the ranges the new one merges with, and a move of the tail; per query, O(log n) nodes
//! visited, and in [`super::unions`] work in the ranges read, which on dense traces are
//! far fewer than the conflicting buffers (the 60,000 buffers of a dense generated trace
//! have 2.75e8 overlapping pairs, and a query reads about 2,500 ranges, making about 700
//! components of the union, from about 20 runs).

use super::Span;
use crate::types::{Lifetime, Time};

/// A union of address ranges: sorted, pairwise disjoint and not touching.
type Ranges = Vec<Span>;

/// Adds `[lo, hi)` to `ranges`, merging it with every range it overlaps or touches.
fn add(ranges: &mut Ranges, (lo, hi): Span) {
    // The first range that ends at or after `lo`, and the first that starts after `hi`:
    // those in between merge with the new one. A scan finds the second: it passes only
    // the ranges that merge (usually none or one), which the drain below removes anyway.
    let i = ranges.partition_point(|&(_, e)| e < lo);
    let mut j = i;
    while j < ranges.len() && ranges[j].0 <= hi {
        j += 1;
    }
    if i == j {
        ranges.insert(i, (lo, hi));
    } else {
        let ((first, _), (_, last)) = (ranges[i], ranges[j - 1]);
        ranges[i] = (first.min(lo), last.max(hi));
        ranges.drain(i + 1..j);
    }
}

/// The occupied address ranges of placed rectangles, by time (see the module docs).
pub(crate) struct Occupancy {
    /// The distinct starts of the live segments that will be inserted or queried, sorted:
    /// leaf `k` is the time `starts[k]`.
    starts: Vec<Time>,
    /// Leaves in the tree: a power of two, at least `starts.len()`.
    leaves: usize,
    /// `within[node]`, for the nodes `1..2 * leaves` (heap numbering).
    within: Vec<Ranges>,
    /// `cover[node]`, for the inner nodes `1..leaves`.
    cover: Vec<Ranges>,
}

impl Occupancy {
    /// An empty occupancy for rectangles and queries whose time intervals start at the
    /// given times (in any order, repeats allowed).
    pub(crate) fn new(mut starts: Vec<Time>) -> Occupancy {
        starts.sort_unstable();
        starts.dedup();
        let leaves = starts.len().next_power_of_two().max(1);
        Occupancy {
            starts,
            leaves,
            within: vec![Vec::new(); 2 * leaves],
            cover: vec![Vec::new(); leaves],
        }
    }

    /// The leaves of the time interval `during`: those of the starts inside it.
    #[inline]
    fn leaf_range(&self, during: Lifetime) -> (usize, usize) {
        let l = self.starts.partition_point(|&t| t < during.start);
        let r = l + self.starts[l..].partition_point(|&t| t < during.end);
        (l, r)
    }

    /// Marks `span` taken `during` a time interval whose start is one of the starts
    /// given to [`Occupancy::new`].
    pub(crate) fn insert(&mut self, during: Lifetime, span: Span) {
        let (l, r) = self.leaf_range(during);
        debug_assert!(
            l < r && self.starts[l] == during.start,
            "a start given to new"
        );
        let mut stack = [(0usize, 0usize, 0usize); 64];
        stack[0] = (1, 0, self.leaves);
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let (node, nlo, nhi) = stack[top];
            add(&mut self.within[node], span);
            if l <= nlo && nhi <= r {
                if node < self.leaves {
                    add(&mut self.cover[node], span);
                }
                continue;
            }
            let mid = (nlo + nhi) / 2;
            if mid < r {
                stack[top] = (2 * node + 1, mid, nhi);
                top += 1;
            }
            if l < mid {
                stack[top] = (2 * node, nlo, mid);
                top += 1;
            }
        }
    }

    /// Appends to `runs` sorted lists of disjoint address ranges whose union is the union
    /// of the rectangles that meet `during`: O(log n) lists, each read from a node.
    pub(crate) fn runs<'a>(&'a self, during: Lifetime, runs: &mut Vec<&'a [Span]>) {
        let (l, r) = self.leaf_range(during);
        if l >= r {
            return;
        }
        let mut stack = [(0usize, 0usize, 0usize); 64];
        stack[0] = (1, 0, self.leaves);
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let (node, nlo, nhi) = stack[top];
            let run = if l <= nlo && nhi <= r {
                &self.within[node]
            } else {
                &self.cover[node]
            };
            if !run.is_empty() {
                runs.push(run);
            }
            if l <= nlo && nhi <= r {
                continue;
            }
            let mid = (nlo + nhi) / 2;
            if mid < r {
                stack[top] = (2 * node + 1, mid, nhi);
                top += 1;
            }
            if l < mid {
                stack[top] = (2 * node, nlo, mid);
                top += 1;
            }
        }
    }
}

#[cfg(test)]
pub(in crate::greedy) mod tests {
    use super::*;
    use crate::types::{Offset, Size};

    /// The union of `spans` (any order, any overlap), as sorted, disjoint, non-touching
    /// ranges: the reference the kernels' tests compare with.
    pub(in crate::greedy) fn union(mut spans: Vec<Span>) -> Ranges {
        spans.sort_unstable();
        let mut out: Ranges = Vec::new();
        for (lo, hi) in spans {
            match out.last_mut() {
                Some((_, end)) if lo <= *end => *end = (*end).max(hi),
                _ => out.push((lo, hi)),
            }
        }
        out
    }

    /// Spans from raw numbers.
    pub(in crate::greedy) fn spans(raw: &[(u64, u64)]) -> Vec<Span> {
        raw.iter()
            .map(|&(lo, hi)| (Offset(lo), Offset(hi)))
            .collect()
    }

    /// Every query gives the union of the rectangles whose time interval meets it, as a
    /// scan over all of them gives.
    #[test]
    fn queries_give_the_union_of_the_meeting_rectangles() {
        let mut rng = crate::rng::Rng::new(23);
        for round in 0..300 {
            let n = 1 + rng.range(0, 60) as usize;
            let horizon = 1 + rng.range(0, 40);
            let rects: Vec<(Lifetime, Span)> = (0..n)
                .map(|_| {
                    let s = rng.range(0, horizon);
                    let lo = Offset(rng.range(0, 200));
                    let during = Lifetime::new(s, s + rng.range(1, 15));
                    (during, (lo, lo + Size(rng.range(1, 30))))
                })
                .collect();
            let mut occ = Occupancy::new(rects.iter().map(|(t, _)| t.start).collect());
            for (k, &(during, span)) in rects.iter().enumerate() {
                occ.insert(during, span);
                for &(query, _) in &rects {
                    let mut runs = Vec::new();
                    occ.runs(query, &mut runs);
                    let got = union(runs.iter().flat_map(|r| r.iter().copied()).collect());
                    let want: Vec<Span> = rects[..=k]
                        .iter()
                        .filter(|(t, _)| t.overlaps(&query))
                        .map(|&(_, span)| span)
                        .collect();
                    assert_eq!(got, union(want), "round {round}");
                }
            }
        }
    }

    #[test]
    fn add_merges_overlapping_and_touching_ranges() {
        let mut r = Vec::new();
        for &span in &spans(&[(10, 20), (30, 40), (0, 5)]) {
            add(&mut r, span);
        }
        assert_eq!(r, spans(&[(0, 5), (10, 20), (30, 40)]));
        add(&mut r, spans(&[(20, 30)])[0]);
        assert_eq!(r, spans(&[(0, 5), (10, 40)]));
        add(&mut r, spans(&[(12, 13)])[0]);
        assert_eq!(r, spans(&[(0, 5), (10, 40)]));
        add(&mut r, spans(&[(3, 50)])[0]);
        assert_eq!(r, spans(&[(0, 50)]));
    }
}
