#![no_main]
// Body: memplan::memories::fuzz_spill (also run by crates/memplan/tests/spill.rs).
libfuzzer_sys::fuzz_target!(|data: &[u8]| memplan::memories::fuzz_spill(data));
