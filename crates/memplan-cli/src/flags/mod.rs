//! Every flag of `memplan`, each defined once with its help, and what it means to the
//! library. Nothing here reads a file or runs a command: [`cli::Cli`] parses the command
//! line into a [`cli::Command`] with its arguments, and `crate::cmd` runs it.
//!
//! - [`cli`]: the command line, its commands, and the help's frame;
//! - [`commands`]: each command's own arguments;
//! - [`input`]: the input flags of every command that reads a problem ([`input::InputArgs`]);
//! - [`planning`]: the planner and budget flags of `plan`, `bench` and `tflite`, and
//!   [`planning::PlannerArgs::request`], the one place where `--capacity`, `--time-limit`
//!   and Ctrl-C become library arguments;
//! - [`memories`]: the switches of the planner across memories (`plan --memories`,
//!   `--spill`);
//! - [`tuning`]: the ablation and tuning switches of the exact search, TelaMalloc and
//!   boxing, which `plan --help` hides and `plan --help-all` shows.
//!
//! A flag that means the same in several commands is defined once and flattened into
//! each ([`input::InputArgs`], [`planning::PlannerArgs`]). Flags that share a name but
//! not a meaning (`--capacity` is a plan's limit, a check's requirement, a line in a
//! picture) are defined per command, each with its own help.
//!
//! These modules import [`crate::exit`] and each other (`cli` → `commands` → `input`,
//! `planning`, `memories` → `planning` → `tuning`), nothing else of the crate.

pub mod cli;
pub mod commands;
pub mod input;
pub mod memories;
pub mod planning;
pub mod tuning;
