//! `memplan render`: reads a problem and a plan, checks the plan, and draws it with
//! `memplan_render` (the picture is described there).

use std::collections::HashMap;

use memplan::{check_placements, Offset, Problem};
use memplan_render::{draw, Picture};

use crate::files::{read_bytes, write_to};
use crate::{formats, Failure, InputArgs, EXIT_CHECK};

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The problem (CSV or JSON; `-` for stdin), or a `.tflite` model that carries an
    /// offline plan (the output of `memplan tflite`), drawn with its tensors' names.
    pub problem: String,
    /// The plan: any CSV or JSON with `id` and `offset`, e.g. the output of `memplan plan`.
    /// Not given for a `.tflite` model.
    pub plan: Option<String>,
    /// Where to write the SVG (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Also draw this capacity line.
    #[arg(long)]
    pub capacity: Option<u64>,
    /// Picture width in pixels, 200 to 20,000.
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(200..=20_000))]
    pub width: u32,
    /// Picture height in pixels, 150 to 20,000.
    #[arg(long, default_value_t = 800, value_parser = clap::value_parser!(u32).range(150..=20_000))]
    pub height: u32,
    /// Draw from this time on (with --to: the window [from, to)).
    #[arg(long)]
    pub from: Option<u64>,
    /// Draw up to this time (exclusive).
    #[arg(long)]
    pub to: Option<u64>,
    /// Outline these buffers (ids, separated by commas) and fade the others.
    #[arg(long, value_delimiter = ',')]
    pub buffers: Vec<String>,
    #[command(flatten)]
    pub input_args: InputArgs,
}

pub fn render(args: RenderArgs) -> Result<(), Failure> {
    let bytes = read_bytes(&args.problem)?;
    #[cfg(feature = "tflite")]
    {
        let picture = Picture::new(args.width, args.height, file_name(&args.problem), true);
        if let Some(svg) = crate::tflite::render_model(&args.problem, &bytes, picture) {
            if let Some(plan) = &args.plan {
                return Err(Failure::new(
                    2,
                    format!("{plan}: a .tflite model carries its own plan; give the model alone"),
                ));
            }
            let svg = svg?;
            return write_to(&args.output, |w| w.write_all(svg.as_bytes()));
        }
    }
    let Some(plan_path) = args.plan.clone() else {
        return Err(Failure::new(
            2,
            "the plan file is missing (required unless the problem is a .tflite model)",
        ));
    };
    let (format, problem) =
        formats::read_problem(&args.problem, &bytes, &args.input_args, args.capacity)?;
    let window = window(&args, &problem)?;
    if let Some(unknown) = args
        .buffers
        .iter()
        .find(|id| !problem.buffers().iter().any(|b| &b.id == *id))
    {
        return Err(Failure::new(
            2,
            format!("--buffers: no buffer '{unknown}' in {}", args.problem),
        ));
    }
    let plan_bytes = read_bytes(&plan_path)?;
    let placements = formats::read_placements(&plan_path, &plan_bytes)?;
    if let Some(levels) = crate::two_level::read_plan_levels(&plan_path, &plan_bytes)? {
        let input = (format, bytes.as_slice());
        let svg = two_levels(
            &args,
            &plan_path,
            input,
            &problem,
            &placements,
            &levels,
            window,
        )?;
        return write_to(&args.output, |w| w.write_all(svg.as_bytes()));
    }
    // The checker also matches placements to buffers by id; a bad plan is still drawn
    // when every buffer has exactly one offset, so that overlaps can be seen.
    let checked = check_placements(&problem, &placements);
    let offsets = offsets_by_index(&problem, &placements).ok_or_else(|| {
        let why = checked
            .as_ref()
            .err()
            .map_or(String::new(), |f| f.to_string());
        Failure::new(EXIT_CHECK, format!("{plan_path}: cannot draw: {why}"))
    })?;
    let name = file_name(&args.problem);
    let mut picture = Picture::new(args.width, args.height, name, checked.is_ok());
    picture.window = window;
    picture.highlight = args.buffers.clone();
    if format == formats::Format::Csv {
        picture.notes = column_notes(&bytes, problem.len());
    }
    let svg = draw(&problem, &offsets, &picture);
    write_to(&args.output, |w| w.write_all(svg.as_bytes()))
}

fn file_name(path: &str) -> &str {
    std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("<stdin>")
}

/// A two-level plan (a `memory` column): fast memory in one panel, with the capacity,
/// and the spilled buffers below it in a second panel, on the same time axis. Both
/// levels are checked with `check_spill`; an invalid plan is drawn with a warning.
fn two_levels(
    args: &RenderArgs,
    plan_path: &str,
    (format, bytes): (formats::Format, &[u8]),
    problem: &Problem,
    placements: &[(String, Offset)],
    levels: &[bool],
    window: Option<(u64, u64)>,
) -> Result<String, Failure> {
    let Some(capacity) = args.capacity else {
        return Err(Failure::new(
            2,
            format!(
                "{}: a plan with a memory column needs --capacity (the fast memory's size)",
                plan_path
            ),
        ));
    };
    let data = crate::spill::read_spill_data(&args.problem, bytes, format, problem)?;
    let plan =
        crate::two_level::two_level_plan(problem, &data, placements, levels).map_err(|wrong| {
            Failure::new(
                EXIT_CHECK,
                format!("{plan_path}: cannot draw: {}", wrong.join("; ")),
            )
        })?;
    let c = memplan::Size(capacity);
    let valid = memplan::spill::check_spill(problem, c, &data.input(), &plan).is_ok();
    let split = plan
        .levels(problem, c)
        .map_err(|e| Failure::new(EXIT_CHECK, format!("{plan_path}: cannot draw: {e}")))?;
    let bufs = problem.buffers();
    let span = (
        bufs.iter()
            .map(|b| b.lifetime.start.get())
            .min()
            .unwrap_or(0),
        bufs.iter().map(|b| b.lifetime.end.get()).max().unwrap_or(1),
    );
    let notes = (format == formats::Format::Csv)
        .then(|| column_notes(bytes, problem.len()))
        .flatten();
    let titles = [
        format!(
            "fast memory (capacity {} B)",
            crate::fmt::thousands(capacity)
        ),
        "slow memory (spilled)".to_string(),
    ];
    let levels = [
        (&split.fast, &split.fast_plan, &split.fast_buffers),
        (&split.slow, &split.slow_plan, &split.slow_buffers),
    ];
    let mut panels = Vec::new();
    for (k, (sub, sub_plan, members)) in levels.into_iter().enumerate() {
        if sub.is_empty() {
            continue; // nothing spilled (or nothing kept): one panel
        }
        let height = if k == 0 {
            args.height
        } else {
            (args.height / 2).max(300)
        };
        let mut picture = Picture::new(args.width, height, &titles[k], valid);
        picture.window = window;
        picture.span = Some(span);
        picture.highlight = args.buffers.clone();
        picture.notes = notes
            .as_ref()
            .map(|n| members.iter().map(|b| n[b.0 as usize].clone()).collect());
        let offsets: Vec<u64> = sub_plan.offsets().iter().map(|o| o.get()).collect();
        panels.push((sub, offsets, picture));
    }
    let refs: Vec<(&Problem, &[u64], &Picture)> = panels
        .iter()
        .map(|(p, o, pic)| (*p, o.as_slice(), pic))
        .collect();
    Ok(memplan_render::draw_stacked(&refs))
}

/// `--from` and `--to` as a window `[from, to)`, each defaulting to the problem's span.
fn window(args: &RenderArgs, problem: &Problem) -> Result<Option<(u64, u64)>, Failure> {
    if args.from.is_none() && args.to.is_none() {
        return Ok(None);
    }
    let bufs = problem.buffers();
    let from = args.from.unwrap_or_else(|| {
        bufs.iter()
            .map(|b| b.lifetime.start.get())
            .min()
            .unwrap_or(0)
    });
    let to = args
        .to
        .unwrap_or_else(|| bufs.iter().map(|b| b.lifetime.end.get()).max().unwrap_or(1));
    if from >= to {
        return Err(Failure::new(
            2,
            format!("--from {from} must be below --to {to}"),
        ));
    }
    Ok(Some((from, to)))
}

/// Each CSV row's columns as a tooltip line, `name=value, ...`; `None` when the rows do
/// not match the buffers one to one.
fn column_notes(bytes: &[u8], buffers: usize) -> Option<Vec<String>> {
    let (names, rows) = memplan::io::read_rows_csv(bytes).ok()?;
    (rows.len() == buffers).then(|| {
        rows.iter()
            .map(|row| {
                let fields: Vec<String> = names
                    .iter()
                    .zip(row)
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect();
                format!("input: {}", fields.join(", "))
            })
            .collect()
    })
}

/// Each buffer's index, by id.
pub(crate) fn index_by_id(problem: &Problem) -> HashMap<&str, usize> {
    problem
        .buffers()
        .iter()
        .enumerate()
        .map(|(i, b)| (b.id.as_str(), i))
        .collect()
}

fn offsets_by_index(problem: &Problem, placements: &[(String, Offset)]) -> Option<Vec<u64>> {
    let index = index_by_id(problem);
    let mut out: Vec<Option<u64>> = vec![None; problem.len()];
    for (id, off) in placements {
        let slot = &mut out[*index.get(id.as_str())?];
        if slot.is_some() {
            return None;
        }
        *slot = Some(off.get());
    }
    out.into_iter().collect()
}
