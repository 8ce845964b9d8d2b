//! How many unplaced items cross each boundary: the test of dynamic temporal
//! decomposition (MiniMalloc §7).
//!
//! # Model
//!
//! Boundaries are numbered `0..len`; item `i` crosses the half-open run `[first, last)`
//! of them (its *range*, fixed at construction). `count(k)` is the number of unplaced
//! items crossing boundary `k`. A boundary whose count is zero separates the unplaced
//! items into those before it and those after it, which can then be searched apart.
//!
//! ```text
//!   boundaries      0     1     2     3
//!   a (placed)   [=================]
//!   b            [=====]                  count: 0  1  1  0
//!   c                     [=====]                    ^ b and c no longer meet
//! ```
//!
//! # Invariant
//!
//! Every `remove(i)` is matched by a `restore(i)` when the search undoes it, so the
//! counts always describe the items that are not removed.

/// Crossing counts per boundary (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Crossings {
    range: Vec<(u32, u32)>,
    count: Vec<u32>,
}

impl Crossings {
    /// Every item unplaced; `range[i]` the boundaries item `i` crosses, each below
    /// `boundaries`. O(items + boundaries).
    pub(crate) fn new(range: Vec<(u32, u32)>, boundaries: usize) -> Crossings {
        let mut diff = vec![0i64; boundaries + 1];
        for &(first, last) in &range {
            if first < last {
                diff[first as usize] += 1;
                diff[last as usize] -= 1;
            }
        }
        let mut run = 0i64;
        let count = diff[..boundaries]
            .iter()
            .map(|d| {
                run += d;
                run as u32
            })
            .collect();
        Crossings { range, count }
    }

    /// The number of boundaries.
    pub(crate) fn len(&self) -> usize {
        self.count.len()
    }

    /// The unplaced items crossing boundary `k`.
    #[inline]
    pub(crate) fn count(&self, k: u32) -> u32 {
        self.count[k as usize]
    }

    /// The boundaries item `i` crosses, `[first, last)`.
    #[inline]
    pub(crate) fn range(&self, i: u32) -> (u32, u32) {
        self.range[i as usize]
    }

    /// Item `i` is placed: calls `opened(k)`, in order, for each boundary it crossed
    /// that no unplaced item crosses now.
    #[inline]
    pub(crate) fn remove(&mut self, i: u32, mut opened: impl FnMut(u32)) {
        let (first, last) = self.range[i as usize];
        for k in first..last {
            let c = &mut self.count[k as usize];
            *c -= 1;
            if *c == 0 {
                opened(k);
            }
        }
    }

    /// Item `i` is unplaced again.
    #[inline]
    pub(crate) fn restore(&mut self, i: u32) {
        let (first, last) = self.range[i as usize];
        for c in &mut self.count[first as usize..last as usize] {
            *c += 1;
        }
    }
}
