//! Reading and writing files for every command: `-` is stdin or stdout, and failures
//! become one-line messages that name the file, with their exit code.

use std::io::{Read, Write};

use memplan::io::{CsvOptions, LifetimeConvention};
use memplan::{ReadError, ReadErrorKind, Size};

use crate::{Failure, InputArgs, Lifetimes, EXIT_INPUT, EXIT_IO};

/// Reads a whole file, or stdin for `-`.
pub fn read_bytes(path: &str) -> Result<Vec<u8>, Failure> {
    let mut buf = Vec::new();
    let res = if path == "-" {
        std::io::stdin().read_to_end(&mut buf).map(|_| ())
    } else {
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut buf))
            .map(|_| ())
    };
    res.map_err(|e| Failure::new(EXIT_IO, format!("{}: {e}", display_path(path))))?;
    Ok(buf)
}

/// How `path` is named in messages: `<stdin>` for `-`.
pub fn display_path(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// Maps a read error to a one-line failure naming the file.
pub fn read_failure(path: &str, e: ReadError) -> Failure {
    let code = if matches!(e.kind, ReadErrorKind::Io(_)) {
        EXIT_IO
    } else {
        EXIT_INPUT
    };
    Failure::new(code, format!("{}: {e}", display_path(path)))
}

/// The CSV reader's options from the input flags.
pub fn csv_options(args: &InputArgs, capacity: Option<u64>) -> CsvOptions {
    CsvOptions {
        lifetimes: args.lifetimes.map(|l| match l {
            Lifetimes::HalfOpen => LifetimeConvention::HalfOpen,
            Lifetimes::Inclusive => LifetimeConvention::Inclusive,
        }),
        capacity: capacity.map(Size),
        default_alignment: args.alignment.map(Size),
    }
}

/// Opens `path` for writing (stdout for `-`), runs `f`, and flushes. A closed stdout
/// (e.g. `| head`) is not an error.
pub fn write_to(
    path: &str,
    f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let res = if path == "-" {
        let stdout = std::io::stdout();
        let mut lock = std::io::BufWriter::new(stdout.lock());
        f(&mut lock).and_then(|_| lock.flush())
    } else {
        std::fs::File::create(path).and_then(|file| {
            let mut w = std::io::BufWriter::new(file);
            f(&mut w).and_then(|_| w.flush())
        })
    };
    match res {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::new(
            EXIT_IO,
            format!("{}: {e}", if path == "-" { "<stdout>" } else { path }),
        )),
        Ok(()) => Ok(()),
    }
}
