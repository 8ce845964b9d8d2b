//! The validated spill problem: costs, forced levels, a valid choice ([`Solution`]), and
//! the split of a two-level plan into two ordinary problems.

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
    pub(crate) capacity: Size,
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
            None => problem
                .buffers()
                .iter()
                .map(|b| u64::from(b.size))
                .collect(),
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
        for (i, b) in problem.indexed() {
            let wanted = input.memory.map_or(Memory::Either, |m| m[i]);
            base.push(match (b.fixed_offset.is_some(), wanted) {
                (true, Memory::Slow) => {
                    return Err(SpillError::FixedInSlow {
                        index: i.index(),
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
            capacity,
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
    pub(crate) fn forced_fast(&self, i: BufferIdx) -> bool {
        self.base[i] == Decision::Fast
    }

    /// The buffers whose base decision is `d`, in index order.
    pub(crate) fn decided(&self, d: Decision) -> impl Iterator<Item = BufferIdx> + '_ {
        self.problem.indices().filter(move |&i| self.base[i] == d)
    }

    /// Spills every free buffer (the last resort: only the forced-fast ones stay).
    pub(crate) fn spill_every_free(&self, spilled: &mut [bool]) {
        for i in self.decided(Decision::Free) {
            spilled[i] = true;
        }
    }

    /// True when every kept buffer must stay fast.
    pub(crate) fn only_forced_kept(&self, spilled: &[bool]) -> bool {
        self.problem
            .indices()
            .all(|i| spilled[i] || self.forced_fast(i))
    }

    /// Spilled free buffers, most expensive first (ties: smaller first, then index).
    pub(crate) fn spilled_by_cost(&self, spilled: &[bool]) -> Vec<BufferIdx> {
        let mut order: Vec<BufferIdx> = self
            .decided(Decision::Free)
            .filter(|&i| spilled[i])
            .collect();
        let bufs = self.problem.buffers();
        order.sort_by_key(|&i| (std::cmp::Reverse(self.costs[i]), bufs[i].size, i));
        order
    }

    /// The highest end address of the kept buffers at `offsets` (0 when none is kept).
    pub(crate) fn height_of(&self, kept: &[bool], offsets: &[Offset]) -> Size {
        self.problem
            .indexed()
            .filter(|&(i, _)| kept[i])
            .map(|(i, b)| (offsets[i] + b.size).as_height())
            .max()
            .unwrap_or(Size::ZERO)
    }
}

/// A valid choice: the spilled set and the fast offsets of the kept buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    /// `true`: spilled. Indexed like the problem.
    pub(crate) spilled: Vec<bool>,
    /// Fast offsets; only kept buffers' entries mean anything.
    pub(crate) offsets: Vec<Offset>,
    /// The cost of the spilled buffers.
    pub(crate) cost: u64,
}

/// The buffers with `flags[i]` (kept, or spilled), in index order.
pub(crate) fn members(flags: &[bool]) -> Vec<BufferIdx> {
    (0..flags.len())
        .map(BufferIdx::new)
        .filter(|&i| flags[i])
        .collect()
}

/// The problem of the buffers at `members` (a subset of a valid problem is valid).
pub(crate) fn sub_problem(problem: &Problem, members: &[BufferIdx]) -> Problem {
    let buffers = members.iter().map(|&i| problem.buffer(i).clone()).collect();
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
    let kept: Vec<bool> = spilled.iter().map(|&s| !s).collect();
    let level = |members: Vec<BufferIdx>| {
        let sub = sub_problem(problem, &members);
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
