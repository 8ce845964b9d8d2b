//! The validated spill problem: costs, forced levels, and the split of a two-level plan
//! into two ordinary problems.

use crate::types::{BufferIdx, Offset, Plan, Problem, Size};

use super::{Levels, Memory, SpillError, SpillInput};

/// A buffer's level, decided or not. The model's base decisions come from the input
/// (fixed offsets and [`Memory::Fast`] give `Fast`, [`Memory::Slow`] gives `Slow`); the
/// exact search decides the `Free` ones one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Kept in fast memory.
    Fast,
    /// Spilled to slow memory.
    Slow,
    /// Not decided.
    Free,
}

/// A validated spill problem.
#[derive(Clone, Debug)]
pub(crate) struct SpillModel<'p> {
    pub(crate) problem: &'p Problem,
    /// The fast capacity.
    pub(crate) capacity: u64,
    /// The cost of spilling each buffer; their sum fits in a `u64`.
    pub(crate) costs: Vec<u64>,
    /// Each buffer's forced level, or `Free`.
    pub(crate) base: Vec<Decision>,
}

impl<'p> SpillModel<'p> {
    /// Checks the input against the problem: lengths, fixed buffers not slow, the sum of
    /// the costs.
    pub(crate) fn new(
        problem: &'p Problem,
        capacity: Size,
        input: &SpillInput<'_>,
    ) -> Result<SpillModel<'p>, SpillError> {
        let n = problem.len();
        let costs: Vec<u64> = match input.costs {
            Some(c) if c.len() != n => {
                return Err(SpillError::CostCount {
                    expected: n,
                    found: c.len(),
                })
            }
            Some(c) => c.to_vec(),
            None => problem.buffers().iter().map(|b| b.size.0).collect(),
        };
        costs
            .iter()
            .try_fold(0u64, |acc, &c| acc.checked_add(c))
            .ok_or(SpillError::CostOverflow)?;
        if let Some(m) = input.memory {
            if m.len() != n {
                return Err(SpillError::MemoryCount {
                    expected: n,
                    found: m.len(),
                });
            }
        }
        let mut base = Vec::with_capacity(n);
        for (i, b) in problem.buffers().iter().enumerate() {
            let wanted = input.memory.map_or(Memory::Either, |m| m[i]);
            base.push(match (b.fixed_offset.is_some(), wanted) {
                (true, Memory::Slow) => {
                    return Err(SpillError::FixedInSlow {
                        index: i,
                        id: b.id.clone(),
                    })
                }
                (true, _) | (false, Memory::Fast) => Decision::Fast,
                (false, Memory::Slow) => Decision::Slow,
                (false, Memory::Either) => Decision::Free,
            });
        }
        Ok(SpillModel {
            problem,
            capacity: capacity.0,
            costs,
            base,
        })
    }

    /// The number of buffers.
    pub(crate) fn len(&self) -> usize {
        self.problem.len()
    }

    /// The total cost of the spilled buffers.
    pub(crate) fn cost_of(&self, spilled: &[bool]) -> u64 {
        spilled
            .iter()
            .zip(&self.costs)
            .filter(|(&s, _)| s)
            .map(|(_, &c)| c)
            .sum()
    }

    /// True when the buffer must stay in fast memory.
    pub(crate) fn forced_fast(&self, i: usize) -> bool {
        self.base[i] == Decision::Fast
    }
}

/// The problem of the buffers at `members` (a subset of a valid problem is valid).
pub(crate) fn sub_problem(problem: &Problem, members: &[usize]) -> Problem {
    let buffers = members
        .iter()
        .map(|&i| problem.buffers()[i].clone())
        .collect();
    Problem::new(buffers).expect("a subset of a valid problem is valid")
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
    let fast_members: Vec<usize> = (0..n).filter(|&i| !spilled[i]).collect();
    let slow_members: Vec<usize> = (0..n).filter(|&i| spilled[i]).collect();
    let level = |members: &[usize]| {
        let sub = sub_problem(problem, members);
        let plan = Plan::new(&sub, members.iter().map(|&i| offsets[i]).collect()).ok_or(
            SpillError::PlanShape {
                expected: n,
                found: n,
            },
        )?;
        let idx = members.iter().map(|&i| BufferIdx(i as u32)).collect();
        Ok::<_, SpillError>((sub, plan, idx))
    };
    let (fast, fast_plan, fast_buffers) = level(&fast_members)?;
    let (slow, slow_plan, slow_buffers) = level(&slow_members)?;
    Ok(Levels {
        fast,
        fast_plan,
        fast_buffers,
        slow,
        slow_plan,
        slow_buffers,
    })
}
