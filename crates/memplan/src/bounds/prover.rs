//! The exact search as a prover: raise a bound by proving capacities infeasible, part by
//! part, with a node limit that grows by rounds (see the module doc of [`super`]).

use super::relax::{next_multiple, Part, PartKind};
use super::Provenance;
use crate::budget::Budget;
use crate::exact::{solve_capacity, ExactOptions, Model};
use crate::outcome::Verdict;
use crate::types::{Offset, Size};

/// What the prover is after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Goal {
    /// Raise the bound as far as the budget allows: every probe is at the bound.
    Minimise,
    /// Settle one capacity: every probe is at it, and one proof ends the run.
    Capacity(Size),
}

/// Limits of the prover, in search nodes (deterministic, unlike the clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NodeLimits {
    /// Node limit (per preorder) of every probe in the first round.
    pub(crate) first: u64,
    /// The last round's limit: rounds multiply the limit by 4 up to it.
    pub(crate) last: u64,
}

/// The prover's state, shared by every part of one run.
pub(crate) struct Prover<'a> {
    pub(crate) goal: Goal,
    pub(crate) bound: Size,
    pub(crate) provenance: Provenance,
    /// Search nodes spent.
    pub(crate) nodes: u64,
    budget: &'a Budget,
}

/// A part and what is known of it.
pub(crate) struct Slot {
    pub(crate) part: Part,
    model: Option<Model>,
    /// A plan of the part under the capacity last probed (problem order of the part).
    pub(crate) plan: Option<Vec<Offset>>,
}

impl Slot {
    pub(crate) fn new(part: Part) -> Slot {
        Slot {
            part,
            model: None,
            plan: None,
        }
    }
}

impl<'a> Prover<'a> {
    pub(crate) fn new(goal: Goal, bound: Size, provenance: Provenance, budget: &'a Budget) -> Self {
        Prover {
            goal,
            bound,
            provenance,
            nodes: 0,
            budget,
        }
    }

    /// A part with a plan this high is settled: the capacity, or when minimising the
    /// bound (a plan there cannot raise the bound any more).
    fn settled_at(&self) -> Size {
        match self.goal {
            Goal::Minimise => self.bound,
            Goal::Capacity(c) => c,
        }
    }

    /// True once the goal is met: a capacity below the bound.
    pub(crate) fn proven_infeasible(&self) -> bool {
        matches!(self.goal, Goal::Capacity(c) if self.bound > c)
    }

    /// Rounds of a growing node limit over `slots` until every component has a plan
    /// under the target, the goal is met, the last round ends or the budget runs out.
    pub(crate) fn run(&mut self, slots: &mut [Slot], limits: NodeLimits) {
        let mut limit = limits.first.max(1);
        loop {
            for slot in slots.iter_mut() {
                if slot.plan.is_some() {
                    continue;
                }
                self.settle(slot, limit);
                if self.proven_infeasible() || self.budget.exhausted() {
                    return;
                }
            }
            // (Checked after whole rounds: a window is cheap next to its component.)
            if done(slots) || limit >= limits.last {
                return;
            }
            limit = limit.saturating_mul(4).min(limits.last);
        }
    }

    /// Probes `slot` with `limit` nodes per probe until it holds a plan under the bound,
    /// the goal is met, or a probe stops.
    ///
    /// In capacity mode every probe is at the capacity. When minimising, the first probe
    /// is at the bound; after each proof the next one gallops (the step above the bound
    /// doubles), and once a probe finds a plan above the bound, the next ones bisect
    /// between the bound and that plan's height. So a part whose optimum is far above
    /// the bound costs O(log) probes, not one per unit (found by fuzzing: alignments of
    /// 2^47 with sizes of a few bytes took a probe per byte).
    fn settle(&mut self, slot: &mut Slot, limit: u64) {
        if slot.model.is_none() {
            slot.model = Model::new(&slot.part.problem, self.budget);
        }
        let Some(model) = &slot.model else { return };
        let g = slot.part.granularity;
        let options = ExactOptions {
            // The prover chooses its capacities itself.
            tighten: false,
            ..ExactOptions::default()
        };
        let probe_budget = self.budget.clone().with_node_limit(limit);
        // A plan of the part above the bound, and its height.
        let mut above: Option<(Size, Vec<Offset>)> = None;
        let mut step = Size::ZERO;
        loop {
            let target = match (self.goal, &above) {
                (Goal::Capacity(c), _) => c,
                (Goal::Minimise, None) => self.bound.saturating_add(step),
                (Goal::Minimise, Some((h, _))) => {
                    let mid = self.bound + (*h - Size(1) - self.bound) / 2;
                    Size(mid.0 / g.0 * g.0).max(self.bound)
                }
            };
            let (verdict, stats) = solve_capacity(
                model,
                &slot.part.problem,
                target,
                slot.part.floor,
                &options,
                &probe_budget,
                1,
            );
            self.nodes += stats.nodes;
            match verdict {
                Verdict::Found(plan) => {
                    let h = slot.part.problem.height_of(&plan);
                    if h <= self.settled_at() {
                        slot.plan = Some(plan);
                        return;
                    }
                    above = Some((h, plan));
                }
                Verdict::Stopped(_) => return,
                Verdict::Infeasible => {
                    let raised = next_multiple(target, g);
                    if raised > self.bound {
                        self.bound = raised;
                        self.provenance = provenance(&slot.part, target, self.nodes);
                    }
                    if self.proven_infeasible() || self.budget.exhausted() {
                        return;
                    }
                    step = if step == Size::ZERO {
                        g
                    } else {
                        step.saturating_add(step)
                    };
                }
            }
            // A plan at the bound (the bound rose to its height) settles the part.
            if let Some((h, _)) = &above {
                if *h <= self.settled_at() {
                    slot.plan = above.take().map(|(_, plan)| plan);
                    return;
                }
            }
        }
    }
}

fn provenance(part: &Part, capacity: Size, nodes: u64) -> Provenance {
    match part.kind {
        PartKind::Component => Provenance::Search {
            infeasible: capacity,
            nodes,
        },
        PartKind::Window { start, end } => Provenance::Window {
            start,
            end,
            infeasible: capacity,
            nodes,
        },
    }
}

/// True when every component has a plan under the target: together they are a plan of
/// the problem.
pub(crate) fn all_components_planned(slots: &[Slot]) -> bool {
    slots
        .iter()
        .filter(|s| s.part.kind == PartKind::Component)
        .all(|s| s.plan.is_some())
}

/// True when the run has nothing left to do: every component planned, or, without
/// components (windows alone), every window.
fn done(slots: &[Slot]) -> bool {
    if slots.iter().any(|s| s.part.kind == PartKind::Component) {
        all_components_planned(slots)
    } else {
        slots.iter().all(|s| s.plan.is_some())
    }
}
