//! [`super::plan_spill`]: the stages in order, under one budget.
//!
//! ```text
//!   validate the input                         model.rs
//!   root bound; Infeasible when forced buffers alone overflow     bound.rs
//!   Lagrangian relaxation: a stronger bound, a cheap cover      cover.rs
//!   heuristic: a first valid solution, and the cover placed   heuristic.rs
//!   improvement (if on, and above the bound)   improve.rs
//!   exact search per time component (if on)    exact.rs
//!   slow plan (memplan's planner, minimise), the two-level plan, check_spill
//! ```
//!
//! Invariant: the solution carried from stage to stage is always valid (its kept
//! buffers have a plan under the capacity), and a stage replaces it only with a cheaper
//! one.

use std::time::Instant;

use crate::analysis::time_components;
use crate::budget::Budget;
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::request::Request;
use crate::types::{Problem, Size};

use super::baseline;
use super::bound::{lower_bound, Bound, BoundOptions};
use super::cover;
use super::heuristic::{self, Start};
use super::model::{members, sub_problem, Decision, Solution, SpillModel};
use super::place::{LifetimeIndex, Placer};
use super::{
    check_spill, exact, improve, SpillError, SpillInput, SpillOptions, SpillReport, SpillStats,
    TwoLevelPlan,
};

/// The share of the time limit the search may use; the slow plan and the final check
/// get the rest.
const SEARCH_SHARE: f64 = 0.9;

/// The share of the time limit the Lagrangian ascent may use at most.
const RELAXATION_SHARE: f64 = 0.25;

/// Under a time limit, each search's node limit is at most this many nodes per second of
/// the limit (and at least [`MIN_NODES`]): a short limit is better spent on many cheap
/// placements than on a few thorough ones. On A–K at 90% of the max load with a 2 s
/// limit, 2,000 nodes per placement left the cost at 1.75 times the bound (geometric
/// mean) where 20,000 left it at 2.34; at 30 s, 20,000 did better (BENCHMARKS.md §12).
const NODES_PER_SECOND: f64 = 1_000.0;
/// The least node limit that [`NODES_PER_SECOND`] gives.
const MIN_NODES: u64 = 200;

/// `options` with the branch and bound's and the placements' node limits held to
/// [`NODES_PER_SECOND`] times the call's time (unchanged without a time limit).
fn scaled_to_time(options: &SpillOptions, time: Option<std::time::Duration>) -> SpillOptions {
    let Some(time) = time else {
        return options.clone();
    };
    let cap = ((time.as_secs_f64() * NODES_PER_SECOND) as u64).max(MIN_NODES);
    SpillOptions {
        exact_node_limit: options.exact_node_limit.min(cap),
        placement_node_limit: options.placement_node_limit.min(cap),
        ..options.clone()
    }
}

/// [`super::plan_spill`].
pub(crate) fn run(
    problem: &Problem,
    input: &SpillInput<'_>,
    request: &Request,
    options: &SpillOptions,
) -> Result<SpillReport, SpillError> {
    let started = Instant::now();
    let capacity = request.capacity().ok_or(SpillError::NoCapacity)?;
    let model = SpillModel::new(problem, capacity, input)?;
    // The call's budget, started; the search stops at 90 % of it, and the rest is for
    // the slow plan and the check.
    let call = request
        .budget
        .start(started, std::time::Duration::ZERO)
        .with_finish_first_plan(false);
    let budget = call.share(started, SEARCH_SHARE);
    let scaled = scaled_to_time(options, call.deadline().map(|d| d - started));
    let options = &scaled;
    let bound_options = BoundOptions {
        rounding: options.rounding_bound,
        chain: options.chain_bound,
        holes: options.holes_bound,
    };
    let mut stats = SpillStats::default();
    let report = |outcome, lower_bound, stats| SpillReport {
        outcome,
        lower_bound,
        stats,
        elapsed: started.elapsed(),
    };
    let root = match lower_bound(
        problem,
        capacity.get(),
        &model.costs,
        &model.base,
        bound_options,
    ) {
        Bound::Infeasible => return Ok(report(Outcome::Infeasible, 0, stats)),
        Bound::AtLeast(b) => b,
    };
    let relaxation = if options.lagrangian && options.baseline.is_none() {
        cover::solve(&model, &call.share(started, RELAXATION_SHARE))
    } else {
        cover::Relaxation {
            bound: 0,
            keys: None,
        }
    };
    let root = root.max(relaxation.bound);
    stats.root_bound = root;
    let index = LifetimeIndex::new(&model);
    let start = match options.baseline {
        Some(b) => {
            let mut placer = Placer::new(&model, options, &budget);
            let start = baseline::run(&model, &mut placer, &index, b);
            stats.placements += placer.calls;
            start
        }
        None => first_solution(&model, options, &budget, &index, &relaxation, &mut stats),
    };
    let mut sol = match start {
        Start::Found(s) => s,
        Start::Infeasible => return Ok(report(Outcome::Infeasible, root, stats)),
        Start::Unknown => {
            let outcome = Outcome::Unknown {
                best_so_far: None,
                lower_bound: root,
            };
            return Ok(report(outcome, root, stats));
        }
    };
    let mut placer = Placer::new(&model, options, &budget);
    stats.heuristic_cost = Some(sol.cost);
    if options.improve && options.baseline.is_none() && sol.cost > root {
        improve::run(
            &model,
            &mut placer,
            &index,
            &mut sol,
            options.improve_rounds,
            options.seed,
        );
        stats.improved_cost = Some(sol.cost);
    }
    stats.placements += placer.calls;
    let mut bound = root;
    if options.exact && options.baseline.is_none() && sol.cost > root {
        let by_components = exact_components(
            &model,
            options,
            &budget,
            bound_options,
            &mut sol,
            &mut stats,
        );
        bound = bound.max(by_components);
    }
    debug_assert!(
        bound <= sol.cost,
        "bound {bound} above a valid cost {}",
        sol.cost
    );
    let bound = bound.min(sol.cost);
    let plan = two_level(&model, options, &call, sol)?;
    if options.verify {
        check_spill(problem, capacity, input, &plan)
            .map_err(|v| SpillError::InvalidPlan(v.to_string()))?;
    }
    let outcome = if plan.cost == bound {
        Outcome::Optimal(plan)
    } else {
        Outcome::Feasible {
            plan,
            lower_bound: bound,
        }
    };
    Ok(report(outcome, bound, stats))
}

/// Builds a cover of the overloads for a model's capacity.
type CoverFn<'a> = dyn Fn(&SpillModel<'_>) -> Vec<bool> + 'a;

/// The heuristic from the relaxation's cover when it is cheaper than the heuristic's own
/// (with half the time left), then from its own; the cheaper solution.
fn first_solution(
    model: &SpillModel<'_>,
    options: &SpillOptions,
    budget: &Budget,
    index: &LifetimeIndex,
    relaxation: &cover::Relaxation,
    stats: &mut SpillStats,
) -> Start {
    let own = model.cost_of(&heuristic::default_cover(model));
    let relaxed = |m: &SpillModel<'_>| {
        relaxation
            .cover(m)
            .unwrap_or_else(|| heuristic::default_cover(m))
    };
    let mut covers: Vec<&CoverFn<'_>> = Vec::new();
    if relaxation.keys.as_ref().is_some_and(|(_, c)| *c < own) {
        covers.push(&relaxed);
    }
    covers.push(&heuristic::default_cover);
    let mut best: Option<Solution> = None;
    for (k, cover) in covers.iter().enumerate() {
        let last = k + 1 == covers.len();
        // Every cover but the last gets at most half the time left.
        let share = if last {
            budget.clone()
        } else {
            budget.share(Instant::now(), 0.5)
        };
        let mut placer = Placer::new(model, options, &share);
        let start = heuristic::run(model, &mut placer, index, *cover);
        stats.placements += placer.calls;
        match start {
            Start::Found(s) if best.as_ref().is_none_or(|b| s.cost < b.cost) => best = Some(s),
            Start::Found(_) => {}
            Start::Infeasible => return Start::Infeasible,
            Start::Unknown if last && best.is_none() => return Start::Unknown,
            Start::Unknown => {}
        }
    }
    best.map_or(Start::Unknown, Start::Found)
}

/// The exact search on every time component with few enough undecided buffers (the
/// others keep their part of `sol` and their root bound). Updates `sol` with the cheaper
/// parts and returns the sum of the components' bounds.
fn exact_components(
    model: &SpillModel<'_>,
    options: &SpillOptions,
    budget: &Budget,
    bound_options: BoundOptions,
    sol: &mut Solution,
    stats: &mut SpillStats,
) -> u64 {
    let mut total = 0u64;
    for component in time_components(model.problem) {
        let members = &component.buffers;
        let sub = sub_problem(model.problem, members);
        let part = SpillModel {
            problem: &sub,
            capacity: model.capacity,
            costs: members.iter().map(|&i| model.costs[i]).collect(),
            base: members.iter().map(|&i| model.base[i]).collect(),
        };
        let spilled: Vec<bool> = members.iter().map(|&i| sol.spilled[i]).collect();
        let start = Solution {
            cost: part.cost_of(&spilled),
            offsets: members.iter().map(|&i| sol.offsets[i]).collect(),
            spilled,
        };
        let root = match lower_bound(
            &sub,
            part.capacity.get(),
            &part.costs,
            &part.base,
            bound_options,
        ) {
            Bound::AtLeast(b) => b.min(start.cost),
            Bound::Infeasible => 0, // not reached: `sol` is valid
        };
        let free = part.base.iter().filter(|&&d| d == Decision::Free).count();
        if root >= start.cost || free > options.exact_max_buffers || budget.exhausted() {
            total = total.saturating_add(root);
            continue;
        }
        stats.exact_components += 1;
        let index = LifetimeIndex::new(&part);
        let mut placer = Placer::new(&part, options, budget);
        let result = exact::search(
            &part,
            &mut placer,
            &index,
            bound_options,
            start,
            budget.nodes_at_most(options.exact_node_limit),
        );
        stats.placements += placer.calls;
        stats.branch_nodes += result.nodes;
        stats.exact_closed += usize::from(result.closed);
        total = total.saturating_add(result.bound.max(root));
        for (k, &i) in members.iter().enumerate() {
            sol.spilled[i] = result.best.spilled[k];
            sol.offsets[i] = result.best.offsets[k];
        }
    }
    sol.cost = model.cost_of(&sol.spilled);
    total
}

/// The slow plan of the spilled buffers, and the two-level plan.
fn two_level(
    model: &SpillModel<'_>,
    options: &SpillOptions,
    call: &Budget,
    sol: Solution,
) -> Result<TwoLevelPlan, SpillError> {
    let problem = model.problem;
    let slow_members = members(&sol.spilled);
    let mut offsets = sol.offsets;
    let mut slow_height = Size::ZERO;
    if !slow_members.is_empty() {
        let slow = sub_problem(problem, &slow_members);
        let slow_options = Options {
            // The greedy portfolio: without a limit, a plan that depends on the input
            // alone; with one, the first greedy plan at least (it may finish late).
            planner: Planner::GreedyPortfolio,
            threads: options.threads,
            verify: false,
            ..Options::default()
        };
        let budget = call.child().with_finish_first_plan(true);
        let report = crate::driver::run_within(&slow, None, &slow_options, &budget)?;
        let plan = report
            .outcome
            .plan()
            .ok_or_else(|| SpillError::InvalidPlan("no plan of the slow level".into()))?;
        for (&i, &o) in slow_members.iter().zip(plan.offsets()) {
            offsets[i] = o;
        }
        slow_height = plan.height();
    }
    let kept: Vec<bool> = sol.spilled.iter().map(|&s| !s).collect();
    let fast_height = model.height_of(&kept, &offsets);
    Ok(TwoLevelPlan {
        spilled: sol.spilled,
        offsets,
        fast_height,
        slow_height,
        cost: sol.cost,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn node_limits_scale_with_the_time_limit_only() {
        let o = SpillOptions::default();
        let same = scaled_to_time(&o, None);
        assert_eq!(same.placement_node_limit, o.placement_node_limit);
        let two = scaled_to_time(&o, Some(Duration::from_secs(2)));
        assert_eq!(
            (two.exact_node_limit, two.placement_node_limit),
            (2_000, 2_000)
        );
        let long = scaled_to_time(&o, Some(Duration::from_secs(3_600)));
        assert_eq!(long.placement_node_limit, o.placement_node_limit);
        let none = scaled_to_time(&o, Some(Duration::ZERO));
        assert_eq!(none.placement_node_limit, MIN_NODES);
    }
}
