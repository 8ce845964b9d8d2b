//! File formats: CSV (google/minimalloc's) and JSON, chosen by `--format`, else by the
//! file's extension, else (for stdin) by the first character of the text.

use std::borrow::Cow;

use memplan::io::{
    looks_like_json, read_placements_csv, read_placements_json, write_plan_csv, write_plan_json,
    write_problem_csv, PlanInfo,
};
use memplan::memories::ProblemFile;
use memplan::{Offset, Plan, Problem, ReadError, ReadErrorKind, Size};

use super::files::{read_bytes, read_failure};
use crate::exit::Failure;
use crate::flags::input::{Format, InputArgs};

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

/// Reads a problem file in either format, once: the buffers and what the file says of
/// memories ([`ProblemFile`]).
pub fn read_file(
    path: &str,
    bytes: &[u8],
    args: &InputArgs,
) -> Result<(Format, ProblemFile), Failure> {
    let format = input_format(path, bytes, args.format);
    let options = args.read_options();
    let file = match format {
        Format::Csv => ProblemFile::read_csv(bytes, &options),
        Format::Json => ProblemFile::read_json(bytes, &options),
    }
    .map_err(|e| {
        // An empty half-open lifetime under the default reading: most often a file
        // whose ends are inclusive, planned with --lifetimes inclusive.
        let empty = matches!(
            &e.kind,
            memplan::ReadErrorKind::Problem(p)
                if matches!(p.kind, memplan::ProblemErrorKind::EmptyLifetime { lifetime }
                    if lifetime.start == lifetime.end)
        );
        let mut failure = read_failure(path, e);
        if empty && args.lifetimes.is_none() {
            failure.message += "; if the file's ends are inclusive (a plan made with \
                                --lifetimes inclusive), give --lifetimes inclusive here too";
        }
        failure
    })?;
    Ok((format, file))
}

/// Reads a plan's placements (`id`, `offset`) in either format.
pub fn read_placements(path: &str, bytes: &[u8]) -> Result<Vec<(String, Offset)>, Failure> {
    match input_format(path, bytes, None) {
        Format::Csv => read_placements_csv(bytes),
        Format::Json => read_placements_json(bytes),
    }
    .map_err(|e| read_failure(path, e))
}

/// The CSV a plan's columns are added to: the input itself when it was CSV, else the
/// problem in memplan's canonical columns.
pub fn csv_source<'a>(
    input: (Format, &'a [u8]),
    problem: &Problem,
) -> std::io::Result<Cow<'a, [u8]>> {
    if input.0 == Format::Csv {
        return Ok(Cow::Borrowed(input.1));
    }
    let mut buf = Vec::new();
    write_problem_csv(problem, &mut buf)?;
    Ok(Cow::Owned(buf))
}

/// A CSV writer's error as an i/o error (the source was read once already, so anything
/// but i/o is unexpected).
pub fn io_error(e: ReadError) -> std::io::Error {
    match e.kind {
        ReadErrorKind::Io(io) => io,
        other => std::io::Error::other(other.to_string()),
    }
}

/// Writes a plan. CSV output keeps the input's columns when the input was CSV, and uses
/// memplan's canonical columns otherwise.
pub fn write_plan(
    w: &mut dyn std::io::Write,
    format: Format,
    input: (Format, &[u8]),
    problem: &Problem,
    capacity: Option<Size>,
    plan: &Plan,
    info: &PlanInfo,
) -> std::io::Result<()> {
    match format {
        Format::Json => write_plan_json(problem, capacity, plan, info, w),
        Format::Csv => write_plan_csv(&csv_source(input, problem)?, plan, w).map_err(io_error),
    }
}

/// Reads the problem file at `path` (either format), once: its bytes, format and
/// [`ProblemFile`].
pub fn load_file(path: &str, args: &InputArgs) -> Result<(Vec<u8>, Format, ProblemFile), Failure> {
    let bytes = read_bytes(path)?;
    let (format, file) = read_file(path, &bytes, args)?;
    Ok((bytes, format, file))
}

/// Reads the problem at `path` (either format), for the commands that plan it in one
/// memory without a capacity.
pub fn load_problem(path: &str, args: &InputArgs) -> Result<Problem, Failure> {
    let (_, _, file) = load_file(path, args)?;
    Ok(file.into_problem().0)
}

/// A buffer's fields as a JSON object, as the problem format writes them (alignment 1, no
/// fixed offset and no gaps left out), for the writers that add their own per-buffer
/// fields (`plan --memories`, `plan --spill`).
pub fn buffer_json(b: &memplan::Buffer) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let mut o = serde_json::Map::new();
    o.insert("id".into(), json!(b.id));
    o.insert("start".into(), json!(b.lifetime.start.get()));
    o.insert("end".into(), json!(b.lifetime.end.get()));
    o.insert("size".into(), json!(b.size.get()));
    if b.alignment.get() != 1 {
        o.insert("alignment".into(), json!(b.alignment.get()));
    }
    if let Some(f) = b.fixed_offset {
        o.insert("fixed_offset".into(), json!(f.get()));
    }
    if !b.gaps.is_empty() {
        let gaps: Vec<(u64, u64)> = b
            .gaps
            .iter()
            .map(|g| (g.start.get(), g.end.get()))
            .collect();
        o.insert("gaps".into(), json!(gaps));
    }
    o
}
