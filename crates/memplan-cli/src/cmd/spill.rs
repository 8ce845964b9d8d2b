//! `memplan plan --spill`: spill, the two-memory form of several memories
//! (`memplan::memories::plan_spill`), behind the CLI. The input's optional `cost` and
//! `memory` columns (CSV) or fields (JSON) are its per-buffer data; the plan is the input
//! plus `memory` (fast or slow) and `offset` (in that memory), in CSV or JSON.

use std::mem::ManuallyDrop;
use std::time::Duration;

use memplan::memories::{plan_spill, MemoriesError, MemoriesReport, MemoryPlan, SpillError};
use memplan::{Outcome, Problem, Size};
use serde_json::json;

use crate::exit::{self, Failure};
use crate::flags::commands::PlanArgs;
use crate::flags::input::Format;
use crate::shared::files::{display_path, write_to};
use crate::shared::formats::{self, csv_source, io_error};
use crate::shared::numbers::{count, json_millis, millis, percent, thousands};
use crate::shared::progress::{interrupt_token, Progress};
use crate::shared::spill::{check_spill_plan, read_spill_data, SpillData, SLOW};

/// `plan --spill`: plans both levels, writes the plan, prints the summary.
pub fn plan(args: PlanArgs) -> Result<(), Failure> {
    let cancel = interrupt_token();
    if args.capacity.is_none() {
        return Err(Failure::usage(
            "--spill needs --capacity (the fast memory's size)",
        ));
    }
    let formats::Loaded {
        bytes,
        format: in_format,
        problem,
        capacity,
    } = formats::load_problem(&args.input, &args.input_args, args.capacity.map(Size))?;
    let request = args.planning.request(capacity, Some(&cancel));
    let capacity = capacity.expect("--capacity was given");
    // The process ends after this command: freeing a million buffers one by one (tens
    // of milliseconds) buys nothing.
    let problem = ManuallyDrop::new(problem);
    let out_format = formats::output_format(&args.output, args.output_format, in_format);
    let data = read_spill_data(&args.input, &bytes, in_format, &problem)?;
    let options = args
        .spill_tuning
        .options(args.planning.threads, !args.no_check);
    let progress = Progress::start(
        args.quiet || args.json,
        format!(
            "planning {} on two levels under {}",
            count(problem.len() as u64, "buffer"),
            thousands(capacity.get())
        ),
        request.budget.time_limit(),
    );
    let report = plan_spill(&problem, &data.input(), &request, &options);
    progress.finish();
    let report = report.map_err(|e| match e {
        // Any other error of the planner across memories: its plan failed the check.
        SpillError::Memories(
            MemoriesError::Plan(_) | MemoriesError::Overflow(_) | MemoriesError::PlanShape { .. },
        ) => Failure::new(exit::INPUT, format!("{}: {e}", display_path(&args.input))),
        SpillError::Memories(_) => Failure::new(exit::CHECK, e.to_string()),
        e => Failure::new(exit::INPUT, format!("{}: {e}", display_path(&args.input))),
    })?;
    let done = SpillRun {
        problem: &problem,
        data: &data,
        capacity: capacity.get(),
        report: &report,
    };
    if let Some(p) = report.plan() {
        // Whatever the options, nothing unchecked is written.
        if !args.no_check {
            check_spill_plan(&problem, capacity.get(), &data.input(), p).map_err(|v| {
                Failure::new(
                    exit::CHECK,
                    format!("the spill plan fails the checker: {}", v.join("; ")),
                )
            })?;
        }
        write_to(&args.output, |w| {
            write_plan(w, out_format, (in_format, &bytes), &done, p)
        })?;
    }
    if args.json {
        eprintln!("{}", done.summary().to_json());
    } else if !args.quiet && report.plan().is_some() {
        eprintln!("{}", done.summary_line());
    }
    if cancel.is_cancelled() && !args.quiet && !args.json {
        eprintln!("memplan: interrupted: kept the best plan found so far");
    }
    done.verdict(&args.input)
}

/// Writes a two-level plan: the input's columns (CSV input) or memplan's canonical ones,
/// plus `memory` and `offset` (replaced when the input has them); or JSON.
fn write_plan(
    w: &mut dyn std::io::Write,
    format: Format,
    input: (Format, &[u8]),
    run: &SpillRun<'_>,
    plan: &MemoryPlan,
) -> std::io::Result<()> {
    if format == Format::Json {
        return write_plan_json(w, run, plan);
    }
    let source = csv_source(input, run.problem)?;
    let memory = memory_names(plan);
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
    memplan::io::write_columns_csv(&source, &columns, w).map_err(io_error)
}

/// Writes a two-level plan as JSON: the figures, then the buffers (one a line), each
/// with its `memory` (`fast` or `slow`) and its `offset` in that level.
fn write_plan_json(
    w: &mut dyn std::io::Write,
    run: &SpillRun<'_>,
    plan: &MemoryPlan,
) -> std::io::Result<()> {
    let summary = run.summary();
    let head = json!({
        "fast_capacity": run.capacity,
        "cost": plan.cost,
        "lower_bound": run.report.lower_bound,
        "optimal": summary.outcome == "optimal",
        "fast_height": plan.heights[0].get(),
        "slow_height": plan.heights[1].get(),
        "spilled_buffers": summary.spilled_buffers,
        "spilled_bytes": summary.spilled_bytes,
    })
    .to_string();
    w.write_all(&head.as_bytes()[..head.len() - 1])?;
    w.write_all(b",\n  \"buffers\": [")?;
    for (i, b) in run.problem.buffers().iter().enumerate() {
        let mut o = formats::buffer_json(b);
        if run.data.costs.is_some() {
            o.insert("cost".into(), json!(run.cost(i)));
        }
        let level = if plan.memory[i] == SLOW {
            "slow"
        } else {
            "fast"
        };
        o.insert("memory".into(), json!(level));
        o.insert("offset".into(), json!(plan.offsets[i].get()));
        w.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        serde_json::to_writer(&mut *w, &o)?;
    }
    w.write_all(b"\n  ]\n}\n")
}

/// A finished `plan --spill` run, for its summary and output.
struct SpillRun<'a> {
    problem: &'a Problem,
    data: &'a SpillData,
    capacity: u64,
    report: &'a MemoriesReport,
}

impl SpillRun<'_> {
    /// The spilled buffers' count and bytes.
    fn spilled(&self) -> (usize, u64) {
        self.report.plan().map_or((0, 0), |p| {
            p.memory
                .iter()
                .zip(self.problem.buffers())
                .filter(|(m, _)| **m == SLOW)
                .fold((0, 0), |(n, b), (_, buf)| (n + 1, b + buf.size.get()))
        })
    }

    /// The cost of buffer `i` (its `cost`, else its size).
    fn cost(&self, i: usize) -> u64 {
        self.data.cost(self.problem, i)
    }

    fn outcome(&self) -> &'static str {
        match self.report.outcome {
            Outcome::Optimal(_) => "optimal",
            Outcome::Feasible { .. } => "feasible",
            Outcome::Infeasible => "infeasible",
            Outcome::Unknown { .. } => "unknown",
        }
    }

    fn summary(&self) -> SpillSummary {
        let plan = self.report.plan();
        let (spilled, spilled_bytes) = self.spilled();
        SpillSummary {
            outcome: self.outcome(),
            buffers: self.problem.len(),
            fast_capacity: self.capacity,
            spilled_buffers: plan.map(|_| spilled),
            spilled_bytes: plan.map(|_| spilled_bytes),
            cost: plan.map(|p| p.cost),
            lower_bound: self.report.lower_bound,
            fast_height: plan.map(|p| p.heights[0].get()),
            slow_height: plan.map(|p| p.heights[1].get()),
            elapsed: self.report.elapsed,
        }
    }

    /// The text summary of a run with a plan.
    fn summary_line(&self) -> String {
        let Some(p) = self.report.plan() else {
            return String::new();
        };
        let (n, bytes) = self.spilled();
        let bound = self.report.lower_bound;
        let gap = p.cost.saturating_sub(bound);
        let mut line = format!(
            "memplan: {}; fast capacity {}; spilled {}, {} bytes; cost {}; proven ≥ {}; gap {}; fast height {}; slow height {}; {}",
            count(self.problem.len() as u64, "buffer"),
            thousands(self.capacity),
            count(n as u64, "buffer"),
            thousands(bytes),
            thousands(p.cost),
            thousands(bound),
            gap_text(gap, bound),
            thousands(p.heights[0].get()),
            thousands(p.heights[1].get()),
            millis(self.report.elapsed)
        );
        if gap == 0 {
            line += "; optimal";
        }
        line
    }

    /// The run's exit: success with a plan, else why there is none.
    fn verdict(&self, input: &str) -> Result<(), Failure> {
        let input = display_path(input);
        match &self.report.outcome {
            Outcome::Optimal(_) | Outcome::Feasible { .. } => Ok(()),
            Outcome::Infeasible => Err(Failure::new(
                exit::PROVEN_INFEASIBLE,
                format!(
                    "{input}: the buffers that must stay fast (fixed offsets, memory=fast) do not fit under {}: proved in {}",
                    thousands(self.capacity),
                    millis(self.report.elapsed)
                ),
            )),
            Outcome::Unknown { lower_bound, .. } => Err(Failure::new(
                exit::NOT_FOUND,
                format!(
                    "{input}: no two-level plan found under {} in {} (the buffers that must stay fast could not be placed, nor proven not to fit); proven cost ≥ {}",
                    thousands(self.capacity),
                    millis(self.report.elapsed),
                    thousands(*lower_bound)
                ),
            )),
        }
    }
}

/// The `memory` column's values of a plan: `fast` or `slow` per buffer.
fn memory_names(plan: &MemoryPlan) -> Vec<String> {
    plan.memory
        .iter()
        .map(|&m| if m == SLOW { "slow" } else { "fast" }.to_string())
        .collect()
}

/// The gap as a percentage of the bound (`n/a` when the bound is 0 and the plan is not).
fn gap_text(gap: u64, bound: u64) -> String {
    match (gap, bound) {
        (0, _) => "0.00%".to_string(),
        (_, 0) => "n/a (bound 0)".to_string(),
        _ => percent(gap, bound),
    }
}

/// The summary of one `plan --spill` run; the plan's figures are `None` without a plan.
struct SpillSummary {
    outcome: &'static str,
    buffers: usize,
    fast_capacity: u64,
    spilled_buffers: Option<usize>,
    spilled_bytes: Option<u64>,
    cost: Option<u64>,
    lower_bound: u64,
    fast_height: Option<u64>,
    slow_height: Option<u64>,
    elapsed: Duration,
}

impl SpillSummary {
    fn to_json(&self) -> String {
        let gap = self.cost.map(|c| c.saturating_sub(self.lower_bound));
        json!({
            "outcome": self.outcome,
            "buffers": self.buffers,
            "fast_capacity": self.fast_capacity,
            "spilled_buffers": self.spilled_buffers,
            "spilled_bytes": self.spilled_bytes,
            "cost": self.cost,
            "lower_bound": self.lower_bound,
            "gap": gap,
            "gap_percent": gap.and_then(|g| match (g, self.lower_bound) {
                (0, _) => Some(0.0),
                (_, 0) => None,
                (g, b) => Some(g as f64 * 100.0 / b as f64),
            }),
            "fast_height": self.fast_height,
            "slow_height": self.slow_height,
            "optimal": self.outcome == "optimal",
            "elapsed_ms": json_millis(self.elapsed),
        })
        .to_string()
    }
}
