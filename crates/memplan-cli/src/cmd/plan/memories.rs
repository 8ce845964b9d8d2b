//! `memplan plan` across memories (`--memories`, a JSON problem's `memories` section, or
//! `--spill`, which is `--memories fast:C,slow` with spill's `cost` and `memory`
//! columns): the problem across them (`memplan::memories::MemoriesProblem`), planned
//! once, checked, written and summarised. The plan is the input plus `memory` (a memory
//! name) and `offset` (in that memory), in CSV or JSON.

use std::mem::ManuallyDrop;

use memplan::memories::MemoriesOf;
use memplan::memories::{MemoriesError, MemoriesProblem, MemoriesReport, Memory, MemoryPlan};
use memplan::Outcome;
use serde_json::json;

use crate::exit::{self, Failure};
use crate::flags::commands::PlanArgs;
use crate::flags::input::Format;
use crate::shared::files::{display_path, write_to};
use crate::shared::formats::{self, csv_source, io_error};
use crate::shared::memories::{into_memories, memory_figures};
use crate::shared::numbers::{count, json_millis, millis, thousands};
use crate::shared::progress::{interrupt_token, Progress};

/// `plan` across memories: plans, writes the plan, prints the summary.
pub fn plan(
    args: PlanArgs,
    (bytes, in_format, file): (Vec<u8>, Format, memplan::memories::ProblemFile),
    of: MemoriesOf,
) -> Result<(), Failure> {
    let cancel = interrupt_token();
    if args.capacity.is_some() && !args.spill {
        return Err(Failure::usage(
            "with memories, --capacity does not apply: each memory has its capacity",
        ));
    }
    if args.spill && args.memories.is_some() {
        return Err(Failure::usage(
            "--spill is short for --memories fast:CAPACITY,slow: give one of them",
        ));
    }
    // Spill's own input is `cost` and `memory`: a plan writes no `memories` for it.
    let spill = matches!(of, MemoriesOf::Spill(_));
    if spill {
        crate::shared::memories::warn_ignored(&args.input, &file, args.quiet || args.json);
    }
    // The process ends after this command: freeing a million buffers one by one (tens
    // of milliseconds) buys nothing.
    let problem = ManuallyDrop::new(into_memories(&args.input, file, of)?);
    let request = args.planning.request(None, Some(&cancel));
    let options = args
        .memories_tuning
        .options(args.planning.threads, !args.no_check);
    let out_format = formats::output_format(&args.output, args.output_format, in_format);
    let progress = Progress::start(
        args.quiet || args.json,
        format!(
            "planning {} across {} memories",
            count(problem.problem().len() as u64, "buffer"),
            problem.memories().len()
        ),
        request.budget.time_limit(),
    );
    let report = problem.plan(&request, &options);
    progress.finish();
    let report = report.map_err(|e| match e {
        MemoriesError::InvalidPlan(_) | MemoriesError::Plan(_) => {
            Failure::new(exit::CHECK, e.to_string())
        }
        e => Failure::new(exit::INPUT, format!("{}: {e}", display_path(&args.input))),
    })?;
    if let Some(p) = report.plan() {
        // Whatever the options, nothing unchecked is written.
        problem
            .check(p)
            .map_err(|v| Failure::new(exit::CHECK, format!("the plan fails the checker: {v}")))?;
        write_to(&args.output, |w| {
            let data = PerBuffer::of(&problem, spill);
            write_plan(
                w,
                (out_format, in_format, &bytes),
                &problem,
                &data,
                &report,
                p,
            )
        })?;
    }
    if args.json {
        eprintln!("{}", summary_json(&problem, &report));
    } else if !args.quiet {
        if let Some(p) = report.plan() {
            eprintln!("{}", summary_line(&problem, &report, p));
        }
    }
    if cancel.is_cancelled() && !args.quiet && !args.json {
        eprintln!("memplan: interrupted: kept the best plan found so far");
    }
    verdict(&args.input, &problem, &report)
}

fn summary_line(problem: &MemoriesProblem, r: &MemoriesReport, p: &MemoryPlan) -> String {
    let gap = p.cost.saturating_sub(r.lower_bound);
    let gaps = r.memory_gaps();
    // Each memory's gap: its proven ceiling less its traffic (lexicographic without costs).
    let per_memory = if gaps.iter().all(|&g| g == 0) {
        "every memory optimal".to_string()
    } else {
        let each: Vec<String> = problem
            .memories()
            .iter()
            .zip(&gaps)
            .map(|(m, g)| format!("{} {}", m.name, thousands(*g)))
            .collect();
        format!("memory gaps: {}", each.join(", "))
    };
    format!(
        "memplan: {}; {}; cost {}; proven ≥ {}; gap {}; {}; {}{}",
        count(problem.problem().len() as u64, "buffer"),
        memory_figures(problem, p).join("; "),
        thousands(p.cost),
        thousands(r.lower_bound),
        thousands(gap),
        per_memory,
        millis(r.elapsed),
        if gap == 0 { "; optimal" } else { "" }
    )
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

fn summary_json(problem: &MemoriesProblem, r: &MemoriesReport) -> String {
    let p = r.plan();
    let sizes = problem.problem().buffers();
    let memories: Vec<serde_json::Value> = problem
        .memories()
        .iter()
        .enumerate()
        .map(|(m, mem)| {
            let mine = |p: &MemoryPlan| {
                let held = p.memory.iter().zip(sizes).filter(|(x, _)| x.index() == m);
                held.fold((0u64, 0u64), |(n, b), (_, buf)| (n + 1, b + buf.size.get()))
            };
            let held = p.map(mine);
            let more = [
                ("buffers", json!(held.map(|h| h.0))),
                ("bytes", json!(held.map(|h| h.1))),
                ("traffic_bound", json!(r.traffic_bounds.get(m))),
                ("gap", json!(r.memory_gaps().get(m))),
            ];
            memory_json(mem, p, m, more)
        })
        .collect();
    json!({
        "outcome": r.outcome.name(),
        "buffers": problem.problem().len(),
        "memories": memories,
        "cost": p.map(|p| p.cost),
        "lower_bound": r.lower_bound,
        "gap": r.gap(),
        // The gap over the bound, in percent (null without a plan, or over a bound of 0).
        "gap_percent": r.gap().and_then(|g| match (g, r.lower_bound) {
            (0, _) => Some(0.0),
            (_, 0) => None,
            (g, b) => Some(g as f64 * 100.0 / b as f64),
        }),
        "optimal": matches!(r.outcome, Outcome::Optimal(_)),
        "infeasible_because": r.infeasibility.as_ref().map(ToString::to_string),
        "fallback": r.fallback,
        "elapsed_ms": json_millis(r.elapsed),
        "work": r.work,
        "stopped_by": r.stopped_by.map(memplan::budget::Stop::name),
    })
    .to_string()
}

fn verdict(input: &str, problem: &MemoriesProblem, r: &MemoriesReport) -> Result<(), Failure> {
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
                    .map_or("?", |m| problem.memories()[m.index()].name.as_str()),
                thousands(*lower_bound)
            ),
        )),
    }
}

/// Writes the plan: the input's columns (CSV input; JSON input: memplan's canonical
/// columns and the per-buffer data of several memories it gave) plus `memory` and
/// `offset`; or JSON, the memories with their figures, then the buffers with their data,
/// `memory` and `offset`.
fn write_plan(
    w: &mut dyn std::io::Write,
    (format, in_format, bytes): (Format, Format, &[u8]),
    problem: &MemoriesProblem,
    data: &PerBuffer,
    report: &MemoriesReport,
    plan: &MemoryPlan,
) -> std::io::Result<()> {
    let input = (in_format, bytes);
    let memories = problem.memories();
    let names: Vec<String> = plan
        .memory
        .iter()
        .map(|m| memories[m.index()].name.clone())
        .collect();
    if format == Format::Csv {
        let source = csv_source(input, problem.problem())?;
        let offsets: Vec<String> = plan.offsets.iter().map(|o| o.get().to_string()).collect();
        let mut columns: Vec<(&str, &[String])> = Vec::new();
        if input.0 == Format::Json {
            columns.extend(data.columns());
        }
        columns.push(("memory", &names));
        columns.push(("offset", &offsets));
        return memplan::io::write_columns_csv(&source, &columns, w).map_err(io_error);
    }
    let memories: Vec<serde_json::Value> = memories
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
    for (i, b) in problem.problem().buffers().iter().enumerate() {
        let mut o = formats::buffer_json(b);
        if let Some(sets) = &data.allowed {
            o.insert(
                "memories".into(),
                json!(sets[i].split('|').collect::<Vec<_>>()),
            );
        }
        if let Some(a) = &data.accesses {
            o.insert("accesses".into(), json!(a[i].parse::<u64>().ok()));
        }
        if let Some(c) = &data.cost {
            o.insert("cost".into(), json!(c[i].parse::<u64>().ok()));
        }
        o.insert("memory".into(), json!(names[i]));
        o.insert("offset".into(), json!(plan.offsets[i].get()));
        w.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        serde_json::to_writer(&mut *w, &o)?;
    }
    w.write_all(b"\n  ]\n}\n")
}

/// The per-buffer data of several memories that the problem was given, as text: each
/// buffer's allowed memories (`tcm|dram`), accesses and traffic (spill's `cost`).
struct PerBuffer {
    allowed: Option<Vec<String>>,
    accesses: Option<Vec<String>>,
    cost: Option<Vec<String>>,
}

impl PerBuffer {
    /// The data given; with `spill`, no allowed sets (spill's are its `memory` column,
    /// which the plan's replaces).
    fn of(problem: &MemoriesProblem, spill: bool) -> PerBuffer {
        let input = problem.input();
        let memories = problem.memories();
        let text = |v: &[u64]| v.iter().map(u64::to_string).collect();
        let all = memplan::memories::MemorySet::all(memories.len());
        PerBuffer {
            // Spill's and pins' sets, and any that is not every memory.
            allowed: (input.allowed)
                .filter(|sets| !spill && sets.iter().any(|s| *s != all))
                .map(|sets| {
                    sets.iter()
                        .map(|s| {
                            let names: Vec<&str> = s
                                .iter()
                                .filter_map(|m| memories.get(m.index()).map(|x| x.name.as_str()))
                                .collect();
                            names.join("|")
                        })
                        .collect()
                }),
            accesses: input.accesses.map(text),
            cost: input.traffic.map(text),
        }
    }

    /// The columns given, named as the input formats name them.
    fn columns(&self) -> Vec<(&'static str, &[String])> {
        [
            ("memories", &self.allowed),
            ("accesses", &self.accesses),
            ("cost", &self.cost),
        ]
        .into_iter()
        .filter_map(|(name, v)| v.as_deref().map(|v| (name, v)))
        .collect()
    }
}
