//! The compaction (idealloc's "squeeze", §4 and §5.7): buffers, taken by increasing
//! sparse offset from unboxing, each get an aligned address that is free for their whole
//! lifetime, around the fixed buffers (placed first, at their offsets): the lowest one
//! (first-fit, as the paper says) or the one in the smallest gap (best-fit, as
//! idealloc's code does).
//!
//! The placement itself is greedy's kernel ([`crate::greedy::place_sequence`]): conflicts
//! come from an interval index of the placed buffers (the stand-in for idealloc's
//! interference graph, §5.7), so a squeeze costs O(n log n + pairs · log n) and never
//! O(n²); on dense problems, from unions of their address ranges over time instead, with
//! the same placements. Here gaps *are* honoured: a gapped buffer only conflicts with the
//! buffers it is really live with, even though boxing treated it as live throughout.
//!
//! Early stopping (idealloc's bootstrapping, §5.5): as soon as one buffer would end above
//! `bound`, the best height known so far, the compaction gives up, since it could not
//! beat that plan.

use crate::analysis::split_at_components;
use crate::budget::Budget;
use crate::greedy::{place_sequence, Fit};
use crate::outcome::Verdict;
use crate::types::{BufferIdx, Offset, Problem, Size};

/// How often (in placements) the squeeze refreshes its bound and polls its budget.
const POLL_EVERY: usize = 1024;

/// Below this many buffers, a squeeze stays on one thread.
const PARALLEL_MIN_BUFFERS: usize = if cfg!(test) { 64 } else { 50_000 };

/// How a squeeze places, and when it stops.
pub(super) struct Squeeze<'a> {
    pub fit: Fit,
    pub budget: &'a Budget,
    /// The height to beat, re-read every [`POLL_EVERY`] placements: a buffer ending above
    /// it abandons the squeeze (`None`: never).
    pub bound: Option<&'a (dyn Fn() -> Size + Sync)>,
}

/// [`squeeze`] on up to `threads` threads: `sequence` must be grouped by time component
/// (`component[i]`); runs of whole components are squeezed apart, which gives the same
/// offsets as one pass since buffers in different components never conflict.
pub(super) fn squeeze_components(
    problem: &Problem,
    sequence: &[BufferIdx],
    component: &[u32],
    threads: usize,
    how: &Squeeze<'_>,
) -> Verdict<(Vec<Offset>, Size)> {
    if threads <= 1 || sequence.len() < PARALLEL_MIN_BUFFERS {
        return squeeze(problem, sequence, how);
    }
    let runs = split_at_components(sequence, component, threads);
    let results: Vec<Verdict<(Vec<Offset>, Size)>> = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .iter()
            .map(|run| s.spawn(move || squeeze(problem, run, how)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("the squeeze does not panic"))
            .collect()
    });
    let mut merged: Option<(Vec<Offset>, Size)> = None;
    for (run, r) in runs.iter().zip(results) {
        let (offsets, h) = match r {
            Verdict::Found(found) => found,
            other => return other,
        };
        match &mut merged {
            None => merged = Some((offsets, h)),
            Some((m, mh)) => {
                for &i in run.iter() {
                    m[i] = offsets[i];
                }
                *mh = (*mh).max(h);
            }
        }
    }
    Verdict::Found(merged.expect("at least one run"))
}

/// Places fixed buffers, then `sequence` (every free buffer once), through the greedy
/// placement kernel. Returns the offsets and the height.
pub(super) fn squeeze(
    problem: &Problem,
    sequence: &[BufferIdx],
    how: &Squeeze<'_>,
) -> Verdict<(Vec<Offset>, Size)> {
    let bound = how.bound.map(|b| b as &dyn Fn() -> Size);
    place_sequence(problem, sequence, how.fit, POLL_EVERY, how.budget, bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::component_ids;
    use crate::checker::check_offsets;
    use crate::generate::{generate_model_like, GenOptions};
    use crate::outcome::Halt;

    /// Squeezing runs of components on several threads gives the one-thread offsets.
    #[test]
    fn parallel_squeeze_matches_one_thread() {
        let p = generate_model_like(&GenOptions {
            buffers: 3000,
            seed: 2,
        });
        let component = component_ids(&p);
        let mut sequence: Vec<BufferIdx> = p.indices().collect();
        // Any order within a component; here a scrambled one.
        sequence.sort_by_key(|&i| (component[i], (u64::from(i.0) * 2654435761) % 1000));
        let budget = Budget::unlimited();
        for fit in [Fit::FirstFit, Fit::BestFit] {
            let how = Squeeze {
                fit,
                budget: &budget,
                bound: Some(&|| Size(u64::MAX)),
            };
            let (one, h1) = squeeze(&p, &sequence, &how).found().unwrap();
            for threads in [2, 3] {
                let many = squeeze_components(&p, &sequence, &component, threads, &how);
                assert_eq!(many, Verdict::Found((one.clone(), h1)));
            }
            check_offsets(&p, &one, None).unwrap();
            // A bound below the height abandons.
            let below = h1 - Size(1);
            let how = Squeeze {
                bound: Some(&move || below),
                ..how
            };
            let r = squeeze_components(&p, &sequence, &component, 2, &how);
            assert_eq!(r, Verdict::Stopped(Halt::OverBound));
        }
    }
}
