//! The time axis cut into sections, shared by the searches that reason per time: the
//! exact search (`exact/`) and TelaMalloc's engine (`telamalloc/`). Like MiniMalloc's
//! sweeper, this is kept apart from the solvers that use it.
//!
//! # Model
//!
//! *Items* (buffers, in each caller's own numbering) have live segments: half-open time
//! intervals `[start, end)` (the lifetime, or its pieces between gaps). *Sections* are
//! disjoint half-open time intervals, numbered in time order. Every segment covers a
//! non-empty, contiguous *run* of sections `[lo, hi)`: those that lie inside it.
//!
//! Two ways to cut, each a function giving the section bounds:
//!
//! - [`cliques`] (MiniMalloc §6.2): cut time at every start and end of a segment; an
//!   elementary interval is a section when some segment starts at its left end and some
//!   segment ends at its right end. Its live set is then a maximal clique of the
//!   interval graph, and every other interval's live set is a subset of a section's.
//! - [`steps`]: every elementary interval of the load profile (one per distinct event
//!   time), for bounds that must hold at every time.
//!
//! ```text
//!   time   0   3       9           21
//!   b1     [===)                          cliques: [0,3)  {b1,b3,b5}
//!   b2         [=======)                           [3,9)  {b2,b3,b5}
//!   b3     [===========)                           [9,21) {b4,b5}
//!   b4                 [===========)
//!   b5     [=======================)
//! ```
//!
//! # Invariants
//!
//! Two items are live together (gaps honoured) iff they share a section; each segment
//! covers a non-empty, contiguous run of sections; an item's runs are in time order and
//! disjoint. An item's *span* is the run from its first section to its last, gaps
//! included: a search may split its problem at a section boundary that no unplaced span
//! crosses (MiniMalloc §7, dynamic temporal decomposition; see [`Crossings`]).
//!
//! # Memory
//!
//! Neither the overlapping pairs (43 million on a 28,526-buffer trace) nor each
//! section's members (24 million there) are listed: both grow with the density, and a
//! model built late in a long budget would make the memory grow with the budget. The
//! members of a section are found in a segment tree over the sections that holds each
//! run at O(log sections) nodes ([`Sections::for_each_member`]); the items live with
//! `b` are, for each run `[lo, hi)` of `b`, the members of section `lo` and the items
//! with a run starting in `lo + 1..hi` ([`Sections::for_each_overlap`]). The index takes
//! O(n log sections) memory.

mod crossings;
mod lists;

pub(crate) use crossings::Crossings;
pub(crate) use lists::Lists;

/// Sections, each item's runs of them, and (when asked) the index of their members.
#[derive(Clone, Debug)]
pub(crate) struct Sections {
    /// `bounds[k]`: section `k`'s time interval `[a, z)`.
    bounds: Vec<(u64, u64)>,
    /// Per item: half-open runs of sections, one per live segment, in time order.
    runs: Lists<(u32, u32)>,
    members: Option<Members>,
}

/// The items of each section, as a segment tree over the sections.
#[derive(Clone, Debug)]
struct Members {
    /// Per node (leaves at `leaves..2 * leaves`, node `i`'s children at `2i` and
    /// `2i + 1`): the items with a run covering the node's whole range and not its
    /// parent's.
    cover: Lists<u32>,
    /// The number of leaves: a power of two, at least the number of sections.
    leaves: usize,
    /// Per section: the items with a run starting at it, by index.
    starts: Lists<u32>,
}

impl Sections {
    /// The sections `bounds` (disjoint, in time order, from [`cliques`] or [`steps`] of
    /// the same segments) and the runs of `segments[i]`, item `i`'s live segments. With
    /// `index_members`, also the member index that [`Sections::for_each_member`] and
    /// [`Sections::for_each_overlap`] need. O(n log sections).
    pub(crate) fn new(
        bounds: Vec<(u64, u64)>,
        segments: &[Vec<(u64, u64)>],
        index_members: bool,
    ) -> Sections {
        let mut runs = Lists::with_capacity(segments.len(), segments.iter().map(Vec::len).sum());
        for segs in segments {
            runs.push_list(segs.iter().map(|&(s, e)| {
                let lo = bounds.partition_point(|&(a, _)| a < s);
                let hi = bounds.partition_point(|&(_, z)| z <= e);
                debug_assert!(lo < hi, "every segment covers a section");
                (lo as u32, hi as u32)
            }));
        }
        let members = index_members.then(|| Members::new(&runs, bounds.len()));
        Sections {
            bounds,
            runs,
            members,
        }
    }

    /// The number of sections.
    pub(crate) fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Section `k`'s time interval `[a, z)`.
    #[inline]
    pub(crate) fn bounds(&self, k: usize) -> (u64, u64) {
        self.bounds[k]
    }

    /// Item `b`'s runs of sections, one per live segment, in time order.
    #[inline]
    pub(crate) fn runs(&self, b: usize) -> &[(u32, u32)] {
        self.runs.get(b)
    }

    /// First and one-past-last section of item `b`, gaps included.
    #[inline]
    pub(crate) fn span(&self, b: usize) -> (u32, u32) {
        let r = self.runs.get(b);
        (r[0].0, r[r.len() - 1].1)
    }

    /// Calls `f` on every item live during section `s`, each once, until it returns
    /// false. Needs the member index.
    #[inline]
    pub(crate) fn for_each_member(&self, s: usize, mut f: impl FnMut(u32) -> bool) {
        let m = self.members.as_ref().expect("built with the member index");
        let mut i = m.leaves + s;
        while i >= 1 {
            for &u in m.cover.get(i) {
                if !f(u) {
                    return;
                }
            }
            i /= 2;
        }
    }

    /// Calls `f` on every item live together with `b` (and on `b` itself), some twice
    /// when `b` has gaps. Needs the member index.
    #[inline]
    pub(crate) fn for_each_overlap(&self, b: usize, mut f: impl FnMut(u32)) {
        let m = self.members.as_ref().expect("built with the member index");
        for &(lo, hi) in self.runs.get(b) {
            self.for_each_member(lo as usize, |u| {
                f(u);
                true
            });
            m.starts
                .range(lo as usize + 1, hi as usize)
                .iter()
                .for_each(|&u| f(u));
        }
    }
}

/// The member index listed out for a search that visits it at every node: per section
/// its members, and per item the items live with it, each list in the order
/// [`Sections::for_each_member`] and [`Sections::for_each_overlap`] give (one slice
/// read instead of a walk up the tree). Built only when both lists together stay under
/// a cap, so that the memory stays O(n log sections) on dense traces (see the module
/// docs).
#[derive(Clone, Debug)]
pub(crate) struct Flat {
    /// Per section: its members.
    pub(crate) members: Lists<u32>,
    /// Per item: the items live with it (itself included, some twice with gaps).
    pub(crate) overlaps: Lists<u32>,
}

impl Sections {
    /// The member index listed out ([`Flat`]), or `None` when it would hold more than
    /// `max_items` entries. Needs the member index.
    pub(crate) fn flat(&self, max_items: usize) -> Option<Flat> {
        let m = self.members.as_ref().expect("built with the member index");
        let member_count = |s: usize| {
            let mut i = m.leaves + s;
            let mut n = 0usize;
            while i >= 1 {
                n += m.cover.get(i).len();
                i /= 2;
            }
            n
        };
        let members_total: usize = (0..self.len()).map(member_count).sum();
        let overlaps_total: usize = (0..self.runs.len())
            .flat_map(|b| self.runs.get(b).iter())
            .map(|&(lo, hi)| {
                member_count(lo as usize) + m.starts.range(lo as usize + 1, hi as usize).len()
            })
            .sum();
        if members_total.saturating_add(overlaps_total) > max_items {
            return None;
        }
        let mut members = Lists::with_capacity(self.len(), members_total);
        let mut list = Vec::new();
        for s in 0..self.len() {
            list.clear();
            self.for_each_member(s, |u| {
                list.push(u);
                true
            });
            members.push_list(list.iter().copied());
        }
        let mut overlaps = Lists::with_capacity(self.runs.len(), overlaps_total);
        for b in 0..self.runs.len() {
            list.clear();
            self.for_each_overlap(b, |u| list.push(u));
            overlaps.push_list(list.iter().copied());
        }
        Some(Flat { members, overlaps })
    }
}

impl Members {
    fn new(runs: &Lists<(u32, u32)>, sections: usize) -> Members {
        let run_list =
            || (0..runs.len()).flat_map(|b| runs.get(b).iter().map(move |&r| (b as u32, r)));
        let leaves = sections.next_power_of_two().max(1);
        let cover = Lists::from_pairs(
            2 * leaves,
            run_list().flat_map(|(b, (lo, hi))| {
                cover_nodes(leaves, lo as usize, hi as usize).map(move |i| (i, b))
            }),
        );
        let starts = Lists::from_pairs(sections, run_list().map(|(b, (lo, _))| (lo as usize, b)));
        Members {
            cover,
            leaves,
            starts,
        }
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

/// The maximal-clique sections of `segments` (MiniMalloc's sweeper): the elementary
/// intervals `[t_k, t_{k+1})` with a segment start at `t_k` and a segment end at
/// `t_{k+1}`, in time order.
pub(crate) fn cliques(segments: &[Vec<(u64, u64)>]) -> Vec<(u64, u64)> {
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
    times
        .windows(2)
        .filter(|w| starts.binary_search(&w[0]).is_ok() && ends.binary_search(&w[1]).is_ok())
        .map(|w| (w[0], w[1]))
        .collect()
}

/// One section per distinct event time `t_k` of the load profile `times` (sorted,
/// without repeats): `[t_k, t_{k+1})`, and `[t, t + 1)` for the last.
pub(crate) fn steps(times: &[u64]) -> Vec<(u64, u64)> {
    times
        .iter()
        .enumerate()
        .map(|(k, &t)| (t, times.get(k + 1).copied().unwrap_or(t.saturating_add(1))))
        .collect()
}
