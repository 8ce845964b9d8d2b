//! The violations, the failure and the summary that all four checkers report: offset
//! plans ([`super::check`]), plans across memories, tile plans and shared-object
//! assignments; and the [`Collector`] they gather violations in.
//! Each violation names the buffers (tensors, objects), times and addresses involved.

use std::fmt;

use crate::types::{Lifetime, Offset, Size};

/// A buffer as placed, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The buffer's id.
    pub id: String,
    /// Its lifetime, `[start, end)`.
    pub lifetime: Lifetime,
    /// The addresses it occupies, `[offset, offset + size)`.
    pub addresses: (Offset, Offset),
}

impl fmt::Display for Placed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' (live {}, at [{}, {}))",
            self.id, self.lifetime, self.addresses.0, self.addresses.1
        )
    }
}

/// One broken rule. The variants of memory, tile and shared-object plans exist with their
/// cargo features, so the enum is `non_exhaustive`: a match outside the crate keeps a
/// wildcard arm whatever the features.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// The plan has a different number of offsets than the problem has buffers.
    WrongCount {
        /// Buffers in the problem.
        expected: usize,
        /// Offsets in the plan.
        found: usize,
    },
    /// A buffer has no offset.
    Missing {
        /// The buffer.
        id: String,
    },
    /// A buffer is placed more than once.
    PlacedTwice {
        /// The buffer.
        id: String,
    },
    /// The plan places a buffer that the problem does not have.
    Unknown {
        /// The id in the plan.
        id: String,
    },
    /// `offset + size` does not fit in 64 bits.
    AddressOverflow {
        /// The buffer.
        id: String,
        /// Its offset.
        offset: Offset,
        /// Its size.
        size: Size,
    },
    /// The offset is not a multiple of the alignment.
    Misaligned {
        /// The buffer.
        id: String,
        /// Its offset.
        offset: Offset,
        /// Its alignment.
        alignment: Size,
    },
    /// A fixed buffer was moved.
    MovedFixed {
        /// The buffer.
        id: String,
        /// Where it must be.
        fixed: Offset,
        /// Where the plan put it.
        offset: Offset,
    },
    /// A buffer ends above the capacity.
    AboveCapacity {
        /// The buffer as placed.
        buffer: Placed,
        /// The capacity.
        capacity: Size,
    },
    /// Two buffers share addresses while both are live.
    Overlap {
        /// The buffer that was placed in the sweep first.
        first: Placed,
        /// The one that collided with it.
        second: Placed,
        /// The time steps at which both are live (within the colliding segments).
        times: Lifetime,
        /// The addresses both occupy.
        addresses: (Offset, Offset),
    },
    /// Two buffers overlap along a declared share ([`crate::Share`]) whose rule does not
    /// hold: the wrong offset, an in-place target still live after the step at which the
    /// buffer is born (read later) or born after it, an inside buffer past its target.
    ShareBroken {
        /// The buffer that uses the other's storage, as placed.
        buffer: Placed,
        /// The target whose storage it uses, as placed.
        target: Placed,
        /// `in_place` or `inside`.
        kind: crate::share::ShareKind,
        /// The time steps at which both are live.
        times: Lifetime,
        /// Which rule is broken, with the times or offsets.
        reason: String,
    },
    /// A required share is not taken: the buffer is not at its target's offset plus the
    /// share's.
    ShareNotTaken {
        /// The buffer.
        buffer: String,
        /// The target.
        target: String,
        /// `in_place` or `inside`.
        kind: crate::share::ShareKind,
        /// Where the buffer must be.
        expected: Offset,
        /// Where the plan put it.
        found: Offset,
    },
    /// Plans across memories ([`super::check_memories`]): the memories, the
    /// input or the plan's shape is not valid.
    #[cfg(feature = "memories")]
    MemoriesInput(crate::memory_types::MemoriesError),
    /// Plans across memories: a buffer is in a memory outside its allowed set.
    #[cfg(feature = "memories")]
    NotAllowed {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
        /// The memory the plan puts it in.
        memory: String,
        /// The memories it may use, joined by `|`.
        allowed: String,
    },
    /// Plans across memories: an offset is not a multiple of its memory's alignment.
    #[cfg(feature = "memories")]
    MemoryMisaligned {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
        /// Its offset.
        offset: Offset,
        /// Its memory.
        memory: String,
        /// The memory's alignment.
        alignment: Size,
    },
    /// Plans across memories: one memory's buffers fail [`crate::check`] (with its
    /// capacity).
    #[cfg(feature = "memories")]
    InMemory {
        /// The memory.
        memory: String,
        /// What [`crate::check`] found.
        failure: CheckFailure,
    },
    /// Plans across memories: a memory's height or traffic is not what the plan claims.
    #[cfg(feature = "memories")]
    MemoryFigure {
        /// `height` or `traffic`.
        what: &'static str,
        /// The memory.
        memory: String,
        /// The plan's figure (`None`: missing).
        claimed: Option<u64>,
        /// The checker's.
        actual: u64,
    },
    /// Plans across memories: the plan's cost is not its buffers'.
    #[cfg(feature = "memories")]
    MemoryCost {
        /// The plan's figure.
        claimed: u64,
        /// The checker's.
        actual: u64,
    },
    /// Tile plans (`tiles::check_tiles`): the plan has a different number of
    /// offsets than there are tensors.
    #[cfg(feature = "tiles")]
    TileCount {
        /// Tensors.
        expected: usize,
        /// Offsets.
        found: usize,
    },
    /// Tile plans: a base address so high that an item's bytes overflow 64 bits.
    #[cfg(feature = "tiles")]
    TileOverflow {
        /// The tensor.
        tensor: String,
    },
    /// Tile plans: two items of different tensors are live together and share bytes.
    #[cfg(feature = "tiles")]
    TileOverlap {
        /// The first tensor and its item (`whole` or `tile N`).
        first: (String, String),
        /// The second tensor and its item.
        second: (String, String),
        /// A time at which both are live.
        time: u64,
        /// A shared byte range `[lo, hi)`.
        bytes: (u64, u64),
    },
    /// Shared-object assignments (`shared_objects::check_shared_objects`): the
    /// assignment has a different number of entries than the problem has buffers.
    #[cfg(feature = "shared_objects")]
    ObjectCount {
        /// Buffers in the problem.
        expected: usize,
        /// Entries in the assignment.
        found: usize,
    },
    /// Shared-object assignments: a buffer names an object that does not exist.
    #[cfg(feature = "shared_objects")]
    UnknownObject {
        /// The buffer.
        buffer: String,
        /// The object it names.
        object: u32,
    },
    /// Shared-object assignments: two buffers of one object are live at the same time.
    #[cfg(feature = "shared_objects")]
    ObjectOverlap {
        /// The object.
        object: u32,
        /// The earlier buffer and its lifetime.
        first: (String, Lifetime),
        /// The later buffer and its lifetime.
        second: (String, Lifetime),
    },
    /// Shared-object assignments: an object smaller than a buffer it holds.
    #[cfg(feature = "shared_objects")]
    ObjectTooSmall {
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

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::WrongCount { expected, found } => {
                write!(f, "the plan has {found} offsets for {expected} buffers")
            }
            Violation::Missing { id } => write!(f, "buffer '{id}' is not placed"),
            Violation::PlacedTwice { id } => write!(f, "buffer '{id}' is placed more than once"),
            Violation::Unknown { id } => {
                write!(f, "the plan places '{id}', which is not in the problem")
            }
            Violation::AddressOverflow { id, offset, size } => {
                write!(
                    f,
                    "buffer '{id}' at offset {offset} with size {size} overflows 64-bit addresses"
                )
            }
            Violation::Misaligned {
                id,
                offset,
                alignment,
            } => {
                write!(
                    f,
                    "buffer '{id}' at offset {offset} is not aligned to {alignment}"
                )
            }
            Violation::MovedFixed { id, fixed, offset } => {
                write!(
                    f,
                    "buffer '{id}' is fixed at {fixed} but placed at {offset}"
                )
            }
            Violation::AboveCapacity { buffer, capacity } => {
                write!(f, "buffer {buffer} ends above the capacity {capacity}")
            }
            Violation::Overlap {
                first,
                second,
                times,
                addresses,
            } => write!(
                f,
                "buffers {first} and {second} overlap at times {times}, addresses [{}, {})",
                addresses.0, addresses.1
            ),
            Violation::ShareBroken {
                buffer,
                target,
                kind,
                times,
                reason,
            } => write!(
                f,
                "buffer {buffer} overlaps {target} at times {times} along a share {kind} that \
                 does not hold: {reason}"
            ),
            Violation::ShareNotTaken {
                buffer,
                target,
                kind,
                expected,
                found,
            } => write!(
                f,
                "required share {kind} of '{}' over '{}' is not taken: '{}' is at {found}, not {expected}",
                crate::error::Escaped(buffer),
                crate::error::Escaped(target),
                crate::error::Escaped(buffer)
            ),
            #[cfg(feature = "memories")]
            Violation::MemoriesInput(e) => write!(f, "{e}"),
            #[cfg(feature = "memories")]
            Violation::NotAllowed {
                index,
                id,
                memory,
                allowed,
            } => write!(
                f,
                "buffer '{}' (#{index}) is in memory '{}', outside its allowed set {}",
                crate::error::Escaped(id),
                crate::error::Escaped(memory),
                crate::error::Escaped(allowed)
            ),
            #[cfg(feature = "memories")]
            Violation::MemoryMisaligned {
                index,
                id,
                offset,
                memory,
                alignment,
            } => write!(
                f,
                "buffer '{}' (#{index}) is at offset {offset} of memory '{}', not a multiple of its alignment {alignment}",
                crate::error::Escaped(id),
                crate::error::Escaped(memory)
            ),
            #[cfg(feature = "memories")]
            Violation::InMemory { memory, failure } => {
                write!(f, "memory '{}': {failure}", crate::error::Escaped(memory))
            }
            #[cfg(feature = "memories")]
            Violation::MemoryFigure {
                what,
                memory,
                claimed,
                actual,
            } => match claimed {
                Some(c) => write!(
                    f,
                    "the plan claims {what} {c} in memory '{}', it is {actual}",
                    crate::error::Escaped(memory)
                ),
                None => write!(
                    f,
                    "the plan gives no {what} for memory '{}'",
                    crate::error::Escaped(memory)
                ),
            },
            #[cfg(feature = "memories")]
            Violation::MemoryCost { claimed, actual } => write!(
                f,
                "the plan claims cost {claimed}, its buffers cost {actual}"
            ),
            #[cfg(feature = "tiles")]
            Violation::TileCount { expected, found } => {
                write!(
                    f,
                    "the plan has {found} offsets but there are {expected} tensors"
                )
            }
            #[cfg(feature = "tiles")]
            Violation::TileOverflow { tensor } => {
                write!(
                    f,
                    "tensor '{tensor}' is placed so high that its bytes overflow"
                )
            }
            #[cfg(feature = "tiles")]
            Violation::TileOverlap {
                first: (a, a_item),
                second: (b, b_item),
                time,
                bytes: (lo, hi),
            } => write!(
                f,
                "'{a}' {a_item} and '{b}' {b_item} share bytes [{lo}, {hi}) at time {time}"
            ),
            #[cfg(feature = "shared_objects")]
            Violation::ObjectCount { expected, found } => write!(
                f,
                "the assignment has {found} entries but the problem has {expected} buffers"
            ),
            #[cfg(feature = "shared_objects")]
            Violation::UnknownObject { buffer, object } => {
                write!(
                    f,
                    "buffer '{buffer}' is in object {object}, which does not exist"
                )
            }
            #[cfg(feature = "shared_objects")]
            Violation::ObjectOverlap {
                object,
                first: (a, a_live),
                second: (b, b_live),
            } => write!(
                f,
                "object {object} holds '{a}' (live {a_live}) and '{b}' (live {b_live}) at the same time"
            ),
            #[cfg(feature = "shared_objects")]
            Violation::ObjectTooSmall {
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

/// What a checker measured of a valid plan. `buffers` and `height` mean something for
/// every checker; the optional fields are those of one checker only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckSummary {
    /// Buffers checked: the problem's buffers ([`crate::check`], shared-object
    /// assignments) or tensors (tile plans).
    pub buffers: usize,
    /// The highest address used: an offset plan's height, `max(offset + size)`; a tile
    /// plan's peak (the highest byte end of a live
    /// item); a shared-object assignment's total, the sum of the object sizes (the height
    /// of the objects stacked).
    pub height: Size,
    /// Tile plans only: the live items (tiles, and whole tensors) checked.
    pub items: Option<usize>,
    /// Shared-object assignments only: the number of objects.
    pub objects: Option<usize>,
}

impl CheckSummary {
    /// A summary with the figures every checker has and none of the optional ones.
    pub(crate) fn new(buffers: usize, height: Size) -> CheckSummary {
        CheckSummary {
            buffers,
            height,
            items: None,
            objects: None,
        }
    }
}

/// What an independent checker found wrong: the first violations (at most 1,000) and
/// how many more. One type for every checker: offset plans, plans across memories
/// (`check_memories`, which reports the first rule broken), tile plans
/// (`tiles::check_tiles`) and shared-object assignments
/// (`shared_objects::check_shared_objects`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFailure {
    /// The violations found, at most 1,000.
    pub violations: Vec<Violation>,
    /// How many more were found but not kept.
    pub more: usize,
}

impl From<Violation> for CheckFailure {
    fn from(v: Violation) -> CheckFailure {
        CheckFailure {
            violations: vec![v],
            more: 0,
        }
    }
}

/// At most this many violations are collected; the rest are counted in
/// [`CheckFailure::more`].
pub(super) const MAX_VIOLATIONS: usize = 1000;

/// What every checker collects: the first [`MAX_VIOLATIONS`] violations, and how many
/// more.
#[derive(Default)]
pub(super) struct Collector {
    violations: Vec<Violation>,
    more: usize,
}

impl Collector {
    /// Keeps `v`, or counts it once [`MAX_VIOLATIONS`] are kept.
    pub(super) fn push(&mut self, v: Violation) {
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(v);
        } else {
            self.more += 1;
        }
    }

    /// The failure: the violations collected.
    pub(super) fn failure(self) -> CheckFailure {
        CheckFailure {
            violations: self.violations,
            more: self.more,
        }
    }

    /// `summary` when no violation was collected, else the failure.
    pub(super) fn finish(self, summary: CheckSummary) -> Result<CheckSummary, CheckFailure> {
        if self.violations.is_empty() {
            Ok(summary)
        } else {
            Err(self.failure())
        }
    }
}

impl Violation {
    /// Whether a failure that starts with this violation counts them all in its message
    /// ("(N violation(s) in all)", the tile and shared-object checkers) rather than the
    /// others ("(and N more violations)").
    fn counts_all(&self) -> bool {
        match self {
            #[cfg(feature = "tiles")]
            Violation::TileCount { .. }
            | Violation::TileOverflow { .. }
            | Violation::TileOverlap { .. } => true,
            #[cfg(feature = "shared_objects")]
            Violation::ObjectCount { .. }
            | Violation::UnknownObject { .. }
            | Violation::ObjectOverlap { .. }
            | Violation::ObjectTooSmall { .. } => true,
            _ => false,
        }
    }
}

impl fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.violations.len() + self.more;
        match self.violations.first() {
            None => f.write_str("invalid plan"),
            Some(first) if first.counts_all() => {
                write!(f, "{first} ({total} violation(s) in all)")
            }
            Some(first) if total == 1 => write!(f, "{first}"),
            Some(first) => write!(f, "{first} (and {} more violations)", total - 1),
        }
    }
}

impl std::error::Error for CheckFailure {}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(violations: Vec<Violation>, more: usize) -> String {
        CheckFailure { violations, more }.to_string()
    }

    #[test]
    fn a_failure_reads_as_its_checker_always_wrote_it() {
        let missing = |id: &str| Violation::Missing { id: id.into() };
        assert_eq!(failure(vec![], 0), "invalid plan");
        assert_eq!(failure(vec![missing("a")], 0), "buffer 'a' is not placed");
        assert_eq!(
            failure(vec![missing("a"), missing("b")], 3),
            "buffer 'a' is not placed (and 4 more violations)"
        );
        #[cfg(feature = "tiles")]
        assert_eq!(
            failure(vec![Violation::TileOverflow { tensor: "t".into() }], 1),
            "tensor 't' is placed so high that its bytes overflow (2 violation(s) in all)"
        );
        #[cfg(feature = "shared_objects")]
        assert_eq!(
            failure(
                vec![Violation::UnknownObject {
                    buffer: "b".into(),
                    object: 3
                }],
                0
            ),
            "buffer 'b' is in object 3, which does not exist (1 violation(s) in all)"
        );
        #[cfg(feature = "memories")]
        assert_eq!(
            failure(
                vec![Violation::InMemory {
                    memory: "fast".into(),
                    failure: CheckFailure {
                        violations: vec![missing("a"), missing("b")],
                        more: 0
                    }
                }],
                0
            ),
            "memory 'fast': buffer 'a' is not placed (and 1 more violations)"
        );
    }
}
