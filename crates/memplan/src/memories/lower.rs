//! The least heights ([`super::MemoriesOptions::least_heights`]): after the plan, each
//! bounded memory's buffers re-planned by memplan's planner at their least height, kept
//! where that is lower than the level's placement.
//!
//! A level places its kept buffers *under* the memory's capacity, so a plan that fits is
//! done, whatever its height; a memory that is a runtime arena (an ExecuTorch bank) costs
//! its height, not its capacity. The re-plan changes offsets only: every buffer keeps its
//! memory, so the traffic, the cost and every bound stay as they are.
//!
//! ```text
//!   memory tcm (capacity 16)        the level's plan    the least height
//!   a [0,2) 4   b [1,3) 4            a 0..4, b 8..12     a 0..4, b 4..8
//!   height                           12                  8          kept: lower
//! ```
//!
//! Invariants: a memory's new offsets are a valid plan of its buffers (memplan's planner,
//! minimising; each buffer aligned for the memory too; fixed offsets kept; the shares
//! between two of its buffers declared, the driver taking those that lower the height),
//! and they replace the old ones only when strictly lower, so the height never grows and
//! a plan under the capacity stays under it. The stage runs on what is left of the call's
//! budget (its deadline, its work limit less what the levels charged), shared by the
//! memories it re-plans, in order; with nothing left, each re-plan is the planner's first
//! plan alone.

use std::time::Instant;

use crate::budget::Budget;
use crate::memory_types::{MemoriesError, Memory, MemoryPlan};
use crate::options::Options;
use crate::types::{BufferIdx, Problem, Size};

use super::problem::level_problem;
use super::MemoriesOptions;

/// Re-plans each bounded memory of `plan` at its least height (see the module docs);
/// returns the work the stage charged. `problem` carries the shares the re-plans may
/// take (those between two buffers of one memory).
pub(super) fn run(
    problem: &Problem,
    memories: &[Memory],
    plan: &mut MemoryPlan,
    stage: &Budget,
    options: &MemoriesOptions,
) -> Result<u64, MemoriesError> {
    let bounded: Vec<usize> = (0..memories.len())
        .filter(|&m| memories[m].capacity.is_some() && plan.heights[m] > Size::ZERO)
        .collect();
    for (k, &m) in bounded.iter().enumerate() {
        let members: Vec<BufferIdx> = problem
            .indices()
            .filter(|&i| plan.memory[i.index()].index() == m)
            .collect();
        let sub = with_shares_among(problem, &members, &memories[m])?;
        let budget = stage.share(Instant::now(), 1.0 / (bounded.len() - k) as f64);
        // Every search of the memories ends: under a budget with neither a work nor a
        // time limit, the placements' node limit bounds the re-plan's searches too (else
        // the exact search would run to its proof on every memory).
        let budget = if budget.work_left().is_none() && budget.deadline().is_none() {
            let nodes = budget.nodes_at_most(options.placement_node_limit);
            budget.with_node_limit(nodes)
        } else {
            budget
        };
        let plan_options = Options {
            threads: options.threads,
            verify: false,
            ..Options::default()
        };
        let report = crate::driver::run_within(&sub, None, &plan_options, &budget)?;
        let Some(lowered) = report.outcome.plan() else {
            continue;
        };
        if lowered.height() < plan.heights[m] {
            for (&i, &o) in members.iter().zip(lowered.offsets()) {
                plan.offsets[i.index()] = o;
            }
            plan.heights[m] = lowered.height();
        }
    }
    Ok(stage.work_spent())
}

/// The buffers of `members` as [`level_problem`] gives them, with the shares of
/// `problem` between two of them.
fn with_shares_among(
    problem: &Problem,
    members: &[BufferIdx],
    memory: &Memory,
) -> Result<Problem, MemoriesError> {
    let sub = level_problem(problem, members, memory)?;
    if problem.shares().is_empty() {
        return Ok(sub);
    }
    let mut here = vec![false; problem.len()];
    for &i in members {
        here[i.index()] = true;
    }
    let shares = (0..problem.shares().len())
        .filter(|&k| {
            let (b, t) = problem.share_ends(k);
            here[b.index()] && here[t.index()]
        })
        .map(|k| problem.shares()[k].clone())
        .collect();
    Problem::with_shares(sub.buffers().to_vec(), shares)
        .map_err(|e| MemoriesError::InvalidPlan(format!("a memory's shares: {e}")))
}
