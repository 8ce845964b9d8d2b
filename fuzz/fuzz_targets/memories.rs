#![no_main]
// Body: memplan::memories::fuzz_memories (also run by crates/memplan/tests/memories.rs):
// the multi-memory planner and its checker.
libfuzzer_sys::fuzz_target!(|data: &[u8]| memplan::memories::fuzz_memories(data));
