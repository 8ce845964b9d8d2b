//! Helpers shared by the binary's integration tests.
#![allow(dead_code)] // each test file uses a different subset

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs the `memplan` binary from the repository root, feeding it `stdin` (if any).
///
/// The binary may exit before reading its input (a usage error, say); the resulting
/// broken pipe is expected and ignored, so the test sees the exit code and stderr.
pub fn memplan(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(args)
        .current_dir(repo_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the memplan binary starts");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    if let Some(bytes) = stdin {
        match pipe.write_all(bytes) {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
            other => other.expect("writing memplan's stdin"),
        }
    }
    drop(pipe);
    child.wait_with_output().expect("memplan finishes")
}

/// The repository root, where `benchmarks/` and `tests/` live.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `1234816` as `1,234,816`, the CLI's number style (written here again, not imported,
/// so that the tests hold the CLI to it).
#[allow(dead_code)]
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
