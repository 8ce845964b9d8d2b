//! The commands, one file each (`share` and `tiles` hold their checkers too). Each takes
//! its arguments from [`crate::flags::commands`], does its I/O through [`crate::shared`],
//! and returns `Err(Failure)` with its exit code ([`crate::exit`]); `main` prints it.
//!
//! No command imports another: what two commands share lives in [`crate::shared`].

pub mod bench;
pub mod check;
pub mod gen;
pub mod plan;
pub mod render;
pub mod share;
pub mod stats;
#[cfg(feature = "tflite")]
pub mod tflite;
pub mod tiles;
