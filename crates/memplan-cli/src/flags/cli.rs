//! The command line: [`Cli`] and its [`Command`]s, each with its arguments (in
//! [`super::commands`]), and the frame of the help: the problem file at the end of
//! `memplan --help`, and the exit codes at the end of every command's help.

use clap::{Parser, Subcommand};

use super::commands;
use crate::exit::{exit_codes, EXIT_CODES};

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
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Plan a problem: write the input with an `offset` column, print a summary to stderr.
    // `-h` and `--help` give the one-screen summary; `--help-all` also shows the switches
    // that `hide` keeps out of it (see `commands::PlanArgs`).
    #[command(after_help = EXIT_CODES, mut_args = hidden_in_short_help_only)]
    Plan(commands::PlanArgs),
    /// Check a plan against a problem with the independent checker.
    #[command(after_help = EXIT_CODES)]
    Check(commands::CheckArgs),
    /// Print what can be known about a problem before planning.
    #[command(after_help = EXIT_CODES)]
    Stats(commands::StatsArgs),
    /// Plan every CSV under a directory and print a markdown table.
    #[command(after_help = EXIT_CODES)]
    Bench(commands::BenchArgs),
    /// Draw a plan as an SVG picture: time on x, addresses on y, one rectangle per buffer.
    #[command(after_help = EXIT_CODES)]
    Render(commands::RenderArgs),
    /// Generate a seeded, model-like problem.
    #[command(after_help = EXIT_CODES)]
    Gen(commands::GenArgs),
    /// Assign every buffer to a shared object (GPU textures, whole allocations).
    #[command(after_help = EXIT_CODES)]
    Share(commands::ShareArgs),
    /// Check a shared-object assignment (the output of `share`) against a problem.
    #[command(after_help = EXIT_CODES)]
    CheckShared(commands::CheckSharedArgs),
    /// Place tiled tensors (JSON) with the tile-aware allocator.
    #[command(after_help = EXIT_CODES)]
    Tiles(commands::TilesArgs),
    /// Check a tile plan (the output of `tiles`) with the chunk-level checker.
    #[command(after_help = EXIT_CODES)]
    CheckTiles(commands::CheckTilesArgs),
    /// Plan a TensorFlow Lite Micro model's arena and write the plan into a copy of the
    /// model (its `OfflineMemoryAllocation` metadata).
    #[cfg(feature = "tflite")]
    #[command(after_help = EXIT_CODES)]
    Tflite(commands::TfliteArgs),
}

/// `plan`'s hidden switches (ablations and tuning, shared with `bench` and `tflite`,
/// where they stay hidden) go to its long help alone, which `--help-all` prints; `-h` and
/// `--help` print the short help.
fn hidden_in_short_help_only(arg: clap::Arg) -> clap::Arg {
    if arg.is_hide_set() {
        arg.hide(false).hide_short_help(true)
    } else {
        arg
    }
}
