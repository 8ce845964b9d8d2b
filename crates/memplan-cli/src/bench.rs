//! `memplan bench DIR`: plan every CSV under a directory, one markdown table row each.

use std::path::{Path, PathBuf};
use std::time::Instant;

use memplan::io::read_problem_csv;
use memplan::{check, Options, Outcome, Planner};

use crate::files::{csv_options, read_bytes, read_failure};
use crate::fmt::{percent, thousands};
use crate::{Failure, InputArgs, EXIT_CHECK, EXIT_IO};

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The directory to search (recursively) for `*.csv` files.
    pub dir: PathBuf,
    /// The planner to run (see `memplan plan --help`).
    #[arg(long, default_value = "auto")]
    pub planner: String,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub input_args: InputArgs,
    #[command(flatten)]
    pub boxing: crate::boxing_args::BoxingArgs,
}

fn csv_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            csv_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "csv") {
            out.push(p);
        }
    }
    Ok(())
}

/// minimalloc's benchmark files carry their capacity in the name: `A.1048576.csv`.
fn capacity_in_name(path: &Path) -> Option<u64> {
    path.file_stem()?.to_str()?.rsplit_once('.')?.1.parse().ok()
}

pub fn bench(args: BenchArgs) -> Result<(), Failure> {
    let planner: Planner = args
        .planner
        .parse()
        .map_err(|e| Failure::new(2, format!("{e}; see --help")))?;
    let mut files = Vec::new();
    csv_files(&args.dir, &mut files)
        .map_err(|e| Failure::new(EXIT_IO, format!("{}: {e}", args.dir.display())))?;
    println!("| instance | buffers | max load | height | fragmentation | frag % | vs capacity in name | ms | planner | check |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|---|");
    let mut failures = 0;
    for path in files {
        let name = path
            .strip_prefix(&args.dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = path.to_string_lossy().to_string();
        let bytes = read_bytes(&text)?;
        let problem = read_problem_csv(&bytes, &csv_options(&args.input_args, None))
            .map_err(|e| read_failure(&text, e))?;
        let started = Instant::now();
        let options = Options {
            planner,
            threads: args.threads,
            verify: false,
            boxing: args.boxing.options(),
            ..Options::default()
        };
        let report = memplan::plan(&problem, &options)
            .map_err(|e| Failure::new(EXIT_CHECK, e.to_string()))?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let plan = match &report.outcome {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => p,
            _ => unreachable!("minimise mode always has a plan"),
        };
        let verdict = match check(&problem, plan) {
            Ok(_) => "ok".to_string(),
            Err(f) => {
                failures += 1;
                format!("FAIL: {f}")
            }
        };
        let (h, l) = (plan.height().get(), report.max_load.get());
        let vs_cap = match capacity_in_name(&path) {
            Some(c) if h <= c => format!("fits {}", thousands(c)),
            Some(c) => format!("+{} ({})", thousands(h - c), percent(h - c, c)),
            None => "".into(),
        };
        println!(
            "| {name} | {} | {} | {} | {} | {} | {vs_cap} | {ms:.1} | {} | {verdict} |",
            thousands(problem.len() as u64),
            thousands(l),
            thousands(h),
            thousands(h - l),
            percent(h - l, l),
            report.planner,
        );
    }
    if failures > 0 {
        return Err(Failure::new(
            EXIT_CHECK,
            format!("{failures} plan(s) failed the checker"),
        ));
    }
    Ok(())
}
