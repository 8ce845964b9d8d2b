//! Two memory levels: choosing which buffers to *spill* to slow memory when the fast one
//! is too small, at the least total cost, with a proven lower bound on that cost.
//!
//! # The model
//!
//! Given a [`Problem`] (buffers with half-open lifetimes `[start, end)`, sizes,
//! alignments, gaps, fixed offsets), a fast capacity `C`, and per buffer a *cost* (the
//! price of keeping it in slow memory; default: its size) and a [`Memory`] preference
//! (fast, slow, or the planner's choice), find the set of buffers to spill that
//! minimises the total cost of the spilled buffers, such that the *kept* buffers have a
//! plan under `C` that [`crate::check`] accepts. Buffers with a fixed offset are always
//! kept (their offset is an address in fast memory). Spilled buffers get offsets in a
//! slow arena too, planned by the normal minimise planner ([`crate::plan`]).
//!
//! ```text
//!   C = 8 bytes of fast memory
//!   time               0   1   2   3
//!   a  size 4  cost 9  [===========)
//!   b  size 4  cost 3  [=======)
//!   c  size 4  cost 5      [=======)
//!   load               8  12   8
//!   need = load − C    0   4   0
//!
//!   fast plan (C = 8)          slow plan
//!   8 +-----------+            4 +-------+
//!     |   | c     |              |   b   |
//!   4 +---+-------+            0 +-------+
//!     |     a     |                0   2
//!   0 +-----------+
//!     0   1   2   3
//! ```
//!
//! At time 1, 4 bytes of `{a, b, c}` must leave fast memory. The cheapest bytes are b's
//! (3/4 per byte), so every valid plan costs at least 3. Spilling b leaves a and c,
//! which fit side by side under 8: cost 3 equals the bound, so the plan is optimal.
//!
//! # The answer
//!
//! [`plan_spill`] returns a [`SpillReport`]: an [`Outcome`] (mirroring
//! [`crate::Outcome`]: `Optimal`, `Feasible` with a bound, `Infeasible` when the buffers
//! that must stay fast cannot fit under `C`, `Unknown` when no plan was found in time),
//! the proven lower bound, and the effort. A [`TwoLevelPlan`] holds, per buffer, whether
//! it is spilled and its offset *in its own level*; [`TwoLevelPlan::levels`] splits it
//! into two ordinary problems and plans, and [`check_spill`] verifies both with
//! [`crate::check`].
//!
//! # One planner
//!
//! This is the two-memory form of [`crate::memories`]: memory `fast` with capacity `C`,
//! then an unbounded `slow` one, each buffer's cost given as its traffic, no costs per
//! byte (so the objective is the cost outside `fast`). [`plan_spill`] and
//! [`check_spill`] translate their input and call [`crate::memories::plan_memories`]
//! and [`crate::memories::check_memories`]; the techniques (the bound, the heuristic,
//! the Lagrangian cover, the improvement and the exact search) are the switches of
//! [`SpillOptions`], the same type as [`crate::memories::MemoriesOptions`].
//!
//! The library prints nothing and starts no global thread pool. Without a time limit the
//! result depends only on the input and the options (the seed included), whatever the
//! thread count; every search is bounded by node limits.

mod check;
#[cfg(feature = "fuzzing")]
mod fuzz;
mod solve;

use std::time::Duration;

use thiserror::Error;

use crate::error::{Escaped, PlanError};
use crate::outcome::Outcome;
use crate::request::Request;
use crate::types::{BufferIdx, Offset, Plan, Problem, Size};

pub use check::check_spill;
#[cfg(feature = "fuzzing")]
pub use fuzz::fuzz_spill;

/// Where a buffer must live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Memory {
    /// In fast memory, under the capacity (implied for buffers with a fixed offset).
    Fast,
    /// In slow memory; its cost is always paid.
    Slow,
    /// Wherever the planner finds cheapest (the default).
    #[default]
    Either,
}

impl Memory {
    /// The name used by the CLI and files: `fast`, `slow` or `either`.
    pub fn name(self) -> &'static str {
        match self {
            Memory::Fast => "fast",
            Memory::Slow => "slow",
            Memory::Either => "either",
        }
    }
}

impl std::fmt::Display for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Memory {
    type Err = SpillError;
    /// `fast`, `slow`, or `either` (also `any` and the empty string).
    fn from_str(s: &str) -> Result<Memory, SpillError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fast" => Ok(Memory::Fast),
            "slow" => Ok(Memory::Slow),
            "either" | "any" | "" => Ok(Memory::Either),
            _ => Err(SpillError::UnknownMemory(s.to_string())),
        }
    }
}

/// The per-buffer data of a spill problem, as plain slices indexed like the problem's
/// buffers. `None` means the default for every buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpillInput<'a> {
    /// The cost of spilling each buffer (default: its size). Their sum must fit in a `u64`.
    pub costs: Option<&'a [u64]>,
    /// Where each buffer must live (default: [`Memory::Either`]; buffers with a fixed
    /// offset are fast whatever this says, and asking for them to be slow is an error).
    pub memory: Option<&'a [Memory]>,
}

/// Options of [`plan_spill`]: those of [`crate::memories::plan_memories`], whose
/// two-memory form it is.
pub type SpillOptions = crate::memories::MemoriesOptions;

/// A naive spill strategy, for benchmarks: [`crate::memories::Baseline`].
pub type SpillBaseline = crate::memories::Baseline;

/// A plan on two levels: per buffer, whether it is spilled and its offset in its level.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TwoLevelPlan {
    /// `true`: the buffer lives in slow memory. Indexed like the problem's buffers.
    pub spilled: Vec<bool>,
    /// Each buffer's offset in its own level's arena (fast when kept, slow when spilled).
    pub offsets: Vec<Offset>,
    /// The highest address used in fast memory (at most the capacity).
    pub fast_height: Size,
    /// The highest address used in slow memory.
    pub slow_height: Size,
    /// The total cost of the spilled buffers.
    pub cost: u64,
}

/// A [`TwoLevelPlan`] as two ordinary problems and plans, with the map back to the
/// original buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Levels {
    /// The kept buffers.
    pub fast: Problem,
    /// Their plan (under the capacity, for a valid two-level plan).
    pub fast_plan: Plan,
    /// The original index of each buffer of `fast`.
    pub fast_buffers: Vec<BufferIdx>,
    /// The spilled buffers.
    pub slow: Problem,
    /// Their plan.
    pub slow_plan: Plan,
    /// The original index of each buffer of `slow`.
    pub slow_buffers: Vec<BufferIdx>,
}

impl TwoLevelPlan {
    /// The buffers kept in fast memory, in index order.
    pub fn kept(&self) -> impl Iterator<Item = BufferIdx> + '_ {
        self.spilled
            .iter()
            .enumerate()
            .filter(|(_, &s)| !s)
            .map(|(i, _)| BufferIdx(i as u32))
    }

    /// Splits the plan into its two levels. Fails when the plan does not match the
    /// problem (wrong lengths, or an offset whose end overflows).
    pub fn levels(&self, problem: &Problem) -> Result<Levels, SpillError> {
        solve::split_levels(problem, &self.spilled, &self.offsets)
    }
}

/// Effort and intermediate results of [`plan_spill`]: those of its one level.
pub type SpillStats = crate::memories::LevelStats;

/// What [`plan_spill`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpillReport {
    /// The result: the plan and its bounds on the spilled cost. The plan, when there is
    /// one, passes [`check_spill`]; `Infeasible` means that the buffers that must stay fast
    /// (fixed, or [`Memory::Fast`]) do not fit under the capacity; `Unknown` that they
    /// could not be placed in time (its `best_so_far` is always `None`).
    pub outcome: Outcome<TwoLevelPlan, u64>,
    /// A proven lower bound on the cost of any valid plan (for `Infeasible`: the bound
    /// reached before the proof).
    pub lower_bound: u64,
    /// Effort.
    pub stats: SpillStats,
    /// Wall time spent.
    pub elapsed: Duration,
}

impl SpillReport {
    /// The plan, if any.
    pub fn plan(&self) -> Option<&TwoLevelPlan> {
        self.outcome.plan()
    }

    /// Cost of the plan minus the lower bound, when there is a plan.
    pub fn gap(&self) -> Option<u64> {
        self.plan().map(|p| p.cost.saturating_sub(self.lower_bound))
    }
}

/// Why [`plan_spill`] could not run, or a [`TwoLevelPlan`] could not be split.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SpillError {
    /// The request has no capacity ([`crate::Goal::Minimise`]): spilling needs the fast
    /// memory's.
    #[error("spilling needs a capacity (the fast memory's): the request's goal is to minimise")]
    NoCapacity,
    /// The cost slice's length is not the number of buffers.
    #[error("{found} cost(s) given for {expected} buffer(s)")]
    CostCount {
        /// The number of buffers.
        expected: usize,
        /// The number of costs.
        found: usize,
    },
    /// The memory slice's length is not the number of buffers.
    #[error("{found} memory preference(s) given for {expected} buffer(s)")]
    MemoryCount {
        /// The number of buffers.
        expected: usize,
        /// The number of preferences.
        found: usize,
    },
    /// A buffer with a fixed offset was asked to live in slow memory.
    #[error("buffer '{}' (#{index}) has a fixed offset, so it cannot be slow", Escaped(.id))]
    FixedInSlow {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
    },
    /// The costs add up to more than a `u64` holds.
    #[error("the costs add up to more than 2^64 - 1")]
    CostOverflow,
    /// A memory preference that is not `fast`, `slow` or `either`.
    #[error("unknown memory '{}' (expected fast, slow or either)", Escaped(.0))]
    UnknownMemory(String),
    /// A plan whose vectors do not match the problem, or whose offsets overflow.
    #[error("the plan has {found} entries for {expected} buffer(s), or an offset overflows")]
    PlanShape {
        /// The number of buffers.
        expected: usize,
        /// The plan's number of entries.
        found: usize,
    },
    /// memplan's planner failed on a level.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The result failed [`check_spill`]. This is a bug in memplan.
    #[error("internal error: the spill plan fails its check: {0}")]
    InvalidPlan(String),
}

/// Chooses the buffers to spill so that the rest fit under the request's capacity (the
/// fast memory's: its goal must be [`crate::Goal::Fit`]) at the least total cost, within
/// its budget, and plans both levels. See the [module docs](self) for the model.
///
/// ```
/// use memplan::spill::{plan_spill, check_spill, SpillInput, SpillOptions};
/// use memplan::{Buffer, Outcome, Problem, Request, Size};
///
/// let problem = Problem::new(vec![
///     Buffer::new("a", 0, 3, 4),
///     Buffer::new("b", 0, 2, 4),
///     Buffer::new("c", 1, 3, 4),
/// ])?;
/// let costs = [9, 3, 5];
/// let input = SpillInput { costs: Some(&costs), memory: None };
/// let report = plan_spill(&problem, &input, &Request::fit(Size(8)), &SpillOptions::default())?;
/// let Outcome::Optimal(plan) = &report.outcome else { panic!("{:?}", report.outcome) };
/// assert_eq!(plan.spilled, [false, true, false]); // b is the cheapest way to fit
/// assert_eq!(plan.cost, 3);
/// check_spill(&problem, Size(8), &input, plan)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan_spill(
    problem: &Problem,
    input: &SpillInput<'_>,
    request: &Request,
    options: &SpillOptions,
) -> Result<SpillReport, SpillError> {
    solve::run(problem, input, request, options)
}
