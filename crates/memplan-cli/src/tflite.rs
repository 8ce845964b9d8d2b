//! `memplan tflite`: plans a TensorFlow Lite Micro model's arena and writes the plan
//! into a copy of the model (`memplan_tflite` does the work and states TFLM's rules),
//! and `memplan render MODEL.tflite`, which draws the plan a model carries.

use memplan_tflite::{
    PlanOptions, PlannedModel, ScratchOptions, ScratchRequest, TensorKind, TfliteError,
};
use serde_json::json;

use crate::commands::PlannerArgs;
use crate::files::{display_path, read_bytes, write_to};
use crate::fmt::{millis, thousands};
use crate::progress::interrupt_token;
use crate::{Failure, EXIT_CHECK, EXIT_INPUT, EXIT_NOT_FOUND, EXIT_PROVEN_INFEASIBLE};

#[derive(clap::Args, Debug)]
pub struct TfliteArgs {
    /// The model (`.tflite`; `-` for stdin).
    pub model: String,
    /// Where to write the planned model (`-` for stdout). Required unless --report.
    #[arg(short, long, required_unless_present = "report")]
    pub output: Option<String>,
    /// Print a table of the planned tensors (tensor, name, subgraph, lifetime in TFLM's
    /// steps, bytes, offset) on stdout; without -o nothing is written.
    #[arg(long)]
    pub report: bool,
    /// Replace the offline plan the model already has.
    #[arg(long)]
    pub force: bool,
    /// Fit the planned tensors under this many bytes instead of minimising them.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=i32::MAX as u64))]
    pub capacity: Option<u64>,
    /// Leave room for a kernel scratch buffer of BYTES requested by operator OP of
    /// SUBGRAPH (`SUBGRAPH:OP:BYTES`, repeatable), e.g. one an optimised kernel library
    /// requests. The reference kernels' requests are added on their own.
    #[arg(long, value_name = "SUBGRAPH:OP:BYTES", value_parser = parse_scratch)]
    pub scratch: Vec<ScratchRequest>,
    /// Leave no room for the reference kernels' scratch requests (an ablation).
    #[arg(long, hide = true)]
    pub no_reference_scratch: bool,
    #[command(flatten)]
    pub planning: PlannerArgs,
    /// Print no summary (errors are still printed).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the summary as one JSON object on stderr instead of text.
    #[arg(long, conflicts_with = "quiet")]
    pub summary_json: bool,
}

fn parse_scratch(text: &str) -> Result<ScratchRequest, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let number = |s: &str| s.trim().parse::<u64>().ok();
    match parts.as_slice() {
        [s, k, b] => match (number(s), number(k), number(b)) {
            (Some(s), Some(k), Some(b)) if b > 0 && b <= i32::MAX as u64 => Ok(ScratchRequest {
                subgraph: s as usize,
                operator: k as usize,
                bytes: b,
            }),
            _ => Err(format!(
                "'{text}': expected SUBGRAPH:OP:BYTES, with 0 < BYTES < 2^31"
            )),
        },
        _ => Err(format!("'{text}': expected SUBGRAPH:OP:BYTES")),
    }
}

/// A library error as a one-line failure naming the file, with its exit code.
fn failure(path: &str, e: TfliteError) -> Failure {
    let code = match &e {
        TfliteError::NoFit { proven: true, .. } => EXIT_PROVEN_INFEASIBLE,
        TfliteError::NoFit { proven: false, .. } => EXIT_NOT_FOUND,
        TfliteError::Check(_) | TfliteError::Internal(_) | TfliteError::Plan(_) => EXIT_CHECK,
        _ => EXIT_INPUT,
    };
    let hint = if matches!(e, TfliteError::HasPlan { .. }) {
        "; --force replaces it"
    } else {
        ""
    };
    Failure::new(code, format!("{}: {e}{hint}", display_path(path)))
}

pub fn tflite(args: TfliteArgs) -> Result<(), Failure> {
    let bytes = read_bytes(&args.model)?;
    let mut options = args.planning.options()?;
    options.cancel = Some(interrupt_token());
    let options = PlanOptions {
        plan: options,
        capacity: args.capacity,
        replace_existing: args.force || args.output.is_none(),
        scratch: ScratchOptions {
            reference_kernels: !args.no_reference_scratch,
            extra: args.scratch.clone(),
        },
    };
    let planned =
        memplan_tflite::plan_model(&bytes, &options).map_err(|e| failure(&args.model, e))?;
    if let Some(out) = &args.output {
        write_to(out, |w| w.write_all(&planned.bytes))?;
    }
    if args.report {
        write_to("-", |w| report(w, &planned))?;
    }
    if args.summary_json {
        eprintln!("{}", summary_json(&args, &planned));
    } else if !args.quiet {
        eprintln!("{}", summary_text(&args, &planned));
    }
    Ok(())
}

fn summary_json(args: &TfliteArgs, p: &PlannedModel) -> String {
    let a = &p.analysis;
    json!({
        "model": display_path(&args.model),
        "output": args.output.as_deref().map(display_path),
        "subgraphs": a.subgraphs,
        "tensors": a.tensors.len(),
        "tensors_planned": a.tensor_of.len(),
        "scratch_reserved": a.scratch.len(),
        "max_load": p.report.max_load.get(),
        "tensor_max_load": a.tensor_max_load(),
        "height": p.height,
        "arena_bytes": p.height,
        "optimal": p.optimal,
        "planner": p.report.planner.name(),
        "elapsed_ms": (p.report.elapsed.as_secs_f64() * 1e6).round() / 1e3,
        "replaced_plan": p.replaced,
    })
    .to_string()
}

fn summary_text(args: &TfliteArgs, p: &PlannedModel) -> String {
    let a = &p.analysis;
    let optimal = if p.optimal {
        "optimal"
    } else {
        "not proven optimal"
    };
    let mut text = format!(
        "{}: {} of {} tensors planned{}; max load {}; height {} ({optimal}, {}) in {}\n",
        display_path(&args.model),
        thousands(a.tensor_of.len() as u64),
        thousands(a.tensors.len() as u64),
        match a.scratch.len() {
            0 => String::new(),
            n => format!(", room left for {n} kernel scratch buffer(s)"),
        },
        thousands(p.report.max_load.get()),
        thousands(p.height),
        p.report.planner.name(),
        millis(p.report.elapsed),
    );
    text += &format!(
        "tensor_arena: reserve {} B for the head (these tensors{}), plus TFLM's persistent \
         allocations (print_allocations() shows them)",
        thousands(p.height),
        match a.scratch.len() {
            0 => String::new(),
            n => format!(" and room for {n} kernel scratch buffer(s)"),
        }
    );
    match &args.output {
        Some(out) => {
            let what = if p.replaced { "replaced" } else { "written" };
            text += &format!(
                "\nwrote {}: offline plan {what} (metadata 'OfflineMemoryAllocation')",
                display_path(out)
            );
        }
        None => text += "\nnothing written (--report without -o)",
    }
    text
}

/// The per-tensor table: every planned tensor, in the model's order.
fn report(w: &mut dyn std::io::Write, p: &PlannedModel) -> std::io::Result<()> {
    let a = &p.analysis;
    writeln!(
        w,
        "{:>7} {:>8} {:>11} {:>11} {:>12}  name",
        "tensor", "subgraph", "lifetime", "bytes", "offset"
    )?;
    for (b, &t) in a.tensor_of.iter().enumerate() {
        let life = &a.tensors[t];
        writeln!(
            w,
            "{:>7} {:>8} {:>11} {:>11} {:>12}  {}",
            life.index,
            life.subgraph,
            format!("{}..{}", life.first, life.last),
            life.aligned_bytes(),
            p.offsets[life.index],
            a.problem.buffers()[b].id,
        )?;
    }
    let n = a.tensor_of.len();
    let plan = p.report.outcome.plan();
    for (i, r) in a.scratch.iter().enumerate() {
        let b = &a.problem.buffers()[n + i];
        writeln!(
            w,
            "{:>7} {:>8} {:>11} {:>11} {:>12}  {} (room left; TFLM places it)",
            "-",
            r.subgraph,
            format!("{}..{}", r.first, r.last),
            b.size.get(),
            plan.map_or(0, |p| p.offsets()[n + i].get()),
            b.id,
        )?;
    }
    let count = |k| a.tensors.iter().filter(|t| t.kind == k).count();
    writeln!(
        w,
        "# {} planned; not planned: {} constant, {} variable, {} empty. lifetime: TFLM's \
         allocation steps, both ends included; bytes: rounded up to 16",
        a.tensor_of.len(),
        count(TensorKind::Constant),
        count(TensorKind::Variable),
        count(TensorKind::Empty)
    )
}

/// `memplan render MODEL.tflite`: the plan the model carries, over its tensors'
/// lifetimes; tooltips name each tensor. `None` when `bytes` is not a TFLite model.
pub fn render_model(
    path: &str,
    bytes: &[u8],
    mut picture: memplan_render::Picture<'_>,
) -> Option<Result<String, Failure>> {
    if bytes.get(4..8) != Some(b"TFL3".as_slice()) {
        return None;
    }
    Some((|| {
        let a = memplan_tflite::analyze(bytes).map_err(|e| failure(path, e))?;
        let Some((_, offsets)) = &a.existing_plan else {
            return Err(Failure::new(
                EXIT_INPUT,
                format!(
                    "{}: no offline plan to draw (metadata 'OfflineMemoryAllocation'); \
                     `memplan tflite {0} -o PLANNED.tflite` writes one",
                    display_path(path)
                ),
            ));
        };
        let valid = memplan_tflite::check_offsets(&a.tensors, offsets).is_ok();
        let mut drawn = Vec::with_capacity(a.tensor_of.len());
        let mut notes = Vec::with_capacity(a.tensor_of.len());
        for &t in &a.tensor_of {
            let life = &a.tensors[t];
            // A plan that leaves a tensor to TFLM (-1) is drawn at 0 and fails the check.
            drawn.push(offsets.get(t).map_or(0, |&o| o.max(0) as u64));
            notes.push(format!(
                "tensor {} (subgraph {}, index {}), TFLM steps {}..{}, {} B",
                life.index, life.subgraph, life.local, life.first, life.last, life.bytes
            ));
        }
        picture.valid = valid;
        picture.notes = Some(notes);
        // The tensors alone: the file has no offsets for the scratch room.
        let tensors = a.problem.buffers()[..a.tensor_of.len()].to_vec();
        let problem = memplan::Problem::new(tensors, None)
            .map_err(|e| Failure::new(EXIT_CHECK, format!("{}: {e}", display_path(path))))?;
        Ok(memplan_render::draw(&problem, &drawn, &picture))
    })())
}
