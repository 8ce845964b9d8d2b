//! The `plan`, `check`, `stats` and `gen` commands.

use std::io::{Read, Write};
use std::time::Duration;

use memplan::io::{write_problem_csv, CsvOptions, LifetimeConvention, PlanInfo};
use memplan::testing::{generate_model_like, GenOptions};
use memplan::{
    analyze, check_placements, Options, Outcome, Planner, Problem, ReadError, ReadErrorKind, Size,
    TimeLimit,
};

use crate::fmt::{millis, percent, thousands};
use crate::formats::{self, Format};
use crate::json_output::Summary;
use crate::progress::{interrupt_token, Progress};
use crate::{
    Failure, InputArgs, Lifetimes, EXIT_CHECK, EXIT_INPUT, EXIT_IO, EXIT_NOT_FOUND,
    EXIT_PROVEN_INFEASIBLE,
};

#[derive(clap::Args, Debug)]
pub struct PlanArgs {
    /// The problem CSV (`-` for stdin).
    pub input: String,
    /// Where to write the plan: the input's columns plus `offset` (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Fit under this many bytes instead of minimising the height.
    #[arg(long)]
    pub capacity: Option<u64>,
    /// The planner: `auto` (the portfolio), `naive`, `telamalloc`, `boxing`, `exact`, or
    /// ORDER-FIT with ORDER one of size, area, contention, breadth, lifetime, start and
    /// FIT one of best-fit, first-fit.
    #[arg(long, default_value = "auto")]
    pub planner: String,
    /// Worker threads (0: one per core). The plan does not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Stop after this many seconds and return the best plan found (`inf`: no limit).
    /// Within it, the exact search and boxing tighten a plan that greedy leaves
    /// fragmented, or look for one under --capacity. Given explicitly, the limit is
    /// strict: if not even one greedy pass fits in it, the plan is the naive one. Not
    /// given, it is 1 s, and the first greedy pass always finishes.
    #[arg(long)]
    pub time_limit: Option<TimeLimit>,
    /// Skip the independent checker (on by default; it is cheap).
    #[arg(long)]
    pub no_check: bool,
    /// The plan's format. Default: by the output's extension, else the input's format.
    #[arg(long, value_enum)]
    pub output_format: Option<Format>,
    /// Print no summary and no progress bar (errors are still printed).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the summary as one JSON object on stderr instead of the text line.
    #[arg(long, conflicts_with = "quiet")]
    pub json: bool,
    #[command(flatten)]
    pub exact: crate::exact_args::ExactArgs,
    #[command(flatten)]
    pub input_args: InputArgs,
    #[command(flatten)]
    pub telamalloc: crate::telamalloc::TelamallocArgs,
    #[command(flatten)]
    pub boxing: crate::boxing_args::BoxingArgs,
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The problem CSV (`-` for stdin).
    pub problem: String,
    /// The plan CSV: `id` and `offset` columns, e.g. the output of `memplan plan`.
    pub plan: String,
    /// Also require every buffer to end at or below this address.
    #[arg(long)]
    pub capacity: Option<u64>,
    #[command(flatten)]
    pub input_args: InputArgs,
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// The problem CSV (`-` for stdin).
    pub input: String,
    /// Also print the load profile as `time,load` lines.
    #[arg(long)]
    pub profile: bool,
    #[command(flatten)]
    pub input_args: InputArgs,
}

#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// How many buffers.
    #[arg(long, default_value_t = 1000)]
    pub buffers: usize,
    /// The seed; the same seed gives the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write the problem (`-` for stdout); JSON when the name ends in `.json`.
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Generate a tiled CNN-like network (JSON for `memplan tiles`) instead of a CSV.
    #[arg(long)]
    pub tiled: bool,
    /// With --tiled: `nhwc` (contiguous tiles) or `nchw` (strided tiles).
    #[arg(long, default_value = "nhwc")]
    pub layout: String,
    /// With --tiled: number of blocks (residual or concat).
    #[arg(long, default_value_t = 16)]
    pub blocks: usize,
    /// With --tiled: on-chip memory in bytes; tiles are at most a quarter of it.
    #[arg(long, default_value_t = 262144)]
    pub on_chip: u64,
    /// What to generate: a model-like trace, or a TelaMalloc microbenchmark (§7.1).
    #[arg(long, value_enum, default_value_t)]
    pub kind: crate::telamalloc::GenKind,
}

/// Reads a whole file, or stdin for `-`.
pub fn read_bytes(path: &str) -> Result<Vec<u8>, Failure> {
    let mut buf = Vec::new();
    let res = if path == "-" {
        std::io::stdin().read_to_end(&mut buf).map(|_| ())
    } else {
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut buf))
            .map(|_| ())
    };
    res.map_err(|e| Failure::new(EXIT_IO, format!("{}: {e}", display_path(path))))?;
    Ok(buf)
}

fn display_path(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// Maps a read error to a one-line failure naming the file.
pub fn read_failure(path: &str, e: ReadError) -> Failure {
    let code = if matches!(e.kind, ReadErrorKind::Io(_)) {
        EXIT_IO
    } else {
        EXIT_INPUT
    };
    Failure::new(code, format!("{}: {e}", display_path(path)))
}

pub fn csv_options(args: &InputArgs, capacity: Option<u64>) -> CsvOptions {
    CsvOptions {
        lifetimes: args.lifetimes.map(|l| match l {
            Lifetimes::HalfOpen => LifetimeConvention::HalfOpen,
            Lifetimes::Inclusive => LifetimeConvention::Inclusive,
        }),
        capacity: capacity.map(Size),
    }
}

pub fn load_problem(
    path: &str,
    args: &InputArgs,
    capacity: Option<u64>,
) -> Result<(Vec<u8>, Problem), Failure> {
    let bytes = read_bytes(path)?;
    let (_, problem) = formats::read_problem(path, &bytes, args, capacity)?;
    Ok((bytes, problem))
}

/// Opens `path` for writing (stdout for `-`), runs `f`, and flushes. A closed stdout
/// (e.g. `| head`) is not an error.
pub fn write_to(
    path: &str,
    f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let res = if path == "-" {
        let stdout = std::io::stdout();
        let mut lock = std::io::BufWriter::new(stdout.lock());
        f(&mut lock).and_then(|_| lock.flush())
    } else {
        std::fs::File::create(path).and_then(|file| {
            let mut w = std::io::BufWriter::new(file);
            f(&mut w).and_then(|_| w.flush())
        })
    };
    match res {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::new(
            EXIT_IO,
            format!("{}: {e}", if path == "-" { "<stdout>" } else { path }),
        )),
        Ok(()) => Ok(()),
    }
}

pub fn plan(args: PlanArgs) -> Result<(), Failure> {
    let planner: Planner = if args.exact.exact {
        Planner::Exact
    } else {
        args.planner
            .parse()
            .map_err(|e| Failure::new(2, format!("{e}; see --help")))?
    };
    let bytes = read_bytes(&args.input)?;
    let (in_format, problem) =
        formats::read_problem(&args.input, &bytes, &args.input_args, args.capacity)?;
    let out_format = formats::output_format(&args.output, args.output_format, in_format);
    let time_limit = args
        .time_limit
        .unwrap_or(TimeLimit::from(Duration::from_secs(1)))
        .duration();
    let cancel = interrupt_token();
    let options = Options {
        planner,
        threads: args.threads,
        time_limit,
        cancel: Some(cancel.clone()),
        verify: !args.no_check,
        telamalloc: args.telamalloc.options(),
        boxing: args.boxing.options(),
        exact: args.exact.options()?,
        finish_first_plan: args.time_limit.is_none(),
    };
    let progress = Progress::start(
        args.quiet || args.json,
        format!(
            "planning {} buffers with {}",
            thousands(problem.len() as u64),
            options.planner
        ),
        time_limit,
    );
    let report = memplan::plan(&problem, &options);
    progress.finish();
    let report = report.map_err(|e| Failure::new(EXIT_CHECK, e.to_string()))?;
    let interrupted = cancel.is_cancelled();
    let max_load = report.max_load.get();
    let lower_bound = match &report.outcome {
        Outcome::Feasible { lower_bound, .. } | Outcome::Unknown { lower_bound, .. } => {
            lower_bound.get()
        }
        Outcome::Optimal(_) | Outcome::Infeasible => max_load,
    };
    let summary = |outcome: &'static str, height: Option<u64>| Summary {
        outcome,
        buffers: problem.len(),
        max_load,
        lower_bound,
        height,
        capacity: problem.capacity().map(|c| c.get()),
        planner: report.planner.name(),
        elapsed: report.elapsed,
        interrupted,
    };
    if interrupted && !args.quiet && !args.json {
        eprintln!("memplan: interrupted: keeping the best plan found so far");
    }
    let head = format!(
        "{} buffers; max load {}",
        thousands(problem.len() as u64),
        thousands(max_load)
    );
    match &report.outcome {
        Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => {
            let optimal = matches!(report.outcome, Outcome::Optimal(_));
            let info = PlanInfo {
                max_load,
                lower_bound,
                optimal,
                planner: report.planner.name(),
            };
            write_to(&args.output, |w| {
                formats::write_plan(w, out_format, (in_format, &bytes), &problem, p, &info)
            })?;
            let h = p.height().get();
            if args.json {
                let outcome = if optimal { "optimal" } else { "feasible" };
                eprintln!("{}", summary(outcome, Some(h)).to_json());
                return Ok(());
            }
            if args.quiet {
                return Ok(());
            }
            let proven = match report.outcome {
                Outcome::Feasible { lower_bound, .. } => lower_bound.get(),
                _ => h,
            };
            // Minimise mode: the anytime answer, the best plan and the best proof.
            let bounds = if problem.capacity().is_none() {
                format!(
                    "; proven ≥ {}; gap {}",
                    thousands(proven),
                    percent(h - proven, proven)
                )
            } else {
                String::new()
            };
            let mut line = format!(
                "memplan: {head}; height {}{bounds}; fragmentation {} ({}); planner {}; {}",
                thousands(h),
                thousands(h - max_load),
                percent(h - max_load, max_load),
                report.planner,
                millis(report.elapsed)
            );
            if let Some(c) = problem.capacity() {
                line += &format!(
                    "; capacity {} ({} spare)",
                    thousands(c.get()),
                    thousands(c.get() - h)
                );
            }
            if optimal {
                line += "; optimal";
            }
            if let Some(x) = report.exact {
                line += &format!(
                    "; exact search {} nodes, {} backtracks",
                    thousands(x.nodes),
                    thousands(x.backtracks)
                );
            }
            eprintln!("{line}");
            Ok(())
        }
        Outcome::Infeasible => {
            if args.json {
                eprintln!("{}", summary("infeasible", None).to_json());
            }
            let c = problem.capacity().map_or(0, |c| c.get());
            let largest = problem
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
            Err(Failure::new(
                EXIT_PROVEN_INFEASIBLE,
                format!(
                    "{}: no plan fits under {}: proved ({why})",
                    display_path(&args.input),
                    thousands(c)
                ),
            ))
        }
        Outcome::Unknown { best_so_far, .. } => {
            let c = problem.capacity().map_or(0, |c| c.get());
            let best = best_so_far.as_ref().map_or(0, |p| p.height().get());
            if args.json {
                let height = best_so_far.as_ref().map(|p| p.height().get());
                eprintln!("{}", summary("unknown", height).to_json());
            }
            Err(Failure::new(
                EXIT_NOT_FOUND,
                format!(
                    "{}: no plan found under {} in {}: the best has height {}, {} ({}) over ({head}); planner {}",
                    display_path(&args.input),
                    thousands(c),
                    millis(report.elapsed),
                    thousands(best),
                    thousands(best.saturating_sub(c)),
                    percent(best.saturating_sub(c), c),
                    report.planner
                ),
            ))
        }
    }
}

pub fn check(args: CheckArgs) -> Result<(), Failure> {
    let (_, problem) = load_problem(&args.problem, &args.input_args, args.capacity)?;
    let bytes = read_bytes(&args.plan)?;
    let placements = formats::read_placements(&args.plan, &bytes)?;
    match check_placements(&problem, &placements) {
        Ok(summary) => {
            let max_load = memplan::max_load(&problem).get();
            let h = summary.height.get();
            println!(
                "ok: {} buffers; height {}; max load {}; fragmentation {} ({})",
                thousands(summary.buffers as u64),
                thousands(h),
                thousands(max_load),
                thousands(h - max_load),
                percent(h - max_load, max_load)
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

pub fn gen(args: GenArgs) -> Result<(), Failure> {
    if args.tiled {
        return crate::tiles::gen_tiled(&args);
    }
    if args.buffers == 0 {
        return Err(Failure::new(2, "--buffers must be at least 1"));
    }
    let problem = match crate::telamalloc::microbenchmark(args.kind, args.buffers, args.seed) {
        Some(p) => p,
        None => generate_model_like(&GenOptions {
            buffers: args.buffers,
            seed: args.seed,
        }),
    };
    let json = formats::output_format(&args.output, None, Format::Csv) == Format::Json;
    write_to(&args.output, |w| {
        if json {
            memplan::io::write_problem_json(&problem, w)
        } else {
            write_problem_csv(&problem, w)
        }
    })
}
