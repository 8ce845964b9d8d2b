//! Greedy planners: an *ordering* of the buffers, then a *fit* that places each buffer
//! in turn at an address that is free for its whole lifetime.
//!
//! This is the "heuristic" family of the idealloc paper (§2.2: a sorting step and a
//! fitting step), and the family every later algorithm bootstraps from.
//!
//! ```text
//!   placing x: live [2, 6), size 1. Placed buffers live during [2, 6) take [0, 3),
//!   [5, 9) and [10, 12):
//!
//!   address   0  1  2  3  4  5  6  7  8  9 10 11 12
//!   taken     ########|     |###########|  |#####|
//!   free gaps          [3, 5)            [9, 10)  [12, ...)
//!
//!   first-fit -> 3   (the lowest address that fits)
//!   best-fit  -> 9   (the smallest gap that fits; the top only when no gap does)
//! ```
//!
//! Orderings ([`Order`]): size, area, lifetime, start, contention (the TelaMalloc §3.1
//! baseline) and breadth (TFLite §5.3). Fits ([`Fit`]): first-fit (idealloc's and
//! TelaMalloc's choice) and best-fit (TFLite's "Greedy by Size for Offset Calculation",
//! §5.2). Fixed buffers are placed first, at their offsets; the ordering covers the rest.
//!
//! The placement kernel ([`place_sequence`]) is a sweep in start order, a segment tree
//! of occupied address ranges over time on dense problems, or an index of lifetimes
//! (O(n log n + pairs · log d) for `d` conflicts per placement); all give the same plan.

mod free_ranges;
mod occupancy;
mod order;
mod place;
pub(crate) mod repair;
mod unions;

pub use order::Order;
pub(crate) use order::{area, contention};
#[cfg(feature = "fuzzing")]
pub(crate) use place::offsets_by_each_kernel;
pub(crate) use place::place_sequence;

use crate::analysis::{component_ids, split_at_components};
use crate::budget::{work, Budget};
use crate::types::{BufferIdx, Offset, Problem, Size};

/// The addresses `[lo, hi)` a placed buffer takes: `(offset, offset + size)`.
pub(crate) type Span = (Offset, Offset);

/// Every greedy planner, once, in the one portfolio order. Every family that runs
/// several greedy planners (the driver's greedy pass, boxing's plan to beat, TelaMalloc's
/// minimisation) runs them in this order; it matters when the budget stops the later
/// ones (the first plan is let finish past the deadline, so it must be the cheap one),
/// and it breaks ties in height (the earlier planner's plan wins):
///
/// 1. start-best-fit, the fastest pass (a sweep over free address ranges, O(n log n)
///    when no buffer is fixed or gapped) and often the lowest on long traces, so that a
///    budget too short for the others still gets its plan (0.76% over the max load on a
///    generated dense trace of 60,000 buffers, 0.71% on iopddl-S);
/// 2. breadth-best-fit, TFLite's Greedy by Breadth ("Efficient Memory Management for
///    Deep Neural Net Inference", §5.3): the one planner that reached the max load on a
///    real dense training trace (62,185 buffers, 1.8·10⁸ overlapping pairs);
/// 3. then the others, lowest first on those dense traces: size-first-fit (0.78% and
///    2.93%), size-best-fit (2.39%, 2.49%), lifetime-best-fit (0.94%, 2.98%),
///    start-first-fit, lifetime-first-fit, and last the orders that were far above the
///    max load on both (area, contention, breadth with first fit).
pub(crate) fn portfolio() -> Vec<(Order, Fit)> {
    use Fit::{BestFit, FirstFit};
    vec![
        (Order::Start, BestFit),
        (Order::Breadth, BestFit),
        (Order::Size, FirstFit),
        (Order::Size, BestFit),
        (Order::Lifetime, BestFit),
        (Order::Start, FirstFit),
        (Order::Lifetime, FirstFit),
        (Order::Contention, BestFit),
        (Order::Area, FirstFit),
        (Order::Area, BestFit),
        (Order::Contention, FirstFit),
        (Order::Breadth, FirstFit),
    ]
}

/// How a greedy planner picks a free address for a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fit {
    /// The lowest address at which the buffer fits.
    FirstFit,
    /// The smallest free gap between placed buffers that fits; above them all when none
    /// does (TFLite's Greedy by Size for Offset Calculation, §5.2).
    BestFit,
}

impl Fit {
    /// Both fits, best-fit first.
    pub const ALL: [Fit; 2] = [Fit::BestFit, Fit::FirstFit];

    /// `first-fit` or `best-fit`.
    pub fn name(self) -> &'static str {
        match self {
            Fit::FirstFit => "first-fit",
            Fit::BestFit => "best-fit",
        }
    }
}

/// How often (in placements) a running greedy planner polls its budget. A placement
/// on a dense instance visits thousands of conflicts (iopddl-S: 43M overlapping pairs over
/// 28k buffers), so 4,096 placements could overrun a time limit by 0.4 s; a poll is one
/// clock read and two atomic loads.
const POLL_EVERY: usize = 64;

/// Below this many buffers, a greedy run stays on one thread.
const PARALLEL_MIN_BUFFERS: usize = 100_000;

/// Runs one greedy planner on up to `threads` threads. Returns `None` when the budget ran
/// out first.
///
/// Buffers in different time components never conflict, so placing one component after
/// the other gives the same plan as the global order; it also keeps the index walks local
/// in memory, and lets disjoint runs of components go to different threads. The plan is
/// the same whatever the thread count.
pub(crate) fn run(
    problem: &Problem,
    order: Order,
    fit: Fit,
    threads: usize,
    budget: &Budget,
) -> Option<Vec<Offset>> {
    let mut sequence = order.sequence(problem);
    let component = component_ids(problem);
    crate::sort::by_key(&mut sequence, |&i| component[i]);
    // The order and the components take O(n log n) before the first poll below.
    if budget.exhausted() {
        return None;
    }
    if threads <= 1 || sequence.len() < PARALLEL_MIN_BUFFERS {
        return place_in_order(problem, &sequence, fit, budget);
    }
    let runs = split_at_components(&sequence, &component, threads);
    let results: Vec<Option<Vec<Offset>>> = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .iter()
            .map(|run| s.spawn(move || place_in_order(problem, run, fit, budget)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("placement does not panic"))
            .collect()
    });
    let mut results = results.into_iter().collect::<Option<Vec<_>>>()?;
    let mut merged = results.pop().unwrap_or_else(|| naive(problem));
    for (run, offsets) in runs.iter().zip(&results) {
        for &i in run.iter() {
            merged[i] = offsets[i];
        }
    }
    Some(merged)
}

/// Runs each of `planners` (one thread each, up to `threads` at once) and returns the
/// lowest plan, ties to the earlier planner in `planners`; `None` when the budget stopped
/// them all. Once a plan is at most `good_enough` high, the planners after it stop while
/// those before it finish, so the result does not depend on the thread count or timing
/// (only the budget does). The first planner runs on [`Budget::first_plan`].
pub(crate) fn best_of(
    problem: &Problem,
    planners: &[(Order, Fit)],
    threads: usize,
    good_enough: Size,
    budget: &Budget,
) -> Option<Vec<Offset>> {
    use std::sync::Mutex;
    // The plans that can still be the answer, as (planner, height, plan): only those
    // that no earlier planner matches or beats in height. The answer is the lowest plan
    // among the planners up to the last good-enough one, and a plan beaten by an earlier
    // one is never that. Usually few plans are held at once, not one per planner (12 × 8
    // MB at a million buffers); all twelve only when each is lower than every earlier one.
    let front: Mutex<Vec<(usize, Size, Vec<Offset>)>> = Mutex::new(Vec::new());
    let last = race(
        problem,
        planners,
        threads,
        1,
        good_enough,
        budget,
        |k, height, offsets, done_at| {
            let mut front = front.lock().expect("no worker panics holding the lock");
            if k <= done_at() && !front.iter().any(|&(j, h, _)| j < k && h <= height) {
                front.retain(|&(j, h, _)| !(j > k && h >= height));
                front.push((k, height, offsets));
            }
        },
    );
    front
        .into_inner()
        .expect("workers joined")
        .into_iter()
        .filter(|&(k, _, _)| k <= last)
        .min_by_key(|&(k, h, _)| (h, k))
        .map(|(_, _, o)| o)
}

/// Every plan of [`best_of`]'s run that counts, by planner: `None` for the planners the
/// budget stopped and for those after the first good-enough plan (which stop, or finish
/// and do not count, so that the result does not depend on timing). Each planner runs on
/// `inner_threads` threads.
pub(crate) fn all_of(
    problem: &Problem,
    planners: &[(Order, Fit)],
    threads: usize,
    inner_threads: usize,
    good_enough: Size,
    budget: &Budget,
) -> Vec<Option<Vec<Offset>>> {
    use std::sync::Mutex;
    let results: Mutex<Vec<Option<Vec<Offset>>>> = Mutex::new(vec![None; planners.len()]);
    let last = race(
        problem,
        planners,
        threads,
        inner_threads,
        good_enough,
        budget,
        |k, _, offsets, _| {
            results.lock().expect("no worker panics holding the lock")[k] = Some(offsets);
        },
    );
    let mut results = results.into_inner().expect("workers joined");
    for r in results.iter_mut().skip(last.saturating_add(1)) {
        *r = None;
    }
    results
}

/// The run shared by [`best_of`] and [`all_of`]: workers take the planners in order and
/// hand each finished plan to `keep(k, height, plan, done_at)`, where `done_at()` is the
/// first good-enough planner so far (`usize::MAX`: none). Returns the first good-enough
/// planner at the end.
///
/// Each planner runs on a budget of its own, a child of `budget` (the first planner's, of
/// [`Budget::first_plan`]): a good-enough plan cancels those of every later planner.
fn race(
    problem: &Problem,
    planners: &[(Order, Fit)],
    threads: usize,
    inner_threads: usize,
    good_enough: Size,
    budget: &Budget,
    keep: impl Fn(usize, Size, Vec<Offset>, &dyn Fn() -> usize) + Sync,
) -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let done_at = AtomicUsize::new(usize::MAX);
    // Under a work limit, the planners after the first that a share of the work left
    // pays for (each charged the same: a pass over every buffer); the count does not
    // depend on the timing, so neither does the plan.
    let per_planner = work::units(problem.len() as u64, work::GREEDY_BUFFERS_PER_UNIT);
    let allowed = budget.work_left().map_or(planners.len(), |left| {
        let later = (left as f64 * GREEDY_WORK_SHARE) as u64 / per_planner;
        usize::try_from(later)
            .unwrap_or(usize::MAX)
            .saturating_add(1)
    });
    let first = budget.first_plan();
    let own: Vec<Budget> = (0..planners.len())
        .map(|k| if k == 0 { &first } else { budget }.child())
        .collect();
    let worker = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= planners.len() {
            break;
        }
        if k >= allowed
            || own[k].exhausted()
            || (k > 0 && budget.too_short_for_setup(problem.len()))
        {
            continue;
        }
        let (order, fit) = planners[k];
        if let Some(offsets) = run(problem, order, fit, inner_threads, &own[k]) {
            let height = problem.height_of(&offsets);
            if height <= good_enough {
                done_at.fetch_min(k, Ordering::Relaxed);
                own[k + 1..].iter().for_each(Budget::cancel);
            }
            keep(k, height, offsets, &|| done_at.load(Ordering::Relaxed));
        }
    };
    crate::workers::run_workers(threads.min(planners.len()), worker);
    let done_at = done_at.into_inner();
    // The planners that count: up to the first good-enough one, among those allowed.
    let counted = planners.len().min(allowed).min(done_at.saturating_add(1));
    budget.charge((counted as u64).saturating_mul(per_planner));
    done_at
}

/// Under a work limit, the share of the work left that the greedy planners after the
/// first may take: the rest is for the refinement that follows.
const GREEDY_WORK_SHARE: f64 = 0.15;

/// Places fixed buffers, then `sequence` (which must list every free buffer once).
pub(crate) fn place_in_order(
    problem: &Problem,
    sequence: &[BufferIdx],
    fit: Fit,
    budget: &Budget,
) -> Option<Vec<Offset>> {
    place_sequence(problem, sequence, fit, POLL_EVERY, budget, None)
        .found()
        .map(|(offsets, _)| offsets)
}

/// Reusable storage of [`sort_spans`].
#[derive(Default)]
pub(crate) struct SpanScratch {
    narrow: Vec<u64>,
    radix: Vec<u64>,
    /// The radix sort's digit counts, kept so that a placement allocates nothing.
    counts: Vec<[u32; RADIX_BUCKETS]>,
    wide: Vec<u128>,
}

/// Sorts `(lo, hi)` spans by `lo` for [`choose_offset`], through packed integers: much
/// faster than sorting pairs. `narrow_ok` says every address is below 2^32, so a span
/// packs into a u64.
///
/// Spans with equal `lo` may come in any order: [`choose_offset`] gives the same answer
/// (the first of them sees the same candidate the others would, and the candidate after
/// all of them is the largest of their aligned ends either way). Short lists are sorted
/// by `(lo, hi)`; long narrow ones by `lo` alone with a radix sort, stable, so the result
/// depends only on the input order.
pub(crate) fn sort_spans(spans: &mut Vec<Span>, scratch: &mut SpanScratch, narrow_ok: bool) {
    let SpanScratch {
        narrow,
        radix,
        counts,
        wide,
    } = scratch;
    if narrow_ok {
        narrow.clear();
        narrow.extend(spans.iter().map(|&(lo, hi)| (lo.get() << 32) | hi.get()));
        if narrow.len() >= RADIX_MIN_SPANS {
            radix_sort_by_high_half(narrow, radix, counts);
        } else {
            narrow.sort_unstable();
        }
        spans.clear();
        spans.extend(
            narrow
                .iter()
                .map(|&c| (Offset(c >> 32), Offset(c & u32::MAX as u64))),
        );
    } else {
        wide.clear();
        wide.extend(
            spans
                .iter()
                .map(|&(lo, hi)| (u128::from(lo.get()) << 64) | u128::from(hi.get())),
        );
        wide.sort_unstable();
        spans.clear();
        spans.extend(
            wide.iter()
                .map(|&c| (Offset((c >> 64) as u64), Offset(c as u64))),
        );
    }
}

/// From this many spans on, [`sort_spans`] sorts narrow spans with a radix sort.
const RADIX_MIN_SPANS: usize = 384;

/// Digits of [`radix_sort_by_high_half`]: three passes of 11 bits cover 32.
const RADIX_BITS: u32 = 11;
const RADIX_BUCKETS: usize = 1 << RADIX_BITS;

/// Stable LSD radix sort of `keys` by their high 32 bits, in three passes of 11 bits
/// (passes in which every key has the same digit are skipped). `buf` and `counts` are
/// scratch space.
fn radix_sort_by_high_half(
    keys: &mut Vec<u64>,
    buf: &mut Vec<u64>,
    counts: &mut Vec<[u32; RADIX_BUCKETS]>,
) {
    const BITS: u32 = RADIX_BITS;
    const MASK: u64 = RADIX_BUCKETS as u64 - 1;
    let n = keys.len();
    counts.clear();
    counts.resize(3, [0u32; RADIX_BUCKETS]);
    for &k in keys.iter() {
        let h = k >> 32;
        counts[0][(h & MASK) as usize] += 1;
        counts[1][((h >> BITS) & MASK) as usize] += 1;
        counts[2][((h >> (2 * BITS)) & MASK) as usize] += 1;
    }
    buf.clear();
    buf.resize(n, 0);
    for (pass, count) in counts.iter_mut().enumerate() {
        if count.iter().any(|&c| c as usize == n) {
            continue; // one digit for every key: this pass would not move anything
        }
        let mut next = 0u32;
        for c in count.iter_mut() {
            let here = *c;
            *c = next;
            next += here;
        }
        let shift = 32 + BITS * pass as u32;
        for &k in keys.iter() {
            let d = ((k >> shift) & MASK) as usize;
            buf[count[d] as usize] = k;
            count[d] += 1;
        }
        std::mem::swap(keys, buf);
    }
}

/// Picks an offset given the address ranges taken by conflicting buffers, sorted by
/// start address (see [`sort_spans`] on equal starts).
#[inline]
pub(crate) fn choose_offset(taken: &[Span], size: Size, alignment: Size, fit: Fit) -> Offset {
    choose_offset_from(taken, size, alignment, fit, Offset::ZERO)
}

/// [`choose_offset`] with the first candidate at `start` (aligned) rather than 0: what
/// `choose_offset` gives over `taken` and ranges below `start` that leave no candidate
/// below it that fits (as [`unions`] knows of the ranges it leaves out).
#[inline]
pub(crate) fn choose_offset_from(
    taken: &[Span],
    size: Size,
    alignment: Size,
    fit: Fit,
    start: Offset,
) -> Offset {
    let mut candidate = start;
    let mut best: Option<(Size, Offset)> = None; // (gap length, offset)
    for &(lo, hi) in taken {
        if lo >= candidate + size {
            match fit {
                Fit::FirstFit => return candidate,
                Fit::BestFit => {
                    let gap = lo - candidate;
                    if best.is_none_or(|(g, _)| gap < g) {
                        best = Some((gap, candidate));
                    }
                }
            }
        }
        if hi > candidate {
            candidate = hi.align_up(alignment);
        }
    }
    best.map_or(candidate, |(_, o)| o)
}

/// The naive plan: every free buffer gets its own addresses, stacked in input order
/// above the fixed ones. Its height is the sum of the sizes (plus alignment padding).
pub(crate) fn naive(problem: &Problem) -> Vec<Offset> {
    let bufs = problem.buffers();
    let mut top = bufs
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o + b.size))
        .max()
        .unwrap_or(Offset::ZERO);
    bufs.iter()
        .map(|b| match b.fixed_offset {
            Some(o) => o,
            None => {
                let o = top.align_up(b.alignment);
                top = o + b.size;
                o
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_portfolio_order_lists_every_planner_once_start_best_fit_first() {
        let mut portfolio = portfolio();
        assert_eq!(
            portfolio[0],
            (Order::Start, Fit::BestFit),
            "the cheap sweep first"
        );
        let mut all: Vec<(Order, Fit)> = Order::ALL
            .iter()
            .flat_map(|&o| Fit::ALL.iter().map(move |&f| (o, f)))
            .collect();
        let key = |&(o, f): &(Order, Fit)| (o.name(), f.name());
        portfolio.sort_by_key(key);
        all.sort_by_key(key);
        assert_eq!(portfolio, all);
    }

    /// [`choose_offset`] on raw numbers: spans, size and alignment in, the offset out.
    pub(crate) fn choose(taken: &[(u64, u64)], size: u64, alignment: u64, fit: Fit) -> u64 {
        let taken: Vec<Span> = taken
            .iter()
            .map(|&(lo, hi)| (Offset(lo), Offset(hi)))
            .collect();
        choose_offset(&taken, Size(size), Size(alignment), fit).get()
    }

    #[test]
    fn first_and_best_fit_on_the_module_picture() {
        let taken = [(0, 2), (3, 5), (6, 8), (10, 12)];
        assert_eq!(choose(&taken, 1, 1, Fit::FirstFit), 2);
        assert_eq!(choose(&taken, 2, 1, Fit::FirstFit), 8);
        assert_eq!(choose(&taken, 2, 1, Fit::BestFit), 8);
        assert_eq!(choose(&taken, 3, 1, Fit::FirstFit), 12);
        // Best-fit prefers the tight gap [5,6) over [2,3)? both size 1: the lower one.
        assert_eq!(choose(&taken, 1, 1, Fit::BestFit), 2);
        let taken = [(0, 2), (5, 9), (10, 11)];
        // gaps [2,5) (3) and [9,10) (1): a size-1 buffer takes the tight one under best-fit.
        assert_eq!(choose(&taken, 1, 1, Fit::FirstFit), 2);
        assert_eq!(choose(&taken, 1, 1, Fit::BestFit), 9);
        // Alignment: gap [2,5) aligned to 4 starts at 4, leaving room for 1 byte only.
        assert_eq!(choose(&taken, 2, 4, Fit::FirstFit), 12);
        assert_eq!(choose(&[], 7, 4, Fit::BestFit), 0);
        // Nested ranges: (0,10) covers (2,3).
        assert_eq!(choose(&[(0, 10), (2, 3)], 1, 1, Fit::FirstFit), 10);
    }

    /// `best_of` gives what running the planners one by one gives: the lowest plan, ties
    /// to the earlier planner, among the planners up to the first whose plan is good
    /// enough; the same on 1, 2 and 3 threads.
    #[test]
    fn best_of_is_the_lowest_plan_up_to_the_first_good_enough() {
        use crate::types::Buffer;
        let planners = portfolio();
        let mut rng = crate::rng::Rng::new(17);
        for round in 0..60 {
            let n = 2 + (rng.next_u64() % 40) as usize;
            let bufs = (0..n)
                .map(|i| {
                    let start = rng.next_u64() % 30;
                    let len = 1 + rng.next_u64() % 12;
                    Buffer::new(format!("b{i}"), start, start + len, 1 + rng.next_u64() % 50)
                })
                .collect();
            let p = Problem::new(bufs).unwrap();
            let heights: Vec<Size> = planners
                .iter()
                .map(|&(o, f)| {
                    let plan = run(&p, o, f, 1, &Budget::unlimited()).expect("not aborted");
                    p.height_of(&plan)
                })
                .collect();
            let (low, high) = (heights.iter().min().unwrap(), heights.iter().max().unwrap());
            for good_enough in [Size::ZERO, *low, (*low + *high) / 2, *high] {
                let last = heights
                    .iter()
                    .position(|&h| h <= good_enough)
                    .unwrap_or(planners.len() - 1);
                let want = (0..=last).min_by_key(|&k| (heights[k], k)).unwrap();
                let (o, f) = planners[want];
                let expected = run(&p, o, f, 1, &Budget::unlimited());
                for threads in [1, 2, 3] {
                    let got = best_of(&p, &planners, threads, good_enough, &Budget::unlimited());
                    assert_eq!(got, expected, "round {round}, {good_enough}, {threads}");
                }
            }
        }
    }

    /// Both paths of `sort_spans` (comparison below `RADIX_MIN_SPANS`, radix from it on)
    /// order by start, keep every span, and give `choose_offset` the answer a full
    /// `(lo, hi)` sort gives, equal starts included.
    #[test]
    fn sorted_spans_give_the_offsets_of_a_full_sort() {
        let mut rng = crate::rng::Rng::new(5);
        let mut scratch = SpanScratch::default();
        for round in 0..400 {
            let n = rng.range(0, 3 * RADIX_MIN_SPANS as u64) as usize;
            // Few distinct starts in some rounds, so that ties are common.
            let spread = if round % 3 == 0 {
                40
            } else {
                1 << (8 + round % 24)
            };
            let spans: Vec<Span> = (0..n)
                .map(|_| {
                    let lo = Offset(rng.range(0, spread));
                    (lo, lo + Size(rng.range(1, 50)))
                })
                .collect();
            let mut sorted = spans.clone();
            sort_spans(&mut sorted, &mut scratch, true);
            assert!(sorted.windows(2).all(|w| w[0].0 <= w[1].0), "by start");
            let mut a = sorted.clone();
            let mut b = spans.clone();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "the same spans");
            for _ in 0..8 {
                let size = Size(rng.range(1, 60));
                let align = Size([1, 2, 8, 16][rng.range(0, 3) as usize]); // `range` is inclusive
                for fit in [Fit::FirstFit, Fit::BestFit] {
                    assert_eq!(
                        choose_offset(&sorted, size, align, fit),
                        choose_offset(&b, size, align, fit),
                        "{n} spans, size {size}, alignment {align}, {fit:?}"
                    );
                }
            }
        }
    }
}
