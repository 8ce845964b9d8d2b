//! A segment tree with range add and global max: the largest unplaced load over all
//! cross-sections, kept up to date in O(log n) per placement.

use crate::types::Size;

pub(super) struct MaxTree {
    size: usize,
    /// `max[node]`: the max over the node's range, including the node's own `add`.
    max: Vec<i64>,
    add: Vec<i64>,
}

impl MaxTree {
    pub(super) fn new(values: &[Size]) -> MaxTree {
        let size = values.len().next_power_of_two().max(1);
        let mut max = vec![i64::MIN / 4; 2 * size];
        for (k, &v) in values.iter().enumerate() {
            max[size + k] = v.get().min(i64::MAX as u64 / 4) as i64;
        }
        for node in (1..size).rev() {
            max[node] = max[2 * node].max(max[2 * node + 1]);
        }
        MaxTree {
            size,
            max,
            add: vec![0; 2 * size],
        }
    }

    /// The max over all positions.
    pub(super) fn max(&self) -> i64 {
        self.max[1]
    }

    /// Adds `delta` to every position in `[lo, hi)`.
    pub(super) fn range_add(&mut self, lo: usize, hi: usize, delta: i64) {
        self.update(1, 0, self.size, lo, hi, delta);
    }

    fn update(&mut self, node: usize, l: usize, r: usize, lo: usize, hi: usize, delta: i64) {
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
            let mut t = MaxTree::new(&v.iter().map(|&x| Size(x as u64)).collect::<Vec<_>>());
            for _ in 0..50 {
                let a = rng.range(0, n as u64 - 1) as usize;
                let b = rng.range(a as u64 + 1, n as u64) as usize;
                let d = rng.range(0, 20) as i64 - 10;
                t.range_add(a, b, d);
                for x in &mut v[a..b] {
                    *x += d;
                }
                assert_eq!(t.max(), *v.iter().max().unwrap());
            }
        }
    }
}
