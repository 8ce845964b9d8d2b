//! Spill: which buffers leave a fast memory of capacity `C` for an unbounded slow one,
//! at the least total cost: the two-memory problem that [`MemoriesProblem::spill`]
//! makes (see its docs for the model and an example). [`plan_spill`] and
//! [`spill_request`] are its short forms over a borrowed [`Problem`].

use crate::memory_types::{Memory, MemorySet, SpillError, SpillInput};
use crate::request::Request;
use crate::types::{Problem, Size};

use super::memories_problem::plan_reporting_pins;
#[cfg(doc)]
use super::plan_memories;
#[cfg(doc)]
use super::{check_memories, MemoriesProblem, SpillMemory};
use super::{MemoriesOptions, MemoriesReport};

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
    Ok(plan_reporting_pins(
        problem,
        &memories,
        &memories_input,
        request,
        options,
    )?)
}
