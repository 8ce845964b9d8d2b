//! The bounds of a problem with shares across memories: a lower bound on the cost of
//! every valid plan, whichever optional shares it takes, and each memory's traffic
//! ceiling. The storages' own bounds (`shares.rs`) are neither: a storage holds its
//! largest member over its whole span, and a plan that takes other shares, or none, is
//! not a plan of those storages (on seeded small problems, a bound of 4 where a plan
//! costs 0; `tests/memories_shares_brute.rs`).
//!
//! # The relaxation
//!
//! Each buffer that may sit in another's storage (the `buffer` side of a share whose
//! rule can hold) keeps only the times at which none of its targets is live; a buffer
//! left with no time is dropped, its traffic priced at its cheapest allowed memory:
//!
//! ```text
//!   t  ████████░            in place: b is born at t's last step
//!   b          ░█████████   relaxed b: the steps after t's last
//! ```
//!
//! Two buffers overlap in a valid plan only along a share, at a time when both live, and
//! that time is gone from the share's `buffer`. So every valid plan, its memories and
//! offsets kept, is a plan of the relaxed problem (which has no shares) at the same cost:
//! the sweep's bound on the relaxed problem, run on what is left of the call's budget,
//! bounds them all, its proof that no plan exists holds here too, and its ceilings, with
//! the dropped buffers' traffic added to each memory they may use, hold for every plan.

use super::ceiling;
use super::problem::{unit_costs, Model};
use super::{sweep, MemoriesOptions, MemoriesReport, Stage};
use crate::memory_types::{MemoriesError, MemoriesInput, Memory, MemoryPlan, MemorySet};
use crate::outcome::Outcome;
use crate::request::Request;
use crate::share::{in_place_breach, ShareKind};
use crate::types::{Buffer, Lifetime, Problem};

/// What the relaxation proves.
pub(super) struct Bounds {
    /// A lower bound on the cost of every valid plan.
    bound: u64,
    /// No valid plan exists.
    infeasible: bool,
    /// With the report's plan, each memory's ceiling (indexed like the memories).
    ceilings: Option<Vec<u64>>,
}

/// The problem relaxed: the buffers kept (with their allowed sets and traffic, and
/// their positions in the problem), and each dropped one's set and traffic.
struct Relaxed {
    problem: Problem,
    kept: Vec<usize>,
    sets: Vec<MemorySet>,
    traffic: Vec<u64>,
    dropped: Vec<(MemorySet, u64)>,
}

/// The bounds of `problem` (each buffer's allowed memories `masks` and `traffic`) for
/// `plan`, the report's plan if any (see the module docs).
pub(super) fn bound(
    problem: &Problem,
    memories: &[Memory],
    (masks, traffic): (&[u64], &[u64]),
    plan: Option<&MemoryPlan>,
    call: &Stage<'_>,
    options: &MemoriesOptions,
) -> Result<Bounds, MemoriesError> {
    let relaxed = relax(problem, masks, traffic)?;
    let input = MemoriesInput {
        allowed: Some(&relaxed.sets),
        accesses: None,
        traffic: Some(&relaxed.traffic),
    };
    let request = Request {
        budget: call.rest(),
        ..call.request.clone()
    };
    let inner = MemoriesOptions {
        verify: false,
        ..options.clone()
    };
    let report = sweep::run(&relaxed.problem, memories, &input, &request, &inner)?;
    call.charged(report.work);
    let unit_cost = unit_costs(memories);
    let cheapest = |set: MemorySet| set.iter().map(|m| unit_cost[m.index()]).min().unwrap_or(0);
    let bound = (relaxed.dropped.iter())
        .map(|&(set, t)| t.saturating_mul(cheapest(set)))
        .fold(report.lower_bound, u64::saturating_add);
    let infeasible = matches!(report.outcome, Outcome::Infeasible);
    let ceilings = match plan {
        Some(plan) if !infeasible => Some(ceilings(
            &relaxed, memories, &input, &report, plan, options,
        )?),
        _ => None,
    };
    Ok(Bounds {
        bound,
        infeasible,
        ceilings,
    })
}

/// Each buffer live only where none of its shares' targets is (see the module docs).
fn relax(problem: &Problem, masks: &[u64], traffic: &[u64]) -> Result<Relaxed, MemoriesError> {
    let bufs = problem.buffers();
    let mut cut: Vec<Vec<Lifetime>> = vec![Vec::new(); bufs.len()];
    for (k, share) in problem.shares().iter().enumerate() {
        let (b, t) = problem.share_ends(k);
        let (bb, tb) = (&bufs[b.index()], &bufs[t.index()]);
        let can_hold = match share.kind {
            ShareKind::InPlace => {
                in_place_breach((&bb.id, bb.lifetime), (&tb.id, tb.lifetime)).is_none()
            }
            ShareKind::Inside => true,
        };
        if can_hold {
            cut[b.index()].extend(tb.live_segments());
        }
    }
    let (mut buffers, mut kept, mut sets, mut traffics, mut dropped) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, b) in bufs.iter().enumerate() {
        match outside(b, &mut cut[i]) {
            Some(r) => {
                buffers.push(r);
                kept.push(i);
                sets.push(MemorySet(masks[i]));
                traffics.push(traffic[i]);
            }
            None => dropped.push((MemorySet(masks[i]), traffic[i])),
        }
    }
    let problem = Problem::new(buffers)
        .map_err(|e| MemoriesError::InvalidPlan(format!("the relaxed problem: {e}")))?;
    Ok(Relaxed {
        problem,
        kept,
        sets,
        traffic: traffics,
        dropped,
    })
}

/// `b` live only outside the times of `cut` (sorted here), or `None` when nothing is
/// left.
fn outside(b: &Buffer, cut: &mut [Lifetime]) -> Option<Buffer> {
    cut.sort_unstable_by_key(|l| (l.start, l.end));
    let mut left: Vec<Lifetime> = Vec::new();
    for seg in b.live_segments() {
        let mut from = seg.start;
        for c in cut
            .iter()
            .filter(|c| c.start < seg.end && seg.start < c.end)
        {
            if c.start > from {
                left.push(Lifetime {
                    start: from,
                    end: c.start,
                });
            }
            from = from.max(c.end);
        }
        if from < seg.end {
            left.push(Lifetime {
                start: from,
                end: seg.end,
            });
        }
    }
    let (first, last) = (left.first()?, left.last()?);
    let gaps = left.windows(2).map(|w| Lifetime {
        start: w[0].end,
        end: w[1].start,
    });
    Some(Buffer {
        lifetime: Lifetime {
            start: first.start,
            end: last.end,
        },
        gaps: gaps.collect(),
        ..b.clone()
    })
}

/// Each memory's ceiling for `plan`: the relaxed problem's (`ceiling.rs`, with the
/// first level's bound of `report`, its sweep) for the plan's kept buffers, plus the
/// traffic of the dropped buffers that may use the memory; without costs, the last
/// memory in the order serves what the others leave (the plan's traffic).
fn ceilings(
    relaxed: &Relaxed,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    report: &MemoriesReport,
    plan: &MemoryPlan,
    options: &MemoriesOptions,
) -> Result<Vec<u64>, MemoriesError> {
    let model = Model::new(&relaxed.problem, memories, input, options.size_presolve)?;
    let mut traffic = vec![0u64; memories.len()];
    for (&i, &t) in relaxed.kept.iter().zip(&relaxed.traffic) {
        traffic[plan.memory[i].index()] += t;
    }
    let kept = MemoryPlan {
        memory: relaxed.kept.iter().map(|&i| plan.memory[i]).collect(),
        offsets: relaxed.kept.iter().map(|&i| plan.offsets[i]).collect(),
        heights: plan.heights.clone(),
        traffic,
        cost: 0,
    };
    let first = (report.levels.first())
        .filter(|l| l.memory == model.order[0])
        .map_or(0, |l| l.bound);
    let input = ceiling::Input {
        problem: &relaxed.problem,
        memories,
        allowed: &model.allowed,
        traffic: &model.traffic,
        order: &model.order,
    };
    let mut out = ceiling::traffic_bounds(&input, &kept, (first, false), options);
    for &(set, t) in &relaxed.dropped {
        let count = out.len();
        for m in set.iter().filter(|m| m.index() < count) {
            out[m.index()] = out[m.index()].saturating_add(t);
        }
    }
    if !model.priced {
        let last = model.order[model.order.len() - 1].index();
        out[last] = plan.traffic[last];
    }
    for (c, &t) in out.iter_mut().zip(&plan.traffic) {
        *c = (*c).max(t);
    }
    Ok(out)
}

impl Bounds {
    /// The report with these bounds in place of the storages' (the bound capped by the
    /// plan's cost): `Optimal` exactly at the bound, and `Infeasible` (a proof about the
    /// storages) `Unknown` unless the relaxation proved it too.
    pub(super) fn apply(self, report: &mut MemoriesReport) {
        let lower_bound = report.plan().map_or(self.bound, |p| self.bound.min(p.cost));
        report.lower_bound = lower_bound;
        if let Some(c) = self.ceilings {
            report.traffic_bounds = c;
        }
        report.outcome = match std::mem::replace(&mut report.outcome, Outcome::Infeasible) {
            Outcome::Optimal(plan) | Outcome::Feasible { plan, .. } => {
                if plan.cost == lower_bound {
                    Outcome::Optimal(plan)
                } else {
                    Outcome::Feasible { plan, lower_bound }
                }
            }
            Outcome::Unknown { best_so_far, .. } => Outcome::Unknown {
                best_so_far,
                lower_bound,
            },
            Outcome::Infeasible if !self.infeasible => {
                report.infeasibility = None;
                Outcome::Unknown {
                    best_so_far: None,
                    lower_bound,
                }
            }
            Outcome::Infeasible => Outcome::Infeasible,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn life(s: u64, e: u64) -> Lifetime {
        Lifetime::new(s, e)
    }

    #[test]
    fn a_buffer_keeps_the_times_outside_its_targets() {
        let b = Buffer::new("b", 2, 10, 4).with_gap(5, 6);
        let r = outside(&b, &mut [life(0, 3), life(7, 8)]).expect("times left");
        assert_eq!(r.lifetime, life(3, 10));
        let segments: Vec<Lifetime> = r.live_segments().collect();
        assert_eq!(segments, [life(3, 5), life(6, 7), life(8, 10)]);
        assert!(outside(&b, &mut [life(0, 6), life(4, 12)]).is_none());
    }
}
