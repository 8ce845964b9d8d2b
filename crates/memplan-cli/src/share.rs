//! `memplan share INPUT.csv`: assign every buffer to a shared object (TFLite §4).

use memplan::{plan_shared_objects, SharedOptions, SharedStrategy};

use crate::commands::{load_problem, write_to};
use crate::fmt::{millis, percent, thousands};
use crate::{Failure, InputArgs, EXIT_CHECK};

#[derive(clap::Args, Debug)]
pub struct ShareArgs {
    /// The problem CSV (`-` for stdin). Gaps, alignment, fixed offsets and capacity are
    /// ignored: shared objects have no addresses, and a buffer counts as live over its
    /// whole lifetime.
    pub input: String,
    /// Where to write the assignment: `id,object,object_size`, one line per buffer in
    /// input order (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Also write the table of objects, `object,size,buffers`, to this file.
    #[arg(long)]
    pub objects: Option<String>,
    /// The strategy: `auto` (run all, keep the smallest total), `size-improved`, `size`,
    /// `breadth` or `naive`.
    #[arg(long, default_value = "auto")]
    pub strategy: String,
    /// Greedy by Size Improved: ask every object for each buffer instead of walking out
    /// to the nearest held lifetimes. Same assignment, slower; for ablation.
    #[arg(long)]
    pub no_nearest_first: bool,
    /// Skip the independent checker (on by default).
    #[arg(long)]
    pub no_check: bool,
    #[command(flatten)]
    pub input_args: InputArgs,
}

pub fn share(args: ShareArgs) -> Result<(), Failure> {
    let strategy = match args.strategy.as_str() {
        "auto" => None,
        s => Some(s.parse::<SharedStrategy>().map_err(|_| {
            Failure::new(
                2,
                format!(
                    "unknown strategy '{s}': expected auto, size-improved, size, breadth or naive"
                ),
            )
        })?),
    };
    let (_, problem) = load_problem(&args.input, &args.input_args, None)?;
    let options = SharedOptions {
        strategy,
        nearest_first: !args.no_nearest_first,
        verify: !args.no_check,
    };
    let report = plan_shared_objects(&problem, &options)
        .map_err(|e| Failure::new(EXIT_CHECK, e.to_string()))?;
    let a = &report.assignment;
    write_to(&args.output, |w| {
        writeln!(w, "id,object,object_size")?;
        for (b, &o) in problem.buffers().iter().zip(a.object_of()) {
            writeln!(
                w,
                "{},{o},{}",
                csv_field(&b.id),
                a.object_sizes()[o as usize]
            )?;
        }
        Ok(())
    })?;
    if let Some(path) = &args.objects {
        let mut counts = vec![0u64; a.object_sizes().len()];
        for &o in a.object_of() {
            counts[o as usize] += 1;
        }
        write_to(path, |w| {
            writeln!(w, "object,size,buffers")?;
            for (o, (s, c)) in a.object_sizes().iter().zip(&counts).enumerate() {
                writeln!(w, "{o},{s},{c}")?;
            }
            Ok(())
        })?;
    }
    let (total, lb, naive) = (
        a.total().get(),
        report.lower_bound.get(),
        report.naive.get(),
    );
    eprintln!(
        "memplan: {} buffers; {} objects; total {}; lower bound (sum of positional maxima) {} (+{}); naive {} ({} saved); strategy {}",
        thousands(problem.len() as u64),
        thousands(a.object_sizes().len() as u64),
        thousands(total),
        thousands(lb),
        percent(total - lb, lb),
        thousands(naive),
        percent(naive - total, naive),
        report.strategy
    );
    if report.candidates.len() > 1 {
        for c in &report.candidates {
            eprintln!(
                "  {:<14} total {:>16}  objects {:>7}  {}",
                c.strategy.name(),
                thousands(c.total.get()),
                thousands(c.objects as u64),
                millis(c.elapsed)
            );
        }
    }
    Ok(())
}

/// Quotes an id for CSV when it needs it.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
