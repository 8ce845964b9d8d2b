//! The `capi` fuzz target's body on seeded random bytes, a few seconds under
//! `cargo test` (see `memplan/tests/fuzz_smoke.rs` for the library's targets).

mod fuzz_body;

use std::time::{Duration, Instant};

use memplan::fuzzing::ByteSource;

#[test]
fn capi() {
    let started = Instant::now();
    let mut src = ByteSource::new(13);
    let mut cases = 0;
    while cases < 5_000 && (cases < 20 || started.elapsed() < Duration::from_secs(3)) {
        let bytes = src.bytes(1024);
        let outcome = std::panic::catch_unwind(|| fuzz_body::capi(&bytes));
        assert!(outcome.is_ok(), "capi failed on case {cases}: {bytes:?}");
        cases += 1;
    }
}
