//! Shared storage: a buffer may declare that it may use another buffer's storage.
//!
//! # The model
//!
//! Without shares, two buffers live at the same time never share an address. A kernel
//! that reads `x[i]` before it writes `out[i]` can write over its input when that input
//! dies where the output is born; a cache update's result can live inside its cache. A
//! [`Share`] declares such a pair, *buffer* over *target*, of one of two kinds:
//!
//! - **in place** ([`ShareKind::InPlace`]): `buffer` takes `target`'s storage where
//!   `target`'s lifetime ends and its own begins. With the half-open rule of
//!   [`crate::Lifetime`], an operator at step `t` that reads `x` for the last time and
//!   writes `out` gives `x = [.., t + 1)` and `out = [t, ..)`: they overlap in the one
//!   step `t`, and only there.
//!
//!   ```text
//!     time     0   1   2   3   4
//!     x        [===========)             x = [0, 3): last read at step 2
//!     out              [===========)     out = [2, 5): written at step 2
//!                      ^ the one step both are live: out over x is allowed
//!   ```
//!
//!   The rule: `target.start ≤ buffer.start` and `target.end ≤ buffer.start + 1`.
//!   A `target` still live after that step (an input read later) breaks it.
//! - **inside** ([`ShareKind::Inside`]): `buffer` lives inside `target`, at `offset`
//!   bytes from `target`'s start, whenever both are live: `offset + buffer.size ≤
//!   target.size`. No lifetime rule: a cache update's result lives inside its cache, a
//!   concat input inside the concat's output (which is then reserved from the input's
//!   birth).
//!
//! Either way, a share that is *taken* places `buffer` at exactly `target`'s offset plus
//! the share's `offset` (0 for in place, unless declared otherwise). Two buffers may
//! overlap in time and address only along a share declared between them (in either
//! direction), taken, and whose rule holds; a chain of in-place operators becomes one
//! storage.
//!
//! A share is **optional** by default: the planner takes it only where it lowers or
//! keeps the plan (concat in place can make a plan larger, because the output must be
//! reserved from its inputs' births). A **required** share is always taken; a problem
//! whose required shares cannot hold is refused.
//!
//! The independent checker ([`crate::check`]) implements these rules on its own.

use std::fmt;

use crate::types::Offset;

/// How a buffer shares another's storage. See the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShareKind {
    /// The buffer takes the target's storage where the target dies and it is born.
    InPlace,
    /// The buffer lives inside the target at the share's offset.
    Inside,
}

impl ShareKind {
    /// The name used by the file formats and the bindings: `in_place` or `inside`.
    pub const fn name(self) -> &'static str {
        match self {
            ShareKind::InPlace => "in_place",
            ShareKind::Inside => "inside",
        }
    }

    /// The kind named `name` (`in_place`, `inside`), if any.
    pub fn from_name(name: &str) -> Option<ShareKind> {
        match name {
            "in_place" => Some(ShareKind::InPlace),
            "inside" => Some(ShareKind::Inside),
            _ => None,
        }
    }
}

impl fmt::Display for ShareKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A declared share: `buffer` may use `target`'s storage, at `target`'s offset plus
/// `offset`. See the [module docs](self) for the rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Share {
    /// The buffer that uses the other's storage (the operator's output, the update).
    pub buffer: String,
    /// The buffer whose storage it uses (the input, the cache, the concat's output).
    pub target: String,
    /// In place or inside.
    pub kind: ShareKind,
    /// Where `buffer` starts, in bytes from `target`'s start (a multiple of `buffer`'s
    /// alignment).
    pub offset: Offset,
    /// Always taken, rather than only where it lowers or keeps the plan.
    pub required: bool,
}

impl Share {
    /// `buffer` in place of `target`, at the same offset, optional.
    pub fn in_place(buffer: impl Into<String>, target: impl Into<String>) -> Share {
        Share {
            buffer: buffer.into(),
            target: target.into(),
            kind: ShareKind::InPlace,
            offset: Offset(0),
            required: false,
        }
    }

    /// `buffer` inside `target`, `offset` bytes from its start, optional.
    pub fn inside(buffer: impl Into<String>, target: impl Into<String>, offset: u64) -> Share {
        Share {
            buffer: buffer.into(),
            target: target.into(),
            kind: ShareKind::Inside,
            offset: Offset(offset),
            required: false,
        }
    }

    /// Builder-style: the share must be taken.
    pub fn required(mut self) -> Share {
        self.required = true;
        self
    }

    /// Builder-style: set the offset.
    pub fn at(mut self, offset: u64) -> Share {
        self.offset = Offset(offset);
        self
    }
}

impl fmt::Display for Share {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match self.kind {
            ShareKind::InPlace => "in place of",
            ShareKind::Inside => "inside",
        };
        write!(
            f,
            "'{}' {how} '{}'",
            crate::error::Escaped(&self.buffer),
            crate::error::Escaped(&self.target)
        )?;
        if self.offset.0 != 0 {
            write!(f, " at +{}", self.offset)?;
        }
        if self.required {
            f.write_str(" (required)")?;
        }
        Ok(())
    }
}

/// Why an in-place share's lifetime rule does not hold for `buffer` over `target`, if
/// it does not: `target` born after `buffer`, or still live after the step at which
/// `buffer` is born.
#[cfg(feature = "shares")]
pub(crate) fn in_place_breach(
    buffer: &crate::types::Buffer,
    target: &crate::types::Buffer,
) -> Option<String> {
    let (b, t) = (buffer.lifetime, target.lifetime);
    if t.start > b.start {
        Some(format!(
            "'{}' is born at {}, after '{}' at {}",
            crate::error::Escaped(&target.id),
            t.start,
            crate::error::Escaped(&buffer.id),
            b.start
        ))
    } else if t.end.0 > b.start.0.saturating_add(1) {
        Some(format!(
            "'{}' is live until {}, past step {} at which '{}' is born (it is read later)",
            crate::error::Escaped(&target.id),
            t.end,
            b.start,
            crate::error::Escaped(&buffer.id)
        ))
    } else {
        None
    }
}

/// Without the `shares` feature, any share is refused.
#[cfg(not(feature = "shares"))]
pub(crate) fn validate(
    buffers: &[crate::types::Buffer],
    shares: &[Share],
) -> Result<Vec<(crate::types::BufferIdx, crate::types::BufferIdx)>, crate::error::ProblemError> {
    match shares.first() {
        None => Ok(Vec::new()),
        Some(s) => Err(crate::error::ProblemError {
            index: buffers.iter().position(|b| b.id == s.buffer).unwrap_or(0),
            id: s.buffer.clone(),
            kind: crate::error::ProblemErrorKind::SharesNotBuilt,
        }),
    }
}

/// The rules of [`crate::Problem::with_shares`] on `shares`: each names two distinct
/// buffers, once; its offset keeps the buffer aligned; an inside share fits; a required
/// share holds, and the required shares together can be taken. Returns each share's
/// `(buffer, target)`.
#[cfg(feature = "shares")]
pub(crate) fn validate(
    buffers: &[crate::types::Buffer],
    shares: &[Share],
) -> Result<Vec<(crate::types::BufferIdx, crate::types::BufferIdx)>, crate::error::ProblemError> {
    use crate::error::{ProblemError, ProblemErrorKind as K};
    use crate::types::BufferIdx;
    use std::collections::HashMap;
    if shares.is_empty() {
        return Ok(Vec::new());
    }
    let index: HashMap<&str, usize> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| (b.id.as_str(), i))
        .collect();
    let mut ends = Vec::with_capacity(shares.len());
    for (k, s) in shares.iter().enumerate() {
        let Some(&bi) = index.get(s.buffer.as_str()) else {
            return Err(ProblemError {
                index: k,
                id: s.buffer.clone(),
                kind: K::ShareUnknownBuffer { share: k },
            });
        };
        let b = &buffers[bi];
        let err = |kind| ProblemError {
            index: bi,
            id: b.id.clone(),
            kind,
        };
        let Some(&ti) = index.get(s.target.as_str()) else {
            return Err(err(K::ShareUnknownTarget {
                target: s.target.clone(),
            }));
        };
        let t = &buffers[ti];
        if bi == ti {
            return Err(err(K::ShareWithItself));
        }
        if !s.offset.is_aligned_to(b.alignment) {
            return Err(err(K::MisalignedShare {
                target: t.id.clone(),
                offset: s.offset,
                alignment: b.alignment,
            }));
        }
        if s.kind == ShareKind::Inside
            && s.offset
                .0
                .checked_add(b.size.0)
                .is_none_or(|e| e > t.size.0)
        {
            return Err(err(K::ShareOutsideTarget {
                target: t.id.clone(),
                offset: s.offset,
                size: b.size,
                target_size: t.size,
            }));
        }
        if s.required && s.kind == ShareKind::InPlace {
            if let Some(reason) = in_place_breach(b, t) {
                return Err(err(K::RequiredShareCannotHold {
                    target: t.id.clone(),
                    reason,
                }));
            }
        }
        ends.push((BufferIdx::new(bi), BufferIdx::new(ti)));
    }
    // The same share twice: the first repeat in declaration order.
    let mut order: Vec<usize> = (0..shares.len()).collect();
    let key = |k: usize| (ends[k], shares[k].kind, shares[k].offset);
    order.sort_unstable_by_key(|&k| (key(k), k));
    if let Some(w) = order
        .windows(2)
        .filter(|w| key(w[0]) == key(w[1]))
        .min_by_key(|w| w[1])
    {
        let (b, t) = ends[w[1]];
        return Err(ProblemError {
            index: b.index(),
            id: buffers[b.index()].id.clone(),
            kind: K::DuplicateShare {
                target: buffers[t.index()].id.clone(),
            },
        });
    }
    crate::storage::check_required(buffers, shares, &ends)?;
    Ok(ends)
}

/// The shares that `offsets` take, as indices into [`crate::Problem::shares`]: those
/// whose buffer sits at its target's offset plus the share's, in the same memory
/// (`memory` gives each buffer's; a constant for one memory).
pub fn taken<M: PartialEq>(
    problem: &crate::Problem,
    offsets: &[Offset],
    memory: impl Fn(usize) -> M,
) -> Vec<usize> {
    (0..problem.shares().len())
        .filter(|&k| {
            let (b, t) = problem.share_ends(k);
            let (b, t) = (b.index(), t.index());
            b < offsets.len()
                && t < offsets.len()
                && memory(b) == memory(t)
                && offsets[t].0.checked_add(problem.shares()[k].offset.0) == Some(offsets[b].0)
        })
        .collect()
}
