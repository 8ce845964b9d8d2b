//! [`check_memories`]: the independent check of a plan across several memories.
//!
//! A [`MemoryPlan`] is valid for a problem, a list of memories and an input when:
//!
//! 1. the memories and the input are valid (names, counts, allowed sets, pins);
//! 2. it has one memory and one offset per buffer, each memory in the list;
//! 3. each buffer's memory is in its allowed set (a buffer with a fixed offset and the
//!    set of all memories is in the first memory);
//! 4. each offset is a multiple of its memory's alignment;
//! 5. each memory's buffers, as a problem of their own with the shares between them,
//!    pass [`crate::check`] under the memory's capacity (overlaps, shares, fixed
//!    offsets, buffer alignments, capacity), and a required share's two buffers are in
//!    one memory;
//! 6. its per-memory heights and traffic, and its cost, are those of its buffers.
//!
//! It shares no code with the planner across memories: only the model's types and input
//! rules (`crate::memory_types`, which both import) and [`crate::check`].

use crate::memory_types::{
    allowed_of, memory_set_names, traffic_of, validate_memories, MemoriesError, MemoriesInput,
    Memory, MemoryPlan,
};
use crate::types::{Plan, Problem, Size};

use super::{check, CheckFailure, Violation};

/// What [`check_memories`] measured of a valid plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoriesCheckSummary {
    /// Buffers checked.
    pub buffers: usize,
    /// Per memory, its height.
    pub heights: Vec<Size>,
    /// Per memory, its traffic.
    pub traffic: Vec<u64>,
    /// The plan's cost.
    pub cost: u64,
}

/// Checks a plan across memories (see the module docs of `crate::memory_types` for the
/// model). Reports the first rule broken, naming the buffer; a memory's own violations
/// come from [`crate::check`].
pub fn check_memories(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    plan: &MemoryPlan,
) -> Result<MemoriesCheckSummary, CheckFailure> {
    validate_memories(memories).map_err(Violation::MemoriesInput)?;
    let allowed = allowed_of(problem, memories, input).map_err(Violation::MemoriesInput)?;
    let traffic = traffic_of(problem, input).map_err(Violation::MemoriesInput)?;
    let n = problem.len();
    let k = memories.len();
    if plan.memory.len() != n
        || plan.offsets.len() != n
        || plan.memory.iter().any(|m| m.index() >= k)
    {
        return Err(Violation::MemoriesInput(MemoriesError::PlanShape {
            expected: n,
            found: plan.memory.len().min(plan.offsets.len()),
        })
        .into());
    }
    let bufs = problem.buffers();
    for (i, b) in bufs.iter().enumerate() {
        let m = plan.memory[i];
        let memory = &memories[m.index()];
        if !allowed[i].contains(m) {
            return Err(Violation::NotAllowed {
                index: i,
                id: b.id.clone(),
                memory: memory.name.clone(),
                allowed: memory_set_names(memories, allowed[i]),
            }
            .into());
        }
        let alignment = memory.alignment.get();
        if alignment == 0 || !plan.offsets[i].get().is_multiple_of(alignment) {
            return Err(Violation::MemoryMisaligned {
                index: i,
                id: b.id.clone(),
                offset: plan.offsets[i],
                memory: memory.name.clone(),
                alignment: memory.alignment,
            }
            .into());
        }
    }
    // A required share joins two buffers of one memory.
    for (s, share) in problem.shares().iter().enumerate() {
        let (b, t) = problem.share_ends(s);
        if share.required && plan.memory[b.index()] != plan.memory[t.index()] {
            return Err(Violation::ShareNotTaken {
                buffer: share.buffer.clone(),
                target: share.target.clone(),
                kind: share.kind,
                expected: plan.offsets[t.index()],
                found: plan.offsets[b.index()],
            }
            .into());
        }
    }
    let mut heights = Vec::with_capacity(k);
    let mut traffics = Vec::with_capacity(k);
    for (m, memory) in memories.iter().enumerate() {
        let members: Vec<usize> = (0..n).filter(|&i| plan.memory[i].index() == m).collect();
        // The shares between two buffers of this memory go with them.
        let shares = (0..problem.shares().len())
            .filter(|&s| {
                let (b, t) = problem.share_ends(s);
                plan.memory[b.index()].index() == m && plan.memory[t.index()].index() == m
            })
            .map(|s| problem.shares()[s].clone())
            .collect();
        let sub = Problem::with_shares(members.iter().map(|&i| bufs[i].clone()).collect(), shares)
            .map_err(|e| Violation::MemoriesInput(MemoriesError::InvalidPlan(e.to_string())))?;
        let offsets = members.iter().map(|&i| plan.offsets[i]).collect();
        let in_memory = |failure: CheckFailure| Violation::InMemory {
            memory: memory.name.clone(),
            failure,
        };
        // A plan whose addresses overflow names each buffer whose end does.
        let sub_plan = Plan::new(&sub, offsets).ok_or_else(|| {
            let violations = members
                .iter()
                .filter(|&&i| plan.offsets[i].checked_add(bufs[i].size).is_none())
                .map(|&i| Violation::AddressOverflow {
                    id: bufs[i].id.clone(),
                    offset: plan.offsets[i],
                    size: bufs[i].size,
                })
                .collect();
            in_memory(CheckFailure {
                violations,
                more: 0,
            })
        })?;
        // One violation per fault, each naming the memory, so that a count of them is
        // the count of faults (not one wrapper around several).
        let summary = check(&sub, &sub_plan, memory.capacity).map_err(|f| CheckFailure {
            violations: f
                .violations
                .into_iter()
                .map(|v| {
                    in_memory(CheckFailure {
                        violations: vec![v],
                        more: 0,
                    })
                })
                .collect(),
            more: f.more,
        })?;
        heights.push(summary.height);
        traffics.push(members.iter().map(|&i| traffic[i]).sum::<u64>());
    }
    let priced = memories.iter().all(|m| m.cost.is_some());
    let mut cost = 0u64;
    for (i, &t) in traffic.iter().enumerate() {
        let m = plan.memory[i].index();
        let unit = if priced {
            memories[m].cost.unwrap_or(0)
        } else {
            u64::from(m > 0)
        };
        cost = t
            .checked_mul(unit)
            .and_then(|c| cost.checked_add(c))
            .ok_or(Violation::MemoriesInput(MemoriesError::Overflow(
                "the cost",
            )))?;
    }
    for (m, memory) in memories.iter().enumerate() {
        for (what, claimed, actual) in [
            (
                "height",
                plan.heights.get(m).map(|h| h.get()),
                heights[m].get(),
            ),
            ("traffic", plan.traffic.get(m).copied(), traffics[m]),
        ] {
            if claimed != Some(actual) {
                return Err(Violation::MemoryFigure {
                    what,
                    memory: memory.name.clone(),
                    claimed,
                    actual,
                }
                .into());
            }
        }
    }
    if plan.heights.len() != k || plan.traffic.len() != k {
        return Err(Violation::MemoriesInput(MemoriesError::PlanShape {
            expected: k,
            found: plan.heights.len().min(plan.traffic.len()),
        })
        .into());
    }
    if plan.cost != cost {
        return Err(Violation::MemoryCost {
            claimed: plan.cost,
            actual: cost,
        }
        .into());
    }
    Ok(MemoriesCheckSummary {
        buffers: n,
        heights,
        traffic: traffics,
        cost,
    })
}
