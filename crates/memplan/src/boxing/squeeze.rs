//! The squeeze (idealloc §4 and §5.7): buffers, taken by increasing sparse offset from
//! unboxing, each get an aligned address that is free for their whole lifetime, around
//! the fixed buffers (placed first, at their offsets): the lowest one (first-fit, as the
//! paper says) or the one in the smallest gap (best-fit, as idealloc's code does).
//!
//! The placement itself is greedy's kernel ([`crate::greedy::place_sequence`]): conflicts
//! come from an interval index of the placed buffers (the stand-in for idealloc's
//! interference graph, §5.7), so a squeeze costs O(n log n + pairs · log n) and never
//! O(n²); on dense problems, from unions of their address ranges over time instead, with
//! the same placements. Here gaps *are* honoured: a gapped buffer only conflicts with the
//! buffers it is really live with, even though boxing treated it as live throughout.
//!
//! Bootstrapping (§5.5): as soon as one buffer would end above `bound`, the best height
//! known so far, the squeeze gives up, since it could not beat that plan.

use crate::analysis::split_at_components;
pub(super) use crate::greedy::Halted as Stopped;
use crate::greedy::{place_sequence, Fit};
use crate::types::Problem;

/// How often (in placements) the squeeze refreshes its bound and polls `stop`.
const POLL_EVERY: usize = 1024;

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

/// Places fixed buffers, then `sequence` (every free buffer once) with `fit`, through
/// the greedy placement kernel. `bound()` is re-read every [`POLL_EVERY`] placements;
/// with `abandon` off it is ignored. Returns the offsets and the height.
pub(super) fn squeeze(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
    abandon: bool,
    bound: &dyn Fn() -> u64,
    stop: &dyn Fn() -> bool,
) -> Result<(Vec<u64>, u64), Stopped> {
    let bound = abandon.then_some(bound);
    place_sequence(problem, sequence, fit, POLL_EVERY, stop, bound)
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
            check_offsets(&p, &offsets, None).unwrap();
            // A bound below the height abandons.
            let r =
                squeeze_components(&p, &sequence, &component, 2, fit, true, &|| h1 - 1, &|| {
                    false
                });
            assert_eq!(r.unwrap_err(), Stopped::OverBound);
        }
    }
}
