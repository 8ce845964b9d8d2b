//! Each memory's bound: a proven ceiling on the traffic it can serve, reported beside the
//! plan's ([`super::MemoriesReport::traffic_bounds`]); the difference is the memory's gap.
//!
//! Without costs the objective is lexicographic (the most traffic in the first memory,
//! then in the second, ...), and a memory's ceiling is meant in that sense: no plan whose
//! earlier memories serve the plan's traffic serves more in this memory. Three sources:
//!
//! - **alone**: the level of memory `m` with every buffer that may use it, the others
//!   leaving at a cost of their traffic (`bound.rs`): a plan serves at most the traffic of
//!   the buffers allowed in `m` less that bound. True of every plan, so in every sense;
//! - **the first level**: without costs, the sweep's first level is exactly that level,
//!   with the Lagrangian and exact search's stronger bound;
//! - **the joint search**, when it finished without costs: the plan is lexicographically
//!   optimal, so each memory's ceiling is its traffic (gap 0 everywhere).
//!
//! Without costs, the last memory in the order serves whatever the earlier ones leave, so
//! its ceiling is its traffic (gap 0). Otherwise an unbounded memory's ceiling is the
//! traffic allowed in it.

use crate::memory_types::{Memory, MemoryIdx, MemoryPlan, MemorySet};
use crate::types::{BufferIdx, Problem};

use super::bound::{lower_bound, Bound, BoundOptions};
use super::model::{sub_problem, Decision};
use super::MemoriesOptions;

/// The problem as the ceilings see it.
pub(crate) struct Input<'a> {
    pub(crate) problem: &'a Problem,
    pub(crate) memories: &'a [Memory],
    pub(crate) allowed: &'a [MemorySet],
    pub(crate) traffic: &'a [u64],
    /// The memories in the objective's order.
    pub(crate) order: &'a [MemoryIdx],
}

/// Per memory (indexed like the memories), a ceiling on its traffic (see the module
/// docs). `first` is the first level's bound on the traffic leaving the first memory
/// (used without costs) and whether the joint search proved the plan lexicographically
/// optimal.
pub(crate) fn traffic_bounds(
    input: &Input<'_>,
    plan: &MemoryPlan,
    first: (u64, bool),
    options: &MemoriesOptions,
) -> Vec<u64> {
    let (first_bound, lexicographic) = first;
    if lexicographic {
        return plan.traffic.clone();
    }
    let priced = input.memories.iter().all(|m| m.cost.is_some());
    let bound_options = BoundOptions {
        rounding: options.rounding_bound,
        chain: options.chain_bound,
        holes: options.holes_bound,
    };
    (0..input.memories.len())
        .map(|m| {
            let m = MemoryIdx(m as u32);
            let members: Vec<BufferIdx> = input
                .problem
                .indices()
                .filter(|&i| input.allowed[i.index()].contains(m))
                .collect();
            // Without costs, the last memory in the order serves what the earlier ones
            // leave: with their traffic as the plan's, exactly the plan's.
            if !priced && input.order.last() == Some(&m) {
                return plan.traffic[m.index()];
            }
            let allowed: u64 = members.iter().map(|&i| input.traffic[i.index()]).sum();
            let Some(capacity) = input.memories[m.index()].capacity else {
                return allowed;
            };
            let sub = sub_problem(input.problem, &members);
            let base: Vec<Decision> = members
                .iter()
                .map(|&i| {
                    if input.allowed[i.index()] == MemorySet::single(m) {
                        Decision::Fast
                    } else {
                        Decision::Free
                    }
                })
                .collect();
            let costs: Vec<u64> = members.iter().map(|&i| input.traffic[i.index()]).collect();
            let mut ceiling = match lower_bound(&sub, capacity.get(), &costs, &base, bound_options)
            {
                Bound::AtLeast(b) => allowed.saturating_sub(b),
                Bound::Infeasible => allowed,
            };
            if !priced && input.order.first() == Some(&m) {
                ceiling = ceiling.min(allowed.saturating_sub(first_bound));
            }
            debug_assert!(ceiling >= plan.traffic[m.index()], "a ceiling below a plan");
            ceiling.max(plan.traffic[m.index()])
        })
        .collect()
}
