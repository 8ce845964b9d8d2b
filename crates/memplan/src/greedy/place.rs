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

use super::{choose_offset, free_ranges, occupancy, sort_spans, unions, Fit, Span, SpanScratch};
use crate::budget::Budget;
use crate::index::TimeIndex;
use crate::outcome::{Halt, Verdict};
use crate::types::{BufferIdx, Offset, Problem, Size, Time};

/// The offset of a buffer not placed yet.
const UNPLACED: Offset = Offset(u64::MAX);

/// The placement kernel of every greedy pass (and of boxing's squeeze and the peak
/// repair's promotion): fixed buffers at their offsets, then each buffer of `sequence`
/// (every free buffer once) at the address `fit` picks among those free for its whole
/// lifetime (gaps honoured). Polls `budget` before every `poll_every`-th placement (the
/// first included), and then also re-reads `bound`, if any: a buffer ending above it
/// halts the pass. Returns the offsets and the height; or stopped, by the budget
/// ([`Halt::Budget`]) or the bound ([`Halt::OverBound`]).
///
/// The kernel (see the module docs) is the sweep when `sequence` allows it, else the
/// occupancy when the buffers conflict with [`DENSE_MEAN_CONFLICTS`] others or more on
/// average, else the time index; all three give the same plan.
pub(crate) fn place_sequence(
    problem: &Problem,
    sequence: &[BufferIdx],
    fit: Fit,
    poll_every: usize,
    budget: &Budget,
    bound: Option<&dyn Fn() -> Size>,
) -> Verdict<(Vec<Offset>, Size)> {
    let run = Run {
        sequence,
        fit,
        poll_every,
        budget,
        bound,
    };
    place_sequence_by(problem, &run, Kernel::Auto)
}

/// One call of [`place_sequence`]: what to place, how, and when to stop.
struct Run<'a> {
    sequence: &'a [BufferIdx],
    fit: Fit,
    poll_every: usize,
    budget: &'a Budget,
    bound: Option<&'a dyn Fn() -> Size>,
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
    run: &Run<'_>,
    kernel: Kernel,
) -> Verdict<(Vec<Offset>, Size)> {
    let sequence = run.sequence;
    let kernel = match kernel {
        Kernel::Auto if sweepable(problem, sequence) => Kernel::Sweep,
        Kernel::Auto if mean_conflicts(problem, sequence) >= DENSE_MEAN_CONFLICTS => {
            Kernel::Occupancy
        }
        Kernel::Auto => Kernel::Index,
        k => k,
    };
    match kernel {
        Kernel::Sweep => place_by_sweep(problem, run),
        Kernel::Occupancy => place_by_occupancy(problem, run),
        _ => place_by_index(problem, run),
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
fn mean_conflicts(problem: &Problem, sequence: &[BufferIdx]) -> u64 {
    let bufs = problem.buffers();
    let fixed = bufs.iter().filter(|b| b.fixed_offset.is_some());
    let chosen: Vec<_> = sequence
        .iter()
        .map(|&i| problem.buffer(i))
        .chain(fixed)
        .collect();
    let mut starts: Vec<Time> = chosen.iter().map(|b| b.lifetime.start).collect();
    let mut ends: Vec<Time> = chosen.iter().map(|b| b.lifetime.end).collect();
    starts.sort_unstable();
    ends.sort_unstable();
    // Those that start before `b` ends, less those that end by its start, less `b`.
    let total: u64 = chosen
        .iter()
        .map(|b| {
            let begun = starts.partition_point(|&t| t < b.lifetime.end);
            let over = ends.partition_point(|&t| t <= b.lifetime.start);
            (begun - over - 1) as u64
        })
        .sum();
    total / chosen.len().max(1) as u64
}

/// What a kernel keeps of the placed buffers: where the next one goes, and the record
/// of each placement. [`place_with`] runs the loop every kernel shares.
trait Placed {
    /// The offset `fit` picks for buffer `i` (not fixed, not placed yet).
    fn choose(&mut self, i: BufferIdx, fit: Fit) -> Offset;
    /// Records buffer `i` at `[offset, top)`: the fixed buffers first, then each chosen.
    fn record(&mut self, i: BufferIdx, offset: Offset, top: Offset);
}

/// The loop of [`place_sequence`] over a kernel: fixed buffers at their offsets, then
/// each buffer of the sequence where the kernel chooses, polling the budget and
/// re-reading the bound every `poll_every` placements.
fn place_with(
    problem: &Problem,
    run: &Run<'_>,
    kernel: &mut impl Placed,
) -> Verdict<(Vec<Offset>, Size)> {
    let mut offset = vec![UNPLACED; problem.len()];
    let mut height = Offset::ZERO;
    for (i, b) in problem.indexed() {
        if let Some(o) = b.fixed_offset {
            offset[i] = o;
            height = height.max(o + b.size);
            kernel.record(i, o, o + b.size);
        }
    }
    let mut limit = Offset(u64::MAX);
    for (k, &i) in run.sequence.iter().enumerate() {
        if k % run.poll_every == 0 {
            if run.budget.exhausted() {
                return Verdict::Stopped(Halt::Budget);
            }
            if let Some(bound) = run.bound {
                limit = bound().as_offset();
            }
        }
        let b = problem.buffer(i);
        debug_assert!(b.fixed_offset.is_none());
        let o = kernel.choose(i, run.fit);
        let top = o + b.size;
        if top > limit {
            return Verdict::Stopped(Halt::OverBound);
        }
        height = height.max(top);
        offset[i] = o;
        kernel.record(i, o, top);
    }
    Verdict::Found((offset, height.as_height()))
}

/// [`place_sequence`] for a sweepable sequence ([`sweepable`]): no buffer is fixed, and
/// the buffers that conflict with the next one are those live at its start.
fn place_by_sweep(problem: &Problem, run: &Run<'_>) -> Verdict<(Vec<Offset>, Size)> {
    struct Swept<'p> {
        problem: &'p Problem,
        live: Sweep,
    }
    impl Placed for Swept<'_> {
        fn choose(&mut self, i: BufferIdx, _fit: Fit) -> Offset {
            let b = self.problem.buffer(i);
            self.live.expire(b.lifetime.start);
            self.live.choose(b.size, b.alignment)
        }
        fn record(&mut self, i: BufferIdx, offset: Offset, top: Offset) {
            let end = self.problem.buffer(i).lifetime.end;
            self.live.insert((offset, top), end);
        }
    }
    let mut kernel = Swept {
        problem,
        live: Sweep::new(run.fit),
    };
    place_with(problem, run, &mut kernel)
}

/// [`place_sequence`] with the union of the occupied addresses over each buffer's live
/// segments from an [`occupancy::Occupancy`]: the offsets of [`place_by_index`], since
/// [`choose_offset`] depends only on that union.
fn place_by_occupancy(problem: &Problem, run: &Run<'_>) -> Verdict<(Vec<Offset>, Size)> {
    struct Occupied<'p> {
        problem: &'p Problem,
        occupancy: occupancy::Occupancy,
        scratch: unions::ChooseScratch,
    }
    impl Placed for Occupied<'_> {
        fn choose(&mut self, i: BufferIdx, fit: Fit) -> Offset {
            let b = self.problem.buffer(i);
            let mut runs = Vec::new();
            for s in b.live_segments() {
                self.occupancy.runs(s, &mut runs);
            }
            unions::choose_offset_in_runs(&mut runs, b.size, b.alignment, fit, &mut self.scratch)
        }
        fn record(&mut self, i: BufferIdx, offset: Offset, top: Offset) {
            for s in self.problem.buffer(i).live_segments() {
                self.occupancy.insert(s, (offset, top));
            }
        }
    }
    let bufs = problem.buffers();
    let fixed = || bufs.iter().filter(|b| b.fixed_offset.is_some());
    let occupancy = occupancy::Occupancy::new(
        run.sequence
            .iter()
            .map(|&i| problem.buffer(i))
            .chain(fixed())
            .flat_map(|b| b.live_segments().map(|s| s.start))
            .collect(),
    );
    let mut kernel = Occupied {
        problem,
        occupancy,
        scratch: unions::ChooseScratch::default(),
    };
    place_with(problem, run, &mut kernel)
}

/// [`place_sequence`] with the conflicting placed buffers from a [`TimeIndex`]: the
/// reference kernel, O(n log n + pairs · log d).
fn place_by_index(problem: &Problem, run: &Run<'_>) -> Verdict<(Vec<Offset>, Size)> {
    struct Indexed<'p> {
        problem: &'p Problem,
        /// Hot data, in one array: the addresses each placed buffer takes.
        span: Vec<Span>,
        /// The placed buffers only.
        index: TimeIndex,
        any_gaps: bool,
        /// The highest address used so far: while it is below 2^32, spans sort as u64s.
        height: Offset,
        taken: Vec<Span>,
        scratch: SpanScratch,
    }
    impl Placed for Indexed<'_> {
        fn choose(&mut self, i: BufferIdx, fit: Fit) -> Offset {
            let b = self.problem.buffer(i);
            let (span, taken) = (&self.span, &mut self.taken);
            taken.clear();
            if self.any_gaps {
                let bufs = self.problem.buffers();
                self.index.for_each_overlapping(b.lifetime, |j| {
                    let other = &bufs[j];
                    if (b.gaps.is_empty() && other.gaps.is_empty()) || b.live_together(other) {
                        taken.push(span[j]);
                    }
                });
            } else {
                self.index
                    .for_each_overlapping(b.lifetime, |j| taken.push(span[j]));
            }
            let narrow_ok = self.height <= Offset(u32::MAX as u64);
            sort_spans(taken, &mut self.scratch, narrow_ok);
            choose_offset(taken, b.size, b.alignment, fit)
        }
        fn record(&mut self, i: BufferIdx, offset: Offset, top: Offset) {
            self.span[i] = (offset, top);
            self.height = self.height.max(top);
            self.index.insert(i, self.problem.buffer(i).lifetime.end);
        }
    }
    let bufs = problem.buffers();
    let mut kernel = Indexed {
        problem,
        span: vec![(Offset::ZERO, Offset::ZERO); bufs.len()],
        index: TimeIndex::new_empty(problem),
        any_gaps: bufs.iter().any(|b| !b.gaps.is_empty()),
        height: Offset::ZERO,
        taken: Vec::new(),
        scratch: SpanScratch::default(),
    };
    place_with(problem, run, &mut kernel)
}

/// Whether [`place_sequence`] can sweep: `sequence` is in start order and no buffer is
/// fixed (placed before its turn) or gapped (live together only in part).
fn sweepable(problem: &Problem, sequence: &[BufferIdx]) -> bool {
    let start = |i: BufferIdx| problem.buffer(i).lifetime.start;
    problem
        .buffers()
        .iter()
        .all(|b| b.fixed_offset.is_none() && b.gaps.is_empty())
        && sequence.windows(2).all(|w| start(w[0]) <= start(w[1]))
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

    fn expire(&mut self, time: Time) {
        match self {
            Sweep::Free(free) => free.expire(time),
            Sweep::Sorted(live) => live.expire(time),
        }
    }

    fn choose(&self, size: Size, alignment: Size) -> Offset {
        match self {
            Sweep::Free(free) => free.best_fit(size, alignment),
            Sweep::Sorted(live) => choose_offset(&live.spans, size, alignment, Fit::FirstFit),
        }
    }

    fn insert(&mut self, span: Span, end: Time) {
        match self {
            Sweep::Free(free) => free.take(span, end),
            Sweep::Sorted(live) => live.insert(span, end),
        }
    }
}

/// The placed buffers live at the current time of a sweep in start order: their
/// `(offset, end address)` spans sorted by offset (equal offsets in any order, which
/// [`choose_offset`] allows), and beside each the end of its lifetime.
#[derive(Default)]
struct LiveSpans {
    spans: Vec<Span>,
    ends: Vec<Time>,
}

impl LiveSpans {
    /// Drops the buffers whose lifetime ends at or before `time` (half-open lifetimes).
    fn expire(&mut self, time: Time) {
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

    fn insert(&mut self, span: Span, end: Time) {
        let (offset, _) = span;
        let at = self.spans.partition_point(|&(lo, _)| lo <= offset);
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
    sequence: &[BufferIdx],
    fit: Fit,
) -> Vec<(&'static str, Vec<Offset>)> {
    let mut kernels = vec![("occupancy", Kernel::Occupancy), ("index", Kernel::Index)];
    if sweepable(problem, sequence) {
        kernels.push(("sweep", Kernel::Sweep));
    }
    let budget = Budget::unlimited();
    let run = Run {
        sequence,
        fit,
        poll_every: 64,
        budget: &budget,
        bound: None,
    };
    kernels
        .into_iter()
        .map(|(name, kernel)| {
            let (offsets, _) = place_sequence_by(problem, &run, kernel)
                .found()
                .expect("no stop and no bound: the pass finishes");
            (name, offsets)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::greedy::Order;

    /// [`place_sequence_by`] with `kernel`, an unlimited budget and a fixed `bound`.
    fn place(
        p: &Problem,
        sequence: &[BufferIdx],
        fit: Fit,
        bound: Option<Size>,
        kernel: Kernel,
    ) -> Verdict<(Vec<Offset>, Size)> {
        let budget = Budget::unlimited();
        let bound = bound.map(|b| move || b);
        let run = Run {
            sequence,
            fit,
            poll_every: 64,
            budget: &budget,
            bound: bound.as_ref().map(|b| b as &dyn Fn() -> Size),
        };
        place_sequence_by(p, &run, kernel)
    }

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
            let start = |i: BufferIdx| p.buffer(i).lifetime.start;
            if other.windows(2).any(|w| start(w[0]) > start(w[1])) {
                assert!(!sweepable(&p, &other));
            }
            other.sort_by_key(|&i| start(i));
            for fit in Fit::ALL {
                for seq in [&seq, &other] {
                    let swept = place(&p, seq, fit, None, Kernel::Auto);
                    let indexed = place(&p, seq, fit, None, Kernel::Index);
                    assert!(matches!(swept, Verdict::Found(_)));
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
        let mut fixed_top = Offset::ZERO;
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
                    let o = fixed_top.align_up(b.alignment);
                    fixed_top = o + b.size;
                    b.fixed_offset = Some(o);
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
                    let run = |kernel| place(&p, &seq, fit, None, kernel);
                    let indexed = run(Kernel::Index);
                    assert!(matches!(indexed, Verdict::Found(_)));
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
            let (_, full) = place(&p, &seq, Fit::BestFit, None, Kernel::Index)
                .found()
                .unwrap();
            let bound = full - full / 4;
            let run = |kernel| place(&p, &seq, Fit::BestFit, Some(bound), kernel);
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
                let run = |kernel| place(&p, &seq, fit, None, kernel);
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
            for (i, a) in p.indexed() {
                for (j, b) in p.indexed() {
                    total += (i != j && a.lifetime.overlaps(&b.lifetime)) as u64;
                }
            }
            assert_eq!(mean_conflicts(&p, &seq), total / n);
        }
    }
}
