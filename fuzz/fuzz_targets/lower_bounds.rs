#![no_main]
// Body: memplan::fuzzing::targets::lower_bounds (also run by crates/memplan/tests/fuzz_smoke.rs).
libfuzzer_sys::fuzz_target!(|data: &[u8]| memplan::fuzzing::targets::lower_bounds(data));
