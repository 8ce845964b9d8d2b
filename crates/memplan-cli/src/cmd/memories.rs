//! `memplan plan` and `memplan check` with several memories (`--memories`, or a JSON
//! problem's `memories` section): the multi-memory planner (`memplan::memories`) behind
//! the CLI. The input's optional `memories` (allowed set) and `accesses` columns or
//! fields are its per-buffer data; the plan is the input plus `memory` (a memory name)
//! and `offset` (in that memory), in CSV or JSON.

use std::mem::ManuallyDrop;

use memplan::memories::{
    check_memories, plan_memories, MemoriesError, MemoriesReport, Memory, MemoryPlan,
};
use memplan::{Outcome, Problem};
use serde_json::json;

use crate::exit::{self, Failure};
use crate::flags::commands::PlanArgs;
use crate::flags::input::Format;
use crate::shared::files::{display_path, write_to};
use crate::shared::formats::{self, csv_source, io_error};
use crate::shared::memories::{
    memory_figures, read_memories_data, reject_given_memory, MemoriesData,
};
use crate::shared::numbers::{count, json_millis, millis, thousands};
use crate::shared::progress::{interrupt_token, Progress};

/// `plan` with memories: plans, writes the plan, prints the summary.
pub fn plan(args: PlanArgs) -> Result<(), Failure> {
    let cancel = interrupt_token();
    if args.capacity.is_some() || args.spill {
        return Err(Failure::usage(
            "with memories, --capacity and --spill do not apply: each memory has its capacity",
        ));
    }
    let formats::Loaded {
        bytes,
        format: in_format,
        problem,
        ..
    } = formats::load_problem(&args.input, &args.input_args, None)?;
    let problem = ManuallyDrop::new(problem);
    reject_given_memory(&args.input, &bytes, in_format)?;
    let data = read_memories_data(
        &args.input,
        &bytes,
        in_format,
        &problem,
        args.memories.as_deref(),
    )?
    .ok_or_else(|| Failure::usage("no memories: give --memories or a JSON 'memories' section"))?;
    let request = args.planning.request(None, Some(&cancel));
    let options = args
        .spill_tuning
        .options(args.planning.threads, !args.no_check);
    let out_format = formats::output_format(&args.output, args.output_format, in_format);
    let progress = Progress::start(
        args.quiet || args.json,
        format!(
            "planning {} across {} memories",
            count(problem.len() as u64, "buffer"),
            data.memories.len()
        ),
        request.budget.time_limit(),
    );
    let report = plan_memories(&problem, &data.memories, &data.input(), &request, &options);
    progress.finish();
    let report = report.map_err(|e| match e {
        MemoriesError::InvalidPlan(_) | MemoriesError::Plan(_) => {
            Failure::new(exit::CHECK, e.to_string())
        }
        e => Failure::new(exit::INPUT, format!("{}: {e}", display_path(&args.input))),
    })?;
    if let Some(p) = report.plan() {
        // Whatever the options, nothing unchecked is written.
        check_memories(&problem, &data.memories, &data.input(), p)
            .map_err(|v| Failure::new(exit::CHECK, format!("the plan fails the checker: {v}")))?;
        write_to(&args.output, |w| {
            write_plan(
                w,
                out_format,
                (in_format, &bytes),
                &problem,
                &data,
                &report,
                p,
            )
        })?;
    }
    if args.json {
        eprintln!("{}", summary_json(&problem, &data, &report));
    } else if !args.quiet {
        if let Some(p) = report.plan() {
            eprintln!("{}", summary_line(&problem, &data, &report, p));
        }
    }
    verdict(&args.input, &data, &report)
}

fn summary_line(
    problem: &Problem,
    data: &MemoriesData,
    r: &MemoriesReport,
    p: &MemoryPlan,
) -> String {
    let gap = p.cost.saturating_sub(r.lower_bound);
    let gaps = r.memory_gaps();
    // Each memory's gap: its proven ceiling less its traffic (lexicographic without costs).
    let per_memory = if gaps.iter().all(|&g| g == 0) {
        "every memory optimal".to_string()
    } else {
        let each: Vec<String> = data
            .memories
            .iter()
            .zip(&gaps)
            .map(|(m, g)| format!("{} {}", m.name, thousands(*g)))
            .collect();
        format!("memory gaps: {}", each.join(", "))
    };
    format!(
        "memplan: {}; {}; cost {}; proven ≥ {}; gap {}; {}; {}{}",
        count(problem.len() as u64, "buffer"),
        memory_figures(data, p).join("; "),
        thousands(p.cost),
        thousands(r.lower_bound),
        thousands(gap),
        per_memory,
        millis(r.elapsed),
        if gap == 0 { "; optimal" } else { "" }
    )
}

fn outcome_name(r: &MemoriesReport) -> &'static str {
    match r.outcome {
        Outcome::Optimal(_) => "optimal",
        Outcome::Feasible { .. } => "feasible",
        Outcome::Infeasible => "infeasible",
        Outcome::Unknown { .. } => "unknown",
    }
}

/// Memory `m` as the summary and the JSON plan show it: its name, capacity, height and
/// traffic in `plan` (null without a plan), and the `more` fields.
fn memory_json<const N: usize>(
    mem: &Memory,
    plan: Option<&MemoryPlan>,
    m: usize,
    more: [(&str, serde_json::Value); N],
) -> serde_json::Value {
    let mut o = json!({
        "name": mem.name,
        "capacity": mem.capacity.map(|c| c.get()),
        "height": plan.map(|p| p.heights[m].get()),
        "traffic": plan.map(|p| p.traffic[m]),
    });
    for (key, value) in more {
        o[key] = value;
    }
    o
}

fn summary_json(problem: &Problem, data: &MemoriesData, r: &MemoriesReport) -> String {
    let p = r.plan();
    let memories: Vec<serde_json::Value> = data
        .memories
        .iter()
        .enumerate()
        .map(|(m, mem)| {
            let buffers = p.map(|p| p.memory.iter().filter(|x| x.index() == m).count());
            let more = [
                ("buffers", json!(buffers)),
                ("traffic_bound", json!(r.traffic_bounds.get(m))),
                ("gap", json!(r.memory_gaps().get(m))),
            ];
            memory_json(mem, p, m, more)
        })
        .collect();
    json!({
        "outcome": outcome_name(r),
        "buffers": problem.len(),
        "memories": memories,
        "cost": p.map(|p| p.cost),
        "lower_bound": r.lower_bound,
        "gap": p.map(|p| p.cost.saturating_sub(r.lower_bound)),
        "optimal": outcome_name(r) == "optimal",
        "infeasible_because": r.infeasibility.as_ref().map(ToString::to_string),
        "fallback": r.fallback,
        "elapsed_ms": json_millis(r.elapsed),
        "work": r.work,
        "stopped_by": r.stopped_by.map(memplan::budget::Stop::name),
    })
    .to_string()
}

fn verdict(input: &str, data: &MemoriesData, r: &MemoriesReport) -> Result<(), Failure> {
    let input = display_path(input);
    match &r.outcome {
        Outcome::Optimal(_) | Outcome::Feasible { .. } => Ok(()),
        Outcome::Infeasible => Err(Failure::new(
            exit::PROVEN_INFEASIBLE,
            format!(
                "{input}: no plan exists: {}",
                r.infeasibility
                    .as_ref()
                    .map_or("proven".to_string(), ToString::to_string)
            ),
        )),
        Outcome::Unknown { lower_bound, .. } => Err(Failure::new(
            exit::NOT_FOUND,
            format!(
                "{input}: no plan found in {}: memory '{}' could not hold the buffers that must, or were left to, use it (none proven impossible); proven cost ≥ {}",
                millis(r.elapsed),
                r.failed_memory
                    .map_or("?", |m| data.memories[m.index()].name.as_str()),
                thousands(*lower_bound)
            ),
        )),
    }
}

/// Writes the plan: the input's columns (CSV) plus `memory` and `offset`; or JSON, the
/// memories with their figures, then the buffers with `memory` and `offset`.
fn write_plan(
    w: &mut dyn std::io::Write,
    format: Format,
    input: (Format, &[u8]),
    problem: &Problem,
    data: &MemoriesData,
    report: &MemoriesReport,
    plan: &MemoryPlan,
) -> std::io::Result<()> {
    let names: Vec<String> = plan
        .memory
        .iter()
        .map(|m| data.memories[m.index()].name.clone())
        .collect();
    if format == Format::Csv {
        let source = csv_source(input, problem)?;
        let offsets: Vec<String> = plan.offsets.iter().map(|o| o.get().to_string()).collect();
        let columns: Vec<(&str, &[String])> = vec![("memory", &names), ("offset", &offsets)];
        return memplan::io::write_columns_csv(&source, &columns, w).map_err(io_error);
    }
    let memories: Vec<serde_json::Value> = data
        .memories
        .iter()
        .enumerate()
        .map(|(m, mem)| {
            let more = [
                ("alignment", json!(mem.alignment.get())),
                ("cost", json!(mem.cost)),
                ("traffic_bound", json!(report.traffic_bounds.get(m))),
            ];
            memory_json(mem, Some(plan), m, more)
        })
        .collect();
    let head = json!({
        "cost": plan.cost,
        "lower_bound": report.lower_bound,
        "optimal": plan.cost == report.lower_bound,
        "memories": memories,
    })
    .to_string();
    w.write_all(&head.as_bytes()[..head.len() - 1])?;
    w.write_all(b",\n  \"buffers\": [")?;
    for (i, b) in problem.buffers().iter().enumerate() {
        let mut o = formats::buffer_json(b);
        if let Some(a) = &data.allowed {
            let set = memplan::memories::memory_set_names(&data.memories, a[i]);
            o.insert("memories".into(), json!(set.split('|').collect::<Vec<_>>()));
        }
        if let Some(a) = &data.accesses {
            o.insert("accesses".into(), json!(a[i]));
        }
        o.insert("memory".into(), json!(names[i]));
        o.insert("offset".into(), json!(plan.offsets[i].get()));
        w.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        serde_json::to_writer(&mut *w, &o)?;
    }
    w.write_all(b"\n  ]\n}\n")
}
