//! Unboxing (idealloc §4, Fig. 6): hands the top-level boxes' offsets down through the
//! nested boxes to the buffers.
//!
//! Starting from a watermark `w` (0 at the top), a set of jobs is placed as follows:
//!
//! ```text
//!   all one size      -> interval graph colouring; row i goes to w + i·size, and each
//!                        job's contents are unboxed from its row's base
//!   no two overlap    -> every job's contents are unboxed from w
//!   otherwise         -> one size class at a time (largest first), each colouring
//!                        stacked above the previous class
//! ```
//!
//! The resulting offsets are *sparse*: rounded-up sizes leave holes, and a box's
//! contents need not fill it. They are only a sort key for the first-fit squeeze
//! ([`super::squeeze`]), which makes the plan valid and tight. The dummy job gets no
//! offset.

use super::jobs::{any_overlap, colour_intervals, Arena};
use crate::types::Offset;

/// Unboxes `top` and writes a sparse offset for every buffer leaf into `offsets`
/// (indexed by buffer).
pub(super) fn unbox_all(arena: &Arena, top: &[u32], offsets: &mut [Offset]) {
    place_set(arena, top, Offset::ZERO, offsets);
}

/// Fig. 6 `UnboxAll`.
fn place_set(arena: &Arena, jobs: &[u32], w: Offset, offsets: &mut [Offset]) {
    match jobs {
        [] => {}
        [j] => place_job(arena, *j, w, offsets),
        _ => {
            let size0 = arena.job(jobs[0]).size;
            if jobs.iter().all(|&j| arena.job(j).size == size0) {
                place_same_sizes(arena, jobs, w, offsets);
            } else if !any_overlap(arena, jobs) {
                for &j in jobs {
                    place_job(arena, j, w, offsets);
                }
            } else {
                let mut sorted = jobs.to_vec();
                crate::sort::by_key(&mut sorted, |&j| std::cmp::Reverse(arena.job(j).size));
                let mut w = w;
                for class in sorted.chunk_by(|&a, &b| arena.job(a).size == arena.job(b).size) {
                    w = place_same_sizes(arena, class, w, offsets);
                }
            }
        }
    }
}

/// Fig. 6 `PlaceSameSizes`: colour, then place row `i` at `w + i·size`. Returns the new
/// watermark, above the last row.
fn place_same_sizes(arena: &Arena, jobs: &[u32], w: Offset, offsets: &mut [Offset]) -> Offset {
    let size = arena.job(jobs[0]).size;
    let (rows, count) = colour_intervals(arena, jobs);
    for (k, &j) in jobs.iter().enumerate() {
        place_job(
            arena,
            j,
            w.saturating_add(size * u64::from(rows[k])),
            offsets,
        );
    }
    w.saturating_add(size * u64::from(count))
}

/// Places one job at `w`: a buffer gets offset `w`; a box's contents are unboxed from `w`.
fn place_job(arena: &Arena, j: u32, w: Offset, offsets: &mut [Offset]) {
    let job = arena.job(j);
    if job.is_leaf() {
        if let Some(i) = job.buffer() {
            offsets[i] = w;
        }
    } else {
        place_set(arena, arena.contents(j), w, offsets);
    }
}
