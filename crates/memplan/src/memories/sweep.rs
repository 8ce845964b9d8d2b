//! [`super::plan_memories`]: the memories one level at a time, under one budget.
//!
//! ```text
//!   validate the memories and the per-buffer input        memory_types.rs
//!   order: list order, or by increasing cost
//!   for each memory m in order, over the buffers not yet placed that may use m:
//!     unbounded m: every one of them stays, planned by memplan's planner (minimise)
//!     bounded m:   level.rs chooses who leaves (cost: see below), the rest placed
//!                  under m's capacity (alignment: the buffer's and m's, their lcm)
//!   when a level fails (a later bounded memory cannot hold what the earlier ones
//!   left it, or no placement was found in time): the one-pass fallback (fill.rs)
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
use super::model::{Decision, LevelModel};
use super::{ceiling, fill, joint, level, pooled};
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
    let model = Model::new(problem, memories, input, options.size_presolve)?;
    let call = request
        .budget
        .start(started, std::time::Duration::ZERO)
        .with_finish_first_plan(false);
    // The lower bound: every buffer's cheapest allowed cost, plus the first level's.
    let lower_bound: u64 = (0..problem.len())
        .map(|i| model.traffic[i] * model.cheapest(model.allowed[i]))
        .sum();
    let pooled = if options.baseline.is_none() {
        pooled_bound(&model, options)
    } else {
        0
    };
    // The call's effort in seconds, for the node limits: its time limit, or its work
    // limit at the default's rate (the default is calibrated to about a second).
    let effort = call
        .deadline()
        .map(|d| d.saturating_duration_since(started))
        .or_else(|| {
            call.work_left().map(|w| {
                std::time::Duration::from_secs_f64(w as f64 / Budget::DEFAULT_WORK_LIMIT as f64)
            })
        });
    let report = |outcome, lower_bound, infeasibility, failed_memory, levels, fallback, bounds| {
        MemoriesReport {
            outcome,
            lower_bound,
            infeasibility,
            failed_memory,
            levels,
            fallback,
            traffic_bounds: bounds,
            elapsed: started.elapsed(),
            work: call.work_spent(),
            stopped_by: call.stop(),
        }
    };
    if options.pooled_proof {
        if let Some(why) = pooled::proof(problem, memories, &model.allowed) {
            let outcome = Outcome::Infeasible;
            return Ok(report(
                outcome,
                lower_bound,
                Some(why),
                None,
                vec![],
                false,
                vec![],
            ));
        }
    }
    let swept = sweep_levels(&model, &call, effort, options)?;
    let lower_bound = lower_bound.saturating_add(swept.first_bound);
    let (memory, offsets, levels) = (swept.memory, swept.offsets, swept.levels);
    let failed = match swept.stop {
        Some((m, Some(why))) => {
            let outcome = Outcome::Infeasible;
            return Ok(report(
                outcome,
                lower_bound,
                Some(why),
                Some(m),
                levels,
                false,
                vec![],
            ));
        }
        Some((m, None)) => Some(m),
        None => None,
    };
    // A later memory could not hold what the earlier ones left it (or a level found no
    // placement in time): the one-pass fallback.
    let mut fallback = failed.is_some();
    let mut replanned = fallback;
    let mut found = match failed {
        Some(_) => fallback_plan(&model, &call, options.fill_slowest_first),
        None => Some((
            memory
                .into_iter()
                .map(|m| m.expect("every buffer is placed at its last allowed level"))
                .collect(),
            offsets,
        )),
    };
    // Small problems: the joint search, from the plan found (if any).
    let joint = joint_search(&model, &found, &call, options)?;
    if let Some(better) = joint.as_ref().and_then(|j| j.best.clone()) {
        found = Some(better);
        (fallback, replanned) = (false, true);
    }
    let closed = joint.as_ref().is_some_and(|j| j.closed);
    let Some((memory, offsets)) = found else {
        if closed {
            let why = exhaustive(&model);
            let outcome = Outcome::Infeasible;
            return Ok(report(
                outcome,
                lower_bound,
                Some(why),
                None,
                levels,
                false,
                vec![],
            ));
        }
        let outcome = Outcome::Unknown {
            best_so_far: None,
            lower_bound,
        };
        return Ok(report(
            outcome,
            lower_bound,
            None,
            failed,
            levels,
            true,
            vec![],
        ));
    };
    let offsets = if replanned {
        place_unbounded(&model, &memory, offsets, options, &call)?
    } else {
        offsets
    };
    let plan = finish(&model, memory, offsets);
    if options.verify {
        check_memories(problem, memories, input, &plan)
            .map_err(|v| MemoriesError::InvalidPlan(v.to_string()))?;
    }
    let lower_bound = if closed {
        plan.cost
    } else {
        lower_bound.max(pooled).min(plan.cost)
    };
    let bounds = ceiling::traffic_bounds(
        &ceiling::Input {
            problem,
            memories,
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
    Ok(report(
        outcome,
        lower_bound,
        None,
        None,
        levels,
        fallback,
        bounds,
    ))
}

/// The joint search (`joint.rs`) when it is on and the problem small enough (at most
/// [`MemoriesOptions::joint_max_buffers`] buffers with a choice; or, when nothing else
/// found a plan, at most 64 buffers: then it searches for any plan, within its node
/// limit), seeded with `found`'s cost; `None` when it does not run.
fn joint_search(
    model: &Model<'_>,
    found: &Option<(Vec<MemoryIdx>, Vec<Offset>)>,
    call: &Budget,
    options: &MemoriesOptions,
) -> Result<Option<joint::JointResult>, MemoriesError> {
    let (problem, memories) = (model.problem, model.memories);
    let choices = model.allowed.iter().filter(|a| a.len() > 1).count();
    let small = choices <= options.joint_max_buffers.min(64);
    if !options.joint
        || options.baseline.is_some()
        || problem.len() > 64
        || (!small && found.is_some())
    {
        return Ok(None);
    }
    let k = memories.len();
    let mut position = vec![0usize; k];
    for (p, m) in model.order.iter().enumerate() {
        position[m.index()] = p;
    }
    let dims = if model.priced {
        1
    } else {
        k.saturating_sub(1).max(1)
    };
    let contrib: Vec<Vec<Vec<u64>>> = (0..problem.len())
        .map(|i| {
            (0..k)
                .map(|m| {
                    if model.priced {
                        vec![model.traffic[i] * model.unit_cost[m]]
                    } else {
                        (0..dims)
                            .map(|j| if position[m] > j { model.traffic[i] } else { 0 })
                            .collect()
                    }
                })
                .collect()
        })
        .collect();
    let all: Vec<BufferIdx> = problem.indices().collect();
    let aligned = memories
        .iter()
        .map(|mem| match mem.capacity {
            Some(c) => level_problem(problem, &all, mem).map(|p| Some((p, c))),
            None => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    let seed = found.as_ref().map(|(memory, _)| {
        let mut cost = vec![0u64; dims];
        for (i, m) in memory.iter().enumerate() {
            for (c, x) in cost.iter_mut().zip(&contrib[i][m.index()]) {
                *c += x;
            }
        }
        cost
    });
    let input = joint::JointInput {
        aligned,
        problem,
        allowed: &model.allowed,
        contrib,
        order: &model.order,
    };
    Ok(Some(joint::search(
        &input,
        seed,
        call,
        options.threads,
        options.joint_node_limit,
        options.placement_node_limit,
    )))
}

/// The joint search's proof: every assignment tried.
fn exhaustive(model: &Model<'_>) -> Infeasibility {
    let memories = model.memories;
    let bounded = MemorySet::of(
        (0..memories.len() as u32)
            .map(MemoryIdx)
            .filter(|m| memories[m.index()].capacity.is_some()),
    );
    let names: Vec<String> = bounded
        .iter()
        .map(|m| memories[m.index()].name.clone())
        .collect();
    let capacity = bounded
        .iter()
        .filter_map(|m| memories[m.index()].capacity)
        .map(Size::get)
        .fold(0u64, u64::saturating_add);
    Infeasibility {
        memory: names.first().cloned().unwrap_or_default(),
        memories: names,
        capacity: Size(capacity),
        time: None,
        need: 0,
        buffers: model
            .problem
            .buffers()
            .iter()
            .enumerate()
            .filter(|&(i, _)| model.allowed[i].0 & !bounded.0 == 0)
            .map(|(_, b)| b.id.clone())
            .collect(),
        exhaustive: true,
    }
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
