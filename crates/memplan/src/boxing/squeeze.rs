//! The first-fit squeeze (idealloc §4 and §5.7): buffers, taken by increasing sparse
//! offset from unboxing, each get the lowest aligned address that is free for their whole
//! lifetime, around the fixed buffers (placed first, at their offsets).
//!
//! Conflicts come from a [`TimeIndex`] of the placed buffers (the interval-index stand-in
//! for idealloc's interference graph, §5.7), so a squeeze costs O(n log n + pairs · log d)
//! and never O(n²). Here gaps *are* honoured: a gapped buffer only conflicts with the
//! buffers it is really live with, even though boxing treated it as live throughout.
//!
//! Bootstrapping (§5.5): as soon as one buffer would end above `bound`, the best height
//! known so far, the squeeze gives up, since it could not beat that plan.

use crate::greedy::{choose_offset, Fit};
use crate::index::TimeIndex;
use crate::types::Problem;

/// How often (in placements) the squeeze refreshes its bound and polls `stop`.
const POLL_EVERY: usize = 1024;

/// Why a squeeze did not finish.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stopped {
    /// A buffer would end above the bound: this plan cannot win.
    OverBound,
    /// `stop()` said to stop.
    Stopped,
}

/// Places fixed buffers, then `sequence` (every free buffer once) by first-fit.
/// `bound()` is re-read every [`POLL_EVERY`] placements; with `abandon` off it is ignored.
/// Returns the offsets and the height.
pub(super) fn squeeze(
    problem: &Problem,
    sequence: &[u32],
    abandon: bool,
    bound: &dyn Fn() -> u64,
    stop: &dyn Fn() -> bool,
) -> Result<(Vec<u64>, u64), Stopped> {
    let bufs = problem.buffers();
    let mut offset = vec![u64::MAX; bufs.len()];
    // Hot data, in one array: (offset, end address) of placed buffers.
    let mut span = vec![(0u64, 0u64); bufs.len()];
    let mut index = TimeIndex::new_empty(problem);
    let mut height = 0u64;
    for (i, b) in bufs.iter().enumerate() {
        if let Some(o) = b.fixed_offset {
            offset[i] = o.0;
            span[i] = (o.0, o.0 + b.size.0);
            height = height.max(o.0 + b.size.0);
            index.insert(i as u32, b.lifetime.end.0);
        }
    }
    let any_gaps = bufs.iter().any(|b| !b.gaps.is_empty());
    let mut limit = u64::MAX;
    let mut conflicts: Vec<(u64, u64)> = Vec::new();
    for (k, &i) in sequence.iter().enumerate() {
        if k % POLL_EVERY == 0 {
            if stop() {
                return Err(Stopped::Stopped);
            }
            if abandon {
                limit = bound();
            }
        }
        let b = &bufs[i as usize];
        conflicts.clear();
        if any_gaps {
            index.for_each_overlapping(b.lifetime, |j| {
                let other = &bufs[j as usize];
                if (b.gaps.is_empty() && other.gaps.is_empty()) || b.live_together(other) {
                    conflicts.push(span[j as usize]);
                }
            });
        } else {
            index.for_each_overlapping(b.lifetime, |j| conflicts.push(span[j as usize]));
        }
        conflicts.sort_unstable_by_key(|&(lo, _)| lo);
        let o = choose_offset(&conflicts, b.size.0, b.alignment.0, Fit::FirstFit);
        let top = o + b.size.0;
        if top > limit {
            return Err(Stopped::OverBound);
        }
        height = height.max(top);
        offset[i as usize] = o;
        span[i as usize] = (o, top);
        index.insert(i, b.lifetime.end.0);
    }
    Ok((offset, height))
}
