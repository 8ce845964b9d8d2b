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

use super::violation::Collector;
use super::{CheckFailure, CheckSummary, Violation};
use crate::shared_object_types::SharedAssignment;
use crate::types::{BufferIdx, Problem, Time};

/// Checks `assignment` against `problem`: one object per buffer, object ids below the
/// number of objects, no two buffers of one object live at the same time (whole
/// lifetimes, half-open), and every object at least as large as each buffer it holds.
pub fn check_shared_objects(
    problem: &Problem,
    assignment: &SharedAssignment,
) -> Result<CheckSummary, CheckFailure> {
    let bufs = problem.buffers();
    let object_of = assignment.object_of();
    let sizes = assignment.object_sizes();
    let mut c = Collector::default();
    if object_of.len() != bufs.len() {
        c.push(Violation::ObjectCount {
            expected: bufs.len(),
            found: object_of.len(),
        });
    } else {
        let mut members: Vec<(u32, Time, BufferIdx)> = Vec::with_capacity(bufs.len());
        for (&o, (i, b)) in object_of.iter().zip(problem.indexed()) {
            match sizes.get(o as usize) {
                None => c.push(Violation::UnknownObject {
                    buffer: b.id.clone(),
                    object: o,
                }),
                Some(&object_size) => {
                    if object_size < b.size {
                        c.push(Violation::ObjectTooSmall {
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
                        c.push(Violation::ObjectOverlap {
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
    c.finish(CheckSummary {
        objects: Some(sizes.len()),
        ..CheckSummary::new(bufs.len(), assignment.total())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Buffer, Size};

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
        assert_eq!((s.objects, s.height), (Some(2), Size(12)));
    }

    #[test]
    fn names_each_broken_rule() {
        let p = problem();
        let a = SharedAssignment::from_parts(vec![0, 0, 0], vec![Size(8)]);
        let f = check_shared_objects(&p, &a).unwrap_err();
        assert!(
            matches!(&f.violations[0], Violation::ObjectOverlap { first: (a, _), second: (b, _), .. }
            if a == "a" && b == "b")
        );
        let a = SharedAssignment::from_parts(vec![0, 1, 0], vec![Size(5), Size(4)]);
        let f = check_shared_objects(&p, &a).unwrap_err();
        assert_eq!(f.violations.len(), 2, "{f}");
        assert!(f
            .violations
            .iter()
            .all(|v| matches!(v, Violation::ObjectTooSmall { .. })));
        let a = SharedAssignment::from_parts(vec![0, 2, 0], vec![Size(8)]);
        let f = check_shared_objects(&p, &a).unwrap_err();
        assert!(matches!(
            f.violations[0],
            Violation::UnknownObject { object: 2, .. }
        ));
        let a = SharedAssignment::from_parts(vec![0], vec![Size(8)]);
        assert!(check_shared_objects(&p, &a).is_err());
    }
}
