//! [`super::plan_spill`] as the two-memory case of [`crate::memories::plan_memories`]:
//! the translation of the input, the report and the errors, and nothing else.

use crate::memories::{
    plan_memories, MemoriesError, MemoriesInput, MemoriesReport, Memory as Bank, MemoryIdx,
    MemoryPlan, MemorySet,
};
use crate::outcome::Outcome;
use crate::request::Request;
use crate::types::{BufferIdx, Offset, Plan, Problem, Size};

use super::{Levels, Memory, SpillError, SpillInput, SpillOptions, SpillReport, TwoLevelPlan};

/// The two memories and the allowed sets of a spill input, after spill's own checks
/// (lengths, a fixed buffer asked to be slow, the costs' sum).
pub(crate) fn translate(
    problem: &Problem,
    capacity: Size,
    input: &SpillInput<'_>,
) -> Result<([Bank; 2], Vec<MemorySet>), SpillError> {
    let n = problem.len();
    if let Some(c) = input.costs {
        if c.len() != n {
            return Err(SpillError::CostCount {
                expected: n,
                found: c.len(),
            });
        }
        c.iter()
            .try_fold(0u64, |acc, &c| acc.checked_add(c))
            .ok_or(SpillError::CostOverflow)?;
    }
    if let Some(m) = input.memory {
        if m.len() != n {
            return Err(SpillError::MemoryCount {
                expected: n,
                found: m.len(),
            });
        }
    }
    let mut allowed = Vec::with_capacity(n);
    for (i, b) in problem.indexed() {
        let wanted = input.memory.map_or(Memory::Either, |m| m[i]);
        allowed.push(match (b.fixed_offset.is_some(), wanted) {
            (true, Memory::Slow) => {
                return Err(SpillError::FixedInSlow {
                    index: i.index(),
                    id: b.id.clone(),
                })
            }
            (true, _) | (false, Memory::Fast) => MemorySet::single(MemoryIdx(0)),
            (false, Memory::Slow) => MemorySet::single(MemoryIdx(1)),
            (false, Memory::Either) => MemorySet::all(2),
        });
    }
    let banks = [
        Bank::new("fast").with_capacity(capacity.get()),
        Bank::new("slow"),
    ];
    Ok((banks, allowed))
}

/// The two-level plan of a two-memory plan.
pub(crate) fn two_level(plan: &MemoryPlan) -> TwoLevelPlan {
    TwoLevelPlan {
        spilled: plan.memory.iter().map(|&m| m == MemoryIdx(1)).collect(),
        offsets: plan.offsets.clone(),
        fast_height: plan.heights[0],
        slow_height: plan.heights[1],
        cost: plan.cost,
    }
}

/// [`super::plan_spill`].
pub(crate) fn run(
    problem: &Problem,
    input: &SpillInput<'_>,
    request: &Request,
    options: &SpillOptions,
) -> Result<SpillReport, SpillError> {
    let capacity = request.capacity().ok_or(SpillError::NoCapacity)?;
    let (banks, allowed) = translate(problem, capacity, input)?;
    let memories_input = MemoriesInput {
        allowed: Some(&allowed),
        accesses: None,
        traffic: input.costs,
    };
    let report = match plan_memories(problem, &banks, &memories_input, request, options) {
        Ok(r) => r,
        // A buffer that must stay fast is above the capacity: no plan.
        Err(MemoriesError::TooLarge { .. }) => {
            return Ok(SpillReport {
                outcome: Outcome::Infeasible,
                lower_bound: 0,
                stats: Default::default(),
                elapsed: Default::default(),
            })
        }
        Err(e) => return Err(error(e)),
    };
    Ok(spill_report(report))
}

/// The spill report of a two-memory report.
fn spill_report(report: MemoriesReport) -> SpillReport {
    let stats = report.levels.first().map(|l| l.stats).unwrap_or_default();
    let outcome = match report.outcome {
        Outcome::Optimal(p) => Outcome::Optimal(two_level(&p)),
        Outcome::Feasible { plan, lower_bound } => Outcome::Feasible {
            plan: two_level(&plan),
            lower_bound,
        },
        Outcome::Infeasible => Outcome::Infeasible,
        Outcome::Unknown { lower_bound, .. } => Outcome::Unknown {
            best_so_far: None,
            lower_bound,
        },
    };
    SpillReport {
        outcome,
        lower_bound: report.lower_bound,
        stats,
        elapsed: report.elapsed,
    }
}

/// A memories error as a spill error.
pub(crate) fn error(e: MemoriesError) -> SpillError {
    match e {
        MemoriesError::Plan(e) => SpillError::Plan(e),
        MemoriesError::InvalidPlan(s) => SpillError::InvalidPlan(s),
        MemoriesError::Overflow(_) => SpillError::CostOverflow,
        MemoriesError::PlanShape { expected, found } => SpillError::PlanShape { expected, found },
        other => SpillError::InvalidPlan(other.to_string()),
    }
}

/// The buffers with `flags[i]`, in index order.
fn members(flags: &[bool]) -> Vec<BufferIdx> {
    (0..flags.len() as u32)
        .map(BufferIdx)
        .filter(|&i| flags[i.index()])
        .collect()
}

/// [`super::TwoLevelPlan::levels`].
pub(crate) fn split_levels(
    problem: &Problem,
    spilled: &[bool],
    offsets: &[Offset],
) -> Result<Levels, SpillError> {
    let n = problem.len();
    if spilled.len() != n || offsets.len() != n {
        return Err(SpillError::PlanShape {
            expected: n,
            found: spilled.len().min(offsets.len()),
        });
    }
    let kept: Vec<bool> = spilled.iter().map(|&s| !s).collect();
    let level = |members: Vec<BufferIdx>| {
        let buffers = members.iter().map(|&i| problem.buffer(i).clone()).collect();
        let sub = Problem::new(buffers).expect("a subset of a valid problem is valid");
        let plan = Plan::new(&sub, members.iter().map(|&i| offsets[i]).collect()).ok_or(
            SpillError::PlanShape {
                expected: n,
                found: n,
            },
        )?;
        Ok::<_, SpillError>((sub, plan, members))
    };
    let (fast, fast_plan, fast_buffers) = level(members(&kept))?;
    let (slow, slow_plan, slow_buffers) = level(members(spilled))?;
    Ok(Levels {
        fast,
        fast_plan,
        fast_buffers,
        slow,
        slow_plan,
        slow_buffers,
    })
}
