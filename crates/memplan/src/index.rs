//! Indices: typed indices into slices, and an index over buffer lifetimes.
//!
//! # Typed indices
//!
//! [`index_slices!`] lets a newtype over `u32` (a [`BufferIdx`], or a family's own index)
//! index slices and vectors directly, `offsets[i]`, so that code keeps its indices typed
//! from end to end instead of converting with `as usize` at every access. The bounds
//! check is the slice's own.
//!
//! # An index over lifetimes
//!
//! [`TimeIndex`] answers "which buffers are live at some time in `[s, e)`?"
//!
//! Buffers are sorted by start. A binary tree over that order stores, for every node,
//! the latest end among its leaves. A query for `[s, e)` only looks at the prefix of
//! buffers that start before `e`, and only descends into nodes whose latest end is after
//! `s`, so it costs O(log n) per reported buffer at worst and far less in practice.
//! Buffers can be removed (their end is set to 0), which lets a caller enumerate each
//! buffer once in total across many queries.
//!
//! Gaps are ignored here: a query reports every buffer whose *lifetime* overlaps; callers
//! that care refine with [`crate::Buffer::live_together`].

use crate::types::{BufferIdx, Lifetime, Problem, Time};

/// `list.contains(&x)`, as fast as on integers: the standard library's fast path (which
/// compares a chunk at a time, so that the compiler vectorises it) is for primitive
/// types only, and TelaMalloc's candidate lists are searched at every pick.
#[inline]
pub(crate) fn contains(list: &[BufferIdx], x: BufferIdx) -> bool {
    const CHUNK: usize = 16;
    let mut chunks = list.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |seen, &y| seen | (y == x)) {
            return true;
        }
    }
    chunks.remainder().contains(&x)
}

pub(crate) struct TimeIndex {
    /// Buffer indices sorted by (start, index).
    order: Vec<BufferIdx>,
    /// `starts[k]` is the start of `order[k]`.
    starts: Vec<Time>,
    /// Implicit tree: `tree[size + k]` is the end of `order[k]` (0 when removed); inner
    /// nodes hold the max.
    tree: Vec<Time>,
    size: usize,
    /// `position[i]` is the leaf of buffer `i`.
    position: Vec<u32>,
}

impl TimeIndex {
    /// An index holding every buffer.
    pub(crate) fn new(problem: &Problem) -> TimeIndex {
        Self::build(problem, true)
    }

    /// An index holding no buffer yet; add them with [`TimeIndex::insert`].
    pub(crate) fn new_empty(problem: &Problem) -> TimeIndex {
        Self::build(problem, false)
    }

    fn build(problem: &Problem, filled: bool) -> TimeIndex {
        let mut order: Vec<BufferIdx> = problem.indices().collect();
        crate::sort::unstable_by_key(&mut order, |&i| (problem.buffer(i).lifetime.start, i));
        let starts: Vec<Time> = order
            .iter()
            .map(|&i| problem.buffer(i).lifetime.start)
            .collect();
        let size = order.len().next_power_of_two().max(1);
        let mut tree = vec![Time(0); 2 * size];
        let mut position = vec![0u32; problem.len()];
        for (k, &i) in order.iter().enumerate() {
            if filled {
                tree[size + k] = problem.buffer(i).lifetime.end;
            }
            position[i] = k as u32;
        }
        for node in (1..size).rev() {
            tree[node] = tree[2 * node].max(tree[2 * node + 1]);
        }
        TimeIndex {
            order,
            starts,
            tree,
            size,
            position,
        }
    }

    /// Calls `f(i)` for every (not removed) buffer `i` whose lifetime overlaps `span`,
    /// in increasing start order.
    #[inline]
    pub(crate) fn for_each_overlapping(&self, span: Lifetime, mut f: impl FnMut(BufferIdx)) {
        let (s, e) = (span.start, span.end);
        let limit = self.starts.partition_point(|&t| t < e);
        if limit == 0 {
            return;
        }
        // Depth-first over nodes covering [lo, hi), left to right.
        let mut stack: [(usize, usize, usize); 64] = [(0, 0, 0); 64];
        let mut top = 0;
        stack[top] = (1, 0, self.size);
        top += 1;
        while top > 0 {
            top -= 1;
            let (node, lo, hi) = stack[top];
            if lo >= limit || self.tree[node] <= s {
                continue;
            }
            if node >= self.size {
                f(self.order[lo]);
                continue;
            }
            let mid = (lo + hi) / 2;
            stack[top] = (2 * node + 1, mid, hi);
            stack[top + 1] = (2 * node, lo, mid);
            top += 2;
        }
    }

    /// Removes buffer `i` from all later queries.
    pub(crate) fn remove(&mut self, i: BufferIdx) {
        self.set_leaf(i, Time(0));
    }

    /// Adds buffer `i`, whose lifetime ends at `end`, to later queries.
    pub(crate) fn insert(&mut self, i: BufferIdx, end: Time) {
        self.set_leaf(i, end);
    }

    fn set_leaf(&mut self, i: BufferIdx, end: Time) {
        let mut node = self.size + self.position[i] as usize;
        self.tree[node] = end;
        while node > 1 {
            node /= 2;
            let m = self.tree[2 * node].max(self.tree[2 * node + 1]);
            if self.tree[node] == m {
                break;
            }
            self.tree[node] = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Buffer;

    #[test]
    fn contains_finds_exactly_the_listed_indices() {
        let list: Vec<BufferIdx> = (0..40).map(|i| BufferIdx(3 * i)).collect();
        for n in [0, 1, 15, 16, 17, 33, 40] {
            for x in 0..130 {
                let x = BufferIdx(x);
                assert_eq!(contains(&list[..n], x), list[..n].contains(&x), "{n} {x}");
            }
        }
    }

    #[test]
    fn matches_linear_scan() {
        let mut seed = 12345u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) % m
        };
        for round in 0..200 {
            let n = 1 + next(40) as usize;
            let bufs: Vec<Buffer> = (0..n)
                .map(|i| {
                    let s = next(50);
                    Buffer::new(format!("{i}"), s, s + 1 + next(20), 1)
                })
                .collect();
            let p = Problem::new(bufs).unwrap();
            let mut idx = TimeIndex::new(&p);
            let mut removed = vec![false; n];
            // A second index that starts empty and gains what the first one loses.
            let mut grown = TimeIndex::new_empty(&p);
            for _ in 0..20 {
                let s = next(70);
                let q = Lifetime::new(s, s + 1 + next(10));
                let mut got = Vec::new();
                idx.for_each_overlapping(q, |i| got.push(i));
                got.sort_unstable();
                let want: Vec<BufferIdx> = p
                    .indexed()
                    .filter(|&(i, b)| !removed[i] && b.lifetime.overlaps(&q))
                    .map(|(i, _)| i)
                    .collect();
                assert_eq!(got, want, "round {round}");
                let mut got = Vec::new();
                grown.for_each_overlapping(q, |i| got.push(i));
                got.sort_unstable();
                let want: Vec<BufferIdx> = p
                    .indexed()
                    .filter(|&(i, b)| removed[i] && b.lifetime.overlaps(&q))
                    .map(|(i, _)| i)
                    .collect();
                assert_eq!(got, want, "round {round}, grown");
                if round % 2 == 0 {
                    let r = BufferIdx(next(n as u64) as u32);
                    if !removed[r] {
                        idx.remove(r);
                        grown.insert(r, p.buffer(r).lifetime.end);
                        removed[r] = true;
                    }
                }
            }
        }
    }
}
