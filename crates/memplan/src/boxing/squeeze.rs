//! The squeeze (idealloc §4 and §5.7): buffers, taken by increasing sparse offset from
//! unboxing, each get an aligned address that is free for their whole lifetime, around
//! the fixed buffers (placed first, at their offsets): the lowest one (first-fit, as the
//! paper says) or the one in the smallest gap (best-fit, as idealloc's code does).
//!
//! Conflicts come from a [`TimeIndex`] of the placed buffers (the interval-index stand-in
//! for idealloc's interference graph, §5.7), so a squeeze costs O(n log n + pairs · log d)
//! and never O(n²). Here gaps *are* honoured: a gapped buffer only conflicts with the
//! buffers it is really live with, even though boxing treated it as live throughout.
//!
//! Bootstrapping (§5.5): as soon as one buffer would end above `bound`, the best height
//! known so far, the squeeze gives up, since it could not beat that plan.

use crate::analysis::split_at_components;
use crate::greedy::{choose_offset, sort_spans, Fit};
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

/// Below this many buffers, a squeeze stays on one thread.
const PARALLEL_MIN_BUFFERS: usize = if cfg!(test) { 64 } else { 50_000 };

/// [`squeeze`] on up to `threads` threads: `sequence` must be grouped by time component
/// (`component[i]`); runs of whole components are squeezed apart, which gives the same
/// offsets as one pass since buffers in different components never conflict.
#[allow(clippy::too_many_arguments)]
pub(super) fn squeeze_components(
    problem: &Problem,
    sequence: &[u32],
    component: &[u32],
    threads: usize,
    fit: Fit,
    abandon: bool,
    bound: &(dyn Fn() -> u64 + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(Vec<u64>, u64), Stopped> {
    if threads <= 1 || sequence.len() < PARALLEL_MIN_BUFFERS {
        return squeeze(problem, sequence, fit, abandon, bound, stop);
    }
    let runs = split_at_components(sequence, component, threads);
    let results: Vec<Result<(Vec<u64>, u64), Stopped>> = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .iter()
            .map(|run| s.spawn(move || squeeze(problem, run, fit, abandon, bound, stop)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("the squeeze does not panic"))
            .collect()
    });
    let mut merged: Option<(Vec<u64>, u64)> = None;
    for (run, r) in runs.iter().zip(results) {
        let (offsets, h) = r?;
        match &mut merged {
            None => merged = Some((offsets, h)),
            Some((m, mh)) => {
                for &i in run.iter() {
                    m[i as usize] = offsets[i as usize];
                }
                *mh = (*mh).max(h);
            }
        }
    }
    Ok(merged.expect("at least one run"))
}

/// Places fixed buffers, then `sequence` (every free buffer once) by first-fit.
/// `bound()` is re-read every [`POLL_EVERY`] placements; with `abandon` off it is ignored.
/// Returns the offsets and the height.
pub(super) fn squeeze(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
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
    let mut taken: Vec<(u64, u64)> = Vec::new();
    let (mut narrow, mut wide) = (Vec::new(), Vec::new());
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
        taken.clear();
        if any_gaps {
            index.for_each_overlapping(b.lifetime, |j| {
                let other = &bufs[j as usize];
                if (b.gaps.is_empty() && other.gaps.is_empty()) || b.live_together(other) {
                    taken.push(span[j as usize]);
                }
            });
        } else {
            index.for_each_overlapping(b.lifetime, |j| taken.push(span[j as usize]));
        }
        sort_spans(
            &mut taken,
            &mut narrow,
            &mut wide,
            height <= u32::MAX as u64,
        );
        let o = choose_offset(&taken, b.size.0, b.alignment.0, fit);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::component_ids;
    use crate::checker::check_offsets;
    use crate::generate::{generate_model_like, GenOptions};
    use crate::types::Offset;

    /// Squeezing runs of components on several threads gives the one-thread offsets.
    #[test]
    fn parallel_squeeze_matches_one_thread() {
        let p = generate_model_like(&GenOptions {
            buffers: 3000,
            seed: 2,
        });
        let component = component_ids(&p);
        let mut sequence: Vec<u32> = (0..p.len() as u32).collect();
        // Any order within a component; here a scrambled one.
        sequence.sort_by_key(|&i| (component[i as usize], (i as u64 * 2654435761) % 1000));
        for fit in [Fit::FirstFit, Fit::BestFit] {
            let (one, h1) = squeeze(&p, &sequence, fit, true, &|| u64::MAX, &|| false).unwrap();
            for threads in [2, 3] {
                let (many, h) = squeeze_components(
                    &p,
                    &sequence,
                    &component,
                    threads,
                    fit,
                    true,
                    &|| u64::MAX,
                    &|| false,
                )
                .unwrap();
                assert_eq!((&one, h1), (&many, h));
            }
            let offsets: Vec<Offset> = one.into_iter().map(Offset).collect();
            check_offsets(&p, &offsets).unwrap();
            // A bound below the height abandons.
            let r =
                squeeze_components(&p, &sequence, &component, 2, fit, true, &|| h1 - 1, &|| {
                    false
                });
            assert_eq!(r.unwrap_err(), Stopped::OverBound);
        }
    }
}
