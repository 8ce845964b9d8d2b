//! The shared objects being built: for each, its size and the lifetimes it already holds.
//!
//! An object's lifetimes are pairwise disjoint (that is what makes it valid), so they are
//! kept as a map `start -> end` ordered by start. A new lifetime `[s, e)` fits when the
//! last held lifetime starting before `e` ends at or before `s`: every earlier one ends
//! before that one starts. The *holes* of an object are the free stretches between its
//! lifetimes:
//!
//! ```text
//!   time        0    2    4    6    8    10
//!   object      [====)         [====)            held: [0, 2), [6, 8)
//!   holes            [=========)    [=========>  [2, 6) and [8, ∞); (-∞, 0) is empty
//!   x = [3, 5)          [==)                     fits; gap = min(3 - 2, 6 - 5) = 1
//! ```

use std::collections::{BTreeMap, BTreeSet};

use crate::types::{Size, Time};

crate::units::index_type!(
    /// A shared object's id: its position in creation order.
    pub(super) ObjectIdx
);

/// An idle time between two lifetimes, in time steps.
pub(super) type Gap = u64;

/// `(gap, object)` pairs, smallest gap first.
pub(super) type Gaps = Vec<(Gap, ObjectIdx)>;

pub(super) struct Objects {
    sizes: Vec<Size>,
    held: Vec<BTreeMap<Time, Time>>,
    /// `(size, object)` for every object, to scan objects in size order.
    by_size: BTreeSet<(Size, ObjectIdx)>,
    /// `(end, object)` and `(start, object)` for every held lifetime of every object,
    /// to find the nearest held lifetimes of a new one across all objects.
    ends: BTreeSet<(Time, ObjectIdx)>,
    starts: BTreeSet<(Time, ObjectIdx)>,
}

impl Objects {
    pub(super) fn new() -> Objects {
        Objects {
            sizes: Vec::new(),
            held: Vec::new(),
            by_size: BTreeSet::new(),
            ends: BTreeSet::new(),
            starts: BTreeSet::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.sizes.len()
    }

    /// True when object `o` holds nothing live during `[s, e)`.
    #[inline]
    pub(super) fn fits(&self, o: ObjectIdx, s: Time, e: Time) -> bool {
        match self.held[o].range(..e).next_back() {
            Some((_, &end)) => end <= s,
            None => true,
        }
    }

    /// The idle time between `[s, e)` and the nearest lifetime held by `o`, or `None`
    /// when `[s, e)` does not fit. An empty object has gap `u64::MAX`.
    pub(super) fn gap(&self, o: ObjectIdx, s: Time, e: Time) -> Option<Gap> {
        let held = &self.held[o];
        let before = held.range(..e).next_back();
        if let Some((_, &end)) = before {
            if end > s {
                return None;
            }
        }
        let after = held.range(e..).next().map(|(&start, _)| start - e);
        let before = before.map(|(_, &end)| s - end);
        Some(match (before, after) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => Gap::MAX,
        })
    }

    /// The object with the smallest gap to `[s, e)` among those it fits, as
    /// `(gap, object)`, ties to the lower id; `None` when it fits none.
    ///
    /// Held lifetimes are visited by increasing distance from `[s, e)`: those ending at
    /// or before `s` from the latest end down, those starting at or after `e` from the
    /// earliest start up. The first time an object that fits is met, the distance is its
    /// gap (its nearest lifetimes are met first), so the first distance at which some
    /// object fits is the smallest gap. This usually stops long before visiting every
    /// object. When `[s, e)` fits few objects the walk can meet many held lifetimes of
    /// busy objects, so after `2k` of them (`k` objects) it falls back to asking every
    /// object: never worse than twice the plain scan.
    ///
    /// Only objects with id `from` or above are considered (callers pass the number of
    /// objects at a time when `[s, e)` fitted none: objects only fill up, so it still
    /// fits none of those).
    #[cfg(test)]
    pub(super) fn best_gap(&self, s: Time, e: Time, from: ObjectIdx) -> Option<(Gap, ObjectIdx)> {
        self.best_gaps(s, e, from, 1).first().copied()
    }

    /// The `want` smallest `(gap, object)` pairs, smallest first, by the same walk.
    pub(super) fn best_gaps(&self, s: Time, e: Time, from: ObjectIdx, want: usize) -> Gaps {
        let budget = 2 * (self.sizes.len() - from.index()) + 64;
        let mut visited = 0usize;
        let mut before = self
            .ends
            .range(..=(s, ObjectIdx(u32::MAX)))
            .rev()
            .peekable();
        let mut after = self.starts.range((e, ObjectIdx(0))..).peekable();
        let mut found: Gaps = Vec::new();
        loop {
            let db = before.peek().map(|&&(end, o)| (s - end, o));
            let da = after.peek().map(|&&(start, o)| (start - e, o));
            let (d, o) = match (db, da) {
                (Some(b @ (to_before, _)), Some((to_after, _))) if to_before <= to_after => {
                    before.next();
                    b
                }
                (_, Some(a)) => {
                    after.next();
                    a
                }
                (Some(b), None) => {
                    before.next();
                    b
                }
                (None, None) => break,
            };
            // Past the distance of the `want`-th object found: nothing closer remains.
            if found.get(want - 1).is_some_and(|&(g, _)| d > g) {
                break;
            }
            visited += 1;
            if o >= from && !found.iter().any(|&(_, f)| f == o) && self.fits(o, s, e) {
                found.push((d, o));
            }
            if visited > budget && found.len() < want {
                return self.scan_gaps(s, e, from, want);
            }
        }
        found.sort_unstable();
        found.truncate(want);
        found
    }

    /// The same answer as [`Objects::best_gaps`], asking every object from `from` on.
    pub(super) fn scan_gaps(&self, s: Time, e: Time, from: ObjectIdx, want: usize) -> Gaps {
        let mut all: Gaps = self
            .ids_from(from)
            .filter_map(|o| self.gap(o, s, e).map(|g| (g, o)))
            .collect();
        all.sort_unstable();
        all.truncate(want);
        all
    }

    /// The hole of `o` that `[s, e)` lies in (assumed to fit): from the end of the held
    /// lifetime before it (or 0) to the start of the one after it (or `u64::MAX`).
    pub(super) fn hole_around(&self, o: ObjectIdx, s: Time, e: Time) -> (Time, Time) {
        let held = &self.held[o];
        let lo = held
            .range(..=s)
            .next_back()
            .map_or(Time(0), |(_, &end)| end);
        let hi = held
            .range(e..)
            .next()
            .map_or(Time(u64::MAX), |(&start, _)| start);
        (lo, hi)
    }

    pub(super) fn size(&self, o: ObjectIdx) -> Size {
        self.sizes[o]
    }

    /// The objects with id `from` or above, in id order.
    pub(super) fn ids_from(&self, from: ObjectIdx) -> impl Iterator<Item = ObjectIdx> {
        (from.0..self.sizes.len() as u32).map(ObjectIdx)
    }

    /// The id the next object created gets (the number of objects).
    pub(super) fn next_id(&self) -> ObjectIdx {
        ObjectIdx(self.sizes.len() as u32)
    }

    /// Objects of size at least `size`, smallest first (ties: lower id first).
    pub(super) fn at_least(&self, size: Size) -> impl Iterator<Item = ObjectIdx> + '_ {
        self.by_size.range((size, ObjectIdx(0))..).map(|&(_, o)| o)
    }

    /// Objects smaller than `size`, largest first (ties: lower id first is not kept;
    /// callers only use this where sizes are compared, see `by_breadth`).
    pub(super) fn smaller_than(&self, size: Size) -> impl Iterator<Item = ObjectIdx> + '_ {
        self.by_size
            .range(..(size, ObjectIdx(0)))
            .rev()
            .map(|&(_, o)| o)
    }

    /// A new object of size `size` holding `[s, e)`; returns its id.
    pub(super) fn create(&mut self, s: Time, e: Time, size: Size) -> ObjectIdx {
        let o = self.next_id();
        self.sizes.push(size);
        let mut m = BTreeMap::new();
        m.insert(s, e);
        self.held.push(m);
        self.by_size.insert((size, o));
        self.ends.insert((e, o));
        self.starts.insert((s, o));
        o
    }

    /// Puts `[s, e)` (assumed to fit) into `o`, growing it to `size` if it is smaller.
    pub(super) fn assign(&mut self, o: ObjectIdx, s: Time, e: Time, size: Size) {
        self.held[o].insert(s, e);
        self.ends.insert((e, o));
        self.starts.insert((s, o));
        let old = self.sizes[o];
        if size > old {
            self.by_size.remove(&(old, o));
            self.by_size.insert((size, o));
            self.sizes[o] = size;
        }
    }

    pub(super) fn into_sizes(self) -> Vec<Size> {
        self.sizes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[s, e)` as times.
    fn span(s: u64, e: u64) -> (Time, Time) {
        (Time(s), Time(e))
    }

    #[test]
    fn fits_and_gaps_follow_the_holes() {
        let mut objs = Objects::new();
        let fits = |objs: &Objects, o, (s, e)| objs.fits(o, s, e);
        let gap = |objs: &Objects, o, (s, e)| objs.gap(o, s, e);
        let hole = |objs: &Objects, o, (s, e)| objs.hole_around(o, s, e);
        let o = objs.create(Time(0), Time(2), Size(5));
        objs.assign(o, Time(6), Time(8), Size(7));
        assert_eq!(objs.size(o), Size(7));
        assert!(fits(&objs, o, span(2, 6)));
        assert!(!fits(&objs, o, span(1, 3)));
        assert!(!fits(&objs, o, span(5, 7)));
        assert!(!fits(&objs, o, span(0, 10)));
        assert_eq!(gap(&objs, o, span(3, 5)), Some(1));
        assert_eq!(gap(&objs, o, span(2, 3)), Some(0));
        assert_eq!(gap(&objs, o, span(10, 11)), Some(2));
        assert_eq!(gap(&objs, o, span(7, 9)), None);
        assert_eq!(hole(&objs, o, span(3, 5)), span(2, 6));
        assert_eq!(hole(&objs, o, span(9, 10)), span(8, u64::MAX));
        let p = objs.create(Time(3), Time(4), Size(1));
        assert_eq!(hole(&objs, p, span(0, 2)), span(0, 3));
        assert_eq!(objs.at_least(Size(5)).collect::<Vec<_>>(), vec![o]);
        assert_eq!(objs.smaller_than(Size(7)).collect::<Vec<_>>(), vec![p]);
    }

    #[test]
    fn best_gap_matches_a_scan_of_every_object() {
        let mut rng = crate::rng::Rng::new(3);
        let first = ObjectIdx(0);
        for _ in 0..200 {
            let mut objs = Objects::new();
            for _ in 0..rng.range(1, 40) {
                let s = rng.range(0, 60);
                let (s, e) = span(s, s + rng.range(1, 6));
                let fit = objs.ids_from(first).find(|&o| objs.fits(o, s, e));
                match fit {
                    Some(o) if rng.chance(70) => objs.assign(o, s, e, Size(1)),
                    _ => {
                        objs.create(s, e, Size(1));
                    }
                }
            }
            for _ in 0..30 {
                let s = rng.range(0, 70);
                let (s, e) = span(s, s + rng.range(1, 6));
                let want = objs
                    .ids_from(first)
                    .filter_map(|o| objs.gap(o, s, e).map(|g| (g, o)))
                    .min();
                assert_eq!(objs.best_gap(s, e, first), want);
                let from = ObjectIdx(rng.range(0, objs.len() as u64) as u32);
                let want = objs
                    .ids_from(from)
                    .filter_map(|o| objs.gap(o, s, e).map(|g| (g, o)))
                    .min();
                assert_eq!(objs.best_gap(s, e, from), want);
                assert_eq!(objs.best_gaps(s, e, from, 3), objs.scan_gaps(s, e, from, 3));
            }
        }
    }
}
