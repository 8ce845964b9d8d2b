//! `memplan tflite`: plans a TensorFlow Lite Micro model's arena and writes the plan
//! into a copy of the model (`memplan_tflite` does the work and states TFLM's rules).
//! `memplan render MODEL.tflite` draws the plan a model carries (`super::render`).

use memplan_tflite::{PlanOptions, PlannedModel, ScratchOptions, TensorKind};
use serde_json::json;

use crate::exit::Failure;
use crate::flags::commands::TfliteArgs;
use crate::shared::files::{display_path, read_bytes, tflite_failure, write_to};
use crate::shared::numbers::{json_millis, millis, thousands};
use crate::shared::progress::{interrupt_token, stop_on_ctrl_c};

pub fn tflite(args: TfliteArgs) -> Result<(), Failure> {
    let bytes = read_bytes(&args.model)?;
    let options = PlanOptions {
        request: args
            .planning
            .request(args.capacity.map(memplan::Size), Some(&interrupt_token())),
        plan: args.planning.options(),
        replace_existing: args.force || args.output.is_none(),
        scratch: ScratchOptions {
            reference_kernels: !args.no_reference_scratch,
            extra: args.scratch.clone(),
        },
        in_place: args.in_place,
    };
    stop_on_ctrl_c();
    let planned = memplan_tflite::plan_model(&bytes, &options).map_err(|e| {
        if let (
            true,
            memplan_tflite::TfliteError::NoFit {
                capacity,
                max_load,
                proven,
            },
        ) = (args.summary_json, &e)
        {
            // JSON was asked for: the outcome as JSON too, then the line for people.
            let outcome = if *proven { "infeasible" } else { "unknown" };
            let summary = json!({
                "model": display_path(&args.model),
                "outcome": outcome,
                "capacity": capacity,
                "max_load": max_load,
            });
            eprintln!("{summary}");
        }
        tflite_failure(&args.model, e)
    })?;
    if let Some(out) = &args.output {
        write_to(out, |w| w.write_all(&planned.bytes))?;
    }
    if args.report {
        write_to("-", |w| report(w, &planned))?;
    }
    // Said once: a line of its own, or the summary's "note".
    let note = (planned.analysis.subgraphs > 1 && !args.no_version_note)
        .then(memplan_tflite::multi_subgraph_note);
    if let (Some(note), false, false) = (&note, args.summary_json, args.quiet) {
        eprintln!("note: {note}");
    }
    if args.summary_json {
        let mut summary = summary_json(&args, &planned);
        if let Some(note) = note {
            summary["note"] = note.into();
        }
        eprintln!("{summary}");
    } else if !args.quiet {
        eprintln!("{}", summary_text(&args, &planned));
    }
    Ok(())
}

fn summary_json(args: &TfliteArgs, p: &PlannedModel) -> serde_json::Value {
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
        "planner": args.planning.options().planner.name(),
        "found_by": p.report.planner.name(),
        "elapsed_ms": json_millis(p.report.elapsed),
        "work": p.report.work,
        "stopped_by": p.report.stopped_by.map(memplan::budget::Stop::name),
        "replaced_plan": p.replaced,
        "in_place": p.in_place.as_ref().map(|r| json!({
            "candidates": r.candidates,
            "tensors_sharing": r.shared.len(),
            "shared_bytes": r.shared_bytes,
            "height_without": r.height_without,
            "saved_bytes": r.saved,
            "shared": r.shared.iter().map(|s| json!({
                "op": format!("{}:{}", s.subgraph, s.operator),
                "kind": s.op,
                "output": s.output,
                "input": s.input,
            })).collect::<Vec<_>>(),
        })),
    })
}

/// The in-place line of the text summary.
fn in_place_text(r: &memplan_tflite::InPlaceReport, height: u64) -> String {
    let Some(without) = r.height_without else {
        return format!(
            "in place: {} tensor(s) take an input's storage ({} B; {} candidate pair(s)); \
             head {} B, where no plan fits without sharing",
            r.shared.len(),
            thousands(r.shared_bytes),
            r.candidates,
            thousands(height)
        );
    };
    let without = format!("{} B", thousands(without));
    if r.shared.is_empty() {
        return format!(
            "in place: {} candidate pair(s), none taken: sharing does not lower the head \
             ({without} without sharing)",
            r.candidates
        );
    }
    format!(
        "in place: {} tensor(s) take an input's storage ({} B; {} candidate pair(s)); head {} B \
         against {without} without sharing: {} B saved",
        r.shared.len(),
        thousands(r.shared_bytes),
        r.candidates,
        thousands(height),
        thousands(r.saved)
    )
}

fn summary_text(args: &TfliteArgs, p: &PlannedModel) -> String {
    let a = &p.analysis;
    let optimal = if p.optimal {
        "optimal"
    } else {
        "not proven optimal"
    };
    let requested = args.planning.options().planner;
    // `auto` names the planner it kept; any other planner asked for is named too.
    let planner = if requested == p.report.planner || requested == memplan::Planner::Auto {
        p.report.planner.name()
    } else {
        format!(
            "planner {}, plan by {}",
            requested.name(),
            p.report.planner.name()
        )
    };
    let mut text = format!(
        "{}: {} of {} tensors planned{}; max load {}; height {} ({optimal}, {planner}) in {}; work {}{}\n",
        display_path(&args.model),
        thousands(a.tensor_of.len() as u64),
        thousands(a.tensors.len() as u64),
        match a.scratch.len() {
            0 => String::new(),
            n => format!(", room left for {n} kernel scratch buffer(s)"),
        },
        thousands(p.report.max_load.get()),
        thousands(p.height),
        millis(p.report.elapsed),
        thousands(p.report.work),
        match p.report.stopped_by {
            Some(memplan::budget::Stop::Clock) => " (stopped by the clock: the plan may differ between runs)",
            Some(memplan::budget::Stop::Work) => " (stopped by the work limit)",
            Some(memplan::budget::Stop::Cancel) => " (cancelled)",
            None => "",
        },
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
    if let Some(r) = &p.in_place {
        text += &format!("\n{}", in_place_text(r, p.height));
    }
    match &args.output {
        Some(out) => {
            let what = if p.replaced { "replaced" } else { "written" };
            text += &format!(
                "\nwrote {}: offline plan {what} (metadata 'OfflineMemoryAllocation')",
                display_path(out)
            );
        }
        None => text += "\nnothing written (a dry run: no -o)",
    }
    text
}

/// The per-tensor table: every planned tensor, in the model's order.
fn report(w: &mut dyn std::io::Write, p: &PlannedModel) -> std::io::Result<()> {
    let a = &p.analysis;
    writeln!(
        w,
        "{:>7} {:>8} {:>11} {:>11} {:>12} {:>9}  name",
        "tensor", "subgraph", "lifetime", "bytes", "offset", "op"
    )?;
    // `--in-place`: the tensors that take an input's storage.
    let over: std::collections::HashMap<usize, usize> = p
        .in_place
        .iter()
        .flat_map(|r| r.shared.iter().map(|s| (s.output, s.input)))
        .collect();
    for (b, &t) in a.tensor_of.iter().enumerate() {
        let life = &a.tensors[t];
        writeln!(
            w,
            "{:>7} {:>8} {:>11} {:>11} {:>12} {:>9}  {}{}",
            life.index,
            life.subgraph,
            format!("{}..{}", life.first, life.last),
            life.aligned_bytes(),
            p.offsets[life.index],
            life.producer
                .map_or("-".into(), |k| format!("{}:{k}", life.subgraph)),
            a.problem.buffers()[b].id,
            over.get(&t)
                .map_or(String::new(), |i| format!(" (in place of tensor {i})")),
        )?;
    }
    let n = a.tensor_of.len();
    let plan = p.report.outcome.plan();
    for (i, r) in a.scratch.iter().enumerate() {
        let b = &a.problem.buffers()[n + i];
        writeln!(
            w,
            "{:>7} {:>8} {:>11} {:>11} {:>12} {:>9}  {} (room left; TFLM places it)",
            "-",
            r.subgraph,
            format!("{}..{}", r.first, r.last),
            b.size.get(),
            plan.map_or(0, |p| p.offsets()[n + i].get()),
            format!("{}:{}", r.subgraph, r.operator),
            b.id,
        )?;
    }
    let count = |k| a.tensors.iter().filter(|t| t.kind == k).count();
    writeln!(
        w,
        "# {} planned; not planned: {} constant, {} variable, {} empty, {} resource handle. \
         lifetime: TFLM's allocation steps, both ends included; bytes: rounded up to 16; op: \
         SUBGRAPH:OP of the operator that outputs it (--scratch's SUBGRAPH:OP)",
        a.tensor_of.len(),
        count(TensorKind::Constant),
        count(TensorKind::Variable),
        count(TensorKind::Empty),
        count(TensorKind::ResourceHandle)
    )
}
