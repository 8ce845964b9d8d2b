//! [`super::plan_memories`]: the memories one level at a time, under one budget.
//!
//! ```text
//!   validate the memories and the per-buffer input; presolve    problem.rs
//!   the pooled-capacity proof: Infeasible at once                pooled.rs
//!   order: list order, or by increasing cost
//!   for each memory m in order, over the buffers not yet placed that may use m:
//!     unbounded m: every one of them stays, planned by memplan's planner (minimise)
//!     bounded m:   level.rs chooses who leaves (cost: see below), the rest placed
//!                  under m's capacity (alignment: the buffer's and m's, their lcm)
//!   when a level fails (a later bounded memory cannot hold what the earlier ones
//!   left it, or no placement was found in time): the one-pass fallback (fill.rs),
//!   fastest memories first and slowest first
//!   small problems (or no plan yet, at most 64 buffers): the joint search  joint.rs
//!   the plan; its cost; check_memories; each memory's ceiling          ceiling.rs
//! ```
//!
//! Invariant: after the level of memory `m`, every buffer that may use no memory after
//! `m` has been placed (it is forced to stay at its last allowed level), so when the
//! sweep ends every buffer has a memory.

use std::time::Instant;

use crate::budget::Budget;
use crate::checker::check_memories;
use crate::memory_types::{MemoriesError, MemoriesInput, Memory, MemoryIdx, MemoryPlan, MemorySet};
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::request::Request;
use crate::types::{Buffer, BufferIdx, Offset, Problem, Size};

use super::heuristic::Start;
use super::model::{Decision, LevelModel};
use super::problem::{lcm, level_problem, Model};
use super::{ceiling, fill, joint, level, pooled};
use super::{Infeasibility, LevelReport, MemoriesOptions, MemoriesReport};

/// [`super::plan_memories`].
pub(crate) fn run(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    request: &Request,
    options: &MemoriesOptions,
) -> Result<MemoriesReport, MemoriesError> {
    let started = Instant::now();
    let model = Model::new(problem, memories, input, options.size_presolve)?;
    let call = Call {
        started,
        budget: request
            .budget
            .start(started, std::time::Duration::ZERO)
            .with_finish_first_plan(false),
    };
    // The lower bound: every buffer's cheapest allowed cost, plus the first level's.
    let lower_bound: u64 = (0..problem.len())
        .map(|i| model.traffic[i] * model.cheapest(model.allowed[i]))
        .sum();
    if options.pooled_proof {
        if let Some(why) = pooled::proof(problem, memories, &model.allowed) {
            return Ok(MemoriesReport {
                infeasibility: Some(why),
                ..call.report(Outcome::Infeasible, lower_bound)
            });
        }
    }
    // The call's effort in seconds, for the node limits: its time limit, or its work
    // limit at the default's rate (the default is calibrated to about a second).
    let budget = &call.budget;
    let effort = budget
        .deadline()
        .map(|d| d.saturating_duration_since(started))
        .or_else(|| {
            budget.work_left().map(|w| {
                std::time::Duration::from_secs_f64(w as f64 / Budget::DEFAULT_WORK_LIMIT as f64)
            })
        });
    let swept = sweep_levels(&model, budget, effort, options)?;
    let lower_bound = lower_bound.saturating_add(swept.first_bound);
    if let Some((m, Some(why))) = swept.stop {
        return Ok(MemoriesReport {
            infeasibility: Some(why),
            failed_memory: Some(m),
            levels: swept.levels,
            ..call.report(Outcome::Infeasible, lower_bound)
        });
    }
    complete(&model, input, swept, lower_bound, &call, options)
}

/// The call's start and budget, and its report's common fields.
struct Call {
    started: Instant,
    budget: Budget,
}

impl Call {
    /// A report of `outcome` with no levels, no fallback and no per-memory bounds.
    fn report(&self, outcome: Outcome<MemoryPlan, u64>, lower_bound: u64) -> MemoriesReport {
        MemoriesReport {
            outcome,
            lower_bound,
            infeasibility: None,
            failed_memory: None,
            levels: Vec::new(),
            fallback: false,
            traffic_bounds: Vec::new(),
            unshared_heights: Vec::new(),
            elapsed: self.started.elapsed(),
            work: self.budget.work_spent(),
            stopped_by: self.budget.stop(),
        }
    }
}

/// After the levels (which proved nothing impossible): the fallback when a level
/// failed, the joint search on small problems, then the plan with its bounds.
fn complete(
    model: &Model<'_>,
    input: &MemoriesInput<'_>,
    swept: Swept,
    lower_bound: u64,
    call: &Call,
    options: &MemoriesOptions,
) -> Result<MemoriesReport, MemoriesError> {
    let failed = swept.stop.map(|(m, _)| m);
    // A later memory could not hold what the earlier ones left it (or a level found no
    // placement in time): the one-pass fallback.
    let mut fallback = failed.is_some();
    let mut replanned = fallback;
    let mut found = match failed {
        Some(_) => fallback_plan(model, &call.budget, options.fill_slowest_first),
        None => Some((
            swept
                .memory
                .into_iter()
                .map(|m| m.expect("every buffer is placed at its last allowed level"))
                .collect(),
            swept.offsets,
        )),
    };
    // Small problems: the joint search, from the plan found (if any).
    let joint = joint::run(model, &found, &call.budget, options)?;
    if let Some(better) = joint.as_ref().and_then(|j| j.best.clone()) {
        found = Some(better);
        (fallback, replanned) = (false, true);
    }
    let closed = joint.as_ref().is_some_and(|j| j.closed);
    let levels = swept.levels;
    let Some((memory, offsets)) = found else {
        if closed {
            return Ok(MemoriesReport {
                infeasibility: Some(joint::exhaustive(model)),
                levels,
                ..call.report(Outcome::Infeasible, lower_bound)
            });
        }
        let outcome = Outcome::Unknown {
            best_so_far: None,
            lower_bound,
        };
        return Ok(MemoriesReport {
            failed_memory: failed,
            levels,
            fallback: true,
            ..call.report(outcome, lower_bound)
        });
    };
    let offsets = if replanned {
        place_unbounded(model, &memory, offsets, options, &call.budget)?
    } else {
        offsets
    };
    let plan = finish(model, memory, offsets);
    if options.verify {
        check_memories(model.problem, model.memories, input, &plan)
            .map_err(|v| MemoriesError::InvalidPlan(v.to_string()))?;
    }
    let pooled = if options.baseline.is_none() {
        pooled_bound(model, options)
    } else {
        0
    };
    let lower_bound = if closed {
        plan.cost
    } else {
        lower_bound.max(pooled).min(plan.cost)
    };
    let bounds = ceiling::traffic_bounds(
        &ceiling::Input {
            problem: model.problem,
            memories: model.memories,
            allowed: &model.allowed,
            traffic: &model.traffic,
            order: &model.order,
        },
        &plan,
        (swept.first_bound, closed && !model.priced),
        options,
    );
    let outcome = if plan.cost == lower_bound {
        Outcome::Optimal(plan)
    } else {
        Outcome::Feasible { plan, lower_bound }
    };
    Ok(MemoriesReport {
        levels,
        fallback,
        traffic_bounds: bounds,
        ..call.report(outcome, lower_bound)
    })
}

/// `offsets` with the buffers of each unbounded memory planned by memplan's planner
/// (the levels did so already; the fallback's and the joint search's plans get it here,
/// the same way, so that a plan does not depend on which stage found it).
fn place_unbounded(
    model: &Model<'_>,
    memory: &[MemoryIdx],
    mut offsets: Vec<Offset>,
    options: &MemoriesOptions,
    call: &Budget,
) -> Result<Vec<Offset>, MemoriesError> {
    for (m, mem) in model.memories.iter().enumerate() {
        if mem.capacity.is_some() {
            continue;
        }
        let members: Vec<BufferIdx> = model
            .problem
            .indices()
            .filter(|&i| memory[i.index()].index() == m)
            .collect();
        if members.is_empty() {
            continue;
        }
        let sub = level_problem(model.problem, &members, mem)?;
        let placed = plan_unbounded(&sub, options, call)?;
        for (k, &i) in members.iter().enumerate() {
            offsets[i.index()] = placed[k];
        }
    }
    Ok(offsets)
}

/// What the levels gave: each buffer's memory and offset where a level placed it, the
/// levels' reports, the first level's bound, and where the sweep stopped, if it did: a
/// memory whose level failed, with the proof when it is one.
struct Swept {
    memory: Vec<Option<MemoryIdx>>,
    offsets: Vec<Offset>,
    levels: Vec<LevelReport>,
    first_bound: u64,
    stop: Option<(MemoryIdx, Option<Infeasibility>)>,
}

/// The memories in order, one level each (see the module docs), under `call`; `effort`
/// is the call's effort for the node limits.
fn sweep_levels(
    model: &Model<'_>,
    call: &Budget,
    effort: Option<std::time::Duration>,
    options: &MemoriesOptions,
) -> Result<Swept, MemoriesError> {
    let (problem, memories) = (model.problem, model.memories);
    let n = problem.len();
    let mut swept = Swept {
        memory: vec![None; n],
        offsets: vec![Offset::ZERO; n],
        levels: Vec::new(),
        first_bound: 0,
        stop: None,
    };
    let (memory, offsets) = (&mut swept.memory, &mut swept.offsets);
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
            let placed = plan_unbounded(&sub, options, call)?;
            for (k, &i) in members.iter().enumerate() {
                memory[i] = Some(m);
                offsets[i] = placed[k];
            }
            continue;
        };
        let level_model = level_model(model, &sub, &members, m, later, capacity);
        // The bounded levels left share the time: this one gets 1/b of it (all of it
        // when it is the last bounded one, as the two-memory planner always had).
        let bounded_left = model.order[pos..]
            .iter()
            .filter(|&&k| memories[k.index()].capacity.is_some())
            .count()
            .max(1);
        let level_budget = call.share(Instant::now(), 1.0 / bounded_left as f64);
        // The node limits follow the call's whole effort, at every level: they bound
        // each placement's thoroughness, the level's budget bounds the total. (Split
        // between three banks, the first level's placements, which decide the traffic
        // that matters most, failed where one level's succeeded: mobilenet_v3_small
        // with 512 KB, 2 MB and 64 MB kept 40.59 MB of first-bank traffic, not 41.57.)
        let result = level::run(&level_model, &level_budget, effort, options);
        if pos == 0 && !matches!(result.start, Start::Infeasible) {
            swept.first_bound = result.bound;
        }
        swept.levels.push(LevelReport {
            memory: m,
            buffers: members.len(),
            cost: match &result.start {
                Start::Found(sol) => sol.cost,
                _ => 0,
            },
            bound: result.bound,
            stats: result.stats,
        });
        match result.start {
            Start::Found(sol) => {
                for (k, &i) in members.iter().enumerate() {
                    if !sol.spilled[k] {
                        memory[i] = Some(m);
                        offsets[i] = sol.offsets[k];
                    }
                }
            }
            Start::Infeasible => {
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
                let why = pins_only.then(|| infeasibility(problem, &forced, mem, capacity));
                swept.stop = Some((m, why));
                break;
            }
            Start::Unknown => {
                swept.stop = Some((m, None));
                break;
            }
        }
    }
    Ok(swept)
}

/// With costs, a second lower bound that sees every bounded memory's capacity. With
/// the memories in order of cost `c0 ≤ c1 ≤ …`, a buffer in memory `p` costs
/// `traffic × (c0 + Σ_{j<p} (c_{j+1} − c_j))`, so a plan's cost is `Σ traffic × c0`
/// plus, for every `j`, `(c_{j+1} − c_j)` times the traffic of the buffers outside the
/// first `j + 1` memories. Those buffers must cover, at every time, the load above
/// `C0 + … + Cj` (the first memories hold no more): the cover bound of `bound.rs` with
/// that pooled capacity bounds their traffic. Terms with an unbounded memory among the
/// first `j + 1` are 0. Valid for every plan, whatever the levels chose.
fn pooled_bound(model: &Model<'_>, options: &MemoriesOptions) -> u64 {
    use super::bound::{lower_bound, Bound, BoundOptions};
    if !model.priced || model.order.len() < 2 {
        return 0;
    }
    let problem = model.problem;
    // Load-based: fixed offsets play no part (their memory's pin does).
    let unfixed = Problem::new(
        problem
            .buffers()
            .iter()
            .map(|b| Buffer {
                fixed_offset: None,
                ..b.clone()
            })
            .collect(),
    );
    let Ok(unfixed) = unfixed else {
        return 0;
    };
    let c0 = model.unit_cost[model.order[0].index()];
    let mut total: u64 = (0..problem.len())
        .map(|i| model.traffic[i] * c0)
        .fold(0, u64::saturating_add);
    let mut pooled = 0u64;
    let mut first = MemorySet::EMPTY;
    for j in 0..model.order.len() - 1 {
        let m = model.order[j];
        first = MemorySet(first.0 | MemorySet::single(m).0);
        let Some(c) = model.memories[m.index()].capacity else {
            break; // unbounded: nothing must leave the first j + 1 memories
        };
        pooled = pooled.saturating_add(c.get());
        let step = model.unit_cost[model.order[j + 1].index()] - model.unit_cost[m.index()];
        if step == 0 {
            continue;
        }
        let decisions: Vec<Decision> = (0..problem.len())
            .map(|i| {
                let a = model.allowed[i];
                if a.0 & first.0 == 0 {
                    Decision::Slow
                } else if a.0 & !first.0 == 0 {
                    Decision::Fast
                } else {
                    Decision::Free
                }
            })
            .collect();
        let bound_options = BoundOptions {
            rounding: options.rounding_bound,
            chain: options.chain_bound,
            holes: false,
        };
        if let Bound::AtLeast(b) =
            lower_bound(&unfixed, pooled, &model.traffic, &decisions, bound_options)
        {
            total = total.saturating_add(step.saturating_mul(b));
        }
    }
    total
}

/// The level of bounded memory `m` (at position `later`'s complement in the order) over
/// `members` (as `sub`): a buffer with a fixed offset or no later memory must stay; the
/// others may leave, at a cost of their traffic (no costs) or of their traffic times
/// the step to their cheapest later memory.
fn level_model<'p>(
    model: &Model<'_>,
    sub: &'p Problem,
    members: &[BufferIdx],
    m: MemoryIdx,
    later: MemorySet,
    capacity: Size,
) -> LevelModel<'p> {
    let leaves = |i: BufferIdx| MemorySet(model.allowed[i].0 & later.0);
    let base: Vec<Decision> = members
        .iter()
        .map(|&i| {
            if model.problem.buffer(i).fixed_offset.is_some() || leaves(i).is_empty() {
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
    LevelModel::new(sub, capacity, costs, base)
}

/// The fallback's plan: the cheapest of [`fill::run`]'s orders (ties: the first), or
/// `None` when none places every buffer. With `slowest_first`, each order is also tried
/// with the bounded memories in reverse (the slowest first, the unbounded ones last):
/// it leaves the fast memories for what fits nowhere else, which finds a plan where the
/// fastest-first pass fills them with the largest buffers and overflows a later one.
fn fallback_plan(
    model: &Model<'_>,
    call: &Budget,
    slowest_first: bool,
) -> Option<(Vec<MemoryIdx>, Vec<Offset>)> {
    let (problem, memories) = (model.problem, model.memories);
    let capacities: Vec<Option<Size>> = memories.iter().map(|x| x.capacity).collect();
    let alignment = |i: BufferIdx, m: MemoryIdx| {
        lcm(
            problem.buffer(i).alignment.get(),
            memories[m.index()].alignment.get(),
        )
        .unwrap_or(u64::MAX)
    };
    let budget = call.child().with_finish_first_plan(true).first_plan();
    let mut reversed: Vec<MemoryIdx> = model
        .order
        .iter()
        .rev()
        .copied()
        .filter(|m| capacities[m.index()].is_some())
        .collect();
    reversed.extend(
        model
            .order
            .iter()
            .copied()
            .filter(|m| capacities[m.index()].is_none()),
    );
    let mut orders = vec![&model.order[..]];
    if slowest_first {
        orders.push(&reversed);
    }
    let mut best: Option<(u64, Vec<MemoryIdx>, Vec<Offset>)> = None;
    for memory_order in orders {
        for key in fill::FillOrder::ALL {
            let found = fill::run(
                problem,
                &model.allowed,
                memory_order,
                &capacities,
                &alignment,
                key,
                &budget,
            );
            if let Some((placed, at)) = found {
                let cost = model.cost_of(&placed);
                if best.as_ref().is_none_or(|b| cost < b.0) {
                    best = Some((cost, placed, at));
                }
            }
        }
    }
    best.map(|(_, placed, at)| (placed, at))
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
            memories: vec![memory.name.clone()],
            exhaustive: false,
            capacity,
            time: Some(crate::types::Time(t)),
            need,
            buffers: ids(&live),
        },
        other => Infeasibility {
            memory: memory.name.clone(),
            memories: vec![memory.name.clone()],
            exhaustive: false,
            capacity,
            time: None,
            need: other.map_or(0, |(l, _, _)| l),
            buffers: ids(pinned),
        },
    }
}
