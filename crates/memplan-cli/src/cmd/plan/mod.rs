//! `memplan plan PROBLEM`: reads the problem once, plans it in one memory (here) or
//! across several ([`memories`]: `--memories`, `--spill`, a JSON `memories` section),
//! writes the plan, and prints the summary: a text line, or one JSON object with
//! `--summary-json`.

mod memories;

use std::mem::ManuallyDrop;
use std::time::Duration;

use memplan::io::PlanInfo;
use memplan::{Outcome, Problem, Report, Size};
use serde_json::json;

use crate::exit::{self, Failure};
use crate::flags::commands::PlanArgs;
use crate::flags::input::Format;
use crate::shared::files::{display_path, write_to};
use crate::shared::formats;
use crate::shared::memories::{memories_of, warn_ignored};
use crate::shared::numbers::{count, fragmentation, json_millis, millis, percent, thousands};
use crate::shared::progress::{interrupt_token, Progress};

/// `plan`: reads the problem file once, then plans it in one memory, or across the
/// memories of `--memories`, `--spill` or the file's own section ([`memories`]).
pub fn plan(args: PlanArgs) -> Result<(), Failure> {
    let (bytes, in_format, file) = formats::load_file(&args.input, &args.input_args)?;
    let spill = args.capacity.filter(|_| args.spill);
    if let Some(of) = memories_of(args.memories.as_deref(), spill, &file)? {
        return memories::plan(args, (bytes, in_format, file), of);
    }
    warn_ignored(&args.input, &file, args.quiet || args.json);
    let (problem, own) = file.into_problem();
    let capacity = args.capacity.map(Size).or(own);
    one_memory(args, (bytes, in_format), problem, capacity)
}

/// `plan` in one memory.
fn one_memory(
    args: PlanArgs,
    (bytes, in_format): (Vec<u8>, Format),
    problem: Problem,
    capacity: Option<Size>,
) -> Result<(), Failure> {
    let cancel = interrupt_token();
    let request = args.planning.request(capacity, Some(&cancel));
    // The process ends after this command: freeing a million buffers one by one (tens
    // of milliseconds) buys nothing.
    let problem = ManuallyDrop::new(problem);
    let out_format = formats::output_format(&args.output, args.output_format, in_format);
    let mut options = args.planning.options();
    options.verify = !args.no_check;
    let progress = Progress::start(
        args.quiet || args.json,
        format!(
            "planning {} with {}",
            count(problem.len() as u64, "buffer"),
            options.planner
        ),
        request.budget.time_limit(),
    );
    let report = memplan::plan(&problem, &request, &options);
    progress.finish();
    let report = report.map_err(|e| Failure::new(exit::CHECK, e.to_string()))?;
    let done = Planned {
        problem: &problem,
        capacity,
        report: &report,
        interrupted: cancel.is_cancelled(),
    };
    if done.interrupted && !args.quiet && !args.json {
        eprintln!("memplan: interrupted: keeping the best plan found so far");
    }
    let write = |p: &memplan::Plan| {
        write_to(&args.output, |w| {
            formats::write_plan(
                w,
                out_format,
                (in_format, &bytes),
                &problem,
                capacity,
                p,
                &done.info(),
            )
        })
    };
    match &report.outcome {
        Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => {
            write(p)?;
            let h = p.height().get();
            if args.json {
                eprintln!("{}", done.summary(Some(h)).to_json());
            } else if !args.quiet {
                let mut line = done.summary_line(h);
                let inferred = in_format == Format::Csv && args.input_args.lifetimes.is_none();
                if inferred {
                    line += &inferred_lifetimes(&bytes);
                }
                eprintln!("{line}");
                if let Some(note) = inferred.then(|| inclusive_note(&bytes)).flatten() {
                    eprintln!("{note}");
                }
            }
            Ok(())
        }
        Outcome::Infeasible => {
            if args.json {
                eprintln!("{}", done.summary(None).to_json());
            }
            Err(done.infeasible(&args.input))
        }
        Outcome::Unknown { best_so_far, .. } => {
            // The best plan breaks the capacity and nothing else: the checker confirms
            // that without the capacity, and it is written for the user to inspect.
            if let Some(p) = best_so_far {
                memplan::check(&problem, p, None).map_err(|f| {
                    Failure::new(exit::CHECK, format!("the best plan fails the checker: {f}"))
                })?;
                write(p)?;
            }
            if args.json {
                let height = best_so_far.as_ref().map(|p| p.height().get());
                eprintln!("{}", done.summary(height).to_json());
            }
            Err(done.not_found(&args.input, best_so_far.is_some().then_some(&args.output)))
        }
    }
}

/// "; lifetimes half-open (column 'upper')": the convention read from the end column's
/// name, for the summary line, since the same numbers mean different plans under the two.
fn inferred_lifetimes(csv: &[u8]) -> String {
    match memplan::io::inferred_lifetimes_csv(csv) {
        Some((memplan::io::LifetimeConvention::Inclusive, column)) => format!(
            "; lifetimes inclusive (column '{column}': live at {column}; --lifetimes half-open to change)"
        ),
        Some((_, column)) => format!(
            "; lifetimes half-open (column '{column}': not live at {column}; --lifetimes inclusive to change)"
        ),
        None => String::new(),
    }
}

/// A line of its own when a CSV's lifetimes were read as inclusive from an `end` column
/// (a common header, where JSON's `end` is half-open): the same numbers give another max
/// load under the other reading, so it is said where it cannot be missed.
fn inclusive_note(csv: &[u8]) -> Option<String> {
    match memplan::io::inferred_lifetimes_csv(csv)? {
        (memplan::io::LifetimeConvention::Inclusive, column) => Some(format!(
            "memplan: note: the CSV column '{column}' is inclusive: a buffer is still live at its \
             {column} (in JSON, `end` is half-open); if {column} is one past the last use, \
             pass --lifetimes half-open (docs/formats.md)"
        )),
        _ => None,
    }
}

/// A finished `plan` run, for its summary and messages.
struct Planned<'a> {
    problem: &'a Problem,
    capacity: Option<Size>,
    report: &'a Report,
    interrupted: bool,
}

impl Planned<'_> {
    fn max_load(&self) -> u64 {
        self.report.max_load.get()
    }

    fn optimal(&self) -> bool {
        matches!(self.report.outcome, Outcome::Optimal(_))
    }

    /// The proven lower bound on the height, the same in every output (issues 27, 30).
    fn lower_bound(&self) -> u64 {
        self.report.lower_bound.get()
    }

    /// What a written plan says about itself.
    fn info(&self) -> PlanInfo {
        PlanInfo {
            max_load: self.max_load(),
            lower_bound: self.lower_bound(),
            optimal: self.optimal(),
            planner: self.report.planner.name(),
        }
    }

    /// The `--json` summary, with the plan's height (the best plan's, over the capacity).
    fn summary(&self, height: Option<u64>) -> Summary {
        Summary {
            outcome: self.report.outcome.name(),
            buffers: self.problem.len(),
            max_load: self.max_load(),
            lower_bound: self.lower_bound(),
            fragmentation: height.map(|h| h.saturating_sub(self.lower_bound())),
            height,
            capacity: self.capacity.map(|c| c.get()),
            planner: self.report.planner.name(),
            elapsed: self.report.elapsed,
            interrupted: self.interrupted,
            work: self.report.work,
            stopped_by: self.report.stopped_by.map(memplan::budget::Stop::name),
            shares: (!self.problem.shares().is_empty())
                .then(|| (self.problem.shares().len(), self.report.taken_shares.len())),
        }
    }

    /// "; work W" and, when a limit stopped the run, which one: the clock's plan may
    /// differ from run to run, the work limit's does not.
    fn work_note(&self) -> String {
        let stop = match self.report.stopped_by {
            Some(memplan::budget::Stop::Clock) => {
                "; stopped by the clock (the plan may differ between runs)"
            }
            Some(memplan::budget::Stop::Work) => "; stopped by the work limit",
            Some(memplan::budget::Stop::Cancel) => "; stopped by a cancellation",
            None => "",
        };
        format!("; work {}{stop}", thousands(self.report.work))
    }

    /// "N buffers; max load M", and with shares "; T of S shares taken" (the max load
    /// then counts the buffers that may share as one).
    fn head(&self) -> String {
        let shares = self.problem.shares().len();
        let taken = if shares == 0 {
            String::new()
        } else {
            format!(
                "; {} of {} taken",
                thousands(self.report.taken_shares.len() as u64),
                count(shares as u64, "share")
            )
        };
        format!(
            "{}; max load {}{taken}",
            count(self.problem.len() as u64, "buffer"),
            thousands(self.max_load())
        )
    }

    /// The summary line of a plan of height `h`.
    fn summary_line(&self, h: u64) -> String {
        let report = self.report;
        let proven = self.lower_bound();
        // Minimise mode: the anytime answer, the best plan and the best proof.
        let bounds = if self.capacity.is_none() {
            format!(
                "; proven ≥ {}; gap {}",
                thousands(proven),
                percent(h - proven, proven)
            )
        } else {
            String::new()
        };
        let mut line = format!(
            "memplan: {}; height {}{bounds}; {}; planner {}; {}",
            self.head(),
            thousands(h),
            fragmentation(h, self.max_load(), proven),
            report.planner,
            millis(report.elapsed)
        );
        if let Some(c) = self.capacity {
            line += &format!(
                "; capacity {} ({} spare)",
                thousands(c.get()),
                thousands(c.get() - h)
            );
        }
        if self.optimal() {
            line += "; optimal";
        }
        if let Some(x) = report.exact {
            line += &format!(
                "; exact search {} nodes, {} steps, {} backtracks",
                thousands(x.nodes),
                thousands(x.steps),
                thousands(x.backtracks)
            );
        }
        line + &self.work_note()
    }

    /// The failure of a proof that nothing fits, naming why.
    fn infeasible(&self, input: &str) -> Failure {
        let (report, max_load, head) = (self.report, self.max_load(), self.head());
        let c = self.capacity.map_or(0, |c| c.get());
        let largest = self
            .problem
            .buffers()
            .iter()
            .max_by_key(|b| b.size)
            .filter(|b| b.size.get() > c);
        let why = match (largest, report.exact) {
            (Some(b), _) => {
                format!("buffer '{}' alone needs {}", b.id, thousands(b.size.get()))
            }
            (None, _) if max_load > c => format!(
                "max load {}, {} above it",
                thousands(max_load),
                thousands(max_load - c)
            ),
            // The cheap bounds (the fixed buffers' holes) or the prover, before any
            // exact search.
            (None, None) if self.lower_bound() > c => format!(
                "proven lower bound {}, {} above it, in {}; {head}",
                thousands(self.lower_bound()),
                thousands(self.lower_bound() - c),
                millis(report.elapsed)
            ),
            (None, Some(x)) => format!(
                "by exact search in {}; {head}; {} nodes, {} backtracks",
                millis(report.elapsed),
                thousands(x.nodes),
                thousands(x.backtracks)
            ),
            (None, None) => format!(
                "by {} in {}; {head}",
                report.planner,
                millis(report.elapsed)
            ),
        };
        Failure::new(
            exit::PROVEN_INFEASIBLE,
            format!(
                "{}: no plan fits under {}: proved ({why})",
                display_path(input),
                thousands(c)
            ),
        )
    }

    /// The failure of a run that found no plan under the capacity; `written` names
    /// where the best plan (over the capacity) went.
    fn not_found(&self, input: &str, written: Option<&String>) -> Failure {
        let report = self.report;
        let c = self.capacity.map_or(0, |c| c.get());
        let best = match &report.outcome {
            Outcome::Unknown { best_so_far, .. } => {
                best_so_far.as_ref().map_or(0, |p| p.height().get())
            }
            _ => 0,
        };
        let written = match written.map(String::as_str) {
            Some("-") => "; the best plan, over capacity, is written to stdout".to_string(),
            Some(path) => format!("; the best plan, over capacity, is written to {path}"),
            None => String::new(),
        };
        Failure::new(
            exit::NOT_FOUND,
            format!(
                "{}: no plan found under {} in {}: the best has height {}, {} ({}) over ({}); planner {}{}{written}",
                display_path(input),
                thousands(c),
                millis(report.elapsed),
                thousands(best),
                thousands(best.saturating_sub(c)),
                percent(best.saturating_sub(c), c),
                self.head(),
                report.planner,
                self.work_note()
            ),
        )
    }
}

/// The `--summary-json` object of one `plan` run. `height` is `None` when no plan was found.
struct Summary {
    outcome: &'static str,
    buffers: usize,
    max_load: u64,
    /// The proven lower bound on the height.
    lower_bound: u64,
    /// The height above the proven lower bound.
    fragmentation: Option<u64>,
    height: Option<u64>,
    capacity: Option<u64>,
    planner: String,
    elapsed: Duration,
    interrupted: bool,
    /// The work charged, in work units.
    work: u64,
    /// `work`, `clock` or `cancel` when a limit stopped the run.
    stopped_by: Option<&'static str>,
    /// With shares: how many are declared and how many the plan takes.
    shares: Option<(usize, usize)>,
}

impl Summary {
    fn to_json(&self) -> String {
        let mut v = json!({
            "outcome": self.outcome,
            "buffers": self.buffers,
            "max_load": self.max_load,
            "lower_bound": self.lower_bound,
            "height": self.height,
            "fragmentation": self.fragmentation,
            "capacity": self.capacity,
            "planner": self.planner,
            "optimal": self.outcome == "optimal",
            "elapsed_ms": json_millis(self.elapsed),
            "interrupted": self.interrupted,
            "work": self.work,
            "stopped_by": self.stopped_by,
        });
        if let Some((declared, taken)) = self.shares {
            v["shares"] = json!(declared);
            v["shares_taken"] = json!(taken);
        }
        v.to_string()
    }
}
