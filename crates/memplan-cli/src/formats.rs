//! File formats: CSV (google/minimalloc's) and JSON, chosen by `--format`, else by the
//! file's extension, else (for stdin) by the first character of the text.

use memplan::io::{
    looks_like_json, read_placements_csv, read_placements_json, read_problem_csv,
    read_problem_json_with, write_plan_csv, write_plan_json, write_problem_csv, PlanInfo,
};
use memplan::{Offset, Plan, Problem, ReadErrorKind};

use crate::files::{csv_options, read_bytes, read_failure};
use crate::{Failure, InputArgs};

/// A file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Comma-separated values with a header line.
    Csv,
    /// JSON: `{"buffers": [{"id": .., "start": .., "end": .., "size": ..}, ..]}`.
    Json,
}

fn by_extension(path: &str) -> Option<Format> {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".json") {
        Some(Format::Json)
    } else if lower.ends_with(".csv") {
        Some(Format::Csv)
    } else {
        None
    }
}

/// The format of an input: forced, else by extension, else by content.
pub fn input_format(path: &str, bytes: &[u8], forced: Option<Format>) -> Format {
    forced.or_else(|| by_extension(path)).unwrap_or({
        if looks_like_json(bytes) {
            Format::Json
        } else {
            Format::Csv
        }
    })
}

/// The format of an output: forced, else by extension, else the input's.
pub fn output_format(path: &str, forced: Option<Format>, input: Format) -> Format {
    forced.or_else(|| by_extension(path)).unwrap_or(input)
}

/// Reads a problem in either format.
pub fn read_problem(
    path: &str,
    bytes: &[u8],
    args: &InputArgs,
    capacity: Option<u64>,
) -> Result<(Format, Problem), Failure> {
    let format = input_format(path, bytes, args.format);
    let problem = match format {
        Format::Csv => read_problem_csv(bytes, &csv_options(args, capacity)),
        Format::Json => read_problem_json_with(bytes, &csv_options(args, capacity)),
    }
    .map_err(|e| read_failure(path, e))?;
    Ok((format, problem))
}

/// Reads a plan's placements (`id`, `offset`) in either format.
pub fn read_placements(path: &str, bytes: &[u8]) -> Result<Vec<(String, Offset)>, Failure> {
    match input_format(path, bytes, None) {
        Format::Csv => read_placements_csv(bytes),
        Format::Json => read_placements_json(bytes),
    }
    .map_err(|e| read_failure(path, e))
}

/// Writes a plan. CSV output keeps the input's columns when the input was CSV, and uses
/// memplan's canonical columns otherwise.
pub fn write_plan(
    w: &mut dyn std::io::Write,
    format: Format,
    input: (Format, &[u8]),
    problem: &Problem,
    plan: &Plan,
    info: &PlanInfo,
) -> std::io::Result<()> {
    match format {
        Format::Json => write_plan_json(problem, plan, info, w),
        Format::Csv => {
            let canonical;
            let source = if input.0 == Format::Csv {
                input.1
            } else {
                let mut buf = Vec::new();
                write_problem_csv(problem, &mut buf)?;
                canonical = buf;
                &canonical
            };
            write_plan_csv(source, plan, w).map_err(|e| match e.kind {
                ReadErrorKind::Io(io) => io,
                other => std::io::Error::other(other.to_string()),
            })
        }
    }
}

/// Reads the problem at `path` (either format) and returns its bytes too.
pub fn load_problem(
    path: &str,
    args: &InputArgs,
    capacity: Option<u64>,
) -> Result<(Vec<u8>, Problem), Failure> {
    let bytes = read_bytes(path)?;
    let (_, problem) = read_problem(path, &bytes, args, capacity)?;
    Ok((bytes, problem))
}

/// Writes a two-level plan: the input's columns (CSV input) or memplan's canonical ones,
/// plus `memory` and `offset` (replaced when the input has them); or JSON.
pub fn write_spill_plan(
    w: &mut dyn std::io::Write,
    format: Format,
    input: (Format, &[u8]),
    run: &crate::spill::SpillRun<'_>,
    plan: &memplan::spill::TwoLevelPlan,
) -> std::io::Result<()> {
    if format == Format::Json {
        return crate::json_output::write_spill_plan_json(w, run, plan);
    }
    let canonical;
    let source = if input.0 == Format::Csv {
        input.1
    } else {
        let mut buf = Vec::new();
        write_problem_csv(run.problem, &mut buf)?;
        canonical = buf;
        &canonical
    };
    let memory = crate::spill::memory_names(plan);
    let offsets: Vec<String> = plan.offsets.iter().map(|o| o.get().to_string()).collect();
    let costs: Vec<String> = (0..run.problem.len())
        .map(|i| run.cost(i).to_string())
        .collect();
    let mut columns: Vec<(&str, &[String])> = Vec::new();
    if input.0 == Format::Json && run.data.costs.is_some() {
        columns.push(("cost", &costs));
    }
    columns.push(("memory", &memory));
    columns.push(("offset", &offsets));
    memplan::io::write_columns_csv(source, &columns, w).map_err(|e| match e.kind {
        ReadErrorKind::Io(io) => io,
        other => std::io::Error::other(other.to_string()),
    })
}
