//! Reading and writing problems and plans: google/minimalloc's CSV format and memplan's
//! JSON format (feature `json`, on by default), both described in the README.

pub(crate) mod csv;
#[cfg(feature = "json")]
pub(crate) mod json;

pub use csv::{
    inferred_lifetimes_csv, read_column_csv, read_placements_csv, read_problem_csv, read_rows_csv,
    write_columns_csv, write_plan_csv, write_problem_csv, CsvOptions, LifetimeConvention,
};
#[cfg(feature = "json")]
pub use json::{
    looks_like_json, read_placements_json, read_problem_json, read_problem_json_with,
    write_plan_json, write_problem_json, PlanInfo,
};
