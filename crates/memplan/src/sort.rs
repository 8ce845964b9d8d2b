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
//! costs a call per comparison: sorts inside a search's inner loop stay inline, and the
//! short ones there are [`short_by_key`], an insertion sort.
//!
//! Where an unstable sort's key can tie between different elements, the order of the
//! tied ones is the standard library's choice, which differs between its builds (the
//! lean C library's standard library sorts for size: docs/c.md). The unstable sorts of
//! the planners in that build (all but memories, tiles and shared objects) therefore use
//! keys that order every pair of different elements (a rank, an index or the whole
//! element), or ties whose order nothing reads (sums over a sweep), so each sort has
//! one possible result.

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

/// An index [`by_packed_key`] sorts: a `u32` inside (a buffer's index implements it in
/// `types`, which this module must not import).
pub(crate) trait PackedIndex: Copy {
    fn to_u32(self) -> u32;
    fn from_u32(x: u32) -> Self;
}

impl PackedIndex for u32 {
    fn to_u32(self) -> u32 {
        self
    }
    fn from_u32(x: u32) -> Self {
        x
    }
}

/// One field of a [`by_packed_key`] key: a `u64` compared in ascending or descending
/// order.
#[derive(Clone, Copy)]
pub(crate) enum Field {
    Ascending(u64),
    Descending(u64),
}

/// Sorts the buffer indices `v` by the key `(fields(i)[0], .., fields(i)[N - 1], i)`
/// (each field ascending or descending as given), packing each key into one `u128` when
/// the fields' ranges and the index fit 128 bits, then sorting the integers: a total
/// order, so the result is the one sorted order, that of [`by_cached_key`] with the same
/// key, at a fraction of its comparisons' cost (no call through a pointer, no tuple).
/// Returns `false`, with `v` untouched, when the key does not fit.
pub(crate) fn by_packed_key<I: PackedIndex, const N: usize>(
    v: &mut [I],
    fields: impl Fn(I) -> [Field; N],
) -> bool {
    let value = |f: Field| match f {
        Field::Ascending(x) | Field::Descending(x) => x,
    };
    // Each field's range, and the largest index.
    let mut lo = [u64::MAX; N];
    let mut hi = [0u64; N];
    let mut top = 0u32;
    for &i in v.iter() {
        for (k, f) in fields(i).into_iter().enumerate() {
            lo[k] = lo[k].min(value(f));
            hi[k] = hi[k].max(value(f));
        }
        top = top.max(i.to_u32());
    }
    let bits = |x: u64| 64 - x.leading_zeros();
    let index_bits = 32 - top.leading_zeros();
    let mut width = [0u32; N];
    let mut total = index_bits;
    for k in 0..N {
        width[k] = bits(hi[k].saturating_sub(lo[k]));
        total += width[k];
    }
    if total > 128 {
        return false;
    }
    let mut keys: Vec<u128> = Vec::with_capacity(v.len());
    keys.extend(v.iter().map(|&i| {
        let mut key = 0u128;
        for (k, f) in fields(i).into_iter().enumerate() {
            // Within the field's range: ascending from its least value, descending from
            // its largest.
            let x = match f {
                Field::Ascending(x) => x - lo[k],
                Field::Descending(x) => hi[k] - x,
            };
            // A field of width 0 holds 0 (shifting a u128 by 128 would overflow).
            key = (key << width[k]) | u128::from(x);
        }
        (key << index_bits) | u128::from(i.to_u32())
    }));
    radix(&mut keys, total);
    let mask = (1u128 << index_bits) - 1;
    for (slot, key) in v.iter_mut().zip(keys) {
        *slot = I::from_u32((key & mask) as u32);
    }
    true
}

/// Sorts `keys`, each below `2^bits`, by least significant digit first (11 bits a
/// digit, so 2,048 counters per pass): linear time, where a comparison sort of a million
/// `u128` takes twenty comparisons each. A pass whose digit is the same in every key
/// is skipped.
fn radix(keys: &mut Vec<u128>, bits: u32) {
    const DIGIT: u32 = 11;
    const BUCKETS: usize = 1 << DIGIT;
    if keys.len() < 2 {
        return;
    }
    let passes = bits.div_ceil(DIGIT) as usize;
    let digit = |key: u128, pass: usize| (key >> (pass as u32 * DIGIT)) as usize & (BUCKETS - 1);
    // Every pass's counts, in one read of the keys.
    let mut counts = vec![[0u32; BUCKETS]; passes];
    for &key in keys.iter() {
        for (pass, c) in counts.iter_mut().enumerate() {
            c[digit(key, pass)] += 1;
        }
    }
    let n = keys.len() as u32;
    let mut from = std::mem::take(keys);
    let mut to = vec![0u128; from.len()];
    for (pass, c) in counts.iter_mut().enumerate() {
        if c.contains(&n) {
            continue; // one digit everywhere: the pass keeps the order
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

/// `v.sort_by_key(key)` by insertion, for the short lists of a search's inner loop
/// (up to some tens of elements): what the standard library's sorts do themselves up to
/// 20 elements, written out so it is the same code in every build. Stable.
#[inline]
pub(crate) fn short_by_key<T: Copy, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    for i in 1..v.len() {
        let x = v[i];
        let kx = key(&x);
        let mut j = i;
        while j > 0 && kx < key(&v[j - 1]) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// Moves the `k` elements of least key to `v[..k]`, in no particular order (`k <
/// v.len()`): `v.select_nth_unstable_by_key(k - 1, key)`'s split, by quickselect
/// (median-of-three pivots), the same code in every build. With a key that orders every
/// pair of different elements, which elements come first is determined.
pub(crate) fn least_by_key<T: Copy, K: Ord>(v: &mut [T], k: usize, mut key: impl FnMut(&T) -> K) {
    debug_assert!(0 < k && k < v.len());
    let (mut lo, mut hi) = (0, v.len());
    // Invariant: v[..lo] are among the k least, v[hi..] are not, and lo <= k <= hi.
    while hi - lo > 1 && lo < k && k < hi {
        let mid = lo + (hi - lo) / 2;
        let (a, b, c) = (key(&v[lo]), key(&v[mid]), key(&v[hi - 1]));
        let m = if (a <= b) == (b <= c) {
            mid
        } else if (b <= a) == (a <= c) {
            lo
        } else {
            hi - 1
        };
        v.swap(m, hi - 1);
        let pivot = key(&v[hi - 1]);
        let mut store = lo;
        for i in lo..hi - 1 {
            if key(&v[i]) < pivot {
                v.swap(i, store);
                store += 1;
            }
        }
        v.swap(store, hi - 1);
        // v[lo..store] < pivot = v[store] <= v[store + 1..hi]
        if store < k {
            lo = store + 1;
        } else {
            hi = store;
        }
    }
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
            let (mut a, mut b) = (v.clone(), v.clone());
            let compare =
                |x: &(u32, u32), y: &(u32, u32)| (x.0 / 2).cmp(&(y.0 / 2)).then(y.0.cmp(&x.0));
            a.sort_unstable_by(compare);
            unstable(&mut b, &mut { compare });
            assert_eq!(a, b, "unstable by, {len}");
            for k in [1, len / 3, len.saturating_sub(1)] {
                if 0 < k && k < len {
                    // A key that orders every pair: the k least are one set.
                    let total = |p: &(u32, u32)| (p.0, p.1);
                    let mut a = v.clone();
                    a.sort_by_key(total);
                    let mut b = v.clone();
                    least_by_key(&mut b, k, total);
                    b[..k].sort_by_key(total);
                    assert_eq!(a[..k], b[..k], "least {k} of {len}");
                }
            }
            // The packed key gives the tuple's order, ties in every field but the index
            // included, and refuses keys wider than 128 bits.
            let (mut a, mut b) = (v.clone(), v.clone());
            let idx: Vec<u32> = (0..len as u32).collect();
            let (mut pa, mut pb) = (idx.clone(), idx.clone());
            let f = |i: u32| v[i as usize];
            by_cached_key(&mut pa, |&i| (f(i).0, std::cmp::Reverse(f(i).1 / 3), i));
            assert!(by_packed_key(&mut pb, |i| [
                Field::Ascending(f(i).0.into()),
                Field::Descending((f(i).1 / 3).into())
            ]));
            assert_eq!(pa, pb, "packed, {len}");
            let wide = by_packed_key(&mut pb, |i| {
                let x = if i % 2 == 0 { 0 } else { u64::MAX };
                [Field::Ascending(x), Field::Descending(x)]
            });
            assert!(!wide || len < 2, "a key over 128 bits is refused, {len}");
            a.sort_by_key(key);
            b.sort_by_key(key);
            assert_eq!(a, b);
            if len <= 100 {
                let (mut a, mut b) = (v.clone(), v.clone());
                a.sort_by_key(key);
                short_by_key(&mut b, key);
                assert_eq!(a, b, "short, {len}");
            }
        }
    }
}
