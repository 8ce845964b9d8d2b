//! The range-add, max tree: values at positions `0..n`, with "add `delta` to every
//! position in `[lo, hi)`" and "the max over `[lo, hi)`" (or over all), each O(log n).
//!
//! # The model
//!
//! The planners keep loads over time in it, one position per elementary interval
//! between the event times they care about: TelaMalloc's largest unplaced load over all
//! cross-sections, the storages' load profile while the optional shares are chosen
//! (`storage/choose.rs`), the count of busy shared objects and the positional maxima
//! (`shared_objects/`), and the kept load of a memory level (`memories/load.rs`).
//!
//! A segment tree over a power of two of leaves: each node keeps the max over its range
//! including its own pending `add`, which applies to its whole range and is never pushed
//! down. The leaves past `n` hold `floor`, below every value the tree reaches, so they
//! never win a max.

use std::ops::{Add, AddAssign};

use crate::types::Size;

/// What the tree holds: `i64` (TelaMalloc, counts), `i128` (signed loads of any size)
/// or [`Size`] (loads that only grow).
pub(crate) trait TreeValue: Copy + Ord + Add<Output = Self> + AddAssign {}

impl TreeValue for i64 {}
impl TreeValue for i128 {}
impl TreeValue for Size {}

pub(crate) struct MaxTree<V> {
    size: usize,
    /// `max[node]`: the max over the node's range, including the node's own `add`.
    max: Vec<V>,
    add: Vec<V>,
    /// Below every value: what a range outside the query holds.
    #[cfg(any(feature = "memories", feature = "shared_objects"))]
    floor: V,
}

impl<V: TreeValue> MaxTree<V> {
    /// The tree over `values` (`zero`: the additive identity); the leaves past them (up
    /// to a power of two) hold `floor`, below every value the tree will reach.
    pub(crate) fn new(values: &[V], zero: V, floor: V) -> MaxTree<V> {
        let size = values.len().next_power_of_two().max(1);
        let mut max = vec![floor; 2 * size];
        max[size..size + values.len()].copy_from_slice(values);
        for node in (1..size).rev() {
            max[node] = max[2 * node].max(max[2 * node + 1]);
        }
        MaxTree {
            size,
            max,
            add: vec![zero; 2 * size],
            #[cfg(any(feature = "memories", feature = "shared_objects"))]
            floor,
        }
    }

    /// The max over all positions.
    pub(crate) fn max(&self) -> V {
        self.max[1]
    }

    /// The max over the positions in `[lo, hi)`; `None` when the range is empty.
    #[cfg(any(feature = "memories", feature = "shared_objects"))]
    pub(crate) fn max_in(&self, lo: usize, hi: usize) -> Option<V> {
        (lo < hi).then(|| self.query(1, 0, self.size, lo, hi))
    }

    /// Adds `delta` to every position in `[lo, hi)` (nothing when it is empty).
    pub(crate) fn range_add(&mut self, lo: usize, hi: usize, delta: V) {
        self.update(1, 0, self.size, lo, hi, delta);
    }

    fn update(&mut self, node: usize, l: usize, r: usize, lo: usize, hi: usize, delta: V) {
        if hi <= l || r <= lo {
            return;
        }
        if lo <= l && r <= hi {
            self.max[node] += delta;
            self.add[node] += delta;
            return;
        }
        let mid = (l + r) / 2;
        self.update(2 * node, l, mid, lo, hi, delta);
        self.update(2 * node + 1, mid, r, lo, hi, delta);
        self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]) + self.add[node];
    }

    /// The max over `[lo, hi)` inside node `node`'s range `[l, r)`, without the pending
    /// adds of its ancestors; `floor` when the two do not meet.
    #[cfg(any(feature = "memories", feature = "shared_objects"))]
    fn query(&self, node: usize, l: usize, r: usize, lo: usize, hi: usize) -> V {
        if hi <= l || r <= lo {
            return self.floor;
        }
        if lo <= l && r <= hi {
            return self.max[node];
        }
        let mid = (l + r) / 2;
        self.query(2 * node, l, mid, lo, hi)
            .max(self.query(2 * node + 1, mid, r, lo, hi))
            + self.add[node]
    }
}

impl MaxTree<i64> {
    /// The tree over sizes, each clamped to `i64::MAX / 4` so that sums of a few stay
    /// in range (TelaMalloc's loads).
    pub(crate) fn of_sizes(values: &[Size]) -> MaxTree<i64> {
        let values: Vec<i64> = values
            .iter()
            .map(|v| v.get().min(i64::MAX as u64 / 4) as i64)
            .collect();
        MaxTree::new(&values, 0, i64::MIN / 4)
    }

    /// `n` positions at 0, for counts.
    #[cfg(feature = "shared_objects")]
    pub(crate) fn counts(n: usize) -> MaxTree<i64> {
        MaxTree::new(&vec![0; n], 0, i64::MIN / 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn matches_an_array() {
        let mut rng = Rng::new(5);
        for n in 1..40usize {
            let mut v: Vec<i64> = (0..n).map(|_| rng.range(0, 100) as i64).collect();
            let mut t = MaxTree::of_sizes(&v.iter().map(|&x| Size(x as u64)).collect::<Vec<_>>());
            for _ in 0..50 {
                let a = rng.range(0, n as u64 - 1) as usize;
                let b = rng.range(a as u64 + 1, n as u64) as usize;
                let d = rng.range(0, 20) as i64 - 10;
                t.range_add(a, b, d);
                for x in &mut v[a..b] {
                    *x += d;
                }
                assert_eq!(t.max(), *v.iter().max().unwrap());
                #[cfg(any(feature = "memories", feature = "shared_objects"))]
                {
                    let lo = rng.range(0, n as u64) as usize;
                    let hi = rng.range(lo as u64, n as u64) as usize;
                    assert_eq!(t.max_in(lo, hi), v[lo..hi].iter().max().copied());
                }
            }
        }
    }
}
