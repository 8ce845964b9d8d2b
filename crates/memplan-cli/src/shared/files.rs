//! Reading and writing files for every command: `-` is stdin or stdout, and failures
//! become one-line messages that name the file, with their exit code.

use std::io::{Read, Write};

use memplan::{ReadError, ReadErrorKind};

use crate::exit::{self, Failure};
use crate::shared::numbers::thousands;

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
    res.map_err(|e| Failure::new(exit::IO, format!("{}: {e}", display_path(path))))?;
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
        exit::IO
    } else {
        exit::INPUT
    };
    Failure::new(code, format!("{}: {e}", display_path(path)))
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
            exit::IO,
            format!("{}: {e}", if path == "-" { "<stdout>" } else { path }),
        )),
        Ok(()) => Ok(()),
    }
}

/// A `memplan_tflite` error as a one-line failure naming the model, with its exit code.
#[cfg(feature = "tflite")]
pub fn tflite_failure(path: &str, e: memplan_tflite::TfliteError) -> Failure {
    use memplan_tflite::TfliteError;
    if let TfliteError::Scratch { request, what } = &e {
        return Failure::usage(format!(
            "--scratch {request}: {what} in {} (`memplan tflite MODEL --report` shows each \
             tensor's SUBGRAPH:OP)",
            display_path(path)
        ));
    }
    let code = match &e {
        TfliteError::NoFit { proven: true, .. } => exit::PROVEN_INFEASIBLE,
        TfliteError::NoFit { proven: false, .. } => exit::NOT_FOUND,
        TfliteError::Check(_) | TfliteError::Internal(_) | TfliteError::Plan(_) => exit::CHECK,
        _ => exit::INPUT,
    };
    if let TfliteError::NoFit {
        capacity,
        max_load,
        proven,
    } = &e
    {
        // In `plan`'s words and number style.
        let (c, m) = (thousands(*capacity), thousands(*max_load));
        let why = match proven {
            true => format!(
                "fits under {c}: proved (max load {m}, {} above it)",
                thousands(max_load - capacity)
            ),
            false => format!("found under {c} (max load {m})"),
        };
        let text = format!("{}: no plan of the head {why}", display_path(path));
        return Failure::new(code, text);
    }
    let hint = if matches!(e, TfliteError::HasPlan { .. }) {
        "; --force replaces it"
    } else {
        ""
    };
    Failure::new(code, format!("{}: {e}{hint}", display_path(path)))
}
