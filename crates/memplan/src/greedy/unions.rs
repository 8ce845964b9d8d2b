//! The offset a fit picks, from the runs of an [`super::occupancy`] query.
//!
//! **Model.** A query gives `k` *runs*: sorted lists of disjoint, non-touching address
//! ranges (one per tree node), which may overlap one another. The taken addresses are
//! the union `S` of their ranges. [`super::choose_offset`] over the union's ranges (its
//! *components*: maximal, non-touching) tries the candidates `0` and the aligned end of
//! each component, in order; a candidate `x` *fits* when `[x, x + size)` misses `S`, and
//! its gap runs up to the start of the first component ending above `x`. First-fit is
//! the lowest candidate that fits, which is also the lowest aligned `x` with
//! `[x, x + size)` free: such an `x` lies in a gap between two components (or above
//! them all), and the aligned end of the lower one is a candidate at or below `x` that
//! fits too. Best-fit is the fitting candidate with the shortest gap, the lowest on
//! ties, else the aligned end of the highest component.
//!
//! **Leapfrog.** On a dense trace the lowest fitting candidate sits above one large
//! component made of hundreds of ranges of the runs (each run has holes there that the
//! others fill), so [`lowest_fit`] finds it without merging them: it cycles over the runs
//! with a candidate `x`, moving each run's front to its first range ending above `x` (by
//! galloping); a front that starts below `x + size` meets `[x, x + size)`, and so it
//! does for every `x` up to its end, so `x` jumps to that end, aligned. Once `k` runs in
//! a row meet nothing, `x` fits, and its gap ends at the least start among the fronts.
//!
//! **Invariant.** Every range dropped from the front of a run ends at or below the
//! current `x`, so it cannot meet `[x', x' + size)` for any later `x' >= x`: what is left
//! of the runs is, as a union, exactly the components ending above `x`. First-fit
//! returns `x`; best-fit merges only what is left ([`union_of_runs`], the shortest lists
//! first) and goes on from `x` with [`super::choose_offset_from`], which gives what
//! [`super::choose_offset`] gives over the whole union, since no candidate below `x`
//! fits. The merge also fills the gaps shorter than `size`: no candidate in such a gap
//! fits, and the candidate after it is the aligned end of the range above it either
//! way, so the offset is the same, from shorter lists. The tests compare both fits with
//! `choose_offset` over the materialised union.

use super::{choose_offset_from, Fit, Span};
use crate::types::{Offset, Size};

/// Reusable storage of [`choose_offset_in_runs`].
#[derive(Default)]
pub(crate) struct ChooseScratch {
    union: UnionScratch,
    taken: Vec<Span>,
}

/// The offset `fit` picks for `size` bytes aligned to `alignment` when the taken
/// addresses are the union of `runs` (each sorted, disjoint, non-touching): what
/// [`super::choose_offset`] gives over that union. Leaves in `runs` what is left of each
/// (see the module docs).
pub(crate) fn choose_offset_in_runs(
    runs: &mut [&[Span]],
    size: Size,
    alignment: Size,
    fit: Fit,
    scratch: &mut ChooseScratch,
) -> Offset {
    let (x, next) = lowest_fit(runs, size, alignment);
    match (fit, next) {
        (Fit::FirstFit, _) | (Fit::BestFit, None) => x,
        // The shortest gap a fit can have, and the lowest such: no later gap beats it.
        (Fit::BestFit, Some(next)) if next - x == size => x,
        (Fit::BestFit, Some(_)) => {
            union_of_runs(runs, size, &mut scratch.union, &mut scratch.taken);
            choose_offset_from(&scratch.taken, size, alignment, fit, x)
        }
    }
}

/// The lowest aligned `x` such that `[x, x + size)` misses every run, and the least
/// start of a range above it (`None`: nothing is above). Drops from the front of each run
/// the ranges that end at or below `x`.
fn lowest_fit(runs: &mut [&[Span]], size: Size, alignment: Size) -> (Offset, Option<Offset>) {
    let k = runs.len();
    let mut x = Offset::ZERO;
    let (mut r, mut clean, mut next) = (0, 0, None::<Offset>);
    while clean < k {
        let run = &mut runs[r];
        *run = &run[first_ending_above(run, x)..];
        match run.first() {
            Some(&(lo, hi)) if lo < x + size => {
                // `[x', x' + size)` meets `[lo, hi)` for every x' in [x, hi).
                x = hi.align_up(alignment);
                clean = 0;
                next = None;
                continue; // the same run again, from the new `x`
            }
            Some(&(lo, _)) => next = Some(next.map_or(lo, |n| n.min(lo))),
            None => {}
        }
        clean += 1;
        r = if r + 1 == k { 0 } else { r + 1 };
    }
    (x, next)
}

/// The index of the first range of `run` that ends above `x` (`run.len()` when none
/// does): a gallop from the front, then a binary search.
#[inline]
fn first_ending_above(run: &[Span], x: Offset) -> usize {
    match run.first() {
        Some(&(_, hi)) if hi <= x => {}
        _ => return 0,
    }
    // run[below].1 <= x throughout.
    let mut below = 0;
    let mut step = 1;
    while below + step < run.len() && run[below + step].1 <= x {
        below += step;
        step *= 2;
    }
    let end = (below + step).min(run.len());
    below + 1 + run[below + 1..end].partition_point(|&(_, hi)| hi <= x)
}

/// Reusable storage of [`union_of_runs`]: merged lists, which of them are free, and the
/// queue of lists by length.
#[derive(Default)]
struct UnionScratch {
    pool: Vec<Vec<Span>>,
    free: Vec<usize>,
    queue: std::collections::BinaryHeap<std::cmp::Reverse<(usize, usize)>>,
}

/// Sets `out` to the union of `runs` (each sorted, disjoint), as sorted, disjoint,
/// non-touching ranges, in which (from two runs on) the gaps shorter than `min_gap` (at
/// least 1; 1 gives the exact union) are filled. A gap in a merged list contains the
/// gaps of the final union inside it, so those filled are only gaps of the union that
/// are shorter than `min_gap` too. The two shortest lists are merged first, as in a
/// Huffman code, so that the long lists (on dense traces, the nodes near the top of the
/// query) are read once or twice: O(total · log runs) at worst, and every merge
/// coalesces what overlaps or touches, so merged lists shrink toward the union. A list
/// is named by `k`: `runs[k]` below `runs.len()`, else `pool[k - runs.len()]`.
fn union_of_runs(runs: &[&[Span]], min_gap: Size, scratch: &mut UnionScratch, out: &mut Vec<Span>) {
    use std::cmp::Reverse;
    out.clear();
    if runs.len() <= 1 {
        out.extend_from_slice(runs.first().copied().unwrap_or(&[]));
        return;
    }
    let UnionScratch { pool, free, queue } = scratch;
    let n = runs.len();
    queue.clear();
    queue.extend(runs.iter().enumerate().map(|(k, r)| Reverse((r.len(), k))));
    loop {
        let Reverse((_, a)) = queue.pop().expect("two lists or more");
        let Reverse((_, b)) = queue.pop().expect("two lists or more");
        let last = queue.is_empty();
        let mut merged = if last {
            std::mem::take(out)
        } else {
            free.pop()
                .map_or_else(Vec::new, |k| std::mem::take(&mut pool[k]))
        };
        merged.clear();
        {
            let list = |k: usize| if k < n { runs[k] } else { &pool[k - n][..] };
            merge_union(list(a), list(b), min_gap, &mut merged);
        }
        free.extend([a, b].into_iter().filter(|&k| k >= n).map(|k| k - n));
        if last {
            *out = merged;
            return;
        }
        let k = match free.pop() {
            Some(k) => k,
            None => {
                pool.push(Vec::new());
                pool.len() - 1
            }
        };
        queue.push(Reverse((merged.len(), n + k)));
        pool[k] = merged;
    }
}

/// Appends to `out` the union of `a` and `b` (each sorted, disjoint), coalescing
/// overlapping and touching ranges, and those less than `min_gap` apart (at least 1).
/// Written without data-dependent branches in the loop (which side comes next, whether
/// to coalesce): on interleaved lists those are coin flips.
#[inline]
fn merge_union(a: &[Span], b: &[Span], min_gap: Size, out: &mut Vec<Span>) {
    const PAST: Span = (Offset(u64::MAX), Offset(u64::MAX));
    let total = a.len() + b.len();
    if total == 0 {
        return;
    }
    let first = out.len();
    out.resize(first + total, (Offset::ZERO, Offset::ZERO));
    let dst = &mut out[first..];
    let (mut i, mut j, mut w) = (0usize, 0usize, 0usize);
    let pick = |i: usize, j: usize| {
        let x = a.get(i).copied().unwrap_or(PAST);
        let y = b.get(j).copied().unwrap_or(PAST);
        let take_a = x.0 <= y.0;
        (if take_a { x } else { y }, take_a as usize)
    };
    let (mut cur, took_a) = pick(i, j);
    i += took_a;
    j += 1 - took_a;
    for _ in 1..total {
        let (next, took_a) = pick(i, j);
        i += took_a;
        j += 1 - took_a;
        // Write the pending range where it would go; keep it only if `next` starts a
        // new one.
        dst[w] = cur;
        let new = next.0 >= cur.1.saturating_add(min_gap);
        w += new as usize;
        cur = if new {
            next
        } else {
            (cur.0, cur.1.max(next.1))
        };
    }
    dst[w] = cur;
    out.truncate(first + w + 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::greedy::choose_offset;
    use proptest::prelude::*;

    use crate::greedy::occupancy::tests::{spans, union};

    /// A run from random spans: their union (sorted, disjoint, non-touching).
    fn run_of(raw: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
        let raw: Vec<(u64, u64)> = raw.into_iter().map(|(lo, len)| (lo, lo + len)).collect();
        union(spans(&raw))
            .into_iter()
            .map(|(lo, hi)| (lo.get(), hi.get()))
            .collect()
    }

    /// What [`choose_offset_in_runs`] picks over fresh slices of `runs`.
    fn pick(runs: &[Vec<(u64, u64)>], size: u64, alignment: u64, fit: Fit) -> u64 {
        let runs: Vec<Vec<Span>> = runs.iter().map(|r| spans(r)).collect();
        let mut slices: Vec<&[Span]> = runs.iter().map(|r| r.as_slice()).collect();
        let (size, alignment) = (Size(size), Size(alignment));
        choose_offset_in_runs(&mut slices, size, alignment, fit, &mut Default::default()).get()
    }

    fn check(runs: &[Vec<(u64, u64)>], size: u64, alignment: u64) -> Result<(), TestCaseError> {
        let taken = union(spans(&runs.concat()));
        for fit in Fit::ALL {
            prop_assert_eq!(
                pick(runs, size, alignment, fit),
                choose_offset(&taken, Size(size), Size(alignment), fit).get(),
                "{:?}, size {}, alignment {}, runs {:?}",
                fit,
                size,
                alignment,
                runs
            );
        }
        let runs: Vec<Vec<Span>> = runs.iter().map(|r| spans(r)).collect();
        let slices: Vec<&[Span]> = runs.iter().map(|r| r.as_slice()).collect();
        let mut merged = Vec::new();
        union_of_runs(&slices, Size(1), &mut UnionScratch::default(), &mut merged);
        prop_assert_eq!(merged, taken);
        Ok(())
    }

    #[test]
    fn the_module_picture_and_touching_runs() {
        let runs = [vec![(0, 3), (10, 12)], vec![(5, 9)], vec![]];
        check(&runs, 1, 1).unwrap();
        assert_eq!(pick(&runs, 1, 1, Fit::FirstFit), 3);
        assert_eq!(pick(&runs, 1, 1, Fit::BestFit), 9);
        assert_eq!(pick(&runs, 4, 1, Fit::BestFit), 12);
        assert_eq!(pick(&runs, 2, 1, Fit::BestFit), 3);
        // Ranges of different runs that touch make one component: no gap between them.
        let runs = [vec![(0, 5), (8, 9)], vec![(5, 8)]];
        check(&runs, 1, 1).unwrap();
        assert_eq!(pick(&runs, 1, 1, Fit::FirstFit), 9);
        assert_eq!(pick(&[], 5, 8, Fit::BestFit), 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// On random runs (few or many, short or long, overlapping one another), with
        /// alignments that skip whole components, both fits give `choose_offset` over the
        /// materialised union.
        #[test]
        fn the_runs_give_choose_offset_over_their_union(
            runs in proptest::collection::vec(
                proptest::collection::vec((0u64..400, 1u64..40), 0..25), 0..8),
            size in 1u64..60,
            align in 0usize..6,
            scale in 0u32..3,
        ) {
            let shift = [0, 20, 40][scale as usize];
            let runs: Vec<Vec<(u64, u64)>> = runs
                .into_iter()
                .map(|r| run_of(r).into_iter().map(|(lo, hi)| (lo << shift, hi << shift)).collect())
                .collect();
            let alignment = [1u64, 2, 8, 16, 64, 256][align] << shift;
            check(&runs, size << shift, alignment.max(1))?;
            check(&runs, (size << shift) + 1, [1u64, 2, 8, 16, 64, 256][align])?;
        }
    }
}
