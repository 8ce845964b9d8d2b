//! The `plan`, `check` and `stats` commands.

use memplan::io::PlanInfo;
use memplan::{
    analyze, check_placements, CancelToken, Options, Outcome, Planner, Problem, Report, TimeLimit,
};

use crate::files::{display_path, read_bytes, write_to};
use crate::fmt::{count, millis, percent, thousands};
use crate::formats::{self, load_problem, Format};
use crate::json_output::Summary;
use crate::progress::{interrupt_token, Progress};
use crate::{Failure, InputArgs, EXIT_CHECK, EXIT_NOT_FOUND, EXIT_PROVEN_INFEASIBLE};

#[derive(clap::Args, Debug)]
pub struct PlanArgs {
    /// The problem, CSV or JSON (`-` for stdin).
    pub input: String,
    /// Where to write the plan: the input's columns plus `offset` (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Fit under this many bytes instead of minimising the height.
    #[arg(long)]
    pub capacity: Option<u64>,
    /// Two memory levels: spill what does not fit under --capacity to slow memory, at
    /// the least total cost.
    ///
    /// The input's optional `cost` (default: the size) and `memory` (fast, slow, or empty
    /// for the planner's choice) columns are read; the plan gets `memory` (fast or slow)
    /// and `offset` (in that level) columns. Exit 5 when the buffers that must stay fast
    /// cannot fit, 6 when no plan was found in time.
    #[arg(long, requires = "capacity")]
    pub spill: bool,
    #[command(flatten)]
    pub spill_tuning: crate::spill::SpillTuning,
    #[command(flatten)]
    pub planning: PlannerArgs,
    /// Skip the independent checker (on by default; it is cheap).
    #[arg(long)]
    pub no_check: bool,
    /// The plan's format. Default: by the output's extension, else the input's format.
    #[arg(long, value_enum)]
    pub output_format: Option<Format>,
    /// Print no summary and no progress bar (errors are still printed).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the summary as one JSON object on stderr instead of the text line (the
    /// plan's own format is --output-format).
    #[arg(long = "summary-json", alias = "json", conflicts_with = "quiet")]
    pub json: bool,
    /// Show every option: also each planner's ablation and tuning switches.
    #[arg(long)]
    pub help_all: bool,
    #[command(flatten)]
    pub input_args: InputArgs,
}

/// The planner and budget flags that `plan` and `bench` share.
#[derive(clap::Args, Debug)]
pub struct PlannerArgs {
    /// The planner: `auto` (greedy, then exact search and boxing within the time limit),
    /// `greedy` (every greedy planner, nothing else, within the time limit; with
    /// `--time-limit inf` the result depends on the input alone),
    /// `naive`, `telamalloc`, `boxing`, `exact`, or ORDER-FIT with ORDER one of size,
    /// area, contention, breadth, lifetime, start and FIT one of best-fit, first-fit.
    #[arg(long, default_value = "auto")]
    pub planner: String,
    /// Worker threads (0: one per core). The plan does not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Stop after this many seconds, final check included, and return the best plan
    /// found [default: 1, as in the library, Python and C]. Within it, `auto` tightens a
    /// plan that greedy leaves fragmented, or looks for one under --capacity. `inf`: no
    /// clock; `auto` then runs until its plan is proven optimal, which may take long. The
    /// first plan (start-best-fit, O(n log n)) always finishes.
    #[arg(long)]
    pub time_limit: Option<TimeLimit>,
    /// Hold the first plan to the time limit too: a limit shorter than it returns the
    /// naive plan (every buffer at its own addresses).
    #[arg(long, hide = true)]
    pub strict_time_limit: bool,
    #[command(flatten)]
    pub exact: crate::exact_args::ExactArgs,
    #[command(flatten)]
    pub telamalloc: crate::telamalloc::TelamallocArgs,
    #[command(flatten)]
    pub boxing: crate::boxing_args::BoxingArgs,
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The problem, CSV or JSON (`-` for stdin).
    pub problem: String,
    /// The plan, CSV or JSON: `id` and `offset` columns (or fields), e.g. the output of
    /// `memplan plan`. With a
    /// `memory` column (`plan --spill`), both levels are checked: the fast buffers under
    /// --capacity, the slow ones among themselves.
    pub plan: String,
    /// Also require every buffer to end at or below this address (with a `memory`
    /// column: the fast memory's size, required).
    #[arg(long)]
    pub capacity: Option<u64>,
    #[command(flatten)]
    pub input_args: InputArgs,
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// The problem, CSV or JSON (`-` for stdin).
    pub input: String,
    /// Also print the load profile as `time,load` lines.
    #[arg(long)]
    pub profile: bool,
    #[command(flatten)]
    pub input_args: InputArgs,
}

pub fn plan(args: PlanArgs) -> Result<(), Failure> {
    let bytes = read_bytes(&args.input)?;
    let (in_format, problem) =
        formats::read_problem(&args.input, &bytes, &args.input_args, args.capacity)?;
    // The process ends after this command: freeing a million buffers one by one (tens
    // of milliseconds) buys nothing.
    let problem = std::mem::ManuallyDrop::new(problem);
    if args.spill {
        return crate::spill::plan(&args, &bytes, in_format, &problem);
    }
    let out_format = formats::output_format(&args.output, args.output_format, in_format);
    let cancel = interrupt_token();
    let options = plan_options(&args, cancel.clone())?;
    let progress = Progress::start(
        args.quiet || args.json,
        format!(
            "planning {} with {}",
            count(problem.len() as u64, "buffer"),
            options.planner
        ),
        options.time_limit,
    );
    let report = memplan::plan(&problem, &options);
    progress.finish();
    let report = report.map_err(|e| Failure::new(EXIT_CHECK, e.to_string()))?;
    let done = Planned {
        problem: &problem,
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
                let outcome = if done.optimal() {
                    "optimal"
                } else {
                    "feasible"
                };
                eprintln!("{}", done.summary(outcome, Some(h)).to_json());
            } else if !args.quiet {
                let mut line = done.summary_line(h);
                if in_format == Format::Csv && args.input_args.lifetimes.is_none() {
                    line += &inferred_lifetimes(&bytes);
                }
                eprintln!("{line}");
            }
            Ok(())
        }
        Outcome::Infeasible => {
            if args.json {
                eprintln!("{}", done.summary("infeasible", None).to_json());
            }
            Err(done.infeasible(&args.input))
        }
        Outcome::Unknown { best_so_far, .. } => {
            // The best plan breaks the capacity and nothing else: the checker confirms
            // that without the capacity, and it is written for the user to inspect.
            if let Some(p) = best_so_far {
                let uncapped = (*problem).clone().with_capacity(None);
                memplan::check(&uncapped, p).map_err(|f| {
                    Failure::new(EXIT_CHECK, format!("the best plan fails the checker: {f}"))
                })?;
                write(p)?;
            }
            if args.json {
                let height = best_so_far.as_ref().map(|p| p.height().get());
                eprintln!("{}", done.summary("unknown", height).to_json());
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

/// The library's options from `plan`'s flags.
fn plan_options(args: &PlanArgs, cancel: CancelToken) -> Result<Options, Failure> {
    let mut options = args.planning.options()?;
    options.cancel = Some(cancel);
    options.verify = !args.no_check;
    Ok(options)
}

impl PlannerArgs {
    /// The library's options: [`Options::default()`] with the flags given.
    pub fn options(&self) -> Result<Options, Failure> {
        let default = Options::default();
        let planner: Planner = if self.exact.exact {
            Planner::Exact
        } else {
            self.planner
                .parse()
                .map_err(|e| Failure::new(2, format!("{e}; see --help")))?
        };
        Ok(Options {
            planner,
            threads: self.threads,
            time_limit: match self.time_limit {
                Some(t) => t.duration(),
                None => default.time_limit,
            },
            cancel: None,
            verify: default.verify,
            telamalloc: self.telamalloc.options(),
            boxing: self.boxing.options(),
            exact: self.exact.options()?,
            finish_first_plan: default.finish_first_plan && !self.strict_time_limit,
        })
    }
}

/// A finished `plan` run, for its summary and messages.
struct Planned<'a> {
    problem: &'a Problem,
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

    /// The proven lower bound on the height, the same in every output (issue 27).
    fn lower_bound(&self) -> u64 {
        self.report.proven_lower_bound().get()
    }

    /// What the fragmentation is measured against: the max load, or the fixed buffers'
    /// top when higher.
    fn bound(&self) -> u64 {
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

    /// The `--json` summary.
    fn summary(&self, outcome: &'static str, height: Option<u64>) -> Summary<'_> {
        Summary {
            outcome,
            buffers: self.problem.len(),
            max_load: self.max_load(),
            lower_bound: self.lower_bound(),
            fragmentation: height.map(|h| h.saturating_sub(self.bound())),
            height,
            capacity: self.problem.capacity().map(|c| c.get()),
            planner: self.report.planner.name(),
            elapsed: self.report.elapsed,
            interrupted: self.interrupted,
        }
    }

    /// "N buffers; max load M".
    fn head(&self) -> String {
        format!(
            "{}; max load {}",
            count(self.problem.len() as u64, "buffer"),
            thousands(self.max_load())
        )
    }

    /// The summary line of a plan of height `h`.
    fn summary_line(&self, h: u64) -> String {
        let (report, bound) = (self.report, self.bound());
        let proven = self.lower_bound();
        // Minimise mode: the anytime answer, the best plan and the best proof.
        let bounds = if self.problem.capacity().is_none() {
            format!(
                "; proven ≥ {}; gap {}",
                thousands(proven),
                percent(h - proven, proven)
            )
        } else {
            String::new()
        };
        let mut line = format!(
            "memplan: {}; height {}{bounds}; fragmentation {} ({}); planner {}; {}",
            self.head(),
            thousands(h),
            thousands(h - bound),
            percent(h - bound, bound),
            report.planner,
            millis(report.elapsed)
        );
        if let Some(c) = self.problem.capacity() {
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
                "; exact search {} nodes, {} backtracks",
                thousands(x.nodes),
                thousands(x.backtracks)
            );
        }
        line
    }

    /// The failure of a proof that nothing fits, naming why.
    fn infeasible(&self, input: &str) -> Failure {
        let (report, max_load, head) = (self.report, self.max_load(), self.head());
        let c = self.problem.capacity().map_or(0, |c| c.get());
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
            EXIT_PROVEN_INFEASIBLE,
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
        let c = self.problem.capacity().map_or(0, |c| c.get());
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
            EXIT_NOT_FOUND,
            format!(
                "{}: no plan found under {} in {}: the best has height {}, {} ({}) over ({}); planner {}{written}",
                display_path(input),
                thousands(c),
                millis(report.elapsed),
                thousands(best),
                thousands(best.saturating_sub(c)),
                percent(best.saturating_sub(c), c),
                self.head(),
                report.planner
            ),
        )
    }
}

pub fn check(args: CheckArgs) -> Result<(), Failure> {
    let (problem_bytes, problem) = load_problem(&args.problem, &args.input_args, args.capacity)?;
    let bytes = read_bytes(&args.plan)?;
    let placements = formats::read_placements(&args.plan, &bytes)?;
    if let Some(levels) = crate::two_level::read_plan_levels(&args.plan, &bytes)? {
        return crate::two_level::check(&args, &problem_bytes, &problem, &placements, &levels);
    }
    match check_placements(&problem, &placements) {
        Ok(summary) => {
            let (max_load, bound) = (
                memplan::max_load(&problem).get(),
                memplan::lower_bound(&problem).get(),
            );
            let h = summary.height.get();
            println!(
                "ok: {}; height {}; max load {}; fragmentation {} ({})",
                count(summary.buffers as u64, "buffer"),
                thousands(h),
                thousands(max_load),
                thousands(h - bound),
                percent(h - bound, bound)
            );
            Ok(())
        }
        Err(failure) => Err(Failure::invalid(
            display_path(&args.plan),
            "plan",
            &failure.violations,
            failure.more,
        )),
    }
}

pub fn stats(args: StatsArgs) -> Result<(), Failure> {
    let (_, problem) = load_problem(&args.input, &args.input_args, None)?;
    let a = analyze(&problem);
    let bufs = problem.buffers();
    let total: u64 = bufs.iter().map(|b| b.size.get()).sum();
    let start = bufs
        .iter()
        .map(|b| b.lifetime.start.get())
        .min()
        .unwrap_or(0);
    let end = bufs.iter().map(|b| b.lifetime.end.get()).max().unwrap_or(0);
    let sizes = (
        bufs.iter().map(|b| b.size.get()).min().unwrap_or(0),
        bufs.iter().map(|b| b.size.get()).max().unwrap_or(0),
    );
    let mut out = String::new();
    out += &format!("buffers            {}\n", thousands(problem.len() as u64));
    out += &format!("time span          [{start}, {end})\n");
    out += &format!(
        "sizes              {} .. {}\n",
        thousands(sizes.0),
        thousands(sizes.1)
    );
    out += &format!(
        "total size         {} (the naive plan's height)\n",
        thousands(total)
    );
    out += &format!(
        "max load           {} at time {}\n",
        thousands(a.max_load.get()),
        a.peak_time
    );
    out += &format!("max live buffers   {}\n", thousands(a.max_live as u64));
    out += &format!("overlapping pairs  {}\n", thousands(a.overlapping_pairs));
    out += &format!(
        "time components    {}\n",
        thousands(a.components.len() as u64)
    );
    out += &format!(
        "fixed buffers      {}\n",
        bufs.iter().filter(|b| b.fixed_offset.is_some()).count()
    );
    out += &format!(
        "aligned buffers    {}\n",
        bufs.iter().filter(|b| b.alignment.get() > 1).count()
    );
    out += &format!(
        "buffers with gaps  {}\n",
        bufs.iter().filter(|b| !b.gaps.is_empty()).count()
    );
    if args.profile {
        out += "time,load\n";
        for s in &a.load_profile {
            out += &format!("{},{}\n", s.time, s.load);
        }
    }
    write_to("-", |w| w.write_all(out.as_bytes()))
}
