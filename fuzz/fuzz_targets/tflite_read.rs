#![no_main]
// Body: memplan_tflite::fuzzing::read_and_plan (also run by crates/memplan-tflite/tests).
libfuzzer_sys::fuzz_target!(|data: &[u8]| memplan_tflite::fuzzing::read_and_plan(data));
