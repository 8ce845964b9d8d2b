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

fn check_unique_ids(buffers: &[Buffer]) -> Result<(), ProblemError> {
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
