//! `memplan bench DIR`: plan every CSV under a directory, one markdown table row each.

use std::path::{Path, PathBuf};
use std::time::Instant;

use memplan::io::read_problem_csv;
use memplan::{check, Outcome, Size};

use crate::exit::{self, Failure};
use crate::flags::commands::BenchArgs;
use crate::shared::files::{read_bytes, read_failure};
use crate::shared::numbers::{percent, thousands};

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

/// The name of the file of best known heights: `instance<TAB>height<TAB>source` lines
/// (after a header; `#` starts a comment), instances relative to the file's directory.
const BEST_KNOWN: &str = "best-known.tsv";

/// The best known heights that apply under `dir`: from the first `best-known.tsv` found
/// in `dir` or a directory above it, as (canonical path of the instance, height).
fn best_known(dir: &Path) -> Result<Vec<(PathBuf, u64)>, Failure> {
    let Ok(dir) = dir.canonicalize() else {
        return Ok(Vec::new());
    };
    let Some(file) = dir
        .ancestors()
        .map(|d| d.join(BEST_KNOWN))
        .find(|f| f.is_file())
    else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Failure::new(exit::IO, format!("{}: {e}", file.display())))?;
    let base = file.parent().unwrap_or(Path::new("."));
    parse_best_known(&text)
        .map(|v| v.into_iter().map(|(p, h)| (base.join(p), h)).collect())
        .map_err(|e| Failure::new(exit::INPUT, format!("{}: {e}", file.display())))
}

/// The (instance, height) lines of a best-known file.
fn parse_best_known(text: &str) -> Result<Vec<(String, u64)>, String> {
    let mut out = Vec::new();
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    for (n, line) in lines.skip(1) {
        let mut fields = line.split('\t');
        let (Some(instance), Some(height)) = (fields.next(), fields.next()) else {
            return Err(format!(
                "line {}: expected instance<TAB>height<TAB>source",
                n + 1
            ));
        };
        let height = height
            .trim()
            .parse()
            .map_err(|_| format!("line {}: bad height '{height}'", n + 1))?;
        out.push((instance.trim().to_string(), height));
    }
    Ok(out)
}

/// minimalloc's benchmark files carry their capacity in the name: `A.1048576.csv`.
fn capacity_in_name(path: &Path) -> Option<u64> {
    path.file_stem()?.to_str()?.rsplit_once('.')?.1.parse().ok()
}

pub fn bench(args: BenchArgs) -> Result<(), Failure> {
    let mut files = Vec::new();
    csv_files(&args.dir, &mut files)
        .map_err(|e| Failure::new(exit::IO, format!("{}: {e}", args.dir.display())))?;
    if files.is_empty() {
        return Err(Failure::new(
            exit::INPUT,
            format!(
                "{}: no problem files found (bench plans every .csv file below it)",
                args.dir.display()
            ),
        ));
    }
    let best = best_known(&args.dir)?;
    if args.proven {
        println!("| instance | max load | height | proven bound | gap | s | outcome |");
        println!("|---|---:|---:|---:|---:|---:|---|");
    } else {
        println!("| instance | buffers | max load | height | proven ≥ | gap | gap % | best known | vs best | vs capacity in name | ms | planner | check |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
    }
    let (mut failures, mut unread) = (0, 0);
    for path in files {
        let name = path
            .strip_prefix(&args.dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = path.to_string_lossy().to_string();
        // A file that cannot be read or is malformed gets its row and the rest go on.
        let read = read_bytes(&text).and_then(|bytes| {
            read_problem_csv(&bytes, &args.input_args.read_options())
                .map_err(|e| read_failure(&text, e))
        });
        let problem = match read {
            Ok(problem) => problem,
            Err(f) => {
                unread += 1;
                let columns = if args.proven { 6 } else { 12 };
                let why = f.message.replace('|', "\\|");
                println!("| {name} | not read: {why} |{}", " |".repeat(columns - 1));
                continue;
            }
        };
        let capacity = if args.capacity_from_name {
            capacity_in_name(&path)
        } else {
            None
        };
        // `plan`'s limits and options, so that a table row is what `plan` gives that file.
        let request = args.planning.request(capacity.map(Size), None);
        let mut options = args.planning.options();
        options.verify = false; // the table's own check column runs the checker
        let started = Instant::now();
        let report = memplan::plan(&problem, &request, &options)
            .map_err(|e| Failure::new(exit::CHECK, e.to_string()))?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let plan = match &report.outcome {
            Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => p,
            Outcome::Unknown {
                best_so_far: Some(p),
                ..
            } => p,
            Outcome::Infeasible | Outcome::Unknown { .. } => {
                let why = if matches!(report.outcome, Outcome::Infeasible) {
                    "proven infeasible"
                } else {
                    "unknown"
                };
                if args.proven {
                    println!(
                        "| {name} | {} | no plan under the capacity | {} | | {:.1} | {why} |",
                        thousands(report.max_load.get()),
                        thousands(report.lower_bound.get()),
                        ms / 1000.0
                    );
                } else {
                    println!(
                        "| {name} | {} | {} | no plan under the capacity ({why}) | {} | | | | | | {ms:.1} | {} | |",
                        thousands(problem.len() as u64),
                        thousands(report.max_load.get()),
                        thousands(report.lower_bound.get()),
                        report.planner
                    );
                }
                continue;
            }
        };
        let verdict = match check(&problem, plan, None) {
            Ok(_) => "ok".to_string(),
            Err(f) => {
                failures += 1;
                format!("FAIL: {f}")
            }
        };
        // The gap (the fragmentation) against the proven bound.
        let (h, l, proven) = (
            plan.height().get(),
            report.max_load.get(),
            report.lower_bound.get(),
        );
        let gap = percent(h - proven, proven);
        if args.proven {
            let outcome = match &report.outcome {
                Outcome::Optimal(_) | Outcome::Feasible { .. } => report.outcome.name(),
                _ => "over the capacity",
            };
            println!(
                "| {name} | {} | {} | {} | {gap} | {:.1} | {outcome} |",
                thousands(l),
                thousands(h),
                thousands(proven),
                ms / 1000.0
            );
            continue;
        }
        let vs_cap = match capacity_in_name(&path) {
            Some(c) if h <= c => format!("fits {}", thousands(c)),
            Some(c) => format!("+{} ({})", thousands(h - c), percent(h - c, c)),
            None => "".into(),
        };
        let known = path
            .canonicalize()
            .ok()
            .and_then(|p| best.iter().find(|(q, _)| *q == p).map(|&(_, b)| b));
        let (known, vs_best) = match known {
            Some(b) if h >= b => (thousands(b), format!("+{}", percent(h - b, b))),
            Some(b) => (thousands(b), format!("-{} (new best)", percent(b - h, b))),
            None => (String::new(), String::new()),
        };
        println!(
            "| {name} | {} | {} | {} | {} | {} | {gap} | {known} | {vs_best} | {vs_cap} | {ms:.1} | {} | {verdict} |",
            thousands(problem.len() as u64),
            thousands(l),
            thousands(h),
            thousands(proven),
            thousands(h - proven),
            report.planner,
        );
    }
    if failures > 0 {
        return Err(Failure::new(
            exit::CHECK,
            format!("{failures} plan(s) failed the checker"),
        ));
    }
    if unread > 0 {
        return Err(Failure::new(
            exit::INPUT,
            format!("{unread} file(s) could not be read (their rows say why)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_known_files_skip_comments_and_the_header() {
        let text = "# heights\ninstance\tbest_known\tsource\na/x.csv\t12\tpaper\n\nb.csv\t7\n";
        assert_eq!(
            parse_best_known(text),
            Ok(vec![("a/x.csv".to_string(), 12), ("b.csv".to_string(), 7)])
        );
        assert!(parse_best_known("h\na.csv\ttwelve\n").is_err());
        assert!(parse_best_known("h\na.csv\n").is_err());
    }

    #[test]
    fn the_vendored_best_known_file_names_every_benchmark() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks");
        let best = best_known(&dir).unwrap_or_else(|f| panic!("{}", f.message));
        let mut files = Vec::new();
        csv_files(&dir, &mut files).unwrap();
        assert!(!files.is_empty());
        for f in files {
            let f = f.canonicalize().unwrap();
            assert!(
                best.iter().any(|(p, _)| *p == f),
                "{} has no best known height",
                f.display()
            );
        }
    }
}
