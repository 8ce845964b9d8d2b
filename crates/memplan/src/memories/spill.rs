//! Spill: which buffers leave a fast memory of capacity `C` for an unbounded slow one,
//! at the least total cost: the two-memory problem that [`MemoriesProblem::spill`]
//! makes (see its docs for the model and an example). [`plan_spill`] is its short form
//! over a borrowed [`Problem`].

use crate::memory_types::SpillMemory;
use crate::memory_types::{MemoriesError, MemoriesInput};
use crate::request::Request;
use crate::types::Problem;

use super::memories_problem::{plan_reporting_pins, spill_allowed, spill_memories};
#[cfg(doc)]
use super::MemoriesProblem;
use super::{MemoriesOptions, MemoriesReport};

/// Chooses the buffers to spill so that the rest fit under the request's capacity (the
/// fast memory's: its goal must be [`crate::Goal::Fit`]) at the least total cost, within
/// its budget, and plans both memories: [`MemoriesProblem::spill`]'s problem, planned.
/// `costs` (default: the sizes) are each buffer's traffic, `pins` where it must live.
///
/// ```
/// use memplan::memories::{plan_spill, MemoriesOptions, MemoryIdx};
/// use memplan::{Buffer, Outcome, Problem, Request, Size};
///
/// let problem = Problem::new(vec![
///     Buffer::new("a", 0, 3, 4),
///     Buffer::new("b", 0, 2, 4),
///     Buffer::new("c", 1, 3, 4),
/// ])?;
/// let request = Request::fit(Size(8));
/// let report = plan_spill(&problem, Some(&[9, 3, 5]), None, &request, &MemoriesOptions::default())?;
/// let Outcome::Optimal(plan) = &report.outcome else { panic!("{:?}", report.outcome) };
/// assert_eq!(plan.memory, [MemoryIdx(0), MemoryIdx(1), MemoryIdx(0)]); // b is spilled
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan_spill(
    problem: &Problem,
    costs: Option<&[u64]>,
    pins: Option<&[SpillMemory]>,
    request: &Request,
    options: &MemoriesOptions,
) -> Result<MemoriesReport, MemoriesError> {
    let capacity = request.capacity().ok_or(MemoriesError::NoCapacity)?;
    let allowed = spill_allowed(problem, costs, pins)?;
    let input = MemoriesInput {
        allowed: Some(&allowed),
        accesses: None,
        traffic: costs,
    };
    let memories = spill_memories(capacity);
    plan_reporting_pins(problem, &memories, &input, request, options)
}
