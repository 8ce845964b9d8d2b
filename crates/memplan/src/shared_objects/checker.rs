//! The independent checker for shared-object assignments.
//!
//! An assignment is valid when (1) it names one object per buffer, every object id is
//! below the number of objects, (2) no two buffers of one object are live at the same
//! time (whole lifetimes, half-open; gaps are ignored as in planning), and (3) every
//! object is at least as large as each buffer it holds.
//!
//! Each object's buffers are sorted by start; the object is valid in time iff every
//! buffer starts at or after the latest end seen before it. O(n log n). Shares no code
//! with the strategies.

use std::fmt;

use super::SharedAssignment;
use crate::checker::{CheckFailure, ViolationKind, MAX_VIOLATIONS};
use crate::types::{BufferIdx, Lifetime, Problem, Size, Time};

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SharedViolation {
    /// The assignment has a different number of entries than the problem has buffers.
    WrongCount {
        /// Buffers in the problem.
        expected: usize,
        /// Entries in the assignment.
        found: usize,
    },
    /// A buffer names an object that does not exist.
    UnknownObject {
        /// The buffer.
        buffer: String,
        /// The object it names.
        object: u32,
    },
    /// Two buffers of one object are live at the same time.
    Overlap {
        /// The object.
        object: u32,
        /// The earlier buffer and its lifetime.
        first: (String, Lifetime),
        /// The later buffer and its lifetime.
        second: (String, Lifetime),
    },
    /// An object smaller than a buffer it holds.
    TooSmall {
        /// The object.
        object: u32,
        /// Its size.
        object_size: Size,
        /// The buffer.
        buffer: String,
        /// The buffer's size.
        size: Size,
    },
}

impl fmt::Display for SharedViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SharedViolation::WrongCount { expected, found } => write!(
                f,
                "the assignment has {found} entries but the problem has {expected} buffers"
            ),
            SharedViolation::UnknownObject { buffer, object } => {
                write!(
                    f,
                    "buffer '{buffer}' is in object {object}, which does not exist"
                )
            }
            SharedViolation::Overlap {
                object,
                first: (a, a_live),
                second: (b, b_live),
            } => write!(
                f,
                "object {object} holds '{a}' (live {a_live}) and '{b}' (live {b_live}) at the same time"
            ),
            SharedViolation::TooSmall {
                object,
                object_size,
                buffer,
                size,
            } => write!(
                f,
                "object {object} has size {object_size} but holds '{buffer}' of size {size}"
            ),
        }
    }
}

impl ViolationKind for SharedViolation {
    const INVALID: &'static str = "invalid assignment";
}

/// What a valid assignment amounts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedCheckSummary {
    /// Number of objects.
    pub objects: usize,
    /// Sum of the object sizes.
    pub total: Size,
}

/// Checks `assignment` against `problem`: one object per buffer, object ids below the
/// number of objects, no two buffers of one object live at the same time (whole
/// lifetimes, half-open), and every object at least as large as each buffer it holds.
pub fn check_shared_objects(
    problem: &Problem,
    assignment: &SharedAssignment,
) -> Result<SharedCheckSummary, CheckFailure<SharedViolation>> {
    let bufs = problem.buffers();
    let object_of = assignment.object_of();
    let sizes = assignment.object_sizes();
    let mut violations = Vec::new();
    let mut more = 0usize;
    let mut report = |v: SharedViolation| {
        if violations.len() < MAX_VIOLATIONS {
            violations.push(v);
        } else {
            more += 1;
        }
    };
    if object_of.len() != bufs.len() {
        report(SharedViolation::WrongCount {
            expected: bufs.len(),
            found: object_of.len(),
        });
    } else {
        let mut members: Vec<(u32, Time, BufferIdx)> = Vec::with_capacity(bufs.len());
        for (&o, (i, b)) in object_of.iter().zip(problem.indexed()) {
            match sizes.get(o as usize) {
                None => report(SharedViolation::UnknownObject {
                    buffer: b.id.clone(),
                    object: o,
                }),
                Some(&object_size) => {
                    if object_size < b.size {
                        report(SharedViolation::TooSmall {
                            object: o,
                            object_size,
                            buffer: b.id.clone(),
                            size: b.size,
                        });
                    }
                    members.push((o, b.lifetime.start, i));
                }
            }
        }
        members.sort_unstable();
        // Within an object, the buffer with the latest end so far.
        let mut latest: Option<(u32, BufferIdx)> = None;
        for &(o, start, i) in &members {
            match latest {
                Some((lo, j)) if lo == o => {
                    if bufs[j].lifetime.end > start {
                        report(SharedViolation::Overlap {
                            object: o,
                            first: (bufs[j].id.clone(), bufs[j].lifetime),
                            second: (bufs[i].id.clone(), bufs[i].lifetime),
                        });
                    }
                    if bufs[i].lifetime.end > bufs[j].lifetime.end {
                        latest = Some((o, i));
                    }
                }
                _ => latest = Some((o, i)),
            }
        }
    }
    if violations.is_empty() {
        Ok(SharedCheckSummary {
            objects: sizes.len(),
            total: assignment.total(),
        })
    } else {
        Err(CheckFailure { violations, more })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Buffer;

    fn problem() -> Problem {
        Problem::new(vec![
            Buffer::new("a", 0, 2, 8),
            Buffer::new("b", 1, 4, 4),
            Buffer::new("c", 2, 5, 6),
        ])
        .unwrap()
    }

    #[test]
    fn accepts_a_valid_assignment() {
        let a = SharedAssignment::from_parts(vec![0, 1, 0], vec![Size(8), Size(4)]);
        let s = check_shared_objects(&problem(), &a).unwrap();
        assert_eq!((s.objects, s.total), (2, Size(12)));
    }

    #[test]
    fn names_each_broken_rule() {
        let p = problem();
        let a = SharedAssignment::from_parts(vec![0, 0, 0], vec![Size(8)]);
        let f = check_shared_objects(&p, &a).unwrap_err();
        assert!(
            matches!(&f.violations[0], SharedViolation::Overlap { first: (a, _), second: (b, _), .. }
            if a == "a" && b == "b")
        );
        let a = SharedAssignment::from_parts(vec![0, 1, 0], vec![Size(5), Size(4)]);
        let f = check_shared_objects(&p, &a).unwrap_err();
        assert_eq!(f.violations.len(), 2, "{f}");
        assert!(f
            .violations
            .iter()
            .all(|v| matches!(v, SharedViolation::TooSmall { .. })));
        let a = SharedAssignment::from_parts(vec![0, 2, 0], vec![Size(8)]);
        let f = check_shared_objects(&p, &a).unwrap_err();
        assert!(matches!(
            f.violations[0],
            SharedViolation::UnknownObject { object: 2, .. }
        ));
        let a = SharedAssignment::from_parts(vec![0], vec![Size(8)]);
        assert!(check_shared_objects(&p, &a).is_err());
    }
}
