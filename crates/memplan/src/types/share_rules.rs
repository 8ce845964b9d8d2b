//! The rules of [`Problem::with_shares`](crate::Problem::with_shares) (stated in
//! `crate::share`): the shares a problem declares, each checked on its own against the
//! buffers, and the required ones together, taken with [`super::joins::Groups`] (the
//! joins the planner makes too). Without the feature `shares`, any share is refused.

use super::buffer::Buffer;
use crate::error::{ProblemError, ProblemErrorKind};
use crate::share::Share;
use crate::units::BufferIdx;
#[cfg(feature = "shares")]
use {
    super::buffer::check_buffers,
    super::joins::{named, Groups, Shared},
    crate::share::{in_place_breach, ShareKind},
};

/// Without the `shares` feature, any share is refused.
#[cfg(not(feature = "shares"))]
pub(super) fn validate(
    buffers: &[Buffer],
    shares: &[Share],
) -> Result<Vec<(BufferIdx, BufferIdx)>, ProblemError> {
    match shares.first() {
        None => Ok(Vec::new()),
        Some(s) => Err(ProblemError {
            index: buffers.iter().position(|b| b.id == s.buffer).unwrap_or(0),
            id: s.buffer.clone(),
            kind: ProblemErrorKind::SharesNotBuilt,
        }),
    }
}

/// The rules of [`Problem::with_shares`](crate::Problem::with_shares) on `shares`: each names two distinct
/// buffers, once; its offset keeps the buffer aligned; an inside share fits; a required
/// share holds, and the required shares together can be taken. Returns each share's
/// `(buffer, target)`.
#[cfg(feature = "shares")]
pub(super) fn validate(
    buffers: &[Buffer],
    shares: &[Share],
) -> Result<Vec<(BufferIdx, BufferIdx)>, ProblemError> {
    use std::collections::HashMap;
    use ProblemErrorKind as K;
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
            if let Some(reason) = in_place_breach(named(b), named(t)) {
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
    check_required(buffers, shares, &ends)?;
    Ok(ends)
}

#[cfg(feature = "shares")]
/// The required shares of [`Problem::with_shares`](crate::Problem::with_shares) taken
/// together: an error naming the
/// first that cannot be taken with those before it.
fn check_required(
    buffers: &[Buffer],
    shares: &[Share],
    ends: &[(BufferIdx, BufferIdx)],
) -> Result<(), ProblemError> {
    let mut groups = Groups::new(
        Shared {
            buffers,
            shares,
            ends,
        },
        None,
    );
    for k in (0..shares.len()).filter(|&k| shares[k].required) {
        match groups.plan_take(k) {
            Ok(join) => groups.apply(join),
            Err(reason) => {
                let (b, t) = ends[k];
                return Err(ProblemError {
                    index: b.index(),
                    id: buffers[b.index()].id.clone(),
                    kind: ProblemErrorKind::RequiredShareCannotHold {
                        target: buffers[t.index()].id.clone(),
                        reason,
                    },
                });
            }
        }
    }
    // The storages of the required shares must form a problem: a fixed storage reserves
    // its span, which may meet another fixed buffer.
    let (mut storages, _) = groups.storage_buffers();
    check_buffers(&mut storages).map(|_| ()).map_err(|e| {
        let (b, t) = shares
            .iter()
            .enumerate()
            .filter(|(_, s)| s.required)
            .map(|(k, _)| ends[k])
            .next()
            .expect("storages differ from buffers only with required shares");
        ProblemError {
            index: b.index(),
            id: buffers[b.index()].id.clone(),
            kind: ProblemErrorKind::RequiredShareCannotHold {
                target: buffers[t.index()].id.clone(),
                reason: format!("the storage of the required shares does not fit: {e}"),
            },
        }
    })
}
