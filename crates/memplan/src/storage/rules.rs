//! The rules of [`Problem::with_shares`]: the shares a problem declares, each checked
//! on its own against the buffers, and the required ones together (taken with
//! [`super::groups::Groups`], the joins the planner makes).

use crate::error::ProblemError;
use crate::share::Share;
#[cfg(feature = "shares")]
use crate::share::ShareKind;
use crate::types::{Buffer, Problem};

impl Problem {
    /// [`Problem::new`] with declared [`crate::Share`]s: the rules of `new`, and each
    /// share names two distinct buffers of the problem, once; its offset keeps the
    /// buffer aligned; an inside share fits in its target; a required share's lifetime
    /// rule holds, and the required shares do not contradict each other (see
    /// [`crate::share`]). An optional share whose lifetime rule does not hold is kept but
    /// never taken. Without the feature `shares`, any share is refused.
    pub fn with_shares(buffers: Vec<Buffer>, shares: Vec<Share>) -> Result<Problem, ProblemError> {
        let problem = Problem::new(buffers)?;
        let ends = validate(problem.buffers(), &shares)?;
        Ok(problem.with_checked_shares(shares, ends))
    }
}

/// Without the `shares` feature, any share is refused.
#[cfg(not(feature = "shares"))]
fn validate(
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
fn validate(
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
            if let Some(reason) =
                crate::share::in_place_breach(super::groups::named(b), super::groups::named(t))
            {
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
    super::groups::check_required(buffers, shares, &ends)?;
    Ok(ends)
}
