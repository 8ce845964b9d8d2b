//! The checker's set of live segments ordered by address, without a tree of nodes.
//!
//! Every placed buffer's address range is known before the sweep starts, so the order
//! the sweep needs, by `(low address, buffer)`, is fixed in advance: [`AddressOrder`]
//! sorts the placed buffers once and gives each its *rank* in that order. The live
//! segments are then a set of ranks, [`LiveSet`]: bits in a tree of 64-bit words (a
//! word's bit is set when the word below it holds any), so that adding, removing and
//! finding the nearest live rank below or above a rank read one word a level: four
//! levels for 16 million buffers, no allocation during the sweep.
//!
//! Like the rest of the checker, this shares no code with the planners (its sort
//! included).

use crate::types::Offset;

/// The placed buffers in order of `(low address, buffer index)`, and each one's rank.
pub(super) struct AddressOrder {
    /// `order[r]`: the buffer of rank `r`.
    pub(super) order: Vec<u32>,
    /// `rank[i]`: buffer `i`'s rank (`u32::MAX` when it is not placed).
    pub(super) rank: Vec<u32>,
}

impl AddressOrder {
    /// The order of the buffers placed in `range` (indexed by buffer).
    pub(super) fn new(range: &[Option<(Offset, Offset)>]) -> AddressOrder {
        let lowest = range.iter().flatten().map(|r| r.0 .0).min().unwrap_or(0);
        let highest = range.iter().flatten().map(|r| r.0 .0).max().unwrap_or(0);
        let bits = |x: u64| 64 - x.leading_zeros();
        let index_bits = bits(range.len() as u64);
        let key_bits = bits(highest - lowest) + index_bits;
        let order: Vec<u32> = if key_bits <= 64 {
            // One integer a buffer, (low address above the lowest, index), sorted by digits.
            let mut keys: Vec<u64> = range
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.map(|(lo, _)| ((lo.0 - lowest) << index_bits) | i as u64))
                .collect();
            radix_sort(&mut keys, key_bits);
            let mask = (1u64 << index_bits) - 1;
            keys.iter().map(|&k| (k & mask) as u32).collect()
        } else {
            let mut keys: Vec<(Offset, u32)> = range
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.map(|(lo, _)| (lo, i as u32)))
                .collect();
            keys.sort_unstable();
            keys.iter().map(|&(_, i)| i).collect()
        };
        let mut rank = vec![u32::MAX; range.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        AddressOrder { order, rank }
    }
}

/// Sorts `keys`, each below `2^bits`, least significant digit first, 11 bits a digit;
/// a digit that is the same in every key costs no pass.
fn radix_sort(keys: &mut Vec<u64>, bits: u32) {
    const DIGIT: u32 = 11;
    const BUCKETS: usize = 1 << DIGIT;
    let passes = bits.div_ceil(DIGIT) as usize;
    let digit = |key: u64, pass: usize| (key >> (pass as u32 * DIGIT)) as usize & (BUCKETS - 1);
    let mut counts = vec![[0u32; BUCKETS]; passes];
    for &key in keys.iter() {
        for (pass, c) in counts.iter_mut().enumerate() {
            c[digit(key, pass)] += 1;
        }
    }
    let n = keys.len() as u32;
    let mut from = std::mem::take(keys);
    let mut to = vec![0u64; from.len()];
    for (pass, c) in counts.iter_mut().enumerate() {
        if c.contains(&n) {
            continue;
        }
        let mut at = 0u32;
        for slot in c.iter_mut() {
            (*slot, at) = (at, at + *slot);
        }
        for &key in &from {
            let d = digit(key, pass);
            to[c[d] as usize] = key;
            c[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    *keys = from;
}

/// A set of ranks below a bound: `levels[0]` holds a bit per rank, and each level above a
/// bit per word of the level below, set when that word is not zero.
pub(super) struct LiveSet {
    levels: Vec<Vec<u64>>,
}

impl LiveSet {
    /// The empty set of ranks below `n`.
    pub(super) fn new(n: usize) -> LiveSet {
        let mut levels = Vec::new();
        let mut len = n.max(1);
        loop {
            len = len.div_ceil(64);
            levels.push(vec![0u64; len]);
            if len == 1 {
                return LiveSet { levels };
            }
        }
    }

    pub(super) fn insert(&mut self, r: u32) {
        let mut x = r as usize;
        for level in &mut self.levels {
            let word = &mut level[x / 64];
            let was = *word;
            *word |= 1 << (x % 64);
            if was != 0 {
                return; // the levels above already know the word is not empty
            }
            x /= 64;
        }
    }

    pub(super) fn remove(&mut self, r: u32) {
        let mut x = r as usize;
        for level in &mut self.levels {
            let word = &mut level[x / 64];
            *word &= !(1 << (x % 64));
            if *word != 0 {
                return;
            }
            x /= 64;
        }
    }

    /// The least rank in the set above `r`.
    pub(super) fn next_above(&self, r: u32) -> Option<u32> {
        let mut x = r as usize;
        for (l, level) in self.levels.iter().enumerate() {
            let bit = x % 64;
            let above = if bit == 63 {
                0
            } else {
                level[x / 64] & (u64::MAX << (bit + 1))
            };
            if above != 0 {
                let found = x / 64 * 64 + above.trailing_zeros() as usize;
                return Some(self.descend(l, found, |w| w.trailing_zeros()));
            }
            x /= 64;
        }
        None
    }

    /// The greatest rank in the set below `r`.
    pub(super) fn next_below(&self, r: u32) -> Option<u32> {
        let mut x = r as usize;
        for (l, level) in self.levels.iter().enumerate() {
            let below = level[x / 64] & ((1u64 << (x % 64)) - 1);
            if below != 0 {
                let found = x / 64 * 64 + 63 - below.leading_zeros() as usize;
                return Some(self.descend(l, found, |w| 63 - w.leading_zeros()));
            }
            x /= 64;
        }
        None
    }

    /// From the set bit `x` of level `l` down to a rank, taking in each word the bit
    /// `pick` chooses (the lowest or the highest).
    fn descend(&self, l: usize, mut x: usize, pick: impl Fn(u64) -> u32) -> u32 {
        for level in self.levels[..l].iter().rev() {
            x = x * 64 + pick(level[x]) as usize;
        }
        x as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The set against a BTreeSet, on random operations over several sizes (one to four
    /// levels), and the order against a sort.
    #[test]
    fn live_set_and_order_agree_with_the_standard_library() {
        let mut rng = crate::rng::Rng::new(5);
        for n in [1usize, 2, 63, 64, 65, 4095, 4097, 300_000] {
            let mut set = LiveSet::new(n);
            let mut reference = BTreeSet::new();
            for _ in 0..4000 {
                let r = rng.range(0, n as u64 - 1) as u32;
                if rng.range(0, 2) == 0 {
                    set.remove(r);
                    reference.remove(&r);
                } else {
                    set.insert(r);
                    reference.insert(r);
                }
                let q = rng.range(0, n as u64 - 1) as u32;
                assert_eq!(set.next_above(q), reference.range(q + 1..).next().copied());
                assert_eq!(set.next_below(q), reference.range(..q).next_back().copied());
            }
        }
        // The last spread takes the comparison sort (keys wider than 64 bits).
        for spread in [1u64, 1000, 1 << 40, u64::MAX] {
            let range: Vec<Option<(Offset, Offset)>> = (0..3000)
                .map(|_| {
                    let lo = Offset(rng.next_u64() % spread);
                    (rng.range(0, 8) != 0).then_some((lo, lo))
                })
                .collect();
            let got = AddressOrder::new(&range);
            let mut want: Vec<(Offset, u32)> = (0..range.len())
                .filter_map(|i| range[i].map(|(lo, _)| (lo, i as u32)))
                .collect();
            want.sort_unstable();
            let want: Vec<u32> = want.iter().map(|&(_, i)| i).collect();
            assert_eq!(got.order, want, "spread {spread}");
            for (r, &i) in got.order.iter().enumerate() {
                assert_eq!(got.rank[i as usize], r as u32);
            }
        }
    }
}
