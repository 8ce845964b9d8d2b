#![no_main]
// Body: memplan::fuzzing::shares (also run by crates/memplan/tests/fuzz_smoke.rs).
libfuzzer_sys::fuzz_target!(|data: &[u8]| memplan::fuzzing::shares(data));
