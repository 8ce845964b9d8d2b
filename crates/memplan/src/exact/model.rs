//! The search's view of a problem, built once and shared by every capacity probe:
//! sections (MiniMalloc §6.2), each buffer's sections, overlaps and fixed obstacles.
//!
//! The sections, each buffer's runs of them and the member index are the shared model
//! of [`crate::sections`] (MiniMalloc's sweeper, kept apart from this solver): read its
//! docs for the invariants. Sections are cut at the maximal cliques of the free
//! buffers' live segments ([`crate::sections::cliques`]).
//!
//! Fixed buffers are not searched: they are obstacles. Each free buffer keeps the fixed
//! buffers it is live with ([`Model::fixed_conflicts`]), and each section the fixed
//! buffers live during it ([`Model::section_fixed`]).

use crate::budget::Budget;
use crate::sections::{self, Flat, Lists, Sections};
use crate::types::{BufferIdx, Offset, Problem, Size};

/// The most entries of [`Model::flat`] (members and overlaps together): 2^20, 4 MiB.
/// The challenging suite needs at most 0.1M; a dense trace (iopddl-S: 43M overlapping
/// pairs) keeps the tree walk.
const FLAT_MAX_ITEMS: usize = 1 << 20;

/// A free buffer's position in [`Model::free`]: the search's own buffer index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FreeIdx(pub(crate) u32);

crate::units::raw_order!(FreeIdx);

impl FreeIdx {
    /// The index as a `usize`, for slicing.
    #[inline]
    pub(crate) const fn index(self) -> usize {
        self.0 as usize
    }
}

crate::units::index_slices!(FreeIdx);

/// The addresses `[offset, end)` a fixed buffer takes.
pub(crate) type Obstacle = (Offset, Offset);

/// The preprocessed problem, indexed by *free* buffer ([`FreeIdx`], `0..free.len()`).
#[derive(Clone, Debug)]
pub(crate) struct Model {
    /// Problem index of each free buffer.
    pub(crate) free: Vec<BufferIdx>,
    pub(crate) size: Vec<Size>,
    pub(crate) align: Vec<Size>,
    /// Lifetime length, for the preorderings.
    pub(crate) length: Vec<u64>,
    /// Area (size × live time), for the preorderings.
    pub(crate) area: Vec<u64>,
    /// The sections of the free buffers' live segments, with the member index.
    pub(crate) sections: Sections,
    /// The member index listed out, when small ([`FLAT_MAX_ITEMS`]): what every node
    /// of the search reads.
    pub(crate) flat: Option<Flat>,
    /// Per buffer: the fixed buffers live together with it, by offset.
    pub(crate) fixed_conflicts: Lists<Obstacle>,
    /// Per section: the fixed buffers live during it.
    pub(crate) section_fixed: Lists<Obstacle>,
    /// True when some free buffer is live with some fixed buffer.
    pub(crate) has_fixed: bool,
    /// Highest end of a fixed buffer: a lower bound on any height.
    pub(crate) fixed_top: Size,
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
        let free: Vec<BufferIdx> = problem
            .indexed()
            .filter(|&(_, b)| b.fixed_offset.is_none() && !never_live(b))
            .map(|(i, _)| i)
            .collect();
        // Segments of free buffers.
        let segments: Vec<Vec<(u64, u64)>> = free
            .iter()
            .map(|&i| {
                bufs[i]
                    .live_segments()
                    .map(|s| (s.start.get(), s.end.get()))
                    .collect()
            })
            .collect();
        let sec_bounds = sections::cliques(&segments);
        if budget.exhausted() {
            return None;
        }
        let sections = Sections::new(sec_bounds, &segments, true);
        drop(segments);
        let flat = sections.flat(FLAT_MAX_ITEMS);
        if budget.exhausted() {
            return None;
        }
        let (fixed_conflicts, section_fixed, fixed_top) =
            fixed_obstacles(problem, &free, &sections);
        let has_fixed = fixed_conflicts.iter().any(|v| !v.is_empty());
        let size: Vec<Size> = free.iter().map(|&i| bufs[i].size).collect();
        let length: Vec<u64> = free.iter().map(|&i| bufs[i].lifetime.len()).collect();
        let area = free
            .iter()
            .map(|&i| {
                let live: u64 = bufs[i].live_segments().map(|s| s.len()).sum();
                bufs[i].size.get().saturating_mul(live)
            })
            .collect();
        Some(Model {
            align: free.iter().map(|&i| bufs[i].alignment).collect(),
            free,
            size,
            length,
            area,
            fixed_conflicts: Lists::from_vecs(fixed_conflicts),
            section_fixed: Lists::from_vecs(section_fixed),
            has_fixed,
            sections,
            flat,
            fixed_top,
        })
    }

    /// Number of free buffers.
    pub(crate) fn len(&self) -> usize {
        self.free.len()
    }

    /// The lowest offset `≥ at` where `b` is aligned and clear of every fixed buffer it
    /// is live with, or `None` when it would end above `capacity`.
    ///
    /// Monotone in `at`: a higher `at` never gives a lower offset, which keeps the
    /// compaction argument of the canonical search valid with fixed buffers (see
    /// `search.rs`).
    #[inline]
    pub(crate) fn fit(&self, b: FreeIdx, at: Offset, capacity: Size) -> Option<Offset> {
        let size = self.size[b];
        let mut y = at.align_up(self.align[b]);
        if self.has_fixed {
            // The list is tiny; loop until no fixed buffer is in the way.
            loop {
                let mut moved = false;
                for &(lo, hi) in self.fixed_conflicts.get(b.index()) {
                    if lo < y.saturating_add(size) && y < hi {
                        y = hi.align_up(self.align[b]);
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

    /// Every free buffer.
    #[inline]
    pub(crate) fn indices(&self) -> impl Iterator<Item = FreeIdx> {
        (0..self.free.len() as u32).map(FreeIdx)
    }
}

/// A buffer whose gaps cover its whole lifetime: it conflicts with nothing.
fn never_live(b: &crate::Buffer) -> bool {
    b.live_segments().next().is_none()
}

/// The union of address ranges, as disjoint ranges sorted by offset.
fn union_of(mut ranges: Vec<Obstacle>) -> Vec<Obstacle> {
    ranges.sort_unstable();
    let mut out: Vec<Obstacle> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// The fixed buffers as obstacles: for each free buffer the address ranges of the fixed
/// buffers live with it (sorted), for each section the union of those live in it, and the highest
/// end of a fixed or never-live buffer (a lower bound on any height).
#[allow(clippy::type_complexity)]
fn fixed_obstacles(
    problem: &Problem,
    free: &[BufferIdx],
    sections: &Sections,
) -> (Vec<Vec<Obstacle>>, Vec<Vec<Obstacle>>, Size) {
    let bufs = problem.buffers();
    let n = free.len();
    let mut fixed_conflicts: Vec<Vec<Obstacle>> = vec![Vec::new(); n];
    let mut section_fixed: Vec<Vec<Obstacle>> = vec![Vec::new(); sections.len()];
    let mut fixed_top = bufs
        .iter()
        .filter(|b| b.fixed_offset.is_none() && never_live(b))
        .map(|b| b.size)
        .max()
        .unwrap_or(Size::ZERO);
    for fb in bufs.iter().filter(|b| b.fixed_offset.is_some()) {
        let off = fb.fixed_offset.expect("fixed");
        let end = off + fb.size;
        fixed_top = fixed_top.max(end.as_height());
        for (b, &i) in free.iter().enumerate() {
            if bufs[i].live_together(fb) {
                fixed_conflicts[b].push((off, end));
            }
        }
        for (s, section_fixed) in section_fixed.iter_mut().enumerate() {
            let during = sections.bounds(s);
            let during = crate::types::Lifetime::new(during.0, during.1);
            if fb.live_segments().any(|seg| seg.overlaps(&during)) {
                section_fixed.push((off, end));
            }
        }
    }
    for v in &mut fixed_conflicts {
        v.sort_unstable();
    }
    // A section's fixed buffers need not be live together (only each with the section's
    // free buffers), so their address ranges may overlap: keep their union, so that
    // section inference counts each address once. (Summed, two fixed buffers at the same
    // addresses at different times of one section "proved" a feasible capacity
    // infeasible.)
    for v in &mut section_fixed {
        *v = union_of(std::mem::take(v));
    }
    (fixed_conflicts, section_fixed, fixed_top)
}
