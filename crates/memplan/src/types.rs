//! The problem model: buffers with lifetimes and sizes, problems, plans.
//!
//! Sizes, offsets, times, buffer indices and lifetimes are the newtypes of
//! [`crate::units`], which states the half-open rule; this module re-exports them.
//!
//! # Invariants of a [`Problem`]
//!
//! A `Problem` can only be built through [`Problem::new`] (the rules on buffers,
//! `types/buffer.rs`) or [`Problem::with_shares`] (those, and the rules of
//! [`crate::share`] on the declared shares, `types/share_rules.rs`). `new` checks:
//! - every size and alignment is non-zero, every lifetime is non-empty;
//! - ids are unique;
//! - gaps lie inside the lifetime, are non-empty, and do not overlap (they are kept sorted);
//! - a fixed offset is a multiple of the buffer's alignment;
//! - no two fixed buffers overlap in both time and address;
//! - the *naive* height, `max fixed end + Σ (size + alignment − 1)`, fits in a `u64`.
//!   Every planner places each buffer no higher than this, so planners can add offsets
//!   and sizes without overflow checks.

mod buffer;
#[cfg(feature = "shares")]
pub(crate) mod joins;
mod share_rules;

use crate::error::ProblemError;
use crate::share::Share;
pub use crate::units::{BufferIdx, Lifetime, Offset, Size, Time};
pub use buffer::Buffer;

/// A validated set of buffers. What to do with them (minimise, or fit under a capacity)
/// is the [`crate::Request`]'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    buffers: Vec<Buffer>,
    naive_height: Size,
    /// The declared shares ([`crate::Share`]), in input order.
    shares: Vec<Share>,
    /// Each share's `(buffer, target)`, resolved.
    share_ends: Vec<(BufferIdx, BufferIdx)>,
}

impl Problem {
    /// Validates the buffers (positive sizes and alignments, non-empty half-open
    /// lifetimes, gaps inside the lifetime and disjoint, fixed offsets aligned, no
    /// overflow of the naive height) and builds a problem.
    ///
    /// Gaps are sorted in place. The first rule broken is reported, naming the buffer.
    ///
    /// **No buffers is a valid problem**, the same in every door (this function, the CSV
    /// and JSON readers, the command line, Python's `memplan.Problem([])`, C's
    /// `memplan_problem_new`): it plans to height 0, with lower bound 0, optimal. A CSV
    /// file with a header and no data lines, or JSON with `"buffers": []`, reads as one,
    /// so writing an empty problem and reading it back gives it again. (An empty file,
    /// without even a header, is still an error.) Adapters meet empty problems
    /// naturally: a graph or memory level with nothing to plan.
    pub fn new(mut buffers: Vec<Buffer>) -> Result<Problem, ProblemError> {
        let naive_height = buffer::check_buffers(&mut buffers)?;
        Ok(Problem {
            buffers,
            naive_height,
            shares: Vec::new(),
            share_ends: Vec::new(),
        })
    }

    /// [`Problem::new`] with declared [`crate::Share`]s: the rules of `new`, and each
    /// share names two distinct buffers of the problem, once; its offset keeps the
    /// buffer aligned; an inside share fits in its target; a required share's lifetime
    /// rule holds, and the required shares do not contradict each other (see
    /// [`crate::share`]). An optional share whose lifetime rule does not hold is kept but
    /// never taken. Without the feature `shares`, any share is refused.
    pub fn with_shares(buffers: Vec<Buffer>, shares: Vec<Share>) -> Result<Problem, ProblemError> {
        let mut problem = Problem::new(buffers)?;
        problem.share_ends = share_rules::validate(problem.buffers(), &shares)?;
        problem.shares = shares;
        Ok(problem)
    }

    /// The declared shares, in input order.
    #[inline]
    pub fn shares(&self) -> &[Share] {
        &self.shares
    }

    /// The buffer and the target of share `k`.
    #[inline]
    pub fn share_ends(&self, k: usize) -> (BufferIdx, BufferIdx) {
        self.share_ends[k]
    }

    /// Every share's buffer and target, indexed like [`Problem::shares`].
    #[cfg(feature = "shares")]
    #[inline]
    pub(crate) fn all_share_ends(&self) -> &[(BufferIdx, BufferIdx)] {
        &self.share_ends
    }

    /// The shares that `offsets` take, as indices into [`Problem::shares`]: those whose
    /// buffer sits at its target's offset plus the share's, in the same memory (`memory`
    /// gives each buffer's; a constant for one memory).
    pub fn taken_shares<M: PartialEq>(
        &self,
        offsets: &[Offset],
        memory: impl Fn(usize) -> M,
    ) -> Vec<usize> {
        (0..self.shares.len())
            .filter(|&k| {
                let (b, t) = (self.share_ends[k].0.index(), self.share_ends[k].1.index());
                b < offsets.len()
                    && t < offsets.len()
                    && memory(b) == memory(t)
                    && offsets[t].0.checked_add(self.shares[k].offset.0) == Some(offsets[b].0)
            })
            .collect()
    }

    /// The same buffers without their shares: every buffer with storage of its own.
    pub fn without_shares(&self) -> Problem {
        Problem {
            buffers: self.buffers.clone(),
            naive_height: self.naive_height,
            shares: Vec::new(),
            share_ends: Vec::new(),
        }
    }

    /// The buffers, in input order. A [`Plan`]'s offsets use the same indexing.
    #[inline]
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The buffer at `idx`.
    #[inline]
    pub fn buffer(&self, idx: BufferIdx) -> &Buffer {
        &self.buffers[idx.index()]
    }

    /// Every buffer's index, in order.
    #[inline]
    pub(crate) fn indices(&self) -> impl DoubleEndedIterator<Item = BufferIdx> + Clone {
        (0..self.buffers.len() as u32).map(BufferIdx)
    }

    /// The buffers with their indices, in order.
    #[inline]
    pub(crate) fn indexed(&self) -> impl Iterator<Item = (BufferIdx, &Buffer)> + Clone {
        self.indices().zip(&self.buffers)
    }

    /// Number of buffers.
    #[inline]
    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    /// True when there are no buffers.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }

    /// `max fixed end + Σ (size + alignment − 1)` over free buffers: an upper bound on
    /// any sensible plan's height, guaranteed to fit in a `u64`.
    #[inline]
    pub fn naive_height(&self) -> Size {
        self.naive_height
    }

    /// The height of the plan `offsets` (indexed like the buffers): the highest end
    /// address, 0 for no buffers. Overflow is the caller's to rule out.
    pub(crate) fn height_of(&self, offsets: &[Offset]) -> Size {
        self.buffers
            .iter()
            .zip(offsets)
            .map(|(b, &o)| (o + b.size).as_height())
            .max()
            .unwrap_or(Size::ZERO)
    }

    /// Gives the buffers back (and drops the shares).
    pub fn into_buffers(self) -> Vec<Buffer> {
        self.buffers
    }
}

/// One offset per buffer, indexed like [`Problem::buffers`], and the resulting height.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    offsets: Vec<Offset>,
    height: Size,
}

impl Plan {
    /// Builds a plan and computes its height, `max(offset + size)`.
    ///
    /// Returns `None` when the number of offsets differs from the number of buffers or
    /// an `offset + size` overflows. This does not check validity: use [`crate::check`].
    pub fn new(problem: &Problem, offsets: Vec<Offset>) -> Option<Plan> {
        if offsets.len() != problem.len() {
            return None;
        }
        let mut height = 0u64;
        for (b, o) in problem.buffers().iter().zip(&offsets) {
            height = height.max(o.0.checked_add(b.size.0)?);
        }
        Some(Plan {
            offsets,
            height: Size(height),
        })
    }

    /// The offsets, indexed like the problem's buffers.
    #[inline]
    pub fn offsets(&self) -> &[Offset] {
        &self.offsets
    }

    /// The offset of one buffer.
    #[inline]
    pub fn offset(&self, idx: BufferIdx) -> Offset {
        self.offsets[idx.index()]
    }

    /// The peak address, `max(offset + size)`; 0 for an empty problem.
    #[inline]
    pub fn height(&self) -> Size {
        self.height
    }

    /// Gives the offsets back.
    pub fn into_offsets(self) -> Vec<Offset> {
        self.offsets
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ProblemErrorKind;

    #[test]
    fn live_segments_skip_gaps() {
        let b = Buffer::new("x", 0, 10, 1)
            .with_gap(2, 4)
            .with_gap(4, 5)
            .with_gap(8, 10);
        let segs: Vec<_> = b.live_segments().collect();
        assert_eq!(segs, vec![Lifetime::new(0, 2), Lifetime::new(5, 8)]);
    }

    #[test]
    fn live_together_honours_gaps() {
        let a = Buffer::new("a", 0, 10, 1).with_gap(3, 7);
        let b = Buffer::new("b", 3, 7, 1);
        let c = Buffer::new("c", 6, 8, 1);
        assert!(!a.live_together(&b));
        assert!(a.live_together(&c));
        assert!(b.live_together(&c));
    }

    #[test]
    fn validation_names_the_buffer() {
        let e = Problem::new(vec![
            Buffer::new("ok", 0, 1, 1),
            Buffer::new("bad", 0, 1, 0),
        ])
        .unwrap_err();
        assert_eq!(
            (e.index, e.id.as_str(), e.kind.clone()),
            (1, "bad", ProblemErrorKind::ZeroSize)
        );
        let e =
            Problem::new(vec![Buffer::new("a", 0, 1, 1), Buffer::new("a", 2, 3, 1)]).unwrap_err();
        assert_eq!(e.kind, ProblemErrorKind::DuplicateId { first_index: 0 });
        let e = Problem::new(vec![Buffer::new("a", 3, 3, 1)]).unwrap_err();
        assert!(matches!(e.kind, ProblemErrorKind::EmptyLifetime { .. }));
        let e = Problem::new(vec![Buffer::new("a", 0, 3, 1).with_alignment(0)]).unwrap_err();
        assert_eq!(e.kind, ProblemErrorKind::ZeroAlignment);
        let e = Problem::new(vec![Buffer::new("a", 0, 3, 1)
            .with_alignment(4)
            .with_fixed_offset(6)])
        .unwrap_err();
        assert!(matches!(
            e.kind,
            ProblemErrorKind::MisalignedFixedOffset { .. }
        ));
        let e = Problem::new(vec![Buffer::new("a", 0, 3, 1).with_gap(2, 5)]).unwrap_err();
        assert!(matches!(
            e.kind,
            ProblemErrorKind::GapOutsideLifetime { .. }
        ));
        let e = Problem::new(vec![Buffer::new("a", 0, 9, 1)
            .with_gap(4, 6)
            .with_gap(2, 5)])
        .unwrap_err();
        assert!(matches!(e.kind, ProblemErrorKind::GapsOverlap { .. }));
        let e = Problem::new(vec![
            Buffer::new("a", 0, 9, 2).with_fixed_offset(u64::MAX - 1)
        ])
        .unwrap_err();
        assert_eq!(e.kind, ProblemErrorKind::Overflow);
        let e = Problem::new(vec![
            Buffer::new("a", 0, 9, u64::MAX - 5),
            Buffer::new("b", 0, 9, 10),
        ])
        .unwrap_err();
        // The buffer at which the running total overflows is named.
        assert_eq!(
            (e.id.as_str(), e.kind.clone()),
            ("b", ProblemErrorKind::Overflow)
        );
        let e = Problem::new(vec![
            Buffer::new("a", 0, 9, 4).with_fixed_offset(0),
            Buffer::new("b", 5, 7, 4).with_fixed_offset(2),
        ])
        .unwrap_err();
        assert!(matches!(e.kind, ProblemErrorKind::FixedOverlap { .. }));
    }

    #[test]
    fn fixed_buffers_may_share_addresses_when_apart_in_time() {
        let p = Problem::new(vec![
            Buffer::new("a", 0, 5, 4).with_fixed_offset(0),
            Buffer::new("b", 5, 7, 4).with_fixed_offset(2),
            Buffer::new("c", 0, 9, 4)
                .with_gap(1, 8)
                .with_fixed_offset(3),
        ]);
        assert!(p.is_err(), "c is live at time 0 with a");
        let p = Problem::new(vec![
            Buffer::new("a", 0, 5, 4).with_fixed_offset(0),
            Buffer::new("b", 5, 7, 4).with_fixed_offset(2),
        ]);
        assert!(p.is_ok());
    }

    #[test]
    fn plan_height() {
        let p = Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 1, 3, 6)]).unwrap();
        let plan = Plan::new(&p, vec![Offset(6), Offset(0)]).unwrap();
        assert_eq!(plan.height(), Size(10));
        assert!(Plan::new(&p, vec![Offset(0)]).is_none());
    }

    #[test]
    fn align_up_rounds() {
        assert_eq!(crate::units::align_up(0, 8), 0);
        assert_eq!(crate::units::align_up(1, 8), 8);
        assert_eq!(crate::units::align_up(16, 8), 16);
        assert_eq!(crate::units::align_up(5, 1), 5);
    }
}
