//! `memplan plan --spill`: the two-level planner (`memplan::spill`) behind the CLI. The
//! input's optional `cost` and `memory` columns (CSV) or fields (JSON) are its per-buffer
//! data; the plan is the input plus `memory` (fast or slow) and `offset` (in that level).

use memplan::spill::{
    check_spill, plan_spill, Memory, SpillBaseline, SpillInput, SpillOptions, SpillOutcome,
    SpillReport, TwoLevelPlan,
};
use memplan::{Problem, Size};

use crate::commands::PlanArgs;
use crate::files::{display_path, write_to};
use crate::fmt::{count, millis, percent, thousands};
use crate::formats::Format;
use crate::json_output::SpillSummary;
use crate::progress::{interrupt_token, Progress};
use crate::{Failure, EXIT_CHECK, EXIT_INPUT, EXIT_NOT_FOUND, EXIT_PROVEN_INFEASIBLE};

/// The naive strategies of `--spill-baseline`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Baseline {
    /// The largest live buffer first.
    LargestFirst,
    /// The lowest cost per byte first.
    CostPerByte,
}

/// The spill planner's ablation and tuning switches (shown by `--help-all`).
#[derive(clap::Args, Debug)]
pub struct SpillTuning {
    /// Ablation: skip the improvement phase after the heuristic.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_improve: bool,
    /// Ablation: skip the exact branch and bound over the spill decisions.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_exact: bool,
    /// Comparison: a naive strategy in place of the planner (spill in this order where the
    /// load exceeds the capacity, plan, spill what overflows).
    #[arg(
        long,
        hide = true,
        value_enum,
        help_heading = "Spill: ablations and tuning"
    )]
    pub spill_baseline: Option<Baseline>,
    /// Ablation: no Lagrangian relaxation (its bound and its cover).
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_lagrangian: bool,
    /// Ablation: no integer rounding of the fractional cover bound.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_rounding: bool,
    /// Ablation: do not add up the covers of times that share no buffer.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_chain: bool,
    /// Seed of the improvement phase's random choices.
    #[arg(
        long,
        hide = true,
        default_value_t = 0,
        help_heading = "Spill: ablations and tuning"
    )]
    pub spill_seed: u64,
}

/// The per-buffer spill data read from a problem file.
#[derive(Default)]
pub struct SpillData {
    pub costs: Option<Vec<u64>>,
    pub memory: Option<Vec<Memory>>,
}

impl SpillData {
    pub fn input(&self) -> SpillInput<'_> {
        SpillInput {
            costs: self.costs.as_deref(),
            memory: self.memory.as_deref(),
        }
    }

    /// The cost of buffer `i`: its `cost`, else its size.
    pub fn cost(&self, problem: &Problem, i: usize) -> u64 {
        self.costs
            .as_ref()
            .map_or(problem.buffers()[i].size.get(), |c| c[i])
    }
}

/// "FILE: line L, column 'C': WHAT", exit 3.
pub fn bad_field(path: &str, line: u64, column: &str, what: String) -> Failure {
    Failure::new(
        EXIT_INPUT,
        format!(
            "{}: line {line}, column '{column}': {what}",
            display_path(path)
        ),
    )
}

fn parse_cost(v: &str) -> Result<u64, String> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("not a non-negative integer: '{v}'"));
    }
    v.parse()
        .map_err(|_| format!("number too large for 64 bits: '{v}'"))
}

/// Reads the `cost` and `memory` columns (CSV) or fields (JSON) of a problem file. An
/// empty cost is the buffer's size; an empty memory is the planner's choice.
pub fn read_spill_data(
    path: &str,
    bytes: &[u8],
    format: Format,
    problem: &Problem,
) -> Result<SpillData, Failure> {
    let (costs, memory) = match format {
        Format::Csv => read_csv_fields(path, bytes)?,
        Format::Json => read_json_fields(path, bytes)?,
    };
    let sizes = problem.buffers().iter().map(|b| b.size.get());
    let costs = costs.map(|c| {
        c.into_iter()
            .zip(sizes)
            .map(|(c, s)| c.unwrap_or(s))
            .collect()
    });
    let data = SpillData { costs, memory };
    for (what, n) in [
        ("cost", data.costs.as_ref().map(Vec::len)),
        ("memory", data.memory.as_ref().map(Vec::len)),
    ] {
        if n.is_some_and(|n| n != problem.len()) {
            return Err(Failure::new(
                EXIT_INPUT,
                format!(
                    "{}: the {what} column does not match the buffers",
                    display_path(path)
                ),
            ));
        }
    }
    Ok(data)
}

type Fields = (Option<Vec<Option<u64>>>, Option<Vec<Memory>>);

fn read_csv_fields(path: &str, bytes: &[u8]) -> Result<Fields, Failure> {
    let column = |name: &str| {
        memplan::io::read_column_csv(bytes, name).map_err(|e| crate::files::read_failure(path, e))
    };
    let costs = column("cost")?
        .map(|rows| {
            rows.into_iter()
                .map(|(line, v)| match v.as_str() {
                    "" => Ok(None),
                    v => parse_cost(v)
                        .map(Some)
                        .map_err(|w| bad_field(path, line, "cost", w)),
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let memory = column("memory")?
        .map(|rows| {
            rows.into_iter()
                .map(|(line, v)| {
                    v.parse::<Memory>()
                        .map_err(|e| bad_field(path, line, "memory", e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    Ok((costs, memory))
}

fn read_json_fields(path: &str, bytes: &[u8]) -> Result<Fields, Failure> {
    let bad = |what: String| Failure::new(EXIT_INPUT, format!("{}: {what}", display_path(path)));
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| bad(format!("malformed json: {e}")))?;
    let bufs = value["buffers"].as_array().cloned().unwrap_or_default();
    let has = |f: &str| bufs.iter().any(|b| !b[f].is_null());
    let costs = has("cost").then(|| bufs.iter().map(|b| b["cost"].as_u64()).collect());
    let memory = if has("memory") {
        let parse = |(i, b): (usize, &serde_json::Value)| match &b["memory"] {
            serde_json::Value::Null => Ok(Memory::Either),
            serde_json::Value::String(s) => s
                .parse::<Memory>()
                .map_err(|e| bad(format!("buffers[{i}], field 'memory': {e}"))),
            other => Err(bad(format!(
                "buffers[{i}], field 'memory': expected fast, slow or either, found {other}"
            ))),
        };
        Some(
            bufs.iter()
                .enumerate()
                .map(parse)
                .collect::<Result<_, _>>()?,
        )
    } else {
        None
    };
    Ok((costs, memory))
}

impl SpillTuning {
    /// The library's options: `time_limit` and `threads` as for `plan`.
    pub fn options(&self, args: &PlanArgs) -> Result<SpillOptions, Failure> {
        let base = args.planning.options()?;
        Ok(SpillOptions {
            time_limit: base.time_limit,
            threads: base.threads,
            seed: self.spill_seed,
            improve: !self.spill_no_improve,
            exact: !self.spill_no_exact,
            lagrangian: !self.spill_no_lagrangian,
            baseline: self.spill_baseline.map(|b| match b {
                Baseline::LargestFirst => SpillBaseline::LargestFirst,
                Baseline::CostPerByte => SpillBaseline::CostPerByte,
            }),
            rounding_bound: !self.spill_no_rounding,
            chain_bound: !self.spill_no_chain,
            verify: !args.no_check,
            ..SpillOptions::default()
        })
    }
}

/// `plan --spill`: plans both levels, writes the plan, prints the summary.
pub fn plan(
    args: &PlanArgs,
    bytes: &[u8],
    in_format: Format,
    problem: &Problem,
) -> Result<(), Failure> {
    let Some(capacity) = args.capacity else {
        return Err(Failure::new(
            2,
            "--spill needs --capacity (the fast memory's size)",
        ));
    };
    let out_format = crate::formats::output_format(&args.output, args.output_format, in_format);
    let data = read_spill_data(&args.input, bytes, in_format, problem)?;
    let cancel = interrupt_token();
    let mut options = args.spill_tuning.options(args)?;
    options.cancel = Some(cancel.clone());
    let progress = Progress::start(
        args.quiet || args.json,
        format!(
            "planning {} on two levels under {}",
            count(problem.len() as u64, "buffer"),
            thousands(capacity)
        ),
        options.time_limit,
    );
    let report = plan_spill(problem, Size(capacity), &data.input(), &options);
    progress.finish();
    let report = report.map_err(|e| match e {
        memplan::spill::SpillError::InvalidPlan(_) => Failure::new(EXIT_CHECK, e.to_string()),
        e => Failure::new(EXIT_INPUT, format!("{}: {e}", display_path(&args.input))),
    })?;
    let done = SpillRun {
        problem,
        data: &data,
        capacity,
        report: &report,
    };
    if let Some(p) = report.plan() {
        // Whatever the options, nothing unchecked is written.
        if !args.no_check {
            check_spill(problem, Size(capacity), &data.input(), p).map_err(|v| {
                Failure::new(EXIT_CHECK, format!("the spill plan fails the checker: {v}"))
            })?;
        }
        write_to(&args.output, |w| {
            crate::formats::write_spill_plan(w, out_format, (in_format, bytes), &done, p)
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
    let input = display_path(&args.input);
    match &report.outcome {
        SpillOutcome::Optimal(_) | SpillOutcome::Feasible { .. } => Ok(()),
        SpillOutcome::Infeasible => Err(Failure::new(
            EXIT_PROVEN_INFEASIBLE,
            format!(
                "{input}: the buffers that must stay fast (fixed offsets, memory=fast) do not fit under {}: proved in {}",
                thousands(capacity),
                millis(report.elapsed)
            ),
        )),
        SpillOutcome::Unknown { lower_bound } => Err(Failure::new(
            EXIT_NOT_FOUND,
            format!(
                "{input}: no two-level plan found under {} in {} (the buffers that must stay fast could not be placed, nor proven not to fit); proven cost ≥ {}",
                thousands(capacity),
                millis(report.elapsed),
                thousands(*lower_bound)
            ),
        )),
    }
}

/// A finished `plan --spill` run, for its summary and output.
pub struct SpillRun<'a> {
    pub problem: &'a Problem,
    pub data: &'a SpillData,
    pub capacity: u64,
    pub report: &'a SpillReport,
}

impl SpillRun<'_> {
    /// The spilled buffers' count and bytes.
    pub fn spilled(&self) -> (usize, u64) {
        self.report.plan().map_or((0, 0), |p| {
            p.spilled
                .iter()
                .zip(self.problem.buffers())
                .filter(|(s, _)| **s)
                .fold((0, 0), |(n, b), (_, buf)| (n + 1, b + buf.size.get()))
        })
    }

    /// The cost of buffer `i` (its `cost`, else its size).
    pub fn cost(&self, i: usize) -> u64 {
        self.data.cost(self.problem, i)
    }

    fn outcome(&self) -> &'static str {
        match self.report.outcome {
            SpillOutcome::Optimal(_) => "optimal",
            SpillOutcome::Feasible { .. } => "feasible",
            SpillOutcome::Infeasible => "infeasible",
            SpillOutcome::Unknown { .. } => "unknown",
        }
    }

    pub fn summary(&self) -> SpillSummary {
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
            fast_height: plan.map(|p| p.fast_height.get()),
            slow_height: plan.map(|p| p.slow_height.get()),
            elapsed: self.report.elapsed,
        }
    }

    /// The text summary of a run with a plan.
    pub fn summary_line(&self) -> String {
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
            thousands(p.fast_height.get()),
            thousands(p.slow_height.get()),
            millis(self.report.elapsed)
        );
        if gap == 0 {
            line += "; optimal";
        }
        line
    }
}

/// The `memory` column's values of a plan: `fast` or `slow` per buffer.
pub fn memory_names(plan: &TwoLevelPlan) -> Vec<String> {
    plan.spilled
        .iter()
        .map(|&s| if s { "slow" } else { "fast" }.to_string())
        .collect()
}

/// The gap as a percentage of the bound (`n/a` when the bound is 0 and the plan is not).
pub fn gap_text(gap: u64, bound: u64) -> String {
    match (gap, bound) {
        (0, _) => "0.00%".to_string(),
        (_, 0) => "n/a (bound 0)".to_string(),
        _ => percent(gap, bound),
    }
}
