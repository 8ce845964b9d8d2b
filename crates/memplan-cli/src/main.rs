//! `memplan`: the command-line front end. All logic lives in the `memplan` library; this
//! crate parses arguments, reads and writes files, and maps outcomes to exit codes.

mod bench;
mod boxing_args;
mod commands;
mod exact_args;
mod files;
mod fmt;
mod formats;
mod gen;
mod json_output;
mod progress;
mod render;
mod share;
mod spill;
mod telamalloc;
#[cfg(feature = "tflite")]
mod tflite;
mod tiles;
mod two_level;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// The exit codes, at the end of every command's help.
macro_rules! exit_codes {
    () => {
        "\
Exit codes:
  0  success
  1  i/o error (a file cannot be read or written)
  2  usage error (bad command-line arguments)
  3  invalid input: the file is malformed or breaks a rule (the message names line and column)
  4  the plan fails the checker (`check`; for `plan` this is an internal error)
  5  no plan fits under the capacity, and that is proven (max load above the capacity,
     or the exact search)
  6  no plan under the capacity was found, but none was proven impossible"
    };
}

const EXIT_CODES: &str = exit_codes!();

/// `memplan --help`'s end: what a problem file looks like, where every option is, and
/// the exit codes.
const TOP_AFTER_HELP: &str = concat!(
    "\
A problem is a CSV file, one buffer per line (lifetime [lower, upper), size in bytes):
  id,lower,upper,size
  b1,0,3,4
or JSON: {\"buffers\": [{\"id\": \"b1\", \"start\": 0, \"end\": 3, \"size\": 4}]}.
`memplan plan --help-all` shows every option of `plan`, each planner's switches included.

",
    exit_codes!()
);

/// Static memory planner for ML compilers: gives every buffer an offset so that buffers
/// live at the same time never share an address.
#[derive(Parser, Debug)]
#[command(name = "memplan", version, after_help = TOP_AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How the end column of the input is read.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Lifetimes {
    /// `[lower, upper)`: not live at `upper`.
    HalfOpen,
    /// `[lower, upper]`: still live at `upper`.
    Inclusive,
}

/// Options shared by every command that reads a problem.
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// How to read lifetime ends. Default: `upper` is half-open, `end` inclusive.
    #[arg(long, value_enum)]
    pub lifetimes: Option<Lifetimes>,
    /// The problem's format. Default: by extension (`.json`, `.csv`), else by content.
    #[arg(long, value_enum)]
    pub format: Option<formats::Format>,
    /// The alignment of buffers whose input gives none (no `alignment` column or field,
    /// or an empty one).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub alignment: Option<u64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Plan a problem: write the input with an `offset` column, print a summary to stderr.
    #[command(after_help = EXIT_CODES)]
    Plan(commands::PlanArgs),
    /// Check a plan against a problem with the independent checker.
    #[command(after_help = EXIT_CODES)]
    Check(commands::CheckArgs),
    /// Print what can be known about a problem before planning.
    #[command(after_help = EXIT_CODES)]
    Stats(commands::StatsArgs),
    /// Plan every CSV under a directory and print a markdown table.
    #[command(after_help = EXIT_CODES)]
    Bench(bench::BenchArgs),
    /// Draw a plan as an SVG picture: time on x, addresses on y, one rectangle per buffer.
    #[command(after_help = EXIT_CODES)]
    Render(render::RenderArgs),
    /// Generate a seeded, model-like problem.
    #[command(after_help = EXIT_CODES)]
    Gen(gen::GenArgs),
    /// Assign every buffer to a shared object (GPU textures, whole allocations).
    #[command(after_help = EXIT_CODES)]
    Share(share::ShareArgs),
    /// Check a shared-object assignment (the output of `share`) against a problem.
    #[command(after_help = EXIT_CODES)]
    CheckShared(share::CheckSharedArgs),
    /// Place tiled tensors (JSON) with the tile-aware allocator.
    #[command(after_help = EXIT_CODES)]
    Tiles(tiles::TilesArgs),
    /// Check a tile plan (the output of `tiles`) with the chunk-level checker.
    #[command(after_help = EXIT_CODES)]
    CheckTiles(tiles::CheckTilesArgs),
    /// Plan a TensorFlow Lite Micro model's arena and write the plan into a copy of the
    /// model (its `OfflineMemoryAllocation` metadata).
    #[cfg(feature = "tflite")]
    #[command(after_help = EXIT_CODES)]
    Tflite(tflite::TfliteArgs),
}

/// An error with the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }
}

impl Failure {
    /// A checker's verdict on a file: prints the first 20 `violations` on stderr, one a
    /// line, and fails with [`EXIT_CHECK`] and "FILE: invalid WHAT: N violation(s)",
    /// counting the `more` that were not kept.
    pub fn invalid<V: std::fmt::Display>(
        file: &str,
        what: &str,
        violations: &[V],
        more: usize,
    ) -> Failure {
        for v in violations.iter().take(20) {
            eprintln!("violation: {v}");
        }
        let total = violations.len() + more;
        Failure::new(
            EXIT_CHECK,
            format!("{file}: invalid {what}: {total} violation(s)"),
        )
    }
}

pub const EXIT_IO: u8 = 1;
pub const EXIT_INPUT: u8 = 3;
pub const EXIT_CHECK: u8 = 4;
pub const EXIT_PROVEN_INFEASIBLE: u8 = 5;
pub const EXIT_NOT_FOUND: u8 = 6;

/// `plan`'s help: `--help` gives the one-screen summary (as `-h` does), and
/// `--help-all` adds the ablation and tuning switches it hides, grouped per planner.
fn plan_help() -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) != Some("plan") {
        return None;
    }
    let all = args.iter().any(|a| a == "--help-all");
    if !all && !args.iter().any(|a| a == "--help") {
        return None;
    }
    let mut cmd = <Cli as clap::CommandFactory>::command().bin_name("memplan");
    cmd.build();
    let plan = cmd.find_subcommand_mut("plan")?.clone();
    Some(if all {
        plan.mut_args(|a| a.hide(false))
            .bin_name("memplan plan")
            .render_long_help()
            .to_string()
    } else {
        plan.bin_name("memplan plan").render_help().to_string()
    })
}

fn main() -> ExitCode {
    if let Some(text) = plan_help() {
        print!("{text}");
        return ExitCode::SUCCESS;
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Plan(a) => commands::plan(a),
        Command::Check(a) => commands::check(a),
        Command::Stats(a) => commands::stats(a),
        Command::Bench(a) => bench::bench(a),
        Command::Render(a) => render::render(a),
        Command::Gen(a) => gen::gen(a),
        Command::Share(a) => share::share(a),
        Command::CheckShared(a) => share::check_shared(a),
        Command::Tiles(a) => tiles::tiles(a),
        Command::CheckTiles(a) => tiles::check_tiles(a),
        #[cfg(feature = "tflite")]
        Command::Tflite(a) => tflite::tflite(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) if f.code == 0 => ExitCode::SUCCESS,
        Err(f) => {
            // One line, always.
            eprintln!("memplan: error: {}", f.message.replace('\n', " "));
            ExitCode::from(f.code)
        }
    }
}
