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
use crate::greedy::{choose_offset, place_in_order, sort_spans, Fit, SpanScratch};
use crate::index::TimeIndex;
use crate::rng::Rng;
use crate::types::{Lifetime, Problem, Time};

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

/// Lowers the height of the plan `offsets` (one per buffer, valid) by at most `moves`
/// peak-repair moves, stopping early when the height reaches `floor` (the max load, or a
/// target) or the budget runs out. `offsets` is updated in place and stays valid.
pub(crate) fn lower_peak(
    problem: &Problem,
    offsets: &mut [u64],
    moves: u64,
    seed: u64,
    floor: u64,
    budget: &Budget,
) -> RepairStats {
    let stop = &|| budget.exhausted();
    let bufs = problem.buffers();
    let mut stats = RepairStats::default();
    let mut m = Mover::new(problem, offsets, seed);
    stats.height_before = m.height();
    stats.height_after = stats.height_before;
    if bufs.is_empty() || moves == 0 {
        return stats;
    }
    let mut promoted: HashSet<(u32, u64)> = HashSet::new();
    let promote_degree = (4 * MAX_LIFTED).max(bufs.len() / 4);

    while stats.moves < moves {
        // A move costs up to milliseconds on large plans: poll before each one.
        if stop() {
            break;
        }
        let h = m.height();
        if h <= floor {
            break;
        }
        stats.moves += 1;
        // 1. A peak buffer, at random among those touching the height.
        let peak: Vec<u32> = m
            .tops
            .range((h, 0)..)
            .map(|&(_, i)| i)
            .filter(|&i| bufs[i as usize].fixed_offset.is_none())
            .collect();
        if peak.is_empty() {
            break; // a fixed buffer sets the height: nothing to do
        }
        let count_at_h = m.tops.range((h, 0)..).count();
        let p = peak[m.rng.range(0, peak.len() as u64 - 1) as usize] as usize;
        // A peak buffer live with a large part of the plan is rarely moved by a local
        // move: the band around it spans most of the time axis. Once per (buffer,
        // height), put it first and re-place every other buffer in increasing offset
        // (the squeeze order of idealloc §4), which sinks it to the bottom.
        let mut degree = 0usize;
        m.index
            .for_each_overlapping(bufs[p].lifetime, |_| degree += 1);
        let long_lived = degree > promote_degree;
        if long_lived && promoted.len() < MAX_PROMOTIONS && promoted.insert((p as u32, h)) {
            if let Some(better) = promote(problem, offsets, p, (h, count_at_h), stop) {
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
    stats.height_after = m.height();
    stats
}

/// The tops `(offset + size, buffer)` of every buffer of a plan.
fn tops_of(problem: &Problem, offsets: &[u64]) -> BTreeSet<(u64, u32)> {
    let bufs = problem.buffers();
    (0..bufs.len() as u32)
        .map(|i| (offsets[i as usize] + bufs[i as usize].size.0, i))
        .collect()
}

/// The state of [`lower_peak`]'s moves: the index and tops of the plan, the random
/// choices, and scratch space reused from move to move.
struct Mover<'a> {
    problem: &'a Problem,
    index: TimeIndex,
    tops: BTreeSet<(u64, u32)>,
    rng: Rng,
    any_gaps: bool,
    /// While every address fits in 32 bits, a span packs into one u64 (faster to sort).
    narrow_ok: bool,
    candidates: Vec<(u64, u32)>,
    lifted: Vec<u32>,
    old: Vec<u64>,
    taken: Vec<(u64, u64)>,
    scratch: SpanScratch,
}

impl<'a> Mover<'a> {
    fn new(problem: &'a Problem, offsets: &[u64], seed: u64) -> Mover<'a> {
        let bufs = problem.buffers();
        let tops = tops_of(problem, offsets);
        // A move may place a buffer above the height (and is then undone), but never
        // higher than the height plus its size and alignment.
        let headroom = bufs
            .iter()
            .map(|b| b.size.0.saturating_add(b.alignment.0))
            .max()
            .unwrap_or(0);
        let height = tops.last().map_or(0, |&(t, _)| t);
        Mover {
            problem,
            index: TimeIndex::new(problem),
            tops,
            rng: Rng::new(seed),
            any_gaps: bufs.iter().any(|b| !b.gaps.is_empty()),
            narrow_ok: height.saturating_add(headroom) <= u32::MAX as u64,
            candidates: Vec::new(),
            lifted: Vec::new(),
            old: Vec::new(),
            taken: Vec::new(),
            scratch: SpanScratch::default(),
        }
    }

    fn height(&self) -> u64 {
        self.tops.last().map_or(0, |&(t, _)| t)
    }

    /// Step 2 of a move: the buffers to lift, from a time window around peak buffer `p`
    /// or around a buffer that holds it up (the chain of supports below it), down to a
    /// random depth below that buffer.
    fn choose_lifted(&mut self, offsets: &[u64], p: usize, long_lived: bool) {
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
        let widen = (life.end.0 - life.start.0).saturating_mul(rng.range(0, MAX_WIDEN));
        let window = Lifetime {
            start: Time(life.start.0.saturating_sub(widen)),
            end: Time(life.end.0.saturating_add(widen)),
        };
        let depth = bufs[anchor]
            .size
            .0
            .saturating_mul(1 << rng.range(0, MAX_DEPTH_SHIFT));
        let depth_floor = (offsets[anchor] + bufs[anchor].size.0).saturating_sub(depth);
        let candidates = &mut self.candidates;
        candidates.clear();
        self.index.for_each_overlapping(window, |j| {
            let b = &bufs[j as usize];
            let top = offsets[j as usize] + b.size.0;
            if b.fixed_offset.is_none() && top > depth_floor {
                candidates.push((top, j));
            }
        });
        if candidates.len() > MAX_LIFTED {
            // Keep the highest: they are the ones in the way.
            let cut = candidates.len() - MAX_LIFTED;
            candidates.select_nth_unstable(cut);
            candidates.drain(..cut);
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
                .filter(|&j| !keep_p_still || j as usize != p),
        );
        if !keep_p_still && !self.lifted.contains(&(p as u32)) {
            self.lifted.push(p as u32);
        }
    }

    /// Step 3: lifts the chosen buffers out and puts them back in a random order with a
    /// random fit. Returns the sum of their old offsets.
    fn replace_lifted(&mut self, offsets: &mut [u64]) -> u128 {
        let bufs = self.problem.buffers();
        shuffle(&mut self.lifted, &mut self.rng);
        if self.rng.chance(50) {
            self.lifted
                .sort_by_key(|&j| std::cmp::Reverse(bufs[j as usize].size.0));
        }
        let fit = if self.rng.chance(75) {
            Fit::FirstFit
        } else {
            Fit::BestFit
        };
        self.old.clear();
        let mut old_sum = 0u128; // 64 offsets below 2^64 each: no overflow in u128
        for &j in &self.lifted {
            old_sum += offsets[j as usize] as u128;
            self.old.push(offsets[j as usize]);
            self.index.remove(j);
            self.tops
                .remove(&(offsets[j as usize] + bufs[j as usize].size.0, j));
        }
        for &j in &self.lifted {
            let b = &bufs[j as usize];
            let taken = &mut self.taken;
            taken.clear();
            let any_gaps = self.any_gaps;
            self.index.for_each_overlapping(b.lifetime, |k| {
                if !any_gaps || b.live_together(&bufs[k as usize]) {
                    let o = offsets[k as usize];
                    taken.push((o, o + bufs[k as usize].size.0));
                }
            });
            sort_spans(taken, &mut self.scratch, self.narrow_ok);
            let o = choose_offset(taken, b.size.0, b.alignment.0, fit);
            offsets[j as usize] = o;
            self.index.insert(j, b.lifetime.end.0);
            self.tops.insert((o + b.size.0, j));
        }
        old_sum
    }

    /// Step 4: keeps the move when (height, buffers at the height, summed offsets of the
    /// lifted buffers) did not grow above `before`; else puts them back. True when kept.
    fn keep_or_undo(&mut self, offsets: &mut [u64], before: (u64, usize, u128)) -> bool {
        let bufs = self.problem.buffers();
        let new_h = self.height();
        let new_count = self.tops.range((new_h, 0)..).count();
        let new_sum: u128 = self
            .lifted
            .iter()
            .map(|&j| offsets[j as usize] as u128)
            .sum();
        if (new_h, new_count, new_sum) <= before {
            return true;
        }
        for &j in &self.lifted {
            self.index.remove(j);
            self.tops
                .remove(&(offsets[j as usize] + bufs[j as usize].size.0, j));
        }
        for (&j, &o) in self.lifted.iter().zip(&self.old) {
            offsets[j as usize] = o;
            self.index.insert(j, bufs[j as usize].lifetime.end.0);
            self.tops.insert((o + bufs[j as usize].size.0, j));
        }
        false
    }
}

/// The plan with buffer `p` placed first and every other free buffer re-placed by
/// first-fit in increasing offset, if its (height, buffers at the height) is below
/// `than`.
fn promote(
    problem: &Problem,
    offsets: &[u64],
    p: usize,
    than: (u64, usize),
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<u64>> {
    let bufs = problem.buffers();
    let mut sequence: Vec<u32> = (0..bufs.len() as u32)
        .filter(|&i| i as usize != p && bufs[i as usize].fixed_offset.is_none())
        .collect();
    sequence.sort_unstable_by_key(|&i| (offsets[i as usize], i));
    sequence.insert(0, p as u32);
    let placed = place_in_order(problem, &sequence, Fit::FirstFit, stop)?;
    let tops = || bufs.iter().zip(&placed).map(|(b, o)| o.0 + b.size.0);
    let h = tops().max().unwrap_or(0);
    let count = tops().filter(|&t| t == h).count();
    ((h, count) < than).then(|| placed.into_iter().map(|o| o.0).collect())
}

/// Follows the chain of supports down from buffer `p` for at most `steps` links and
/// returns where it stops: a support of `b` is a buffer live with it whose top is `b`'s
/// offset; a long-lived buffer may rest on several, and one is drawn at random. The
/// chain ends at address 0 or at a buffer resting on a hole (left by alignment or an
/// earlier move).
fn walk_supports(
    problem: &Problem,
    offsets: &[u64],
    index: &TimeIndex,
    any_gaps: bool,
    p: usize,
    steps: u64,
    rng: &mut Rng,
) -> usize {
    let bufs = problem.buffers();
    let mut cur = p;
    let mut supports: Vec<usize> = Vec::new();
    for _ in 0..steps {
        let (o, b) = (offsets[cur], &bufs[cur]);
        if o == 0 {
            break;
        }
        supports.clear();
        index.for_each_overlapping(b.lifetime, |k| {
            let other = &bufs[k as usize];
            if offsets[k as usize] + other.size.0 == o && (!any_gaps || b.live_together(other)) {
                supports.push(k as usize);
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
fn shuffle(items: &mut [u32], rng: &mut Rng) {
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
    use crate::types::Offset;

    #[test]
    fn repair_keeps_plans_valid_and_never_raises_the_height() {
        for seed in 0..6 {
            let p = generate_model_like(&GenOptions { buffers: 400, seed });
            let start = run(&p, Order::Start, Fit::FirstFit, 1, &Budget::unlimited()).unwrap();
            let mut offsets: Vec<u64> = start.iter().map(|o| o.0).collect();
            let stats = lower_peak(&p, &mut offsets, 300, seed, 0, &Budget::unlimited());
            assert!(stats.height_after <= stats.height_before);
            let plan: Vec<Offset> = offsets.iter().map(|&o| Offset(o)).collect();
            check_offsets(&p, &plan, None).unwrap();
            let h = p
                .buffers()
                .iter()
                .zip(&offsets)
                .map(|(b, o)| o + b.size.0)
                .max()
                .unwrap();
            assert_eq!(h, stats.height_after);
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
        let start: Vec<u64> = run(&p, Order::Size, Fit::FirstFit, 1, &Budget::unlimited())
            .unwrap()
            .iter()
            .map(|o| o.0)
            .collect();
        for first in [0, 17, 250, 499] {
            let o = promote(&p, &start, first, (u64::MAX, usize::MAX), &|| false).unwrap();
            assert_eq!(o[first], 0);
            let plan: Vec<Offset> = o.iter().map(|&x| Offset(x)).collect();
            check_offsets(&p, &plan, None).unwrap();
        }
    }

    #[test]
    fn repair_is_deterministic_for_a_seed() {
        let p = generate_model_like(&GenOptions {
            buffers: 300,
            seed: 9,
        });
        let start: Vec<u64> = run(&p, Order::Size, Fit::FirstFit, 1, &Budget::unlimited())
            .unwrap()
            .iter()
            .map(|o| o.0)
            .collect();
        let mut a = start.clone();
        let mut b = start;
        lower_peak(&p, &mut a, 200, 5, 0, &Budget::unlimited());
        lower_peak(&p, &mut b, 200, 5, 0, &Budget::unlimited());
        assert_eq!(a, b);
    }
}
