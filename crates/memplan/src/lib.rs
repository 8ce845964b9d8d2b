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
//! This file is the front door: the [model](Problem), [`plan`] with its [`Request`] (a
//! [`Goal`] and a [`Budget`]), [`Options`] and [`Outcome`], the independent [`check`]er,
//! the [analysis](analyze) and the errors, re-exported from the modules that define
//! them. A buffer may use another's storage along a declared [`Share`] (in place, or
//! inside it): see [`share`]. Public submodules hold the rest: [`io`] (CSV and JSON, features `csv` and
//! `json`), [`analysis`], `memories` (several memories, each buffer's memory and offset, and
//! `plan_spill`, its two-memory form), `shared_objects` and `tiles` (two
//! other planning problems; features of the same names, on by default), plus `testing`
//! (seeded generators, feature `testing`) and `fuzzing` (feature `fuzzing`).
//! The algorithms live in private modules, one folder per family (`greedy/`, `exact/`,
//! `boxing/`, `telamalloc/`), under the `driver/`, the only module that runs several.
//!
//! ```
//! use memplan::{plan, check, Buffer, Options, Outcome, Problem, Request};
//!
//! let problem = Problem::new(vec![
//!     Buffer::new("a", 0, 3, 4),
//!     Buffer::new("b", 3, 9, 4),
//!     Buffer::new("c", 0, 9, 4),
//! ])?;
//! let report = plan(&problem, &Request::minimise(), &Options::default())?;
//! let Outcome::Optimal(p) = &report.outcome else { panic!("expected an optimal plan") };
//! assert_eq!(p.height().get(), 8); // a and b share addresses: they are never live together
//! check(&problem, p, None).expect("every plan passes the checker");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

// The Rust examples of the README and of the library's guide run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[doc = include_str!("../../../docs/library.md")]
#[cfg(doctest)]
pub struct LibraryGuideDoctests;

#[doc = include_str!("../../../docs/shares.md")]
#[cfg(doctest)]
pub struct SharesGuideDoctests;

pub mod analysis;
mod bounds;
mod boxing;
pub mod budget;
mod checker;
mod driver;
mod error;
mod exact;
/// Random valid problems and fuzz-target bodies (feature `fuzzing`).
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
// The seeded generators behind `testing` (tests, benchmarks, `memplan gen`).
#[cfg(any(test, feature = "testing"))]
mod generate;
#[cfg(any(test, feature = "testing"))]
mod generate_dense;
mod greedy;
mod index;
pub mod io;
mod maxtree;
// Several memories (feature `memories`, on by default); its docs are its own (an outer doc
// here would make rustdoc resolve the module's links from the crate root).
#[cfg(feature = "memories")]
pub mod memories;
#[cfg(feature = "memories")]
mod memory_types;
mod options;
mod outcome;
mod report;
mod request;
mod rng;
mod sections;
pub mod share;
#[cfg(feature = "shared_objects")]
pub mod shared_objects;
// The shared-object and tile models, read by their planners and the checker.
#[cfg(feature = "shared_objects")]
mod shared_object_types;
// One sort per element type for the setup sorts (the lean library's size).
mod sort;
mod storage;
mod telamalloc;
/// Seeded generators of problems, for tests, benchmarks and `memplan gen` (feature
/// `testing`).
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "tiles")]
mod tile_types;
#[cfg(feature = "tiles")]
pub mod tiles;
mod types;
mod units;
mod workers;

pub use analysis::{analyze, load_profile, lower_bound, max_load, Analysis, LoadStep};
pub use bounds::BoundOptions;
pub use boxing::{BoxingOptions, CompactionFit, PlanToBeat};
pub use budget::Budget;
pub use checker::{
    check, check_offsets, check_placements, CheckFailure, CheckSummary, Placed, Violation,
};
pub use error::{PlanError, ProblemError, ProblemErrorKind, ReadError, ReadErrorKind};
pub use exact::{ExactOptions, ExactStats, Preorder};
pub use greedy::{Fit, Order as GreedyOrder};
pub use options::{Options, Planner, ShareOptions};
pub use outcome::Outcome;
pub use report::{CandidateResult, Report};
pub use request::{Goal, Request};
pub use share::{Share, ShareKind};
pub use telamalloc::TelamallocOptions;
pub use types::{Buffer, BufferIdx, Lifetime, Offset, Plan, Problem, Size, Time};

/// Plans `problem` for `request` (its goal, within its budget) with the planner and
/// techniques of `options`. See [`Request`], [`Options`] and [`Outcome`].
///
/// Minimising, the outcome is `Optimal` or `Feasible`. Fitting under a capacity, it is
/// `Optimal`/`Feasible` when a plan fits, `Infeasible` when that is proven (the max load
/// or a fixed buffer exceeds the capacity, a lower bound of [`BoundOptions`] does, or the
/// exact search proved it), and `Unknown` with the lowest plan found otherwise. The
/// report's [`Report::lower_bound`] is the best bound proven on the way.
pub fn plan(problem: &Problem, request: &Request, options: &Options) -> Result<Report, PlanError> {
    driver::run(problem, request, options)
}
