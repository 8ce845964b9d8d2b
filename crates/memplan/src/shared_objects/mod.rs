//! Shared-object planning: give every buffer one *shared object* instead of an offset.
//!
//! # The model
//!
//! GPU textures, and runtimes that manage whole allocations, cannot hand out a byte range
//! of an arena: each tensor lives in one whole object. An assignment maps every buffer to
//! one object; it is valid when
//!
//! 1. no two buffers of one object are live at the same time (lifetimes half-open), and
//! 2. each object is at least as large as the largest buffer it ever holds.
//!
//! The cost is the **total**, the sum of the object sizes (TFLite, Pisarchyk & Lee 2020, §4).
//!
//! ```text
//!   time       0   1   2   3   4   5
//!   a (8)      [=======)                   object 0 (size 8): a, then c
//!   b (4)          [===========)           object 1 (size 4): b
//!   c (6)                  [=======)       total 12; the positional maxima are 8, 4
//!   profiles   {a} {a,b} {b,c} {c}         (8 at t=0, 4 at t=1), so 12 is optimal
//! ```
//!
//! # Lower bound
//!
//! Sort the buffers live at each time by size, largest first. The *i*-th positional
//! maximum is the largest *i*-th entry over all times (§3). The *i*-th largest object
//! cannot be smaller than the *i*-th positional maximum, so their sum is a lower bound on
//! the total (§4.1). The max load (the offset planners' bound) is never above it, and
//! an offset plan can always be read off an assignment by stacking its objects (§5), so
//! `max load ≤ best offset height ≤ best total`.
//!
//! # Strategies ([`SharedStrategy`])
//!
//! - **Greedy by Breadth** (§4.2, Alg. 1): times in decreasing order of *breadth* (the
//!   total size live then); at each, its still unassigned buffers, largest first, each
//!   to the smallest suitable object not smaller than it, else to the largest suitable
//!   object (which grows), else to a new object.
//! - **Greedy by Size** (§4.3, Alg. 2): buffers by decreasing size, each to the smallest
//!   suitable object, else to a new one. Objects never grow.
//! - **Greedy by Size Improved** (§4.4): the buffers are split into *stages* by the
//!   positional maxima `p1 > p2 > …`: sizes equal to `p1`, then strictly between `p2` and
//!   `p1`, then equal to `p2`, and so on, down to sizes below the last maximum. Inside a
//!   stage the pair (buffer, suitable object) with the smallest *time gap* (the idle time
//!   between the buffer and the nearest buffer already in the object) is assigned first;
//!   when no buffer of the stage fits any object, the largest gets a new object.
//! - **Naive**: one object per buffer; the total is the sum of the sizes.
//!
//! [`SharedOptions::strategy`] `None` runs them all and keeps the smallest total.
//!
//! # What does not apply
//!
//! - **Gaps** are ignored: a buffer counts as live over its whole lifetime. This is safe
//!   (it only forbids sharing) and is what the checker assumes.
//! - **Fixed offsets, alignment and a capacity** describe addresses in an arena, which
//!   shared objects do not have; they are ignored here.
//!
//! # Cost
//!
//! "Is object `o` free during `[s, e)`?" is a predecessor query in the sorted, disjoint
//! intervals of `o` (O(log n)), so a strategy costs O(k · n log n) for `k` objects at
//! worst (the bound of §4.2 with an interval structure per object). Greedy by Size and
//! Breadth scan objects in size order and stop at the first fit. Greedy by Size Improved
//! keeps a heap of (gap, buffer, object) candidates per stage and, after an assignment,
//! only revisits the buffers of the stage that lie in the hole it filled: a buffer in
//! another hole of that object keeps its gap, since its nearest neighbours are unchanged.

pub(crate) mod bound;
mod greedy;
mod objects;

use std::time::{Duration, Instant};

pub use crate::checker::check_shared_objects;
pub use crate::shared_object_types::SharedAssignment;
use bound::positional_maxima;

use crate::error::PlanError;
use crate::shared_object_types::saturating_sum;
use crate::types::{Problem, Size};

/// A shared-object strategy (TFLite §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedStrategy {
    /// Greedy by Breadth (§4.2, Alg. 1).
    Breadth,
    /// Greedy by Size (§4.3, Alg. 2).
    Size,
    /// Greedy by Size Improved: stages by positional maximum, smallest gap first (§4.4).
    SizeImproved,
    /// One object per buffer.
    Naive,
}

impl SharedStrategy {
    /// Every strategy, in the order `auto` runs them (which is also its tie-break order).
    pub const ALL: [SharedStrategy; 4] = [
        SharedStrategy::SizeImproved,
        SharedStrategy::Size,
        SharedStrategy::Breadth,
        SharedStrategy::Naive,
    ];

    /// `breadth`, `size`, `size-improved` or `naive`.
    pub fn name(self) -> &'static str {
        match self {
            SharedStrategy::Breadth => "breadth",
            SharedStrategy::Size => "size",
            SharedStrategy::SizeImproved => "size-improved",
            SharedStrategy::Naive => "naive",
        }
    }
}

impl std::fmt::Display for SharedStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SharedStrategy {
    type Err = PlanError;
    fn from_str(s: &str) -> Result<SharedStrategy, PlanError> {
        SharedStrategy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| PlanError::UnknownPlanner {
                name: s.to_string(),
                expected: SharedStrategy::ALL.map(|p| p.name().to_string()).to_vec(),
            })
    }
}

/// Options for [`plan_shared_objects`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedOptions {
    /// The strategy to run; `None` (the default) runs every strategy and keeps the
    /// smallest total, ties going to the earlier one in [`SharedStrategy::ALL`].
    pub strategy: Option<SharedStrategy>,
    /// Greedy by Size Improved: find a buffer's best objects by walking outward from
    /// its lifetime to the nearest held lifetimes, after an O(log n) test that some
    /// object is free throughout it, instead of asking every object. The same
    /// assignment either way; much faster with thousands of objects. On by default.
    pub nearest_first: bool,
    /// Run [`check_shared_objects`] on the result and fail with
    /// [`PlanError::InvalidPlan`] if it disagrees. On by default.
    pub verify: bool,
}

impl Default for SharedOptions {
    fn default() -> SharedOptions {
        SharedOptions {
            strategy: None,
            nearest_first: true,
            verify: true,
        }
    }
}

/// One strategy's result inside [`plan_shared_objects`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedCandidate {
    /// The strategy.
    pub strategy: SharedStrategy,
    /// Its total.
    pub total: Size,
    /// How many objects it used.
    pub objects: usize,
    /// Wall time it took.
    pub elapsed: Duration,
}

/// What [`plan_shared_objects`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedReport {
    /// The kept assignment (the smallest total among the strategies run) and its bounds
    /// on the total: `Optimal` when the total equals [`SharedReport::lower_bound`]; with
    /// a capacity, `Infeasible` when the bound exceeds it and `Unknown` (with the
    /// assignment) when only the total does.
    pub outcome: crate::Outcome<SharedAssignment>,
    /// The strategy that produced it.
    pub strategy: SharedStrategy,
    /// The sum of the positional maxima: no assignment has a smaller total (§4.1).
    pub lower_bound: Size,
    /// The naive total, one object per buffer (the sum of the sizes).
    pub naive: Size,
    /// Every strategy that was run, in order.
    pub candidates: Vec<SharedCandidate>,
}

/// Assigns every buffer of `problem` to a shared object (TFLite §4): no two buffers of
/// one object live at the same time, each object as large as the largest buffer it
/// holds, the cost being the sum of the object sizes, reported beside its lower bound
/// (the sum of the positional maxima). Gaps, fixed offsets, alignment and the capacity
/// are ignored. The request's budget stops the strategies after the first (each is one
/// greedy pass); its goal decides the outcome ([`SharedReport::outcome`]).
pub fn plan_shared_objects(
    problem: &Problem,
    request: &crate::Request,
    options: &SharedOptions,
) -> Result<SharedReport, PlanError> {
    let budget = request
        .budget
        .start(Instant::now(), std::time::Duration::ZERO);
    let maxima = positional_maxima(problem);
    let lower_bound = saturating_sum(maxima.iter().copied());
    let naive = saturating_sum(problem.buffers().iter().map(|b| b.size));
    let strategies: Vec<SharedStrategy> = match options.strategy {
        Some(s) => vec![s],
        None => SharedStrategy::ALL.to_vec(),
    };
    let mut best: Option<(SharedAssignment, SharedStrategy)> = None;
    let mut candidates = Vec::with_capacity(strategies.len());
    for strategy in strategies {
        if best.is_some() && budget.exhausted() {
            break;
        }
        let started = Instant::now();
        let assignment = run_strategy(problem, strategy, &maxima, options.nearest_first);
        // One greedy pass over the buffers.
        budget.charge(crate::budget::work::units(
            problem.len() as u64,
            crate::budget::work::SWEEP_BUFFERS_PER_UNIT,
        ));
        let total = assignment.total();
        candidates.push(SharedCandidate {
            strategy,
            total,
            objects: assignment.object_sizes().len(),
            elapsed: started.elapsed(),
        });
        if best.as_ref().is_none_or(|(b, _)| total < b.total()) {
            best = Some((assignment, strategy));
        }
    }
    let (assignment, strategy) = best.expect("at least one strategy runs");
    if options.verify {
        check_shared_objects(problem, &assignment).map_err(|f| PlanError::InvalidPlan {
            planner: format!("shared-objects {strategy}"),
            detail: f.to_string(),
        })?;
    }
    let total = assignment.total();
    Ok(SharedReport {
        outcome: crate::Outcome::judge(assignment, total, lower_bound, request.capacity()),
        strategy,
        lower_bound,
        naive,
        candidates,
    })
}

fn run_strategy(
    problem: &Problem,
    strategy: SharedStrategy,
    maxima: &[Size],
    nearest_first: bool,
) -> SharedAssignment {
    let (object_of, sizes) = match strategy {
        SharedStrategy::Naive => {
            return SharedAssignment::from_parts(
                (0..problem.len() as u32).collect(),
                problem.buffers().iter().map(|b| b.size).collect(),
            )
        }
        SharedStrategy::Size => greedy::by_size(problem),
        SharedStrategy::Breadth => greedy::by_breadth(problem),
        SharedStrategy::SizeImproved => greedy::by_size_improved(problem, maxima, nearest_first),
    };
    SharedAssignment::from_parts(object_of.into_iter().map(|o| o.0).collect(), sizes)
}
