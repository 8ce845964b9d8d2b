//! Writes the TFLite cases of the hostile-input corpus (`tests/bad_inputs/*.tflite`),
//! which `crates/memplan-cli/tests/bad_inputs.rs` runs through `memplan tflite`:
//!
//!     cargo test -p memplan-tflite --test corpus -- --ignored
//!
//! Each file is a small valid model (tests/common) broken in one way. The `.expected`
//! files beside them are written by hand from the CLI's output and reviewed.

mod common;

use common::*;

#[test]
#[ignore = "writes tests/bad_inputs/*.tflite; run by hand"]
fn write_tflite_cases() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad_inputs");
    let good = build(&chain());
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    cases.push(("tflite_truncated", good[..good.len() / 2].to_vec()));
    cases.push((
        "tflite_not_a_model",
        b"id,lower,upper,size\na,0,1,4\n".to_vec(),
    ));
    // Random bytes behind a valid identifier.
    let mut state = 7u64;
    let mut random: Vec<u8> = (0..256)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 56) as u8
        })
        .collect();
    random[4..8].copy_from_slice(b"TFL3");
    cases.push(("tflite_random", random));
    // The root offset points past the end.
    let mut root = good.clone();
    root[0..4].copy_from_slice(&(good.len() as u32 + 64).to_le_bytes());
    cases.push(("tflite_root_past_end", root));
    // A vector whose declared length runs past the file: the first u32 that reads 256,
    // a vector's length (here the metadata vector's, as the error says).
    let at = good
        .windows(4)
        .position(|w| w == 256u32.to_le_bytes())
        .unwrap();
    let mut long = good.clone();
    long[at..at + 4].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    cases.push(("tflite_vector_past_end", long));
    let mut m = chain();
    m.graphs[0].ops[1].inputs[0] = 99;
    cases.push(("tflite_tensor_index_past_end", build(&m)));
    let mut m = chain();
    m.metadata[0].1 = 7;
    cases.push(("tflite_metadata_missing_buffer", build(&m)));
    let mut m = chain();
    m.external = vec![(1, 4096, 256)];
    cases.push(("tflite_external_buffer", build(&m)));
    let mut m = with_if();
    m.graphs[1].ops[0].code = 0;
    m.graphs[1].ops[0].calls = Some((92, 1, -1));
    cases.push(("tflite_recursive_subgraph", build(&m)));
    let mut m = chain();
    m.graphs[0].tensors[2].ty = STRING;
    cases.push(("tflite_string_tensor", build(&m)));
    for (name, bytes) in cases {
        std::fs::write(dir.join(format!("{name}.tflite")), bytes).unwrap();
    }
}
