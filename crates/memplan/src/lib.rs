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
mod driver;
mod error;
mod exact;
/// Random valid problems and fuzz-target bodies (feature `fuzzing`).
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod generate;
mod greedy;
mod index;
mod io;
mod options;
mod outcome;
mod report;
mod shared_objects;
mod telamalloc;
mod tiles;
mod types;
mod workers;

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
pub use telamalloc::{generate_microbenchmark, MicrobenchKind, TelamallocOptions};
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

pub use options::{Options, Planner};
pub use outcome::Outcome;
pub use report::{CandidateResult, Report};

/// Plans `problem` with the chosen planner. See [`Options`] and [`Outcome`].
///
/// In minimise mode (no capacity) the outcome is `Optimal` or `Feasible`. With a capacity,
/// it is `Optimal`/`Feasible` when a plan fits, `Infeasible` when the max load (or a
/// fixed buffer) already exceeds the capacity, and `Unknown` otherwise.
pub fn plan(problem: &Problem, options: &Options) -> Result<Report, PlanError> {
    driver::run(problem, options)
}
