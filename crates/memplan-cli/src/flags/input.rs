//! The input flags of every command that reads a problem, and the file formats.

use clap::ValueEnum;
use memplan::io::{LifetimeConvention, ReadOptions};
use memplan::Size;

/// How the end column of the input is read.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Lifetimes {
    /// `[lower, upper)`: not live at `upper`.
    HalfOpen,
    /// `[lower, upper]`: still live at `upper`.
    Inclusive,
}

/// A file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Comma-separated values with a header line.
    Csv,
    /// JSON: `{"buffers": [{"id": .., "start": .., "end": .., "size": ..}, ..]}`.
    Json,
}

/// Options shared by every command that reads a problem.
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// How to read lifetime ends. Default: `upper` is half-open, `end` inclusive.
    #[arg(long, value_enum)]
    pub lifetimes: Option<Lifetimes>,
    /// The problem's format. Default: by extension (`.json`, `.csv`), else by content.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// The alignment of buffers whose input gives none (no `alignment` column or field,
    /// or an empty one).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub alignment: Option<u64>,
}

impl InputArgs {
    /// The problem reader's options (CSV and JSON alike).
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            lifetimes: self.lifetimes.map(|l| match l {
                Lifetimes::HalfOpen => LifetimeConvention::HalfOpen,
                Lifetimes::Inclusive => LifetimeConvention::Inclusive,
            }),
            default_alignment: self.alignment.map(Size),
        }
    }
}
