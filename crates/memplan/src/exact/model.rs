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
//! are numbered in time order. A buffer's *span* is the run from its first section to
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
        let mut items = Vec::new();
        starts.push(0);
        for v in vecs {
            items.extend_from_slice(&v);
            starts.push(items.len() as u32);
        }
        Lists { starts, items }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[T] {
        &self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
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
    /// Per buffer: the free buffers live together with it.
    pub(crate) overlaps: Lists<u32>,
    /// Per section: its free buffers.
    pub(crate) members: Lists<u32>,
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
    /// Builds the model. The budget is polled now and then (the overlap lists are
    /// quadratic in the worst case); `None` when it ran out.
    pub(crate) fn new(problem: &Problem, budget: &Budget) -> Option<Model> {
        let abort = || budget.exhausted();
        // Building the sections takes ~0.2 s on 100k buffers: not when the budget is spent.
        if abort() {
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
        if abort() {
            return None;
        }
        let (runs, members) = section_runs(&segments, &sec_bounds);
        // Overlaps: buffers sharing a section.
        let overlaps = overlaps(&runs, &members, &abort)?;
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
            runs: Lists::from_vecs(runs),
            overlaps: Lists::from_vecs(overlaps),
            members: Lists::from_vecs(members),
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

/// Each buffer's runs of consecutive sections (one per live segment, as half-open
/// section ranges), and each section's member buffers.
#[allow(clippy::type_complexity)]
fn section_runs(
    segments: &[Vec<(u64, u64)>],
    sec_bounds: &[(u64, u64)],
) -> (Vec<Vec<(u32, u32)>>, Vec<Vec<u32>>) {
    let n = segments.len();
    let sections = sec_bounds.len();
    let mut runs = Vec::with_capacity(n);
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); sections];
    for (b, segs) in segments.iter().enumerate() {
        let mut r = Vec::with_capacity(segs.len());
        for &(s, e) in segs {
            let lo = sec_bounds.partition_point(|&(a, _)| a < s);
            let hi = sec_bounds.partition_point(|&(_, z)| z <= e);
            debug_assert!(lo < hi, "every segment covers a section");
            for m in &mut members[lo..hi] {
                m.push(b as u32);
            }
            r.push((lo as u32, hi as u32));
        }
        runs.push(r);
    }
    (runs, members)
}

/// For each buffer, the buffers it shares a section with, in order of first meeting;
/// `None` when `abort()` said stop (the lists are quadratic in the worst case).
fn overlaps(
    runs: &[Vec<(u32, u32)>],
    members: &[Vec<u32>],
    abort: &dyn Fn() -> bool,
) -> Option<Vec<Vec<u32>>> {
    let n = runs.len();
    let mut stamp = vec![u32::MAX; n];
    let mut overlaps = Vec::with_capacity(n);
    for (b, r) in runs.iter().enumerate() {
        if b % 256 == 0 && abort() {
            return None;
        }
        let mut v = Vec::new();
        stamp[b] = b as u32;
        for &(lo, hi) in r {
            for m in &members[lo as usize..hi as usize] {
                for &o in m {
                    if stamp[o as usize] != b as u32 {
                        stamp[o as usize] = b as u32;
                        v.push(o);
                    }
                }
            }
        }
        overlaps.push(v);
    }
    Some(overlaps)
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
