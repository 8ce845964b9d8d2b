//! Minimise mode, anytime: tighten `[lower, upper]` on the minimum height with capacity
//! searches.
//!
//! ```text
//!   lower (proven)            soft                          upper (a plan)
//!   |--------------------------|------------------------------|
//!   probes: first `lower` itself (one probe proves optimality), then bisection of
//!   [soft, upper). Feasible → upper drops to the plan found; Infeasible → lower rises
//!   (proven); Unknown → soft rises (nothing proven). When soft nears upper, a new
//!   pass starts from lower: the node limit of the probe at lower grows 4×, that of the
//!   bisection probes 2×.
//! ```
//!
//! Stops when `lower == upper` (optimal), when the budget runs out, or when a pass at
//! the largest node limit allowed ends. The best plan and the best proven lower bound are
//! always at hand. In capacity mode ([`minimise_until`]) it also stops as soon as the
//! plan fits under the capacity or the bound proves that none does: the driver's way to
//! lower the best plan over the capacity while still looking for one under it.

use super::{solve_capacity, ExactOptions, ExactStats, Model};
use crate::budget::Budget;
use crate::outcome::Verdict;
use crate::types::{Offset, Size};
use crate::Problem;

/// What minimise mode returns.
pub(crate) struct Minimised {
    /// The lowest plan found (problem order).
    pub(crate) offsets: Vec<Offset>,
    /// Its height.
    pub(crate) height: Size,
    /// No plan is lower than this.
    pub(crate) lower_bound: Size,
    /// True when `offsets` came from the search (not the starting plan).
    pub(crate) improved: bool,
    /// Effort.
    pub(crate) stats: ExactStats,
}

impl Minimised {
    /// The state before any search: the plan `start`, the proven bound `lower`.
    pub(crate) fn start(problem: &Problem, start: Vec<Offset>, lower: Size) -> Minimised {
        Minimised {
            height: problem.height_of(&start),
            offsets: start,
            lower_bound: lower,
            improved: false,
            stats: ExactStats::default(),
        }
    }
}

/// Minimises the height, starting from the plan `start` and the proven bound `lower`.
pub(crate) fn minimise(
    model: &Model,
    problem: &Problem,
    start: Vec<Offset>,
    lower: Size,
    opt: &ExactOptions,
    budget: &Budget,
    threads: usize,
) -> Minimised {
    minimise_until(model, problem, start, lower, opt, budget, threads, None)
}

/// [`minimise`], which with `capacity` also stops once the plan's height is at most
/// `capacity` (it fits) or the proven bound exceeds it (nothing fits).
#[allow(clippy::too_many_arguments)]
pub(crate) fn minimise_until(
    model: &Model,
    problem: &Problem,
    start: Vec<Offset>,
    lower: Size,
    opt: &ExactOptions,
    budget: &Budget,
    threads: usize,
    capacity: Option<Size>,
) -> Minimised {
    let settled = |o: &Minimised| capacity.is_some_and(|c| o.height <= c || o.lower_bound > c);
    let mut out = Minimised {
        height: problem.height_of(&start),
        offsets: start,
        lower_bound: lower.max(model.fixed_top),
        improved: false,
        stats: ExactStats::default(),
    };
    let max_nodes = budget.node_limit().unwrap_or(u64::MAX);
    let base_limit = (8 * model.len() as u64).max(1024).min(max_nodes);
    let mut probe_limit = base_limit;
    let mut pass_growth = 1u64;
    let mut soft = out.lower_bound;
    let mut first = true;
    while out.lower_bound < out.height && !budget.exhausted() && !settled(&out) {
        // A pass ends when the unexplored window is under 1/1024 of the height: bisecting
        // it byte by byte costs a full probe per byte for little gain.
        if soft.saturating_add(out.height / 1024) >= out.height {
            if probe_limit >= max_nodes {
                break;
            }
            probe_limit = probe_limit.saturating_mul(4).min(max_nodes);
            pass_growth = pass_growth.saturating_mul(2);
            soft = out.lower_bound;
            first = true;
        }
        let target = if first {
            out.lower_bound
        } else {
            soft + (out.height - soft - Size(1)) / 2
        };
        // The probe at the lower bound (the one that can prove optimality) gets the full
        // limit; the bisection probes between get its square root's share (half the
        // growth), so that most of a long budget goes where the answer usually is.
        let limit = if first {
            probe_limit
        } else {
            probe_limit.min(base_limit.saturating_mul(pass_growth))
        };
        first = false;
        let probe = ExactOptions {
            // The bisection chooses its own capacities, the lower bound first.
            tighten: false,
            ..opt.clone()
        };
        let (verdict, stats) = solve_capacity(
            model,
            problem,
            target,
            out.lower_bound,
            &probe,
            &budget.clone().with_node_limit(limit),
            threads,
        );
        out.stats.add(stats);
        match verdict {
            Verdict::Found(offsets) => {
                let h = problem.height_of(&offsets);
                debug_assert!(h <= target);
                if h < out.height {
                    out.height = h;
                    out.offsets = offsets;
                    out.improved = true;
                }
            }
            Verdict::Infeasible => {
                out.lower_bound = target + Size(1);
                soft = soft.max(out.lower_bound);
            }
            Verdict::Stopped(_) => soft = target + Size(1),
        }
    }
    out
}
