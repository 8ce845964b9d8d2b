//! The positional maxima (TFLite §3) and their sum, the shared-object lower bound (§4.1).
//!
//! The *i*-th largest size live at time `t` is at least `z` exactly when at least `i`
//! buffers of size `≥ z` are live at `t`. So the *i*-th positional maximum is the largest
//! `z` such that, counting only buffers of size `≥ z`, some time has `i` of them live.
//! Adding buffers in decreasing size order to a segment tree over time (range add,
//! global max: `crate::maxtree`) gives every maximum in one pass, O(n log n), without
//! sorting the profile of every time step:
//!
//! ```text
//!   sizes added   max count    maxima found
//!   8 (a)         1            p1 = 8
//!   6 (c)         1            -
//!   4 (b)         2            p2 = 4          (a and b are live together)
//! ```
//!
//! Lifetimes are whole here (gaps ignored), as everywhere in shared-object planning.

use crate::maxtree::MaxTree;
use crate::types::{BufferIdx, Problem, Size, Time};

/// The positional maxima, largest first: one per buffer live at the busiest time.
pub fn positional_maxima(problem: &Problem) -> Vec<Size> {
    let bufs = problem.buffers();
    let mut coords: Vec<Time> = bufs
        .iter()
        .flat_map(|b| [b.lifetime.start, b.lifetime.end])
        .collect();
    coords.sort_unstable();
    coords.dedup();
    // Elementary segments [coords[k], coords[k + 1]); a lifetime covers a run of them.
    let segments = coords.len().saturating_sub(1).max(1);
    let mut tree = MaxTree::counts(segments);
    let mut order: Vec<BufferIdx> = problem.indices().collect();
    order.sort_unstable_by_key(|&i| std::cmp::Reverse(bufs[i].size));
    let mut maxima = Vec::new();
    let mut k = 0;
    while k < order.len() {
        let size = bufs[order[k]].size;
        while k < order.len() && bufs[order[k]].size == size {
            let lt = bufs[order[k]].lifetime;
            let lo = coords.partition_point(|&c| c < lt.start);
            let hi = coords.partition_point(|&c| c < lt.end);
            tree.range_add(lo, hi, 1);
            k += 1;
        }
        let count = tree.max() as usize;
        while maxima.len() < count {
            maxima.push(size);
        }
    }
    maxima
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Buffer;

    /// The definition, literally: sort each time's profile, take the column maxima.
    fn by_definition(p: &Problem) -> Vec<Size> {
        let end = p
            .buffers()
            .iter()
            .map(|b| b.lifetime.end)
            .max()
            .unwrap_or(Time(0));
        let mut best: Vec<Size> = Vec::new();
        for t in (0..end.get()).map(Time) {
            let mut prof: Vec<Size> = p
                .buffers()
                .iter()
                .filter(|b| b.lifetime.start <= t && t < b.lifetime.end)
                .map(|b| b.size)
                .collect();
            prof.sort_unstable_by(|a, b| b.cmp(a));
            for (i, s) in prof.into_iter().enumerate() {
                if i == best.len() {
                    best.push(s);
                } else {
                    best[i] = best[i].max(s);
                }
            }
        }
        best
    }

    #[test]
    fn matches_the_definition() {
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..300 {
            let n = rng.range(1, 30) as usize;
            let bufs: Vec<Buffer> = (0..n)
                .map(|i| {
                    let s = rng.range(0, 20);
                    Buffer::new(i.to_string(), s, s + rng.range(1, 8), rng.range(1, 9))
                })
                .collect();
            let p = Problem::new(bufs).unwrap();
            assert_eq!(positional_maxima(&p), by_definition(&p));
        }
    }
}
