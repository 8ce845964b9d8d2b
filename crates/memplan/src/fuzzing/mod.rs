//! Random *valid* problems for fuzzing and property tests (feature `fuzzing`).
//!
//! A fuzzer hands over raw bytes; [`arbitrary_problem`] reads them through
//! [`arbitrary::Unstructured`] and always builds a problem that [`Problem::new`] accepts,
//! so that every byte string exercises the planners rather than the validator (the
//! parsers get raw bytes in [`targets`]). The shape is steered by [`FuzzKnobs`]:
//!
//! ```text
//!   time ->  0                                   horizon
//!   b0       [==========)                        lifetime length ≤ overlap_percent
//!   b1          [=====)  [====)                  of the horizon; gaps cut holes
//!   b2                [=================)        (gap_percent)
//!   sizes    1 .. 2^max_size_log2, log-uniform   (size spread)
//! ```
//!
//! Invariants of every generated problem:
//! - sizes, alignments and lifetimes are non-zero; ids are unique (`"<index>"`, or
//!   `"<index>:<arbitrary text>"` when odd ids are asked for);
//! - gaps lie inside their lifetime and do not overlap;
//! - fixed offsets are taken from a valid plan of the same buffers (a greedy plan
//!   computed before pinning), so they are aligned and never collide;
//! - every size and alignment is at most `2^62 / (2n)`, so the naive height fits in a
//!   `u64` and `Problem::new` cannot report an overflow;
//! - the capacity, when set, is `max load × p / 100` for `p` drawn from
//!   `capacity_percent`: below 100 the problem is infeasible, near 100 it is tight.
//!
//! Exhausted bytes read as zeros, so short inputs give small, plain problems.

mod shares;
pub mod targets;

pub use shares::{arbitrary_shares, shares};

use arbitrary::{Result, Unstructured};

use crate::analysis::max_load;
use crate::greedy::{self, Fit, Order};
use crate::types::{Buffer, Lifetime, Offset, Problem, Size};

/// The shape of the problems [`arbitrary_problem`] builds. Percentages are chances per
/// buffer unless said otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuzzKnobs {
    /// At most this many buffers (the count is drawn in `0..=max_buffers`).
    pub max_buffers: usize,
    /// Size spread: each size is drawn in `1..=2^k`, `k` uniform in `0..=max_size_log2`
    /// (so small and huge sizes mix). Clamped so that the naive height fits in a `u64`.
    pub max_size_log2: u32,
    /// Lifetimes start in `0..horizon`.
    pub horizon: u64,
    /// Overlap density: a lifetime lasts up to this percentage of the horizon (at least
    /// one step). 100 makes most buffers live together; 1 makes them short and sparse.
    pub overlap_percent: u8,
    /// Chance of an alignment above 1 (a power of two up to `2^max_align_log2`).
    pub align_percent: u8,
    /// The largest alignment, as a power of two.
    pub max_align_log2: u32,
    /// Chance that a buffer is pinned at a fixed offset (taken from a valid plan).
    pub fixed_percent: u8,
    /// Chance that a buffer has gaps (one or two, inside its lifetime).
    pub gap_percent: u8,
    /// Chance, per problem, of a capacity.
    pub capacity_chance: u8,
    /// Capacity tightness: the capacity is `max load × p / 100`, `p` drawn in this range.
    pub capacity_percent: (u32, u32),
    /// Chance that an id carries arbitrary text after its index (commas, quotes, UTF-8).
    pub odd_id_percent: u8,
}

impl Default for FuzzKnobs {
    /// Small, dense, mixed problems: up to 24 buffers over 32 steps, sizes up to 4 KiB,
    /// some alignment, fixed offsets and gaps, a capacity half of the time at 90–130 %
    /// of the max load.
    fn default() -> FuzzKnobs {
        FuzzKnobs {
            max_buffers: 24,
            max_size_log2: 12,
            horizon: 32,
            overlap_percent: 40,
            align_percent: 25,
            max_align_log2: 6,
            fixed_percent: 10,
            gap_percent: 10,
            capacity_chance: 50,
            capacity_percent: (90, 130),
            odd_id_percent: 5,
        }
    }
}

impl FuzzKnobs {
    /// Knobs drawn from the bytes themselves, each within a sane range, with at most
    /// `max_buffers` buffers: lets one fuzz target explore the whole knob space.
    pub fn arbitrary_within(u: &mut Unstructured<'_>, max_buffers: usize) -> Result<FuzzKnobs> {
        let lo = u.int_in_range(0..=150u32)?;
        let hi = lo + u.int_in_range(0..=100u32)?;
        let horizon_log2 = u.int_in_range(0..=40u32)?;
        Ok(FuzzKnobs {
            max_buffers,
            max_size_log2: u.int_in_range(0..=63)?,
            horizon: u.int_in_range(1..=1u64 << horizon_log2)?,
            overlap_percent: u.int_in_range(1..=100)?,
            align_percent: u.int_in_range(0..=100)?,
            max_align_log2: u.int_in_range(0..=62)?,
            fixed_percent: u.int_in_range(0..=100)?,
            gap_percent: u.int_in_range(0..=100)?,
            capacity_chance: u.int_in_range(0..=100)?,
            capacity_percent: (lo, hi),
            odd_id_percent: u.int_in_range(0..=100)?,
        })
    }
}

fn chance(u: &mut Unstructured<'_>, percent: u8) -> Result<bool> {
    Ok(percent > 0 && u.int_in_range(0..=99u8)? < percent)
}

/// A random problem that [`Problem::new`] accepts, shaped by `knobs` (see the
/// [module docs](self) for the invariants), and sometimes a capacity to fit it under.
pub fn arbitrary_problem(
    u: &mut Unstructured<'_>,
    knobs: &FuzzKnobs,
) -> Result<(Problem, Option<Size>)> {
    let n = u.int_in_range(0..=knobs.max_buffers)?;
    // Every size and alignment at most 2^62 / (2n): Σ (size + alignment − 1) < 2^62,
    // and a greedy plan (hence every fixed offset + size) stays below that too.
    let budget: u64 = (1u64 << 62) / (2 * n.max(1) as u64);
    let cap_log2 = 63 - budget.leading_zeros(); // floor(log2(budget))
    let size_log2 = knobs.max_size_log2.min(cap_log2);
    let align_log2 = knobs.max_align_log2.min(cap_log2);
    let horizon = knobs.horizon.max(1);
    let max_len = ((horizon as u128 * knobs.overlap_percent.clamp(1, 100) as u128) / 100)
        .clamp(1, horizon as u128) as u64;

    let mut buffers = Vec::with_capacity(n);
    for i in 0..n {
        let start = u.int_in_range(0..=horizon - 1)?;
        let len = u.int_in_range(1..=max_len)?;
        let end = start.saturating_add(len);
        let k = u.int_in_range(0..=size_log2)?;
        let size = u.int_in_range(1..=1u64 << k)?;
        let alignment = if chance(u, knobs.align_percent)? {
            1u64 << u.int_in_range(1..=align_log2.max(1))?.min(align_log2)
        } else {
            1
        };
        let id = if chance(u, knobs.odd_id_percent)? {
            let text: String = u.arbitrary()?;
            format!("{i}:{}", text.chars().take(64).collect::<String>())
        } else {
            i.to_string()
        };
        let mut b = Buffer::new(id, start, end, size).with_alignment(alignment);
        if end - start >= 2 && chance(u, knobs.gap_percent)? {
            // One or two disjoint gaps inside [start, end); a gap may cover it all.
            let a = u.int_in_range(start..=end - 1)?;
            let c = u.int_in_range(a + 1..=end)?;
            b.gaps.push(Lifetime::new(a, c));
            if c < end && u.arbitrary::<bool>()? {
                let d = u.int_in_range(c..=end - 1)?;
                let e = u.int_in_range(d + 1..=end)?;
                b.gaps.push(Lifetime::new(d, e));
            }
        }
        buffers.push(b);
    }

    // Pin some buffers where a valid plan put them: aligned and collision-free.
    let pinned: Vec<bool> = (0..n)
        .map(|_| chance(u, knobs.fixed_percent))
        .collect::<Result<_>>()?;
    if pinned.iter().any(|&p| p) {
        let free = Problem::new(buffers.clone()).expect("valid by construction");
        let order = Order::ALL[u.choose_index(Order::ALL.len())?];
        let offsets: Vec<Offset> = greedy::run(
            &free,
            order,
            Fit::BestFit,
            1,
            &crate::budget::Budget::unlimited(),
        )
        .expect("never aborted");
        for ((b, o), p) in buffers.iter_mut().zip(offsets).zip(pinned) {
            if p {
                b.fixed_offset = Some(o);
            }
        }
    }
    let problem = Problem::new(buffers).expect("valid by construction");

    let capacity = if chance(u, knobs.capacity_chance)? {
        let (lo, hi) = knobs.capacity_percent;
        let p = u.int_in_range(lo.min(hi)..=hi.max(lo))?;
        let load = max_load(&problem).0 as u128;
        Some(Size((load * p as u128 / 100).min(u64::MAX as u128) as u64))
    } else {
        None
    };
    Ok((problem, capacity))
}

/// A tiny SplitMix64 for drivers that turn a seed into fuzz bytes (the smoke tests).
#[derive(Debug)]
pub struct ByteSource(u64);

impl ByteSource {
    /// A source seeded with `seed`: the same seed gives the same bytes.
    pub fn new(seed: u64) -> ByteSource {
        ByteSource(seed)
    }

    /// The next 64 random bits (SplitMix64).
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `len` random bytes, `len` drawn in `0..=max_len`.
    pub fn bytes(&mut self, max_len: usize) -> Vec<u8> {
        let len = (self.next_u64() % (max_len as u64 + 1)) as usize;
        let mut v = Vec::with_capacity(len + 8);
        while v.len() < len {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(len);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_string_gives_a_valid_problem_and_the_knobs_take_effect() {
        let mut src = ByteSource::new(7);
        let (mut fixed, mut gaps, mut aligned, mut caps, mut nonempty) = (0, 0, 0, 0, 0);
        for _ in 0..2000 {
            let bytes = src.bytes(2048);
            let mut u = Unstructured::new(&bytes);
            let knobs = if bytes.first().is_some_and(|b| b % 2 == 0) {
                FuzzKnobs::default()
            } else {
                FuzzKnobs::arbitrary_within(&mut u, 40).unwrap()
            };
            let (p, capacity) = arbitrary_problem(&mut u, &knobs).unwrap();
            // Rebuilding validates again (arbitrary_problem would have panicked anyway).
            let again = Problem::new(p.buffers().to_vec()).unwrap();
            assert_eq!(again, p);
            assert!(p.len() <= knobs.max_buffers);
            nonempty += usize::from(!p.is_empty());
            fixed += p
                .buffers()
                .iter()
                .filter(|b| b.fixed_offset.is_some())
                .count();
            gaps += p.buffers().iter().filter(|b| !b.gaps.is_empty()).count();
            aligned += p.buffers().iter().filter(|b| b.alignment.0 > 1).count();
            caps += usize::from(capacity.is_some());
        }
        assert!(nonempty > 1000 && fixed > 100 && gaps > 100 && aligned > 100 && caps > 100);
    }

    #[test]
    fn zero_knobs_give_plain_problems() {
        let knobs = FuzzKnobs {
            align_percent: 0,
            fixed_percent: 0,
            gap_percent: 0,
            capacity_chance: 0,
            odd_id_percent: 0,
            ..FuzzKnobs::default()
        };
        let mut src = ByteSource::new(1);
        for _ in 0..200 {
            let bytes = src.bytes(1024);
            let (p, capacity) = arbitrary_problem(&mut Unstructured::new(&bytes), &knobs).unwrap();
            assert!(capacity.is_none());
            assert!(p.buffers().iter().all(|b| b.alignment.0 == 1
                && b.fixed_offset.is_none()
                && b.gaps.is_empty()
                && b.size.0 <= 1 << knobs.max_size_log2
                && b.lifetime.start.0 < knobs.horizon));
        }
    }
}
