//! The placement kernel of the greedy planners: fixed buffers at their offsets, then
//! each buffer of a sequence at the address a [`Fit`] picks among those free for its
//! whole lifetime (gaps honoured).
//!
//! **Model and invariant.** When a buffer is placed, the taken addresses are those of
//! the placed buffers that are live together with it; the fit ([`choose_offset`])
//! depends on them only through their union (see [`super::occupancy`]). Three kernels
//! compute that union, and give the same plan:
//!
//! - a *sweep*, when the sequence is in start order and no buffer is fixed or gapped:
//!   the placed buffers that conflict with the next one are those live at its start
//!   (free address ranges for best-fit, [`super::free_ranges`], O(log n) per placement;
//!   the live spans sorted by address for first-fit, O(live));
//! - an *occupancy*, on dense problems in any order: a segment tree over time whose
//!   nodes keep unions of address ranges ([`super::occupancy`]), O(log n) unions read
//!   per placement instead of one span per conflicting buffer, and the offset chosen
//!   from them directly ([`super::unions`]: a leapfrog over their fronts for first-fit;
//!   for best-fit, that leapfrog, then a merge of what is left above it);
//! - a *time index* of the placed buffers otherwise, one span per conflicting buffer,
//!   sorted: O(n log n + pairs · log d) for `d` conflicts per placement, the cheapest
//!   in time and memory when few buffers are live together.
//!
//! Best-fit is TFLite's Greedy by Size for Offset Calculation ("Efficient Memory
//! Management for Deep Neural Net Inference", §5.2): the smallest gap that fits, the
//! lowest on ties, the top when none fits; first-fit the lowest address that fits.

use super::{
    choose_offset, free_ranges, occupancy, sort_spans, unions, Fit, SpanScratch, UNPLACED,
};
use crate::index::TimeIndex;
use crate::types::Problem;

/// Why [`place_sequence`] did not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Halted {
    /// A buffer would end above the bound.
    OverBound,
    /// `stop()` said to stop.
    Stopped,
}

/// The placement kernel of every greedy pass (and of boxing's squeeze and the peak
/// repair's promotion): fixed buffers at their offsets, then each buffer of `sequence`
/// (every free buffer once) at the address `fit` picks among those free for its whole
/// lifetime (gaps honoured). Polls `stop` before every `poll_every`-th placement (the
/// first included), and then also re-reads `bound`, if any: a buffer ending above it
/// halts the pass. Returns the
/// offsets and the height.
///
/// The kernel (see the module docs) is the sweep when `sequence` allows it, else the
/// occupancy when the buffers conflict with [`DENSE_MEAN_CONFLICTS`] others or more on
/// average, else the time index; all three give the same plan.
pub(crate) fn place_sequence(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
    poll_every: usize,
    stop: &dyn Fn() -> bool,
    bound: Option<&dyn Fn() -> u64>,
) -> Result<(Vec<u64>, u64), Halted> {
    place_sequence_by(
        problem,
        sequence,
        fit,
        poll_every,
        stop,
        bound,
        Kernel::Auto,
    )
}

/// Which structure [`place_sequence_by`] gets conflicts from (the tests compare them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// The sweep when the sequence allows it, else the occupancy on dense problems, else
    /// the index.
    Auto,
    /// The sweep; only for a [`sweepable`] sequence.
    Sweep,
    /// A [`TimeIndex`] of the placed buffers, whatever the sequence.
    Index,
    /// An [`occupancy::Occupancy`] of the placed buffers, whatever the sequence.
    Occupancy,
}

/// [`place_sequence`], with the kernel chosen.
fn place_sequence_by(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
    poll_every: usize,
    stop: &dyn Fn() -> bool,
    bound: Option<&dyn Fn() -> u64>,
    kernel: Kernel,
) -> Result<(Vec<u64>, u64), Halted> {
    let kernel = match kernel {
        Kernel::Auto if sweepable(problem, sequence) => Kernel::Sweep,
        Kernel::Auto if mean_conflicts(problem, sequence) >= DENSE_MEAN_CONFLICTS => {
            Kernel::Occupancy
        }
        Kernel::Auto => Kernel::Index,
        k => k,
    };
    match kernel {
        Kernel::Sweep => place_by_sweep(problem, sequence, fit, poll_every, stop, bound),
        Kernel::Occupancy => place_by_occupancy(problem, sequence, fit, poll_every, stop, bound),
        _ => place_by_index(problem, sequence, fit, poll_every, stop, bound),
    }
}

/// From this mean number of conflicts per buffer on, [`place_sequence`] takes the
/// occupancy rather than the time index. Below it the two run at about the same speed
/// (a generated trace of 300,000 buffers with 67 conflicts per buffer: 1.0–1.2 s each for
/// size-best-fit), and the index needs no per-node lists (about 110 bytes a buffer less);
/// above it the occupancy wins, by 5× on iopddl-S (1,500 conflicts per buffer).
const DENSE_MEAN_CONFLICTS: u64 = 128;

/// The mean number of other buffers whose lifetime overlaps a buffer's, among the
/// buffers of `sequence` and the fixed ones (gaps ignored), in O(n log n).
fn mean_conflicts(problem: &Problem, sequence: &[u32]) -> u64 {
    let bufs = problem.buffers();
    let fixed = bufs.iter().filter(|b| b.fixed_offset.is_some());
    let chosen: Vec<_> = sequence
        .iter()
        .map(|&i| &bufs[i as usize])
        .chain(fixed)
        .collect();
    let mut starts: Vec<u64> = chosen.iter().map(|b| b.lifetime.start.0).collect();
    let mut ends: Vec<u64> = chosen.iter().map(|b| b.lifetime.end.0).collect();
    starts.sort_unstable();
    ends.sort_unstable();
    // Those that start before `b` ends, less those that end by its start, less `b`.
    let total: u64 = chosen
        .iter()
        .map(|b| {
            let begun = starts.partition_point(|&t| t < b.lifetime.end.0);
            let over = ends.partition_point(|&t| t <= b.lifetime.start.0);
            (begun - over - 1) as u64
        })
        .sum();
    total / chosen.len().max(1) as u64
}

/// What a kernel keeps of the placed buffers: where the next one goes, and the record
/// of each placement. [`place_with`] runs the loop every kernel shares.
trait Placed {
    /// The offset `fit` picks for buffer `i` (not fixed, not placed yet).
    fn choose(&mut self, i: usize, fit: Fit) -> u64;
    /// Records buffer `i` at `[offset, top)`: the fixed buffers first, then each chosen.
    fn record(&mut self, i: usize, offset: u64, top: u64);
}

/// The loop of [`place_sequence`] over a kernel: fixed buffers at their offsets, then
/// each buffer of `sequence` where the kernel chooses, polling `stop` and re-reading
/// `bound` every `poll_every` placements.
fn place_with(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
    poll_every: usize,
    stop: &dyn Fn() -> bool,
    bound: Option<&dyn Fn() -> u64>,
    kernel: &mut impl Placed,
) -> Result<(Vec<u64>, u64), Halted> {
    let bufs = problem.buffers();
    let mut offset = vec![UNPLACED; bufs.len()];
    let mut height = 0u64;
    for (i, b) in bufs.iter().enumerate() {
        if let Some(o) = b.fixed_offset {
            offset[i] = o.0;
            height = height.max(o.0 + b.size.0);
            kernel.record(i, o.0, o.0 + b.size.0);
        }
    }
    let mut limit = u64::MAX;
    for (k, &i) in sequence.iter().enumerate() {
        if k % poll_every == 0 {
            if stop() {
                return Err(Halted::Stopped);
            }
            if let Some(bound) = bound {
                limit = bound();
            }
        }
        let i = i as usize;
        debug_assert!(bufs[i].fixed_offset.is_none());
        let o = kernel.choose(i, fit);
        let top = o + bufs[i].size.0;
        if top > limit {
            return Err(Halted::OverBound);
        }
        height = height.max(top);
        offset[i] = o;
        kernel.record(i, o, top);
    }
    Ok((offset, height))
}

/// [`place_sequence`] for a sweepable sequence ([`sweepable`]): no buffer is fixed, and
/// the buffers that conflict with the next one are those live at its start.
fn place_by_sweep(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
    poll_every: usize,
    stop: &dyn Fn() -> bool,
    bound: Option<&dyn Fn() -> u64>,
) -> Result<(Vec<u64>, u64), Halted> {
    struct Swept<'p> {
        problem: &'p Problem,
        live: Sweep,
    }
    impl Placed for Swept<'_> {
        fn choose(&mut self, i: usize, _fit: Fit) -> u64 {
            let b = &self.problem.buffers()[i];
            self.live.expire(b.lifetime.start.0);
            self.live.choose(b.size.0, b.alignment.0)
        }
        fn record(&mut self, i: usize, offset: u64, top: u64) {
            let end = self.problem.buffers()[i].lifetime.end.0;
            self.live.insert((offset, top), end);
        }
    }
    let mut kernel = Swept {
        problem,
        live: Sweep::new(fit),
    };
    place_with(problem, sequence, fit, poll_every, stop, bound, &mut kernel)
}

/// [`place_sequence`] with the union of the occupied addresses over each buffer's live
/// segments from an [`occupancy::Occupancy`]: the offsets of [`place_by_index`], since
/// [`choose_offset`] depends only on that union.
fn place_by_occupancy(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
    poll_every: usize,
    stop: &dyn Fn() -> bool,
    bound: Option<&dyn Fn() -> u64>,
) -> Result<(Vec<u64>, u64), Halted> {
    struct Occupied<'p> {
        problem: &'p Problem,
        occupancy: occupancy::Occupancy,
        scratch: unions::ChooseScratch,
    }
    impl Placed for Occupied<'_> {
        fn choose(&mut self, i: usize, fit: Fit) -> u64 {
            let b = &self.problem.buffers()[i];
            let mut runs = Vec::new();
            for s in b.live_segments() {
                self.occupancy.runs(s.start.0, s.end.0, &mut runs);
            }
            unions::choose_offset_in_runs(
                &mut runs,
                b.size.0,
                b.alignment.0,
                fit,
                &mut self.scratch,
            )
        }
        fn record(&mut self, i: usize, offset: u64, top: u64) {
            for s in self.problem.buffers()[i].live_segments() {
                self.occupancy.insert(s.start.0, s.end.0, offset, top);
            }
        }
    }
    let bufs = problem.buffers();
    let fixed = || bufs.iter().filter(|b| b.fixed_offset.is_some());
    let occupancy = occupancy::Occupancy::new(
        sequence
            .iter()
            .map(|&i| &bufs[i as usize])
            .chain(fixed())
            .flat_map(|b| b.live_segments().map(|s| s.start.0))
            .collect(),
    );
    let mut kernel = Occupied {
        problem,
        occupancy,
        scratch: unions::ChooseScratch::default(),
    };
    place_with(problem, sequence, fit, poll_every, stop, bound, &mut kernel)
}

/// [`place_sequence`] with the conflicting placed buffers from a [`TimeIndex`]: the
/// reference kernel, O(n log n + pairs · log d).
fn place_by_index(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
    poll_every: usize,
    stop: &dyn Fn() -> bool,
    bound: Option<&dyn Fn() -> u64>,
) -> Result<(Vec<u64>, u64), Halted> {
    struct Indexed<'p> {
        problem: &'p Problem,
        /// Hot data, in one array: (offset, end address) of placed buffers.
        span: Vec<(u64, u64)>,
        /// The placed buffers only.
        index: TimeIndex,
        any_gaps: bool,
        /// The highest address used so far: while it is below 2^32, spans sort as u64s.
        height: u64,
        taken: Vec<(u64, u64)>,
        scratch: SpanScratch,
    }
    impl Placed for Indexed<'_> {
        fn choose(&mut self, i: usize, fit: Fit) -> u64 {
            let bufs = self.problem.buffers();
            let b = &bufs[i];
            let (span, taken) = (&self.span, &mut self.taken);
            taken.clear();
            if self.any_gaps {
                self.index.for_each_overlapping(b.lifetime, |j| {
                    let other = &bufs[j as usize];
                    if (b.gaps.is_empty() && other.gaps.is_empty()) || b.live_together(other) {
                        taken.push(span[j as usize]);
                    }
                });
            } else {
                self.index
                    .for_each_overlapping(b.lifetime, |j| taken.push(span[j as usize]));
            }
            sort_spans(taken, &mut self.scratch, self.height <= u32::MAX as u64);
            choose_offset(taken, b.size.0, b.alignment.0, fit)
        }
        fn record(&mut self, i: usize, offset: u64, top: u64) {
            self.span[i] = (offset, top);
            self.height = self.height.max(top);
            let end = self.problem.buffers()[i].lifetime.end.0;
            self.index.insert(i as u32, end);
        }
    }
    let bufs = problem.buffers();
    let mut kernel = Indexed {
        problem,
        span: vec![(0, 0); bufs.len()],
        index: TimeIndex::new_empty(problem),
        any_gaps: bufs.iter().any(|b| !b.gaps.is_empty()),
        height: 0,
        taken: Vec::new(),
        scratch: SpanScratch::default(),
    };
    place_with(problem, sequence, fit, poll_every, stop, bound, &mut kernel)
}

/// Whether [`place_sequence`] can sweep: `sequence` is in start order and no buffer is
/// fixed (placed before its turn) or gapped (live together only in part).
fn sweepable(problem: &Problem, sequence: &[u32]) -> bool {
    let bufs = problem.buffers();
    bufs.iter()
        .all(|b| b.fixed_offset.is_none() && b.gaps.is_empty())
        && sequence
            .windows(2)
            .all(|w| bufs[w[0] as usize].lifetime.start <= bufs[w[1] as usize].lifetime.start)
}

/// What a sweep in start order keeps of the placed buffers live at the current time.
enum Sweep {
    /// Best-fit: the free address ranges, indexed by start and by length.
    Free(free_ranges::FreeRanges),
    /// First-fit: the live spans sorted by address.
    Sorted(LiveSpans),
}

impl Sweep {
    fn new(fit: Fit) -> Sweep {
        match fit {
            Fit::BestFit => Sweep::Free(free_ranges::FreeRanges::default()),
            Fit::FirstFit => Sweep::Sorted(LiveSpans::default()),
        }
    }

    fn expire(&mut self, time: u64) {
        match self {
            Sweep::Free(free) => free.expire(time),
            Sweep::Sorted(live) => live.expire(time),
        }
    }

    fn choose(&self, size: u64, alignment: u64) -> u64 {
        match self {
            Sweep::Free(free) => free.best_fit(size, alignment),
            Sweep::Sorted(live) => choose_offset(&live.spans, size, alignment, Fit::FirstFit),
        }
    }

    fn insert(&mut self, span: (u64, u64), end: u64) {
        match self {
            Sweep::Free(free) => free.take(span.0, span.1, end),
            Sweep::Sorted(live) => live.insert(span, end),
        }
    }
}

/// The placed buffers live at the current time of a sweep in start order: their
/// `(offset, end address)` spans sorted by offset (equal offsets in any order, which
/// [`choose_offset`] allows), and beside each the end of its lifetime.
#[derive(Default)]
struct LiveSpans {
    spans: Vec<(u64, u64)>,
    ends: Vec<u64>,
}

impl LiveSpans {
    /// Drops the buffers whose lifetime ends at or before `time` (half-open lifetimes).
    fn expire(&mut self, time: u64) {
        let mut kept = 0;
        for r in 0..self.spans.len() {
            if self.ends[r] > time {
                self.spans[kept] = self.spans[r];
                self.ends[kept] = self.ends[r];
                kept += 1;
            }
        }
        self.spans.truncate(kept);
        self.ends.truncate(kept);
    }

    fn insert(&mut self, span: (u64, u64), end: u64) {
        let at = self.spans.partition_point(|&(lo, _)| lo <= span.0);
        self.spans.insert(at, span);
        self.ends.insert(at, end);
    }
}

/// The offsets each kernel gives `sequence` (the sweep only where the sequence allows
/// it), named: the `plan_greedy` fuzz target checks that they agree, since the automatic
/// choice rarely picks the occupancy on the small problems a fuzzer makes.
#[cfg(feature = "fuzzing")]
pub(crate) fn offsets_by_each_kernel(
    problem: &Problem,
    sequence: &[u32],
    fit: Fit,
) -> Vec<(&'static str, Vec<u64>)> {
    let mut kernels = vec![("occupancy", Kernel::Occupancy), ("index", Kernel::Index)];
    if sweepable(problem, sequence) {
        kernels.push(("sweep", Kernel::Sweep));
    }
    kernels
        .into_iter()
        .map(|(name, kernel)| {
            let (offsets, _) =
                place_sequence_by(problem, sequence, fit, 64, &|| false, None, kernel)
                    .expect("no stop and no bound: the pass finishes");
            (name, offsets)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::greedy::Order;

    /// The sweep of start-ordered sequences gives the plan the index gives, for both
    /// fits, with alignments and addresses above 2^32; sequences in another order are
    /// not swept.
    #[test]
    fn the_start_order_sweep_gives_the_index_plan() {
        use crate::types::Buffer;
        let mut rng = crate::rng::Rng::new(11);
        for round in 0..300 {
            let n = 1 + (rng.next_u64() % 120) as usize;
            let horizon = 1 + rng.next_u64() % 60;
            let scale = if round % 3 == 0 { 1u64 << 31 } else { 1 };
            let bufs = (0..n)
                .map(|i| {
                    let start = rng.next_u64() % horizon;
                    let len = 1 + rng.next_u64() % 20;
                    let size = (1 + rng.next_u64() % 100) * scale;
                    let mut b = Buffer::new(format!("b{i}"), start, start + len, size);
                    b.alignment = crate::types::Size([1, 1, 4, 16][i % 4]);
                    b
                })
                .collect();
            let p = Problem::new(bufs).unwrap();
            let seq = Order::Start.sequence(&p);
            assert!(sweepable(&p, &seq));
            let mut other = Order::Size.sequence(&p);
            if other.windows(2).any(|w| {
                p.buffers()[w[0] as usize].lifetime.start
                    > p.buffers()[w[1] as usize].lifetime.start
            }) {
                assert!(!sweepable(&p, &other));
            }
            other.sort_by_key(|&i| p.buffers()[i as usize].lifetime.start);
            for fit in Fit::ALL {
                for seq in [&seq, &other] {
                    let swept =
                        place_sequence_by(&p, seq, fit, 64, &|| false, None, Kernel::Auto).unwrap();
                    let indexed =
                        place_sequence_by(&p, seq, fit, 64, &|| false, None, Kernel::Index)
                            .unwrap();
                    assert_eq!(swept, indexed, "round {round}, {fit:?}");
                }
            }
        }
    }

    /// A random problem: up to 150 buffers, sizes up to 100 × `scale`, some aligned,
    /// fixed (stacked, so that they do not collide) or gapped when asked.
    fn random_problem(rng: &mut crate::rng::Rng, scale: u64, fixed: bool, gaps: bool) -> Problem {
        use crate::types::{Buffer, Size};
        let n = 1 + rng.range(0, 150) as usize;
        let horizon = 1 + rng.range(0, 80);
        let mut fixed_top = 0u64;
        let bufs = (0..n)
            .map(|i| {
                let start = rng.range(0, horizon);
                let len = 1 + rng.range(0, 30);
                let size = rng.range(1, 100) * scale;
                let mut b = Buffer::new(format!("b{i}"), start, start + len, size);
                b.alignment = Size([1, 1, 4, 16, 64][rng.range(0, 4) as usize]);
                if gaps && len >= 3 && rng.range(0, 3) == 0 {
                    let g = start + 1 + rng.range(0, len - 3);
                    b = b.with_gap(g, g + 1 + rng.range(0, start + len - 2 - g));
                }
                if fixed && rng.range(0, 9) == 0 {
                    let o = fixed_top.div_ceil(b.alignment.0) * b.alignment.0;
                    fixed_top = o + b.size.0;
                    b = b.with_fixed_offset(o);
                }
                b
            })
            .collect();
        Problem::new(bufs).unwrap()
    }

    /// The occupancy gives the index's plan, height included, for every order and both
    /// fits, with fixed buffers, gaps, alignments and addresses above 2^32; so does the
    /// automatic choice (sweep, occupancy or index).
    #[test]
    fn the_occupancy_gives_the_index_plan() {
        let mut rng = crate::rng::Rng::new(29);
        for round in 0..240 {
            let scale = if round % 4 == 0 { 1u64 << 33 } else { 1 };
            let p = random_problem(&mut rng, scale, round % 3 != 0, round % 2 == 0);
            for order in Order::ALL {
                let seq = order.sequence(&p);
                for fit in Fit::ALL {
                    let run = |kernel| {
                        place_sequence_by(&p, &seq, fit, 64, &|| false, None, kernel).unwrap()
                    };
                    let indexed = run(Kernel::Index);
                    assert_eq!(
                        run(Kernel::Occupancy),
                        indexed,
                        "round {round}, {order:?}, {fit:?}"
                    );
                    assert_eq!(
                        run(Kernel::Auto),
                        indexed,
                        "round {round}, {order:?}, {fit:?}"
                    );
                }
            }
        }
    }

    /// With a bound, the occupancy halts where the index halts.
    #[test]
    fn the_occupancy_halts_over_the_bound_as_the_index_does() {
        let mut rng = crate::rng::Rng::new(31);
        for round in 0..120 {
            let p = random_problem(&mut rng, 1, true, true);
            let seq = Order::Size.sequence(&p);
            let full = place_sequence_by(&p, &seq, Fit::BestFit, 1, &|| false, None, Kernel::Index)
                .unwrap()
                .1;
            let bound = full - full / 4;
            let run = |kernel| {
                place_sequence_by(
                    &p,
                    &seq,
                    Fit::BestFit,
                    1,
                    &|| false,
                    Some(&|| bound),
                    kernel,
                )
            };
            assert_eq!(run(Kernel::Occupancy), run(Kernel::Index), "round {round}");
        }
    }

    /// Proptest: on dense problems (long lifetimes, so that many buffers overlap, and the
    /// automatic kernel takes the occupancy unless it sweeps), the occupancy and the
    /// automatic kernel give the index's plan.
    mod dense {
        use super::*;
        use crate::types::Buffer;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            #[test]
            fn dense_problems_get_the_index_plan(
                spec in proptest::collection::vec((0u64..50, 40u64..200, 1u64..1000, 0usize..3), 150..300),
                order in 0usize..6,
                first_fit in any::<bool>(),
            ) {
                let bufs = spec
                    .iter()
                    .enumerate()
                    .map(|(i, &(start, len, size, align))| {
                        let mut b = Buffer::new(format!("b{i}"), start, start + len, size);
                        b.alignment = crate::types::Size([1, 8, 64][align]);
                        b
                    })
                    .collect();
                let p = Problem::new(bufs).unwrap();
                let order = Order::ALL[order];
                let fit = if first_fit { Fit::FirstFit } else { Fit::BestFit };
                let seq = order.sequence(&p);
                let run = |kernel| place_sequence_by(&p, &seq, fit, 64, &|| false, None, kernel);
                let indexed = run(Kernel::Index);
                prop_assert_eq!(run(Kernel::Occupancy), indexed.clone());
                prop_assert_eq!(run(Kernel::Auto), indexed);
            }
        }
    }

    /// The mean conflict count is that of a pairwise count.
    #[test]
    fn mean_conflicts_counts_overlapping_lifetimes() {
        let mut rng = crate::rng::Rng::new(37);
        for _ in 0..50 {
            let p = random_problem(&mut rng, 1, true, false);
            let bufs = p.buffers();
            let seq = Order::Start.sequence(&p);
            let n = bufs.len() as u64;
            let mut total = 0u64;
            for (i, a) in bufs.iter().enumerate() {
                for (j, b) in bufs.iter().enumerate() {
                    total += (i != j && a.lifetime.overlaps(&b.lifetime)) as u64;
                }
            }
            assert_eq!(mean_conflicts(&p, &seq), total / n);
        }
    }
}
