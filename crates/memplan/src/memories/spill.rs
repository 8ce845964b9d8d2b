//! Spill: which buffers leave a fast memory of capacity `C` for an unbounded slow one,
//! at the least total cost. It is the two-memory form of [`plan_memories`]: memory 0,
//! `fast`, has the capacity `C`; memory 1, `slow`, is unbounded; each buffer's cost
//! (default its size) is its traffic, so a plan's cost is the cost of its slow buffers,
//! and each buffer's [`SpillMemory`] is its allowed set (a fixed offset is in `fast`).
//!
//! ```text
//!   C = 8 bytes of fast memory
//!   time               0   1   2   3
//!   a  size 4  cost 9  [===========)
//!   b  size 4  cost 3  [=======)
//!   c  size 4  cost 5      [=======)
//!   need = load − C    0   4   0
//!
//!   fast (C = 8)                 slow
//!   8 +-----------+            4 +-------+
//!     |   | c     |              |   b   |
//!   4 +---+-------+            0 +-------+
//!     |     a     |                0   2
//!   0 +-----------+
//!     0   1   2   3
//! ```
//!
//! At time 1, 4 bytes must leave; b's are the cheapest (3/4 per byte), so every plan
//! costs at least 3, and spilling b costs 3: optimal. The answer is a
//! [`MemoriesReport`]; [`check_memories`] checks its plan across [`spill_request`]'s
//! memories.

use std::time::Duration;

use crate::memory_types::{MemoriesError, Memory, MemorySet, SpillError, SpillInput};
use crate::request::Request;
use crate::types::{Problem, Size};

#[cfg(doc)]
use super::{check_memories, SpillMemory};
use super::{plan_memories, Infeasibility, MemoriesOptions, MemoriesReport};

/// The two-memory request of a spill problem under a fast capacity: the memories `fast`
/// (with the capacity) and `slow` (unbounded), and each buffer's allowed set. Pass
/// `input.memories_input(&allowed)` with them to [`plan_memories`] or
/// [`check_memories`].
pub fn spill_request(
    problem: &Problem,
    capacity: Size,
    input: &SpillInput<'_>,
) -> Result<([Memory; 2], Vec<MemorySet>), SpillError> {
    let allowed = input.allowed(problem)?;
    let fast = Memory::new("fast").with_capacity(capacity.get());
    Ok(([fast, Memory::new("slow")], allowed))
}

/// Chooses the buffers to spill so that the rest fit under the request's capacity (the
/// fast memory's: its goal must be [`crate::Goal::Fit`]) at the least total cost, within
/// its budget, and plans both memories: memory 0, `fast`, under the capacity, and 1,
/// `slow`, unbounded, each buffer's cost (default its size) as its traffic, so that the
/// plan's cost is its slow buffers'. `Infeasible` when the buffers that must stay fast
/// (fixed, or [`SpillMemory::Fast`]) do not fit.
///
/// ```
/// use memplan::memories::{check_memories, plan_spill, spill_request, MemoriesOptions, MemoryIdx, SpillInput};
/// use memplan::{Buffer, Outcome, Problem, Request, Size};
///
/// let problem = Problem::new(vec![
///     Buffer::new("a", 0, 3, 4),
///     Buffer::new("b", 0, 2, 4),
///     Buffer::new("c", 1, 3, 4),
/// ])?;
/// let costs = [9, 3, 5];
/// let input = SpillInput { costs: Some(&costs), memory: None };
/// let report = plan_spill(&problem, &input, &Request::fit(Size(8)), &MemoriesOptions::default())?;
/// let Outcome::Optimal(plan) = &report.outcome else { panic!("{:?}", report.outcome) };
/// assert_eq!(plan.memory, [MemoryIdx(0), MemoryIdx(1), MemoryIdx(0)]); // b is spilled
/// assert_eq!(plan.cost, 3);
/// let (memories, allowed) = spill_request(&problem, Size(8), &input)?;
/// check_memories(&problem, &memories, &input.memories_input(&allowed), plan)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan_spill(
    problem: &Problem,
    input: &SpillInput<'_>,
    request: &Request,
    options: &MemoriesOptions,
) -> Result<MemoriesReport, SpillError> {
    let capacity = request.capacity().ok_or(SpillError::NoCapacity)?;
    let (memories, allowed) = spill_request(problem, capacity, input)?;
    let memories_input = input.memories_input(&allowed);
    match plan_memories(problem, &memories, &memories_input, request, options) {
        Ok(report) => Ok(report),
        // A buffer that must stay fast is larger than the capacity: no plan.
        Err(MemoriesError::TooLarge {
            index, id, need, ..
        }) => Ok(MemoriesReport {
            outcome: crate::outcome::Outcome::Infeasible,
            lower_bound: 0,
            infeasibility: Some(Infeasibility {
                memory: "fast".into(),
                memories: vec!["fast".into()],
                capacity,
                time: Some(problem.buffers()[index].lifetime.start),
                need,
                buffers: vec![id],
                exhaustive: false,
            }),
            failed_memory: None,
            levels: Vec::new(),
            fallback: false,
            traffic_bounds: Vec::new(),
            elapsed: Duration::ZERO,
            work: 0,
            stopped_by: None,
        }),
        Err(e) => Err(e.into()),
    }
}
