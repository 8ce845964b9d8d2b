//! The validated problem of several memories, as the sweep and the joint search read
//! it: each buffer's allowed set (after the size presolve, [`narrowed`]) and traffic,
//! the memories' order and their costs per byte for the objective (`Σ traffic × cost`,
//! or without costs 0 for the first memory and 1 for the others, so that the scalar
//! cost is the traffic outside the first memory). See the module docs of
//! [`super`] for the model.

use crate::memory_types::{
    allowed_of, traffic_of, validate_memories, MemoriesError, MemoriesInput, Memory, MemoryIdx,
    MemorySet,
};
use crate::types::{Buffer, BufferIdx, Problem, Size};

/// The validated problem: each buffer's allowed set and traffic, the memories' order
/// and their costs per byte for the objective.
pub(super) struct Model<'a> {
    pub(super) problem: &'a Problem,
    pub(super) memories: &'a [Memory],
    pub(super) allowed: Vec<MemorySet>,
    pub(super) traffic: Vec<u64>,
    /// The memories in the order their levels are solved.
    pub(super) order: Vec<MemoryIdx>,
    /// With costs: each memory's. Without: 0 for the first memory, 1 for the others
    /// (the plan's scalar cost is then the traffic outside the first memory).
    pub(super) unit_cost: Vec<u64>,
    /// Whether the memories have costs.
    pub(super) priced: bool,
}

/// Each memory's cost per byte of traffic: its own, or without one 0 for the first
/// memory and 1 for the others.
pub(super) fn unit_costs(memories: &[Memory]) -> Vec<u64> {
    memories
        .iter()
        .enumerate()
        .map(|(k, m)| m.cost.unwrap_or(u64::from(k > 0)))
        .collect()
}

impl<'a> Model<'a> {
    pub(super) fn new(
        problem: &'a Problem,
        memories: &'a [Memory],
        input: &MemoriesInput<'_>,
        presolve: bool,
    ) -> Result<Model<'a>, MemoriesError> {
        validate_memories(memories)?;
        let traffic = traffic_of(problem, input)?;
        let allowed = allowed_of(problem, memories, input)?;
        let allowed = if presolve {
            narrowed(problem, memories, allowed)
        } else {
            allowed
        };
        let priced = memories.iter().all(|m| m.cost.is_some());
        let unit_cost = unit_costs(memories);
        let max_cost = unit_cost.iter().copied().max().unwrap_or(0);
        traffic
            .iter()
            .try_fold(0u64, |s, &t| s.checked_add(t.checked_mul(max_cost)?))
            .ok_or(MemoriesError::Overflow("the total cost"))?;
        let mut order: Vec<MemoryIdx> = (0..memories.len() as u32).map(MemoryIdx).collect();
        if priced {
            order.sort_by_key(|&m| (unit_cost[m.index()], m));
        }
        Ok(Model {
            problem,
            memories,
            allowed,
            traffic,
            order,
            unit_cost,
            priced,
        })
    }

    /// The plan's cost: `Σ traffic × unit cost`.
    pub(super) fn cost_of(&self, memory: &[MemoryIdx]) -> u64 {
        memory
            .iter()
            .zip(&self.traffic)
            .map(|(m, &t)| t * self.unit_cost[m.index()])
            .sum()
    }

    /// The cheapest unit cost of the memories of `set` (u64::MAX when empty).
    pub(super) fn cheapest(&self, set: MemorySet) -> u64 {
        set.iter()
            .map(|m| self.unit_cost[m.index()])
            .min()
            .unwrap_or(u64::MAX)
    }
}

/// Each buffer's allowed set without the bounded memories it is larger than: no plan
/// puts it there, and deciding that up front keeps the bounds from counting part of it
/// as held (a fractional cover would) and leaves it out of those memories' levels, whose
/// time components it would otherwise join. A set left empty, and the set of a buffer
/// with a fixed offset, are kept as given: the levels then report the failure.
pub(crate) fn narrowed(
    problem: &Problem,
    memories: &[Memory],
    allowed: Vec<MemorySet>,
) -> Vec<MemorySet> {
    allowed
        .into_iter()
        .zip(problem.buffers())
        .map(|(set, b)| {
            let fits = |m: &MemoryIdx| memories[m.index()].capacity.is_none_or(|c| b.size <= c);
            let room = MemorySet::of(set.iter().filter(fits));
            if room.is_empty() || b.fixed_offset.is_some() {
                set
            } else {
                room
            }
        })
        .collect()
}

/// The buffers of `members`, aligned for `memory` too (the lcm of the two alignments).
pub(super) fn level_problem(
    problem: &Problem,
    members: &[BufferIdx],
    memory: &Memory,
) -> Result<Problem, MemoriesError> {
    let buffers: Vec<Buffer> = members
        .iter()
        .map(|&i| {
            let b = problem.buffer(i);
            let alignment = lcm(b.alignment.get(), memory.alignment.get())
                .ok_or(MemoriesError::Overflow("an alignment"))?;
            Ok(Buffer {
                alignment: Size(alignment),
                ..b.clone()
            })
        })
        .collect::<Result<_, MemoriesError>>()?;
    Problem::new(buffers).map_err(|_| MemoriesError::Overflow("a memory's naive height"))
}

/// The least common multiple, `None` on overflow.
pub(super) fn lcm(a: u64, b: u64) -> Option<u64> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).checked_mul(b)
}
