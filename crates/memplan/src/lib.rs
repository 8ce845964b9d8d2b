//! memplan: a static memory planner for ML compilers.
//!
//! A compiled model has buffers whose lifetimes `[start, end)` and sizes are known in
//! advance. memplan gives each buffer an offset so that no two buffers live at the same
//! time share an address, either using as little memory as possible (minimise the
//! *height*, the peak address) or fitting under a given *capacity*.
//!
//! No plan can be lower than the *max load*, the largest total size live at one time;
//! `height − max load` is the fragmentation, and `height == max load` proves a plan optimal.
//!
//! This file is the whole public surface: the [model](Problem), [`plan`] with its
//! [`Options`] and [`Outcome`], the independent [`check`]er, the [analysis](analyze), CSV
//! I/O and errors. The algorithms live in private modules, one folder per family.
//!
//! ```
//! use memplan::{plan, check, Buffer, Options, Outcome, Problem};
//!
//! let problem = Problem::new(
//!     vec![
//!         Buffer::new("a", 0, 3, 4),
//!         Buffer::new("b", 3, 9, 4),
//!         Buffer::new("c", 0, 9, 4),
//!     ],
//!     None,
//! )?;
//! let report = plan(&problem, &Options::default())?;
//! let Outcome::Optimal(p) = &report.outcome else { panic!("expected an optimal plan") };
//! assert_eq!(p.height().get(), 8); // a and b share addresses: they are never live together
//! check(&problem, p).expect("every plan passes the checker");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

// The README's Rust example runs as a doctest.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod analysis;
mod boxing;
mod budget;
mod checker;
mod error;
mod exact;
/// Random valid problems and fuzz-target bodies (feature `fuzzing`).
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod generate;
mod greedy;
mod index;
mod io;
mod portfolio;
mod search;
mod shared_objects;
mod tiles;
mod types;
mod workers;

use std::time::Duration;

pub use analysis::{
    analyze, load_profile, max_load, time_components, Analysis, Component, LoadStep,
};
pub use boxing::{Bootstrap, BoxingOptions, SqueezeFit};
pub use budget::{CancelToken, TimeLimit, TimeLimitError};
pub use checker::{
    check, check_offsets, check_placements, CheckFailure, CheckSummary, Placed, Violation,
    MAX_VIOLATIONS,
};
pub use error::{PlanError, ProblemError, ProblemErrorKind, ReadError, ReadErrorKind};
pub use exact::{ExactOptions, ExactStats, Preorder};
pub use generate::{generate_model_like, GenOptions};
pub use greedy::{Fit, Order as GreedyOrder};
pub use io::csv::{
    read_placements_csv, read_problem_csv, write_plan_csv, write_problem_csv, CsvOptions,
    LifetimeConvention,
};
#[cfg(feature = "json")]
pub use io::json::{
    looks_like_json, read_placements_json, read_problem_json, write_plan_json, write_problem_json,
    PlanInfo,
};
pub use search::{generate_microbenchmark, MicrobenchKind, TelamallocOptions};
pub use types::{Buffer, BufferIdx, Lifetime, Offset, Plan, Problem, Size, Time};

// Shared-object planning (TFLite §4): one whole object per buffer instead of an offset.
pub use shared_objects::{
    check_shared_objects, plan_shared_objects, positional_maxima, SharedAssignment,
    SharedCandidate, SharedCheckFailure, SharedCheckSummary, SharedOptions, SharedReport,
    SharedStrategy, SharedViolation,
};

// Tile-aware planning (Kvochko et al.): strided tiles that free their bytes early.
pub use tiles::{
    check_tiles, generate_tiled, plan_tiles, read_tiled_json, whole_tensor_problem,
    write_tiled_json, Layout, Tile, TileCheckFailure, TileCheckSummary, TileError, TileErrorKind,
    TileOptions, TileOrder, TilePlan, TileReport, TileViolation, TiledGenOptions, TiledProblem,
    TiledReadError, TiledTensor,
};

/// Which planner [`plan`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Planner {
    /// The default portfolio: every greedy planner, keeping the lowest plan, stopping as
    /// soon as one reaches the max load (in capacity mode, as soon as one fits, with
    /// start-best-fit first; the later planners then do not count). Given a time limit
    /// (or an exact node limit), while fragmentation remains or the capacity is missed,
    /// it then spends the time left on the exact search and on boxing from the best plan
    /// so far ([`BoxingOptions::in_portfolio`]): exact first up to 5,000 buffers, boxing
    /// first above. With a capacity and a time limit, the exact search (on all threads
    /// but one) races TelaMalloc (on the last one; on one thread, they run in turn) and
    /// the first answer wins; with a node limit alone the exact search runs alone.
    /// Without a time limit the result depends only on the input and the options; with
    /// one, a run cut short by the clock may differ from a faster run.
    #[default]
    Auto,
    /// One greedy planner.
    Greedy(GreedyOrder, Fit),
    /// Every buffer at its own addresses: the sum of the sizes. A baseline.
    Naive,
    /// TelaMalloc's backtracking search (see [`TelamallocOptions`]): for tight
    /// capacities; in minimise mode it probes capacities below the best greedy height.
    Telamalloc,
    /// idealloc's boxing planner, iterated (see [`BoxingOptions`]).
    Boxing,
    /// The exact search (MiniMalloc's canonical search) after the greedy portfolio: with
    /// a capacity, a plan under it or a proof that none exists; without, the minimum
    /// height, anytime. See [`ExactOptions`]. It runs alone, on every thread: the race
    /// against TelaMalloc in capacity mode is the default planner's.
    Exact,
}

impl Planner {
    /// Every planner, in the portfolio's order (which is also its tie-break order), then
    /// `naive`, `boxing` and `auto`.
    pub fn all() -> Vec<Planner> {
        let mut v: Vec<Planner> = greedy::planners()
            .into_iter()
            .map(|(o, f)| Planner::Greedy(o, f))
            .collect();
        v.push(Planner::Telamalloc);
        v.push(Planner::Naive);
        v.push(Planner::Boxing);
        v.push(Planner::Exact);
        v.push(Planner::Auto);
        v
    }

    /// The planner's name, as accepted by [`str::parse`] and the CLI's `--planner`.
    pub fn name(&self) -> String {
        match self {
            Planner::Auto => "auto".into(),
            Planner::Naive => "naive".into(),
            Planner::Telamalloc => "telamalloc".into(),
            Planner::Boxing => "boxing".into(),
            Planner::Exact => "exact".into(),
            Planner::Greedy(o, f) => format!("{}-{}", o.name(), f.name()),
        }
    }
}

impl std::fmt::Display for Planner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for Planner {
    type Err = PlanError;
    fn from_str(s: &str) -> Result<Planner, PlanError> {
        Planner::all()
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| PlanError::UnknownPlanner(s.to_string()))
    }
}

/// Options for [`plan`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Which planner to run. Default: [`Planner::Auto`].
    pub planner: Planner,
    /// Worker threads for the portfolio, the exact search, boxing's iterations and
    /// TelaMalloc's restart cycle (capacity mode); 0 means one per core. The result does
    /// not depend on this. Threads are scoped to the call: no global pool is started.
    pub threads: usize,
    /// Stop planning after this long and return the best plan so far. When the limit
    /// comes before any planner finished (one greedy pass takes a second or more on tens
    /// of thousands of heavily overlapping buffers), the plan is the naive one: every
    /// buffer at its own addresses, valid but high. In [`Planner::Auto`], a time limit
    /// also turns on the exact search and boxing after greedy.
    pub time_limit: Option<Duration>,
    /// Stop when this token is cancelled (same rule as the time limit).
    pub cancel: Option<CancelToken>,
    /// Run the independent checker on the result and fail with
    /// [`PlanError::InvalidPlan`] if it disagrees. Cheap (O(n log n)); on by default.
    pub verify: bool,
    /// Options of [`Planner::Telamalloc`].
    pub telamalloc: TelamallocOptions,
    /// Options of the boxing planner, also used when it joins the portfolio.
    pub boxing: BoxingOptions,
    /// Options of the exact search ([`Planner::Exact`], and the step of
    /// [`Planner::Auto`] that runs it after greedy when a time limit is given).
    pub exact: ExactOptions,
    /// Let the portfolio's first greedy planner finish even past the time limit (not
    /// past a cancellation), so that a run is never left with the naive fallback. Off by default: the limit is strict. The
    /// CLI turns it on when `--time-limit` is not given (its default 1 s is a soft one).
    pub finish_first_plan: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            planner: Planner::Auto,
            threads: 0,
            time_limit: None,
            cancel: None,
            verify: true,
            telamalloc: TelamallocOptions::default(),
            boxing: BoxingOptions::default(),
            exact: ExactOptions::default(),
            finish_first_plan: false,
        }
    }
}

/// The result of planning. The plan, when there is one, is indexed like the problem's buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The plan's height equals a proven lower bound (the max load): it is minimal.
    Optimal(Plan),
    /// A valid plan (under the capacity, if any) and the best proven lower bound on the height.
    Feasible {
        /// The plan.
        plan: Plan,
        /// No plan can be lower than this.
        lower_bound: Size,
    },
    /// Proven: no plan fits under the capacity.
    Infeasible,
    /// No plan under the capacity was found, and none was proven impossible.
    Unknown {
        /// The lowest plan found, which does **not** fit under the capacity.
        best_so_far: Option<Plan>,
        /// No plan can be lower than this.
        lower_bound: Size,
    },
}

impl Outcome {
    /// The plan, if it is valid for the problem (including its capacity).
    pub fn plan(&self) -> Option<&Plan> {
        match self {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => Some(p),
            Outcome::Infeasible | Outcome::Unknown { .. } => None,
        }
    }
}

/// One planner's result inside a portfolio run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CandidateResult {
    /// The planner.
    pub planner: Planner,
    /// Its plan's height, or `None` when it was stopped early or did not count (it came
    /// after the first good-enough plan: optimal, or in capacity mode one that fits).
    pub height: Option<Size>,
}

/// What [`plan`] returns: the outcome and how it was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The result.
    pub outcome: Outcome,
    /// The planner whose plan is in the outcome (the requested one when there is no plan).
    pub planner: Planner,
    /// The max load: a lower bound on any plan's height.
    pub max_load: Size,
    /// Every planner that was run, in portfolio order.
    pub candidates: Vec<CandidateResult>,
    /// Wall time spent.
    pub elapsed: Duration,
    /// Effort of the exact search, when it ran.
    pub exact: Option<ExactStats>,
}

/// Plans `problem` with the chosen planner. See [`Options`] and [`Outcome`].
///
/// In minimise mode (no capacity) the outcome is `Optimal` or `Feasible`. With a capacity,
/// it is `Optimal`/`Feasible` when a plan fits, `Infeasible` when the max load (or a
/// fixed buffer) already exceeds the capacity, and `Unknown` otherwise.
pub fn plan(problem: &Problem, options: &Options) -> Result<Report, PlanError> {
    portfolio::run(problem, options)
}
