//! Peak repair: a local search that lowers a finished plan's height by re-placing the
//! buffers around its peak.
//!
//! # The model
//!
//! A plan's height is set by the few buffers whose top touches it (the *peak*). On ML
//! traces the peak is narrow: on iopddl-S, 51 of 33,326 event times are within 1% of the
//! max load, and one buffer of 6 MB sets the height. So the fragmentation left by a
//! greedy or boxing plan is decided in a small window of time and address, and a move
//! that only touches that window is cheap.
//!
//! ```text
//!  address                      one move:
//!    H ┤      ┌─p─┐             1. take a peak buffer p (its top is the height H);
//!      │   ┌──┴─┬─┴──┐          2. walk a random number of links down the chain of
//!      │   │    a    │             buffers holding p up (each rests on the next) to
//!  a-d ┤┄┄┄│┄┄┄┄┄┄┄┄┄│┄┄┄┄┄┄       an anchor a;
//!      │███│█████████│█████     3. lift out p and the (at most `MAX_LIFTED`) highest
//!      │████████████████████       buffers live near a's lifetime whose tops are
//!      └──────────────────►        above a's top minus a random depth d;
//!                 time          4. put them back one by one, in a random order, at the
//!                                  lowest (or best-fitting) free address;
//!                               5. keep the result unless (height, number of buffers
//!                                  at the height, sum of the lifted offsets) got worse;
//!                                  otherwise undo.
//! ```
//!
//! # Invariants
//!
//! - The plan is valid after every move: a lifted buffer is placed only where it
//!   conflicts with no placed buffer it is live with (gaps honoured), at an aligned
//!   address; fixed buffers are never lifted.
//! - The objective (height, count of buffers touching it, then the lifted buffers' summed
//!   offsets, which pulls buffers down and opens room) never increases, so the height
//!   returned is at most the height given.
//! - The moves are drawn from a seeded [`Rng`]; with a move limit and no deadline the
//!   result depends only on the input, the plan and the seed.
//!
//! This is not from the papers. It is the "large neighbourhood search" idea applied to the
//! region that decides the height; boxing (idealloc §4) and greedy runs hand it their plans.

use std::collections::{BTreeSet, HashSet};

use crate::budget::Budget;
use crate::greedy::{choose_offset, place_in_order, sort_spans, Fit, Span, SpanScratch};
use crate::index::TimeIndex;
use crate::rng::Rng;
use crate::types::{BufferIdx, Lifetime, Offset, Problem, Size};

/// At most this many buffers are lifted in one move.
const MAX_LIFTED: usize = 64;

/// A move's anchor is at most this many supports below the peak buffer.
const MAX_CHAIN: u64 = 63;

/// The time window is the anchor's lifetime widened on each side by up to this many
/// times its length.
const MAX_WIDEN: u64 = 2;

/// The lifted band reaches down from the anchor's top by its size times up to
/// `2^MAX_DEPTH_SHIFT`.
const MAX_DEPTH_SHIFT: u64 = 4;

/// At most this many promotions (each a full re-placement) per repair.
const MAX_PROMOTIONS: usize = 2;

/// What a repair did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RepairStats {
    /// Moves tried.
    pub moves: u64,
    /// Moves kept (including sideways ones).
    pub kept: u64,
    /// The height before.
    pub height_before: u64,
    /// The height after.
    pub height_after: u64,
}

/// The top of a buffer and the buffer, ordered by top: the plan's tops in a set.
type Top = (Offset, BufferIdx);

/// Lowers the height of the plan `offsets` (one per buffer, valid) by at most `moves`
/// peak-repair moves, stopping early when the height reaches `floor` (the max load, or a
/// target) or the budget runs out. `offsets` is updated in place and stays valid.
pub(crate) fn lower_peak(
    problem: &Problem,
    offsets: &mut [Offset],
    moves: u64,
    seed: u64,
    floor: Size,
    budget: &Budget,
) -> RepairStats {
    let bufs = problem.buffers();
    let mut stats = RepairStats::default();
    let mut m = Mover::new(problem, offsets, seed);
    stats.height_before = m.height().get();
    stats.height_after = stats.height_before;
    if bufs.is_empty() || moves == 0 {
        return stats;
    }
    let mut promoted: HashSet<(BufferIdx, Offset)> = HashSet::new();
    let promote_degree = (4 * MAX_LIFTED).max(bufs.len() / 4);

    while stats.moves < moves {
        // A move costs up to milliseconds on large plans: poll before each one.
        if budget.exhausted() {
            break;
        }
        let h = m.height();
        if h <= floor {
            break;
        }
        stats.moves += 1;
        // 1. A peak buffer, at random among those touching the height.
        let at_peak = || m.tops.range((h, BufferIdx(0))..).map(|&(_, i)| i);
        let peak: Vec<BufferIdx> = at_peak()
            .filter(|&i| bufs[i].fixed_offset.is_none())
            .collect();
        if peak.is_empty() {
            break; // a fixed buffer sets the height: nothing to do
        }
        let count_at_h = at_peak().count();
        let p = peak[m.rng.range(0, peak.len() as u64 - 1) as usize];
        // A peak buffer live with a large part of the plan is rarely moved by a local
        // move: the band around it spans most of the time axis. Once per (buffer,
        // height), put it first and re-place every other buffer in increasing offset
        // (the squeeze order of idealloc §4), which sinks it to the bottom.
        let mut degree = 0usize;
        m.index
            .for_each_overlapping(bufs[p].lifetime, |_| degree += 1);
        let long_lived = degree > promote_degree;
        if long_lived && promoted.len() < MAX_PROMOTIONS && promoted.insert((p, h)) {
            if let Some(better) = promote(problem, offsets, p, (h, count_at_h), budget) {
                offsets.copy_from_slice(&better);
                m.tops = tops_of(problem, offsets);
                stats.kept += 1;
            }
            continue;
        }
        // 2. Its neighbourhood; 3. lifted out and put back in a random order.
        m.choose_lifted(offsets, p, long_lived);
        let old_sum = m.replace_lifted(offsets);
        // 4. Keep or undo.
        if m.keep_or_undo(offsets, (h, count_at_h, old_sum)) {
            stats.kept += 1;
        }
    }
    stats.height_after = m.height().get();
    stats
}

/// The tops `(offset + size, buffer)` of every buffer of a plan.
fn tops_of(problem: &Problem, offsets: &[Offset]) -> BTreeSet<Top> {
    problem
        .indexed()
        .map(|(i, b)| (offsets[i] + b.size, i))
        .collect()
}

/// The sum of the offsets of `lifted`: 64 offsets below 2^64 each do not overflow it.
fn offset_sum(lifted: &[BufferIdx], offsets: &[Offset]) -> u128 {
    lifted.iter().map(|&j| u128::from(offsets[j].get())).sum()
}

/// The state of [`lower_peak`]'s moves: the index and tops of the plan, the random
/// choices, and scratch space reused from move to move.
struct Mover<'a> {
    problem: &'a Problem,
    index: TimeIndex,
    tops: BTreeSet<Top>,
    rng: Rng,
    any_gaps: bool,
    /// While every address fits in 32 bits, a span packs into one u64 (faster to sort).
    narrow_ok: bool,
    candidates: Vec<Top>,
    lifted: Vec<BufferIdx>,
    old: Vec<Offset>,
    taken: Vec<Span>,
    scratch: SpanScratch,
}

impl<'a> Mover<'a> {
    fn new(problem: &'a Problem, offsets: &[Offset], seed: u64) -> Mover<'a> {
        let bufs = problem.buffers();
        let tops = tops_of(problem, offsets);
        // A move may place a buffer above the height (and is then undone), but never
        // higher than the height plus its size and alignment.
        let headroom = bufs
            .iter()
            .map(|b| b.size.saturating_add(b.alignment))
            .max()
            .unwrap_or(Size::ZERO);
        let height = tops.last().map_or(Offset::ZERO, |&(t, _)| t);
        Mover {
            problem,
            index: TimeIndex::new(problem),
            tops,
            rng: Rng::new(seed),
            any_gaps: bufs.iter().any(|b| !b.gaps.is_empty()),
            narrow_ok: height.saturating_add(headroom) <= Offset(u32::MAX as u64),
            candidates: Vec::new(),
            lifted: Vec::new(),
            old: Vec::new(),
            taken: Vec::new(),
            scratch: SpanScratch::default(),
        }
    }

    fn height(&self) -> Offset {
        self.tops.last().map_or(Offset::ZERO, |&(t, _)| t)
    }

    /// The plan's tops at or above `h`.
    fn count_at(&self, h: Offset) -> usize {
        self.tops.range((h, BufferIdx(0))..).count()
    }

    /// Step 2 of a move: the buffers to lift, from a time window around peak buffer `p`
    /// or around a buffer that holds it up (the chain of supports below it), down to a
    /// random depth below that buffer.
    fn choose_lifted(&mut self, offsets: &[Offset], p: BufferIdx, long_lived: bool) {
        let bufs = self.problem.buffers();
        let rng = &mut self.rng;
        let steps = rng.range(0, MAX_CHAIN);
        let anchor = walk_supports(
            self.problem,
            offsets,
            &self.index,
            self.any_gaps,
            p,
            steps,
            rng,
        );
        let life = bufs[anchor].lifetime;
        let widen = life.len().saturating_mul(rng.range(0, MAX_WIDEN));
        let window = Lifetime {
            start: life.start.saturating_sub(widen),
            end: life.end.saturating_add(widen),
        };
        let size = bufs[anchor].size;
        let depth = Size(
            size.get()
                .saturating_mul(1 << rng.range(0, MAX_DEPTH_SHIFT)),
        );
        let depth_floor = (offsets[anchor] + size).saturating_sub(depth);
        let candidates = &mut self.candidates;
        candidates.clear();
        self.index.for_each_overlapping(window, |j| {
            let b = &bufs[j];
            let top = offsets[j] + b.size;
            if b.fixed_offset.is_none() && top > depth_floor {
                candidates.push((top, j));
            }
        });
        if candidates.len() > MAX_LIFTED {
            // Keep the highest: they are the ones in the way.
            let cut = candidates.len() - MAX_LIFTED;
            candidates.select_nth_unstable(cut);
            candidates.drain(..cut);
            // The selection leaves the kept ones in an order of the standard library's
            // choosing; sorted, they are in the one total order whatever sort runs.
            candidates.sort_unstable();
        }
        // A long-lived peak buffer only comes down once the stacks under it are lower
        // at every time it is live; most moves leave it in place and compact what holds
        // it up (kept when the lifted buffers' summed offsets do not grow).
        let keep_p_still = long_lived && anchor != p && self.rng.chance(75);
        self.lifted.clear();
        self.lifted.extend(
            self.candidates
                .iter()
                .map(|&(_, j)| j)
                .filter(|&j| !keep_p_still || j != p),
        );
        if !keep_p_still && !self.lifted.contains(&p) {
            self.lifted.push(p);
        }
    }

    /// Step 3: lifts the chosen buffers out and puts them back in a random order with a
    /// random fit. Returns the sum of their old offsets.
    fn replace_lifted(&mut self, offsets: &mut [Offset]) -> u128 {
        let bufs = self.problem.buffers();
        shuffle(&mut self.lifted, &mut self.rng);
        if self.rng.chance(50) {
            crate::sort::by_key(&mut self.lifted, |&j| std::cmp::Reverse(bufs[j].size));
        }
        let fit = if self.rng.chance(75) {
            Fit::FirstFit
        } else {
            Fit::BestFit
        };
        self.old.clear();
        let old_sum = offset_sum(&self.lifted, offsets);
        for &j in &self.lifted {
            self.old.push(offsets[j]);
            self.index.remove(j);
            self.tops.remove(&(offsets[j] + bufs[j].size, j));
        }
        for &j in &self.lifted {
            let b = &bufs[j];
            let taken = &mut self.taken;
            taken.clear();
            let any_gaps = self.any_gaps;
            self.index.for_each_overlapping(b.lifetime, |k| {
                if !any_gaps || b.live_together(&bufs[k]) {
                    let o = offsets[k];
                    taken.push((o, o + bufs[k].size));
                }
            });
            sort_spans(taken, &mut self.scratch, self.narrow_ok);
            let o = choose_offset(taken, b.size, b.alignment, fit);
            offsets[j] = o;
            self.index.insert(j, b.lifetime.end);
            self.tops.insert((o + b.size, j));
        }
        old_sum
    }

    /// Step 4: keeps the move when (height, buffers at the height, summed offsets of the
    /// lifted buffers) did not grow above `before`; else puts them back. True when kept.
    fn keep_or_undo(&mut self, offsets: &mut [Offset], before: (Offset, usize, u128)) -> bool {
        let bufs = self.problem.buffers();
        let new_h = self.height();
        let after = (
            new_h,
            self.count_at(new_h),
            offset_sum(&self.lifted, offsets),
        );
        if after <= before {
            return true;
        }
        for &j in &self.lifted {
            self.index.remove(j);
            self.tops.remove(&(offsets[j] + bufs[j].size, j));
        }
        for (&j, &o) in self.lifted.iter().zip(&self.old) {
            offsets[j] = o;
            self.index.insert(j, bufs[j].lifetime.end);
            self.tops.insert((o + bufs[j].size, j));
        }
        false
    }
}

/// The plan with buffer `p` placed first and every other free buffer re-placed by
/// first-fit in increasing offset, if its (height, buffers at the height) is below
/// `than`.
fn promote(
    problem: &Problem,
    offsets: &[Offset],
    p: BufferIdx,
    than: (Offset, usize),
    budget: &Budget,
) -> Option<Vec<Offset>> {
    let mut sequence: Vec<BufferIdx> = problem
        .indexed()
        .filter(|&(i, b)| i != p && b.fixed_offset.is_none())
        .map(|(i, _)| i)
        .collect();
    crate::sort::unstable_by_key(&mut sequence, |&i| (offsets[i], i));
    sequence.insert(0, p);
    let placed = place_in_order(problem, &sequence, Fit::FirstFit, budget)?;
    let tops = || {
        problem
            .buffers()
            .iter()
            .zip(&placed)
            .map(|(b, &o)| o + b.size)
    };
    let h = tops().max().unwrap_or(Offset::ZERO);
    let count = tops().filter(|&t| t == h).count();
    ((h, count) < than).then_some(placed)
}

/// Follows the chain of supports down from buffer `p` for at most `steps` links and
/// returns where it stops: a support of `b` is a buffer live with it whose top is `b`'s
/// offset; a long-lived buffer may rest on several, and one is drawn at random. The
/// chain ends at address 0 or at a buffer resting on a hole (left by alignment or an
/// earlier move).
fn walk_supports(
    problem: &Problem,
    offsets: &[Offset],
    index: &TimeIndex,
    any_gaps: bool,
    p: BufferIdx,
    steps: u64,
    rng: &mut Rng,
) -> BufferIdx {
    let bufs = problem.buffers();
    let mut cur = p;
    let mut supports: Vec<BufferIdx> = Vec::new();
    for _ in 0..steps {
        let (o, b) = (offsets[cur], &bufs[cur]);
        if o == Offset::ZERO {
            break;
        }
        supports.clear();
        index.for_each_overlapping(b.lifetime, |k| {
            let other = &bufs[k];
            if offsets[k] + other.size == o && (!any_gaps || b.live_together(other)) {
                supports.push(k);
            }
        });
        if supports.is_empty() {
            break;
        }
        cur = supports[rng.range(0, supports.len() as u64 - 1) as usize];
    }
    cur
}

/// Fisher–Yates, from the seeded generator.
fn shuffle(items: &mut [BufferIdx], rng: &mut Rng) {
    for k in (1..items.len()).rev() {
        let j = rng.range(0, k as u64) as usize;
        items.swap(k, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checker::check_offsets;
    use crate::generate::{generate_model_like, GenOptions};
    use crate::greedy::{run, Order};

    #[test]
    fn repair_keeps_plans_valid_and_never_raises_the_height() {
        for seed in 0..6 {
            let p = generate_model_like(&GenOptions { buffers: 400, seed });
            let mut offsets =
                run(&p, Order::Start, Fit::FirstFit, 1, &Budget::unlimited()).unwrap();
            let stats = lower_peak(&p, &mut offsets, 300, seed, Size(0), &Budget::unlimited());
            assert!(stats.height_after <= stats.height_before);
            check_offsets(&p, &offsets, None).unwrap();
            assert_eq!(p.height_of(&offsets).get(), stats.height_after);
        }
    }

    /// A promotion is a full re-placement: it must give a valid plan whichever buffer
    /// goes first, and it puts that buffer at the bottom.
    #[test]
    fn promotion_gives_valid_plans() {
        let p = generate_model_like(&GenOptions {
            buffers: 500,
            seed: 4,
        });
        let start = run(&p, Order::Size, Fit::FirstFit, 1, &Budget::unlimited()).unwrap();
        for first in [0, 17, 250, 499].map(BufferIdx) {
            let than = (Offset(u64::MAX), usize::MAX);
            let o = promote(&p, &start, first, than, &Budget::unlimited()).unwrap();
            assert_eq!(o[first], Offset::ZERO);
            check_offsets(&p, &o, None).unwrap();
        }
    }

    #[test]
    fn repair_is_deterministic_for_a_seed() {
        let p = generate_model_like(&GenOptions {
            buffers: 300,
            seed: 9,
        });
        let start = run(&p, Order::Size, Fit::FirstFit, 1, &Budget::unlimited()).unwrap();
        let mut a = start.clone();
        let mut b = start;
        lower_peak(&p, &mut a, 200, 5, Size(0), &Budget::unlimited());
        lower_peak(&p, &mut b, 200, 5, Size(0), &Budget::unlimited());
        assert_eq!(a, b);
    }
}
