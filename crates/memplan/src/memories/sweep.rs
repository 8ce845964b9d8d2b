//! [`super::plan_memories`]: the memories one level at a time, under one budget.
//!
//! ```text
//!   validate the memories and the per-buffer input        memory_types.rs
//!   order: list order, or by increasing cost
//!   for each memory m in order, over the buffers not yet placed that may use m:
//!     unbounded m: every one of them stays, planned by memplan's planner (minimise)
//!     bounded m:   level.rs chooses who leaves (cost: see below), the rest placed
//!                  under m's capacity (alignment: the buffer's and m's, their lcm)
//!   the plan; its cost; check_memories
//! ```
//!
//! Invariant: after the level of memory `m`, every buffer that may use no memory after
//! `m` has been placed (it is forced to stay at its last allowed level), so when the
//! sweep ends every buffer has a memory.

use std::time::Instant;

use crate::budget::Budget;
use crate::checker::check_memories;
use crate::memory_types::{
    allowed_of, traffic_of, validate_memories, MemoriesError, MemoriesInput, Memory, MemoryIdx,
    MemoryPlan, MemorySet,
};
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::request::Request;
use crate::types::{Buffer, BufferIdx, Offset, Problem, Size};

use super::heuristic::Start;
use super::level;
use super::model::{Decision, LevelModel};
use super::{Infeasibility, LevelReport, MemoriesOptions, MemoriesReport};

/// The validated problem: each buffer's allowed set and traffic, the memories' order
/// and their costs per byte for the objective.
struct Model<'a> {
    problem: &'a Problem,
    memories: &'a [Memory],
    allowed: Vec<MemorySet>,
    traffic: Vec<u64>,
    /// The memories in the order their levels are solved.
    order: Vec<MemoryIdx>,
    /// With costs: each memory's. Without: 0 for the first memory, 1 for the others
    /// (the plan's scalar cost is then the traffic outside the first memory).
    unit_cost: Vec<u64>,
    /// Whether the memories have costs.
    priced: bool,
}

impl<'a> Model<'a> {
    fn new(
        problem: &'a Problem,
        memories: &'a [Memory],
        input: &MemoriesInput<'_>,
    ) -> Result<Model<'a>, MemoriesError> {
        validate_memories(memories)?;
        let traffic = traffic_of(problem, input)?;
        let allowed = allowed_of(problem, memories, input)?;
        let priced = memories.iter().all(|m| m.cost.is_some());
        let unit_cost: Vec<u64> = memories
            .iter()
            .enumerate()
            .map(|(k, m)| m.cost.unwrap_or(u64::from(k > 0)))
            .collect();
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
    fn cost_of(&self, memory: &[MemoryIdx]) -> u64 {
        memory
            .iter()
            .zip(&self.traffic)
            .map(|(m, &t)| t * self.unit_cost[m.index()])
            .sum()
    }

    /// The cheapest unit cost of the memories of `set` (u64::MAX when empty).
    fn cheapest(&self, set: MemorySet) -> u64 {
        set.iter()
            .map(|m| self.unit_cost[m.index()])
            .min()
            .unwrap_or(u64::MAX)
    }
}

/// The buffers of `members`, aligned for `memory` too (the lcm of the two alignments).
fn level_problem(
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
fn lcm(a: u64, b: u64) -> Option<u64> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).checked_mul(b)
}

/// [`super::plan_memories`].
pub(crate) fn run(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    request: &Request,
    options: &MemoriesOptions,
) -> Result<MemoriesReport, MemoriesError> {
    let started = Instant::now();
    let model = Model::new(problem, memories, input)?;
    let call = request
        .budget
        .start(started, std::time::Duration::ZERO)
        .with_finish_first_plan(false);
    let n = problem.len();
    let mut memory: Vec<Option<MemoryIdx>> = vec![None; n];
    let mut offsets = vec![Offset::ZERO; n];
    let mut levels = Vec::new();
    // The lower bound: every buffer's cheapest allowed cost, plus the first level's.
    let base: u64 = (0..n)
        .map(|i| model.traffic[i] * model.cheapest(model.allowed[i]))
        .sum();
    let mut lower_bound = base;
    let report = |outcome, lower_bound, infeasibility, failed_memory, levels| MemoriesReport {
        outcome,
        lower_bound,
        infeasibility,
        failed_memory,
        levels,
        elapsed: started.elapsed(),
    };
    for (pos, &m) in model.order.iter().enumerate() {
        let later = MemorySet::of(model.order[pos + 1..].iter().copied());
        let members: Vec<BufferIdx> = problem
            .indices()
            .filter(|&i| memory[i].is_none() && model.allowed[i].contains(m))
            .collect();
        if members.is_empty() {
            continue;
        }
        let mem = &memories[m.index()];
        let sub = level_problem(problem, &members, mem)?;
        let Some(capacity) = mem.capacity else {
            let placed = plan_unbounded(&sub, options, &call)?;
            for (k, &i) in members.iter().enumerate() {
                memory[i] = Some(m);
                offsets[i] = placed[k];
            }
            continue;
        };
        let leaves = |i: BufferIdx| MemorySet(model.allowed[i].0 & later.0);
        let base_decisions: Vec<Decision> = members
            .iter()
            .map(|&i| {
                if problem.buffer(i).fixed_offset.is_some() || leaves(i).is_empty() {
                    Decision::Fast
                } else {
                    Decision::Free
                }
            })
            .collect();
        let costs: Vec<u64> = members
            .iter()
            .map(|&i| match (model.priced, leaves(i).is_empty()) {
                (_, true) => 0,
                (false, false) => model.traffic[i],
                (true, false) => {
                    let step = model
                        .cheapest(leaves(i))
                        .saturating_sub(model.unit_cost[m.index()]);
                    model.traffic[i] * step
                }
            })
            .collect();
        let level_model = LevelModel::new(&sub, capacity, costs, base_decisions);
        // The bounded levels left share the time: this one gets 1/b of it (all of it
        // when it is the last bounded one, as the two-memory planner always had).
        let bounded_left = model.order[pos..]
            .iter()
            .filter(|&&k| memories[k.index()].capacity.is_some())
            .count()
            .max(1);
        let level_budget = call.share(Instant::now(), 1.0 / bounded_left as f64);
        let result = level::run(&level_model, &level_budget, options);
        let first = pos == 0;
        match result.start {
            Start::Found(sol) => {
                if first {
                    lower_bound = lower_bound.saturating_add(result.bound);
                }
                levels.push(LevelReport {
                    memory: m,
                    buffers: members.len(),
                    cost: sol.cost,
                    bound: result.bound,
                    stats: result.stats,
                });
                for (k, &i) in members.iter().enumerate() {
                    if !sol.spilled[k] {
                        memory[i] = Some(m);
                        offsets[i] = sol.offsets[k];
                    }
                }
            }
            Start::Infeasible => {
                levels.push(LevelReport {
                    memory: m,
                    buffers: members.len(),
                    cost: 0,
                    bound: result.bound,
                    stats: result.stats,
                });
                // Proven only when every buffer that had to stay is pinned here.
                let forced: Vec<BufferIdx> = members
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| level_model.base[k] == Decision::Fast)
                    .map(|(_, &i)| i)
                    .collect();
                let pins_only = forced
                    .iter()
                    .all(|&i| model.allowed[i] == MemorySet::single(m));
                if pins_only {
                    let why = infeasibility(problem, &forced, mem, capacity);
                    return Ok(report(
                        Outcome::Infeasible,
                        lower_bound,
                        Some(why),
                        Some(m),
                        levels,
                    ));
                }
                let outcome = Outcome::Unknown {
                    best_so_far: None,
                    lower_bound,
                };
                return Ok(report(outcome, lower_bound, None, Some(m), levels));
            }
            Start::Unknown => {
                levels.push(LevelReport {
                    memory: m,
                    buffers: members.len(),
                    cost: 0,
                    bound: result.bound,
                    stats: result.stats,
                });
                if first {
                    lower_bound = lower_bound.saturating_add(result.bound);
                }
                let outcome = Outcome::Unknown {
                    best_so_far: None,
                    lower_bound,
                };
                return Ok(report(outcome, lower_bound, None, Some(m), levels));
            }
        }
    }
    let memory: Vec<MemoryIdx> = memory
        .into_iter()
        .map(|m| m.expect("every buffer is placed at its last allowed level"))
        .collect();
    let plan = finish(&model, memory, offsets);
    if options.verify {
        check_memories(problem, memories, input, &plan)
            .map_err(|v| MemoriesError::InvalidPlan(v.to_string()))?;
    }
    let lower_bound = lower_bound.min(plan.cost);
    let outcome = if plan.cost == lower_bound {
        Outcome::Optimal(plan)
    } else {
        Outcome::Feasible { plan, lower_bound }
    };
    Ok(report(outcome, lower_bound, None, None, levels))
}

/// The plan with its heights, traffic and cost.
fn finish(model: &Model<'_>, memory: Vec<MemoryIdx>, offsets: Vec<Offset>) -> MemoryPlan {
    let k = model.memories.len();
    let mut heights = vec![Size::ZERO; k];
    let mut traffic = vec![0u64; k];
    for (i, b) in model.problem.indexed() {
        let m = memory[i].index();
        heights[m] = heights[m].max((offsets[i] + b.size).as_height());
        traffic[m] += model.traffic[i];
    }
    let cost = model.cost_of(&memory);
    MemoryPlan {
        memory,
        offsets,
        heights,
        traffic,
        cost,
    }
}

/// The offsets of an unbounded memory's buffers: memplan's greedy portfolio, minimising
/// (without a time limit, a plan that depends on the input alone; with one, the first
/// greedy plan at least, even if it finishes late).
fn plan_unbounded(
    sub: &Problem,
    options: &MemoriesOptions,
    call: &Budget,
) -> Result<Vec<Offset>, MemoriesError> {
    let plan_options = Options {
        planner: Planner::GreedyPortfolio,
        threads: options.threads,
        verify: false,
        ..Options::default()
    };
    let budget = call.child().with_finish_first_plan(true);
    let report = crate::driver::run_within(sub, None, &plan_options, &budget)?;
    let plan = report
        .outcome
        .plan()
        .ok_or_else(|| MemoriesError::InvalidPlan("no plan of an unbounded memory".into()))?;
    Ok(plan.offsets().to_vec())
}

/// Why the buffers pinned to `memory` cannot fit: the time of their highest load when
/// it exceeds the capacity, else all of them.
fn infeasibility(
    problem: &Problem,
    pinned: &[BufferIdx],
    memory: &Memory,
    capacity: Size,
) -> Infeasibility {
    let bufs = problem.buffers();
    let mut times: Vec<u64> = pinned
        .iter()
        .map(|&i| bufs[i.index()].lifetime.start.get())
        .collect();
    times.sort_unstable();
    times.dedup();
    let live_at = |t: u64| -> Vec<BufferIdx> {
        pinned
            .iter()
            .copied()
            .filter(|&i| {
                let b = &bufs[i.index()];
                b.lifetime.start.get() <= t
                    && t < b.lifetime.end.get()
                    && !b.gaps.iter().any(|g| g.start.get() <= t && t < g.end.get())
            })
            .collect()
    };
    let load = |live: &[BufferIdx]| -> u64 {
        live.iter()
            .map(|&i| bufs[i.index()].size.get())
            .fold(0u64, u64::saturating_add)
    };
    // The load peaks at a start (or a gap's end); starts suffice for the report.
    let mut best: Option<(u64, u64, Vec<BufferIdx>)> = None;
    for &t in &times {
        let live = live_at(t);
        let l = load(&live);
        if best.as_ref().is_none_or(|(bl, _, _)| l > *bl) {
            best = Some((l, t, live));
        }
    }
    let ids = |v: &[BufferIdx]| v.iter().map(|&i| bufs[i.index()].id.clone()).collect();
    match best {
        Some((need, t, live)) if need > capacity.get() => Infeasibility {
            memory: memory.name.clone(),
            capacity,
            time: Some(crate::types::Time(t)),
            need,
            buffers: ids(&live),
        },
        other => Infeasibility {
            memory: memory.name.clone(),
            capacity,
            time: None,
            need: other.map_or(0, |(l, _, _)| l),
            buffers: ids(pinned),
        },
    }
}
