//! One level of the problem: a memory of bounded capacity against "the rest" (the
//! memories after it), with each buffer's cost of leaving it, its forced decisions, and a
//! valid choice ([`Solution`]).

use crate::types::{BufferIdx, Offset, Problem, Size};

/// A buffer's level, decided or not: `Fast` is this level's memory, `Slow` the rest. The
/// model's base decisions come from the allowed sets (fixed offsets and buffers with no
/// later memory give `Fast`, buffers not allowed here `Slow`); the exact search decides
/// the `Free` ones one by one.
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
pub(crate) struct LevelModel<'p> {
    pub(crate) problem: &'p Problem,
    /// The fast capacity.
    pub(crate) capacity: Size,
    /// The cost of spilling each buffer; their sum fits in a `u64`.
    pub(crate) costs: Vec<u64>,
    /// Each buffer's forced level, or `Free`.
    pub(crate) base: Vec<Decision>,
}

impl<'p> LevelModel<'p> {
    /// A level: the buffers of `problem`, the capacity of the level's memory, each
    /// buffer's cost of leaving it, and the forced decisions (`Fast`: it must stay,
    /// which buffers with a fixed offset must).
    pub(crate) fn new(
        problem: &'p Problem,
        capacity: Size,
        costs: Vec<u64>,
        base: Vec<Decision>,
    ) -> LevelModel<'p> {
        debug_assert!(problem
            .indexed()
            .all(|(i, b)| b.fixed_offset.is_none() || base[i] == Decision::Fast));
        LevelModel {
            problem,
            capacity,
            costs,
            base,
        }
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
