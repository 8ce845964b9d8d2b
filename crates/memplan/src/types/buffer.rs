//! A buffer, and the rules of [`Problem::new`](crate::Problem::new) on a problem's
//! buffers (stated with the model, in `crate::types`): below the problem and the share
//! rules, which both apply them.

use crate::error::{ProblemError, ProblemErrorKind};
use crate::units::{Lifetime, Offset, Size, Time};

/// One tensor to place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// A unique name, kept verbatim from the input.
    pub id: String,
    /// When the buffer is live, `[start, end)`.
    pub lifetime: Lifetime,
    /// Bytes it occupies while live.
    pub size: Size,
    /// Its offset must be a multiple of this (1 = no constraint).
    pub alignment: Size,
    /// When set, the buffer must be placed exactly here.
    pub fixed_offset: Option<Offset>,
    /// Sub-intervals of the lifetime in which the buffer occupies nothing
    /// (minimalloc's "gaps"). Kept sorted and disjoint by [`Problem::new`](crate::Problem::new).
    pub gaps: Vec<Lifetime>,
}

impl Buffer {
    /// A buffer live in `[start, end)` with the given size, alignment 1, not fixed, no gaps.
    pub fn new(id: impl Into<String>, start: u64, end: u64, size: u64) -> Self {
        Buffer {
            id: id.into(),
            lifetime: Lifetime::new(start, end),
            size: Size(size),
            alignment: Size(1),
            fixed_offset: None,
            gaps: Vec::new(),
        }
    }

    /// Builder-style: set the alignment.
    pub fn with_alignment(mut self, alignment: u64) -> Self {
        self.alignment = Size(alignment);
        self
    }

    /// Builder-style: pin the buffer at `offset`.
    pub fn with_fixed_offset(mut self, offset: u64) -> Self {
        self.fixed_offset = Some(Offset(offset));
        self
    }

    /// Builder-style: add a gap `[start, end)` in which the buffer occupies nothing.
    pub fn with_gap(mut self, start: u64, end: u64) -> Self {
        self.gaps.push(Lifetime::new(start, end));
        self
    }

    /// The intervals in which the buffer occupies memory: its lifetime minus its gaps,
    /// in increasing time order. Assumes the gaps are sorted (true inside a [`Problem`](crate::Problem)).
    pub fn live_segments(&self) -> impl Iterator<Item = Lifetime> + '_ {
        let mut cursor = self.lifetime.start;
        let mut gaps = self.gaps.iter();
        let end = self.lifetime.end;
        let mut done = false;
        std::iter::from_fn(move || {
            while !done {
                match gaps.next() {
                    Some(g) => {
                        let seg = Lifetime {
                            start: cursor,
                            end: g.start,
                        };
                        cursor = g.end;
                        if !seg.is_empty() {
                            return Some(seg);
                        }
                    }
                    None => {
                        done = true;
                        let seg = Lifetime { start: cursor, end };
                        if !seg.is_empty() {
                            return Some(seg);
                        }
                    }
                }
            }
            None
        })
    }

    /// True when the two buffers occupy memory at a common time step (gaps honoured).
    pub fn live_together(&self, other: &Buffer) -> bool {
        if !self.lifetime.overlaps(&other.lifetime) {
            return false;
        }
        if self.gaps.is_empty() && other.gaps.is_empty() {
            return true;
        }
        // Merge the two sorted segment lists.
        let a: Vec<Lifetime> = self.live_segments().collect();
        let b: Vec<Lifetime> = other.live_segments().collect();
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].overlaps(&b[j]) {
                return true;
            }
            if a[i].end <= b[j].end {
                i += 1;
            } else {
                j += 1;
            }
        }
        false
    }
}

/// The rules of [`Problem::new`](crate::Problem::new) on `buffers` (see the model, `crate::types`), the first one
/// broken reported, naming the buffer; gaps are sorted in place. Returns the naive
/// height.
pub(super) fn check_buffers(buffers: &mut [Buffer]) -> Result<Size, ProblemError> {
    if buffers.len() > u32::MAX as usize {
        return Err(ProblemError {
            index: u32::MAX as usize,
            id: String::new(),
            kind: ProblemErrorKind::TooManyBuffers,
        });
    }
    let mut fixed_top: u64 = 0;
    let mut free_total: u64 = 0;
    for (index, b) in buffers.iter_mut().enumerate() {
        let err = |kind| ProblemError {
            index,
            id: b.id.clone(),
            kind,
        };
        if b.size.0 == 0 {
            return Err(err(ProblemErrorKind::ZeroSize));
        }
        if b.lifetime.is_empty() {
            return Err(err(ProblemErrorKind::EmptyLifetime {
                lifetime: b.lifetime,
            }));
        }
        if b.alignment.0 == 0 {
            return Err(err(ProblemErrorKind::ZeroAlignment));
        }
        b.gaps.sort_unstable();
        for (k, g) in b.gaps.iter().enumerate() {
            if g.is_empty() {
                return Err(err(ProblemErrorKind::EmptyGap { gap: *g }));
            }
            if !b.lifetime.contains(g) {
                return Err(err(ProblemErrorKind::GapOutsideLifetime {
                    gap: *g,
                    lifetime: b.lifetime,
                }));
            }
            if k > 0 && b.gaps[k - 1].overlaps(g) {
                return Err(err(ProblemErrorKind::GapsOverlap {
                    first: b.gaps[k - 1],
                    second: *g,
                }));
            }
        }
        match b.fixed_offset {
            Some(off) => {
                if !off.is_aligned_to(b.alignment) {
                    return Err(err(ProblemErrorKind::MisalignedFixedOffset {
                        offset: off,
                        alignment: b.alignment,
                    }));
                }
                let end = off
                    .0
                    .checked_add(b.size.0)
                    .ok_or_else(|| err(ProblemErrorKind::Overflow))?;
                fixed_top = fixed_top.max(end);
            }
            None => {
                free_total = b
                    .size
                    .0
                    .checked_add(b.alignment.0 - 1)
                    .and_then(|s| free_total.checked_add(s))
                    .ok_or_else(|| err(ProblemErrorKind::Overflow))?;
            }
        }
    }
    let naive_height = fixed_top.checked_add(free_total).ok_or_else(|| {
        // Blame the largest free buffer: it is the one that tips the sum over.
        let (index, b) = buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.fixed_offset.is_none())
            .max_by_key(|(_, b)| b.size)
            .expect("overflow needs a free buffer");
        ProblemError {
            index,
            id: b.id.clone(),
            kind: ProblemErrorKind::Overflow,
        }
    })?;
    check_unique_ids(buffers)?;
    check_fixed_disjoint(buffers)?;
    Ok(Size(naive_height))
}

/// Ids are unique: the ids' 64-bit hashes sorted (eight bytes a buffer, read in order,
/// no allocation per buffer, no string compared), and, when two hashes are equal (a
/// repeated id, or a collision), the sort by id below, so that the error names the same
/// pair whichever way the check runs.
fn check_unique_ids(buffers: &[Buffer]) -> Result<(), ProblemError> {
    if buffers.len() < 2 || hashes_distinct(buffers) {
        return Ok(());
    }
    check_unique_ids_by_sort(buffers)
}

/// A fixed 64-bit hash of an id (FxHash's multiply and rotate, eight bytes at a time,
/// then a final mix): deterministic, whatever the process.
fn id_hash(id: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = id.len() as u64;
    let mut chunks = id.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("eight bytes"));
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h ^ (h >> 29) ^ (h >> 47)
}

/// True when the ids' hashes are all different (so are the ids); false when two are
/// equal, which two equal ids always make.
fn hashes_distinct(buffers: &[Buffer]) -> bool {
    let mut hashes: Vec<u64> = buffers.iter().map(|b| id_hash(b.id.as_bytes())).collect();
    hashes.sort_unstable();
    hashes.windows(2).all(|w| w[0] != w[1])
}

/// The ids sorted (ties by index): the first repeated id in that order names the error.
fn check_unique_ids_by_sort(buffers: &[Buffer]) -> Result<(), ProblemError> {
    let mut order: Vec<u32> = (0..buffers.len() as u32).collect();
    crate::sort::unstable(&mut order, &mut |&a, &b| {
        buffers[a as usize]
            .id
            .cmp(&buffers[b as usize].id)
            .then(a.cmp(&b))
    });
    for w in order.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        if buffers[a].id == buffers[b].id {
            return Err(ProblemError {
                index: b,
                id: buffers[b].id.clone(),
                kind: ProblemErrorKind::DuplicateId { first_index: a },
            });
        }
    }
    Ok(())
}

/// Fixed buffers cannot move, so two that collide make every plan invalid.
/// A sweep over time keeps the live fixed buffers ordered by offset; as they are
/// pairwise disjoint, a newcomer collides with some live one iff it collides with its
/// neighbour below or above. O(f log f) for f fixed buffers.
fn check_fixed_disjoint(buffers: &[Buffer]) -> Result<(), ProblemError> {
    use std::collections::BTreeMap;
    let mut events: Vec<(Time, bool, usize)> = Vec::new();
    for (i, b) in buffers.iter().enumerate() {
        if b.fixed_offset.is_some() {
            for seg in b.live_segments() {
                events.push((seg.start, true, i));
                events.push((seg.end, false, i));
            }
        }
    }
    // Ends sort before starts at the same time (half-open lifetimes).
    events.sort_unstable();
    let mut live: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    for (_, is_start, i) in events {
        let lo = buffers[i].fixed_offset.map_or(0, |o| o.0);
        if !is_start {
            live.remove(&lo);
            continue;
        }
        let hi = lo + buffers[i].size.0;
        let below = live
            .range(..=lo)
            .next_back()
            .filter(|(_, &(end, _))| end > lo);
        let above = live.range(lo..hi).next();
        if let Some((_, &(_, j))) = below.or(above) {
            return Err(ProblemError {
                index: i,
                id: buffers[i].id.clone(),
                kind: ProblemErrorKind::FixedOverlap {
                    other: buffers[j].id.clone(),
                },
            });
        }
        live.insert(lo, (hi, i));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(ids: &[String]) -> Vec<Buffer> {
        ids.iter()
            .map(|id| Buffer::new(id.clone(), 0, 1, 1))
            .collect()
    }

    #[test]
    fn the_hashes_find_a_repeat_exactly_when_the_sort_does() {
        let mut rng = crate::rng::Rng::new(5);
        for case in 0..400u64 {
            let n = 2 + (rng.next_u64() % 60) as usize;
            // Few distinct names (repeats likely) or many (repeats rare); long and short.
            let spread = if case % 2 == 0 {
                n as u64
            } else {
                8 * n as u64
            };
            let ids: Vec<String> = (0..n)
                .map(|_| {
                    let k = rng.next_u64() % spread;
                    if case % 3 == 0 {
                        format!("a_long_prefix_shared_by_all/{k}")
                    } else {
                        k.to_string()
                    }
                })
                .collect();
            let bufs = named(&ids);
            let by_sort = check_unique_ids_by_sort(&bufs);
            assert_eq!(hashes_distinct(&bufs), by_sort.is_ok(), "case {case}");
            assert_eq!(check_unique_ids(&bufs), by_sort, "case {case}");
        }
    }

    #[test]
    fn ids_differing_in_any_byte_hash_apart() {
        let base = "0123456789abcdefXYZ";
        let ids: Vec<String> = (0..base.len())
            .map(|k| {
                let mut b = base.as_bytes().to_vec();
                b[k] ^= 1;
                String::from_utf8(b).unwrap()
            })
            .chain([
                base.to_string(),
                base[..16].to_string(),
                base[..8].to_string(),
            ])
            .collect();
        assert!(hashes_distinct(&named(&ids)));
        let hashes: std::collections::BTreeSet<u64> =
            ids.iter().map(|s| id_hash(s.as_bytes())).collect();
        assert_eq!(hashes.len(), ids.len());
    }
}
