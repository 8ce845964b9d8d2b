//! The exit codes, and [`Failure`]: an error with the code it exits with.
//!
//! Every code `memplan` exits with is a constant here, and the same table closes every
//! command's `--help` ([`EXIT_CODES`]); docs/cli.md lists them too. The codes and their
//! meanings are part of the interface: scripts branch on them.
//!
//! | code | constant              | meaning                                                      |
//! |-----:|-----------------------|--------------------------------------------------------------|
//! |    0 | (success)             | the command did what it was asked                            |
//! |    1 | [`IO`]                | a file cannot be read or written                             |
//! |    2 | [`USAGE`]             | bad command-line arguments (clap's own errors exit 2 too)    |
//! |    3 | [`INPUT`]             | the input is malformed or breaks a rule                      |
//! |    4 | [`CHECK`]             | a plan fails the checker (for `plan`: an internal error)     |
//! |    5 | [`PROVEN_INFEASIBLE`] | no plan fits under the capacity, and that is proven          |
//! |    6 | [`NOT_FOUND`]         | no plan under the capacity was found, none proven impossible |
//! |  130 | [`INTERRUPTED`]       | a second Ctrl-C (the shell's code for SIGINT)                |
//!
//! This module imports nothing from the rest of the crate.

/// A file cannot be read or written.
pub const IO: u8 = 1;
/// Bad command-line arguments: what clap cannot check (a value that only makes sense with
/// another, say). clap's own usage errors exit with the same code.
pub const USAGE: u8 = 2;
/// The input is malformed or breaks a rule; the message names line and column.
pub const INPUT: u8 = 3;
/// The plan fails the checker (`check`); for a planning command, an internal error.
pub const CHECK: u8 = 4;
/// No plan fits under the capacity, and that is proven (max load above the capacity, a
/// buffer larger than it, or the exact search).
pub const PROVEN_INFEASIBLE: u8 = 5;
/// No plan under the capacity was found in time, but none was proven impossible.
pub const NOT_FOUND: u8 = 6;
/// A second Ctrl-C during planning: the process ends at once.
pub const INTERRUPTED: i32 = 130;

/// The exit codes as every command's help ends with them (a macro, so that
/// [`crate::flags`] can `concat!` it into the top-level help).
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
pub(crate) use exit_codes;

/// The exit codes, at the end of every command's help.
pub const EXIT_CODES: &str = exit_codes!();

/// An error with the exit code it maps to. `main` prints its message on one line.
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

    /// A usage error ([`USAGE`]) that clap cannot see.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(USAGE, message)
    }

    /// A checker's verdict on a file: prints the first 20 `violations` on stderr, one a
    /// line, and fails with [`CHECK`] and "FILE: invalid WHAT: N violation(s)", counting
    /// the `more` that were not kept.
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
            CHECK,
            format!("{file}: invalid {what}: {total} violation(s)"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help's table and the constants say the same thing.
    #[test]
    fn the_help_lists_every_code_with_its_meaning() {
        for (code, meaning) in [
            (IO, "i/o error"),
            (USAGE, "usage error"),
            (INPUT, "invalid input"),
            (CHECK, "the plan fails the checker"),
            (
                PROVEN_INFEASIBLE,
                "no plan fits under the capacity, and that is proven",
            ),
            (NOT_FOUND, "no plan under the capacity was found"),
        ] {
            let line = format!("\n  {code}  {meaning}");
            assert!(EXIT_CODES.contains(&line), "{line:?} in {EXIT_CODES}");
        }
        assert!(EXIT_CODES.contains("\n  0  success\n"));
    }
}
