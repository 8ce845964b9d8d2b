//! The search's view of a problem, built once and shared by every capacity probe:
//! sections (MiniMalloc §6.2), each buffer's sections, overlaps and fixed obstacles.
//!
//! # Sections
//!
//! Cut time at every start and end of a live segment of a free (not fixed) buffer. An
//! elementary interval is a *section* when some segment starts at its left end and some
//! segment ends at its right end: then its live set is a maximal clique of the interval
//! graph, and every other interval's live set is a subset of a section's.
//!
//! ```text
//!   time   0   3       9           21
//!   b1     [===)                          sections: [0,3)  {b1,b3,b5}
//!   b2         [=======)                            [3,9)  {b2,b3,b5}
//!   b3     [===========)                            [9,21) {b4,b5}
//!   b4                 [===========)
//!   b5     [=======================)
//! ```
//!
//! Invariants: two free buffers are live together (gaps honoured) iff they share a
//! section; each live segment covers a non-empty, contiguous run of sections; sections
//! are numbered in time order.
//!
//! # Memory
//!
//! Neither the overlapping pairs (43 million on a 28,526-buffer trace) nor each
//! section's members (24 million there) are listed: both grow with the density, and a
//! model built late in a long budget would make the memory grow with the budget. The
//! members of a section are found in a segment tree over the sections that holds each
//! run at O(log sections) nodes ([`Model::for_each_member`]); the buffers live with `b`
//! are, for each run `[lo, hi)` of `b`, the members of section `lo` and the buffers with
//! a run starting in `lo + 1..hi` ([`Model::for_each_overlap`]). The model takes
//! O(n log sections) memory, and the search visits the same buffers as with lists, in
//! another order that no result depends on (see `search.rs`). A buffer's *span* is the run from its first section to
//! its last, gaps included: the search may only split the problem at a section boundary
//! that no unallocated span crosses (§7, dynamic temporal decomposition).
//!
//! Fixed buffers are not searched: they are obstacles. Each free buffer keeps the fixed
//! buffers it is live with ([`Model::fixed_conflicts`]), and each section the fixed
//! buffers live during it ([`Model::section_fixed`]).

use crate::budget::Budget;
use crate::types::{align_up, Problem};

/// A compressed list of lists: `items[starts[i]..starts[i + 1]]` is list `i`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lists<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy> Lists<T> {
    fn from_vecs(vecs: Vec<Vec<T>>) -> Lists<T> {
        let mut starts = Vec::with_capacity(vecs.len() + 1);
        let mut items = Vec::with_capacity(vecs.iter().map(Vec::len).sum());
        starts.push(0);
        for v in vecs {
            items.extend_from_slice(&v);
            starts.push(items.len() as u32);
        }
        Lists { starts, items }
    }

    /// The lists of `pairs` `(list, item)`, each list's items in the order given;
    /// `lists` lists, built in place (counted, then filled).
    fn from_pairs(lists: usize, pairs: impl Iterator<Item = (usize, T)> + Clone) -> Lists<T>
    where
        T: Default,
    {
        let mut starts = vec![0u32; lists + 1];
        for (l, _) in pairs.clone() {
            starts[l + 1] += 1;
        }
        for l in 0..lists {
            starts[l + 1] += starts[l];
        }
        let mut items = vec![T::default(); starts[lists] as usize];
        let mut next: Vec<u32> = starts[..lists].to_vec();
        for (l, x) in pairs {
            items[next[l] as usize] = x;
            next[l] += 1;
        }
        Lists { starts, items }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[T] {
        self.range(i, i + 1)
    }

    /// The items of lists `lo..hi`, one after another.
    #[inline]
    pub(crate) fn range(&self, lo: usize, hi: usize) -> &[T] {
        &self.items[self.starts[lo] as usize..self.starts[hi] as usize]
    }
}

/// The preprocessed problem, indexed by *free* buffer (`0..free.len()`).
#[derive(Clone, Debug)]
pub(crate) struct Model {
    /// Problem index of each free buffer.
    pub(crate) free: Vec<u32>,
    pub(crate) size: Vec<u64>,
    pub(crate) align: Vec<u64>,
    /// Lifetime length, for the preorderings.
    pub(crate) length: Vec<u64>,
    /// Area (size × live time), for the preorderings.
    pub(crate) area: Vec<u64>,
    /// Per buffer: half-open runs of sections, one per live segment, in time order.
    pub(crate) runs: Lists<(u32, u32)>,
    /// Per node of a segment tree over the sections (leaves at `leaves..2 * leaves`,
    /// node `i`'s children at `2i` and `2i + 1`): the free buffers with a run covering
    /// the node's whole range and not its parent's.
    cover: Lists<u32>,
    /// The number of leaves of the segment tree: a power of two, at least `sections`.
    leaves: usize,
    /// Per section: the free buffers with a run starting at it, by index.
    starts: Lists<u32>,
    /// Per buffer: `(offset, end)` of the fixed buffers live together with it, by offset.
    pub(crate) fixed_conflicts: Lists<(u64, u64)>,
    /// Per section: `(offset, end)` of the fixed buffers live during it.
    pub(crate) section_fixed: Lists<(u64, u64)>,
    /// True when some free buffer is live with some fixed buffer.
    pub(crate) has_fixed: bool,
    /// Number of sections.
    pub(crate) sections: usize,
    /// Highest end of a fixed buffer: a lower bound on any height.
    pub(crate) fixed_top: u64,
}

impl Model {
    /// Builds the model; `None` when the budget runs out first (it is polled between
    /// the steps, each O(n log n) or O(n log sections)).
    pub(crate) fn new(problem: &Problem, budget: &Budget) -> Option<Model> {
        // Building the sections takes ~0.2 s on 100k buffers: not when the budget is spent.
        if budget.exhausted() {
            return None;
        }
        let bufs = problem.buffers();
        // A buffer whose gaps cover its whole lifetime conflicts with nothing: it stays
        // at offset 0 (see `to_offsets`), like a fixed buffer, and counts in `fixed_top`
        // (found by fuzzing: it has no section, which the search assumes every buffer has).
        let free: Vec<u32> = (0..bufs.len() as u32)
            .filter(|&i| bufs[i as usize].fixed_offset.is_none() && !never_live(&bufs[i as usize]))
            .collect();
        // Segments of free buffers.
        let segments: Vec<Vec<(u64, u64)>> = free
            .iter()
            .map(|&i| {
                bufs[i as usize]
                    .live_segments()
                    .map(|s| (s.start.0, s.end.0))
                    .collect()
            })
            .collect();
        let sec_bounds = section_bounds(&segments);
        let sections = sec_bounds.len();
        if budget.exhausted() {
            return None;
        }
        let runs = section_runs(&segments, &sec_bounds);
        drop(segments);
        let run_list =
            || (0..free.len()).flat_map(|b| runs.get(b).iter().map(move |&r| (b as u32, r)));
        let leaves = sections.next_power_of_two().max(1);
        let cover = Lists::from_pairs(
            2 * leaves,
            run_list().flat_map(|(b, (lo, hi))| {
                cover_nodes(leaves, lo as usize, hi as usize).map(move |i| (i, b))
            }),
        );
        let starts = Lists::from_pairs(sections, run_list().map(|(b, (lo, _))| (lo as usize, b)));
        if budget.exhausted() {
            return None;
        }
        let (fixed_conflicts, section_fixed, fixed_top) =
            fixed_obstacles(problem, &free, &sec_bounds);
        let has_fixed = fixed_conflicts.iter().any(|v| !v.is_empty());
        let size: Vec<u64> = free.iter().map(|&i| bufs[i as usize].size.0).collect();
        let length: Vec<u64> = free
            .iter()
            .map(|&i| bufs[i as usize].lifetime.len())
            .collect();
        let area = free
            .iter()
            .zip(&size)
            .map(|(&i, &z)| {
                let live: u64 = bufs[i as usize].live_segments().map(|s| s.len()).sum();
                z.saturating_mul(live)
            })
            .collect();
        Some(Model {
            align: free.iter().map(|&i| bufs[i as usize].alignment.0).collect(),
            free,
            size,
            length,
            area,
            runs,
            cover,
            leaves,
            starts,
            fixed_conflicts: Lists::from_vecs(fixed_conflicts),
            section_fixed: Lists::from_vecs(section_fixed),
            has_fixed,
            sections,
            fixed_top,
        })
    }

    /// Number of free buffers.
    pub(crate) fn len(&self) -> usize {
        self.free.len()
    }

    /// First and one-past-last section of buffer `b`, gaps included.
    #[inline]
    pub(crate) fn span(&self, b: usize) -> (u32, u32) {
        let r = self.runs.get(b);
        (r[0].0, r[r.len() - 1].1)
    }

    /// Calls `f` on every free buffer live during section `s`, each once, until it
    /// returns false.
    #[inline]
    pub(crate) fn for_each_member(&self, s: usize, mut f: impl FnMut(u32) -> bool) {
        let mut i = self.leaves + s;
        while i >= 1 {
            for &u in self.cover.get(i) {
                if !f(u) {
                    return;
                }
            }
            i /= 2;
        }
    }

    /// Calls `f` on every free buffer live together with `b` (and on `b` itself), some
    /// twice when `b` has gaps.
    #[inline]
    pub(crate) fn for_each_overlap(&self, b: usize, mut f: impl FnMut(u32)) {
        for &(lo, hi) in self.runs.get(b) {
            self.for_each_member(lo as usize, |u| {
                f(u);
                true
            });
            self.starts
                .range(lo as usize + 1, hi as usize)
                .iter()
                .for_each(|&u| f(u));
        }
    }

    /// The lowest offset `≥ at` where `b` is aligned and clear of every fixed buffer it
    /// is live with, or `None` when it would end above `capacity`.
    ///
    /// Monotone in `at`: a higher `at` never gives a lower offset, which keeps the
    /// compaction argument of the canonical search valid with fixed buffers (see
    /// `search.rs`).
    #[inline]
    pub(crate) fn fit(&self, b: usize, at: u64, capacity: u64) -> Option<u64> {
        let size = self.size[b];
        let mut y = align_up(at, self.align[b]);
        if self.has_fixed {
            // The list is tiny; loop until no fixed buffer is in the way.
            loop {
                let mut moved = false;
                for &(lo, hi) in self.fixed_conflicts.get(b) {
                    if lo < y.saturating_add(size) && y < hi {
                        y = align_up(hi, self.align[b]);
                        moved = true;
                    }
                }
                if !moved {
                    break;
                }
            }
        }
        (y.checked_add(size)? <= capacity).then_some(y)
    }
}

/// The nodes of a segment tree with `leaves` leaves that cover `[lo, hi)` exactly, each
/// leaf of the range under one of them.
fn cover_nodes(leaves: usize, lo: usize, hi: usize) -> impl Iterator<Item = usize> + Clone {
    let (mut l, mut r) = (lo + leaves, hi + leaves);
    let mut out: Vec<usize> = Vec::new();
    while l < r {
        if l & 1 == 1 {
            out.push(l);
            l += 1;
        }
        if r & 1 == 1 {
            r -= 1;
            out.push(r);
        }
        l /= 2;
        r /= 2;
    }
    out.into_iter()
}

/// A buffer whose gaps cover its whole lifetime: it conflicts with nothing.
fn never_live(b: &crate::Buffer) -> bool {
    b.live_segments().next().is_none()
}

/// The sections of the free buffers' live segments (MiniMalloc's sweeper): the
/// elementary intervals `[t_k, t_{k+1})` with a segment start at `t_k` and a segment end at
/// `t_{k+1}`, in time order.
fn section_bounds(segments: &[Vec<(u64, u64)>]) -> Vec<(u64, u64)> {
    let mut starts: Vec<u64> = Vec::new();
    let mut ends: Vec<u64> = Vec::new();
    for segs in segments {
        for &(s, e) in segs {
            starts.push(s);
            ends.push(e);
        }
    }
    starts.sort_unstable();
    starts.dedup();
    ends.sort_unstable();
    ends.dedup();
    let mut times: Vec<u64> = starts.iter().chain(ends.iter()).copied().collect();
    times.sort_unstable();
    times.dedup();
    let mut sec_bounds: Vec<(u64, u64)> = Vec::new();
    for w in times.windows(2) {
        if starts.binary_search(&w[0]).is_ok() && ends.binary_search(&w[1]).is_ok() {
            sec_bounds.push((w[0], w[1]));
        }
    }
    sec_bounds
}

/// Each buffer's runs of consecutive sections, one per live segment, as half-open
/// section ranges.
fn section_runs(segments: &[Vec<(u64, u64)>], sec_bounds: &[(u64, u64)]) -> Lists<(u32, u32)> {
    let mut starts = Vec::with_capacity(segments.len() + 1);
    let mut items = Vec::with_capacity(segments.iter().map(Vec::len).sum());
    starts.push(0);
    for segs in segments {
        for &(s, e) in segs {
            let lo = sec_bounds.partition_point(|&(a, _)| a < s);
            let hi = sec_bounds.partition_point(|&(_, z)| z <= e);
            debug_assert!(lo < hi, "every segment covers a section");
            items.push((lo as u32, hi as u32));
        }
        starts.push(items.len() as u32);
    }
    Lists { starts, items }
}

/// The fixed buffers as obstacles: for each free buffer the address ranges of the fixed
/// buffers live with it (sorted), for each section those live in it, and the highest
/// end of a fixed or never-live buffer (a lower bound on any height).
#[allow(clippy::type_complexity)]
fn fixed_obstacles(
    problem: &Problem,
    free: &[u32],
    sec_bounds: &[(u64, u64)],
) -> (Vec<Vec<(u64, u64)>>, Vec<Vec<(u64, u64)>>, u64) {
    let bufs = problem.buffers();
    let n = free.len();
    let sections = sec_bounds.len();
    let fixed: Vec<usize> = (0..bufs.len())
        .filter(|&i| bufs[i].fixed_offset.is_some())
        .collect();
    let mut fixed_conflicts: Vec<Vec<(u64, u64)>> = vec![Vec::new(); n];
    let mut section_fixed: Vec<Vec<(u64, u64)>> = vec![Vec::new(); sections];
    let mut fixed_top = bufs
        .iter()
        .filter(|b| b.fixed_offset.is_none() && never_live(b))
        .map(|b| b.size.0)
        .max()
        .unwrap_or(0);
    for &f in &fixed {
        let fb = &bufs[f];
        let off = fb.fixed_offset.expect("fixed").0;
        let range = (off, off + fb.size.0);
        fixed_top = fixed_top.max(range.1);
        for (b, &i) in free.iter().enumerate() {
            if bufs[i as usize].live_together(fb) {
                fixed_conflicts[b].push(range);
            }
        }
        for (s, &(a, z)) in sec_bounds.iter().enumerate() {
            if fb
                .live_segments()
                .any(|seg| seg.start.0 < z && a < seg.end.0)
            {
                section_fixed[s].push(range);
            }
        }
    }
    for v in &mut fixed_conflicts {
        v.sort_unstable();
    }
    (fixed_conflicts, section_fixed, fixed_top)
}
