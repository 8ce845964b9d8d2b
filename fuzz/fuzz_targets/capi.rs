#![no_main]
// Body: crates/memplan-capi/tests/fuzz_body (also run by that crate's fuzz_smoke test).
#[path = "../../crates/memplan-capi/tests/fuzz_body/mod.rs"]
mod fuzz_body;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_body::capi(data));
