//! Reading and writing problems and plans: google/minimalloc's CSV format (feature
//! `csv`) and memplan's JSON format (feature `json`), both on by default and described in
//! docs/formats.md. A build without them (the lean C library) keeps the model, the planners
//! and the checker.

#[cfg(feature = "csv")]
pub(crate) mod csv;
#[cfg(feature = "json")]
pub(crate) mod json;

/// How to read the end of a lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LifetimeConvention {
    /// `[lower, upper)`: the buffer is not live at `upper`. memplan's own rule.
    HalfOpen,
    /// `[lower, upper]`: the buffer is still live at `upper` (XLA, minimalloc's `end`).
    Inclusive,
}

/// Reading options of `read_problem_csv` and `read_problem_json`.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Force a convention for the end column; by default `upper` is half-open and `end`
    /// inclusive.
    pub lifetimes: Option<LifetimeConvention>,
    /// The alignment of buffers whose input gives none (no column, or an empty field);
    /// `None` means 1.
    pub default_alignment: Option<crate::types::Size>,
}

#[cfg(feature = "csv")]
pub use csv::{
    inferred_lifetimes_csv, read_placements_csv, read_problem_csv, read_rows_csv,
    write_columns_csv, write_plan_csv, write_problem_csv,
};
#[cfg(feature = "json")]
pub use json::{
    looks_like_json, read_placements_json, read_problem_json, write_plan_json, write_problem_json,
    PlanInfo,
};
