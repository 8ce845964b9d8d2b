//! `memplan`: the command-line front end. All logic lives in the `memplan` library; this
//! crate parses arguments, reads and writes files, and maps outcomes to exit codes.
//!
//! The modules, each importing only those listed after it (no circle):
//! - `main` (this file): parses the command line, runs the command, prints its failure;
//! - [`cmd`]: one file per command;
//! - [`shared`]: the I/O the commands share (problems, plans, numbers, progress);
//! - [`flags`]: every flag, with its help, and what it means to the library;
//! - [`exit`]: the exit codes and [`exit::Failure`].

mod cmd;
mod exit;
mod flags;
mod shared;

use std::process::ExitCode;

use clap::Parser;

use crate::flags::cli::{Cli, Command};

/// The command line, parsed; on an unknown subcommand that names a feature of `plan`
/// (`memories`, `spill`), clap's error with a hint to the flag.
fn parse() -> Cli {
    Cli::try_parse().unwrap_or_else(|e| {
        let word = std::env::args().nth(1).unwrap_or_default();
        let flag = match word.as_str() {
            "memories" | "memory" | "banks" => Some("plan FILE --memories NAME[:CAPACITY],..."),
            "spill" => Some("plan FILE --capacity C --spill"),
            _ => None,
        };
        match (e.kind(), flag) {
            (clap::error::ErrorKind::InvalidSubcommand, Some(flag)) => {
                let rendered = e.render().to_string();
                eprint!("{rendered}");
                eprintln!(
                    "\nhint: '{word}' is not a command; use 'memplan {flag}' (docs/memories.md)"
                );
                std::process::exit(i32::from(exit::USAGE));
            }
            _ => e.exit(),
        }
    })
}

fn main() -> ExitCode {
    let result = match parse().command {
        Command::Plan(a) => cmd::plan::plan(a),
        Command::Check(a) => cmd::check::check(a),
        Command::Stats(a) => cmd::stats::stats(a),
        Command::Bench(a) => cmd::bench::bench(a),
        Command::Render(a) => cmd::render::render(a),
        Command::Gen(a) => cmd::gen::gen(a),
        Command::Share(a) => cmd::share::share(a),
        Command::CheckShared(a) => cmd::share::check_shared(a),
        Command::Tiles(a) => cmd::tiles::tiles(a),
        Command::CheckTiles(a) => cmd::tiles::check_tiles(a),
        #[cfg(feature = "tflite")]
        Command::Tflite(a) => cmd::tflite::tflite(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            // One line, always.
            eprintln!("memplan: error: {}", f.message.replace('\n', " "));
            ExitCode::from(f.code)
        }
    }
}
