#![no_main]
// Body: memplan::spill::fuzz_spill (also run by crates/memplan/tests/spill.rs).
libfuzzer_sys::fuzz_target!(|data: &[u8]| memplan::spill::fuzz_spill(data));
