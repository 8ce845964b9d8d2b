//! Sorting with one copy of the machine code per element type, for the planners' setup
//! sorts.
//!
//! `slice::sort_by_key(|&i| ...)` compiles the whole sort (quicksort, small sorts, merges:
//! 3 to 12 kB of code) once per closure, because the closure is part of the sort's type:
//! forty closures, forty sorts (BENCHMARKS.md §11). These helpers take the comparison as
//! a `&mut dyn FnMut`, so each element type has one copy.
//!
//! Invariant: the order is exactly the standard library's. [`by_key`] and [`stable`] run
//! `sort_by`, [`unstable_by_key`] and [`unstable`] run `sort_unstable_by`, with the same
//! comparison (`key(a).cmp(&key(b))`, which is what `sort_by_key`'s `key(a) < key(b)`
//! means for every `Ord` key), only called through a pointer; [`by_cached_key`] computes
//! each key once, like `sort_by_cached_key`, and gives the one stable order. The pointer
//! costs a call per comparison: sorts inside a search's inner loop stay inline.

use std::cmp::Ordering;

/// `v.sort_by_key(key)` (or `v.sort_by_cached_key(key)`): stable.
pub(crate) fn by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    stable(v, &mut |a, b| key(a).cmp(&key(b)));
}

/// `v.sort_by_cached_key(key)`: each key computed once (for keys that cost more than a
/// field read). Sorts `(key, position)` pairs, as the standard library does, so the
/// order is the stable one; one copy of the sort per key type.
pub(crate) fn by_cached_key<T: Copy, K: Ord>(v: &mut [T], key: impl FnMut(&T) -> K) {
    let mut keyed: Vec<(K, usize)> = v.iter().map(key).zip(0..).collect();
    unstable(&mut keyed, &mut |a, b| a.cmp(b));
    let sorted: Vec<T> = keyed.iter().map(|&(_, k)| v[k]).collect();
    v.copy_from_slice(&sorted);
}

/// `v.sort_unstable_by_key(key)`.
pub(crate) fn unstable_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    unstable(v, &mut |a, b| key(a).cmp(&key(b)));
}

/// `v.sort_by(compare)`: stable.
#[inline(never)]
pub(crate) fn stable<T>(v: &mut [T], compare: &mut dyn FnMut(&T, &T) -> Ordering) {
    v.sort_by(compare);
}

/// `v.sort_unstable_by(compare)`.
#[inline(never)]
pub(crate) fn unstable<T>(v: &mut [T], compare: &mut dyn FnMut(&T, &T) -> Ordering) {
    v.sort_unstable_by(compare);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The helpers give the standard library's order, ties included (pairs that compare
    /// equal by the key but differ), on random inputs of every small-sort and quicksort
    /// length.
    #[test]
    fn same_order_as_std_ties_included() {
        let mut rng = Rng::new(11);
        for len in [0usize, 1, 2, 7, 20, 33, 100, 1000, 5000] {
            let v: Vec<(u32, u32)> = (0..len)
                .map(|k| (rng.range(0, 7) as u32, k as u32))
                .collect();
            let key = |p: &(u32, u32)| p.0;
            let (mut a, mut b) = (v.clone(), v.clone());
            a.sort_by_key(key);
            by_key(&mut b, key);
            assert_eq!(a, b, "stable, {len}");
            let (mut a, mut b) = (v.clone(), v.clone());
            a.sort_by_cached_key(key);
            by_cached_key(&mut b, key);
            assert_eq!(a, b, "cached, {len}");
            let (mut a, mut b) = (v.clone(), v.clone());
            a.sort_unstable_by_key(key);
            unstable_by_key(&mut b, key);
            assert_eq!(a, b, "unstable, {len}");
            let (mut a, mut b) = (v.clone(), v);
            let compare =
                |x: &(u32, u32), y: &(u32, u32)| (x.0 / 2).cmp(&(y.0 / 2)).then(y.0.cmp(&x.0));
            a.sort_unstable_by(compare);
            unstable(&mut b, &mut { compare });
            assert_eq!(a, b, "unstable by, {len}");
        }
    }
}
