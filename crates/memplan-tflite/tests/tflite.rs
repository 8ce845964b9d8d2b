//! The TFLite door on models built here: TFLM's lifetimes, the written file, the checks
//! before writing, and bad input.

mod common;

use common::*;
use memplan_tflite::{
    analyze, model, plan_model, write_plan, PlanOptions, TensorKind, TfliteError,
};

/// (name, first, last) of every planned tensor.
fn lifetimes(bytes: &[u8]) -> Vec<(String, i64, i64)> {
    analyze(bytes)
        .unwrap()
        .tensors
        .into_iter()
        .filter(|t| t.kind == TensorKind::Planned)
        .map(|t| (t.name, t.first, t.last))
        .collect()
}

fn owned(v: &[(&str, i64, i64)]) -> Vec<(String, i64, i64)> {
    v.iter().map(|&(n, a, b)| (n.to_string(), a, b)).collect()
}

#[test]
fn chain_lifetimes_follow_tflm_scopes() {
    let bytes = build(&chain());
    // Inputs at scope 0; operator k opens scope k+1; outputs end at the last scope.
    let want = owned(&[("x", 0, 1), ("a", 1, 2), ("b", 2, 3), ("y", 3, 3)]);
    assert_eq!(lifetimes(&bytes), want);
    let a = analyze(&bytes).unwrap();
    let kind = |n: &str| a.tensors.iter().find(|t| t.name == n).unwrap().kind;
    assert_eq!(kind("w"), TensorKind::Constant);
    assert_eq!(kind("v"), TensorKind::Variable);
    assert_eq!(kind("e"), TensorKind::Empty);
    // Half-open in memplan, [first + 1, last + 2); sizes rounded up to 16.
    let b = &a.problem.buffers()[0];
    assert_eq!((b.lifetime.start.get(), b.lifetime.end.get()), (1, 3));
    assert_eq!((b.size.get(), b.alignment.get()), (32, 16));
}

#[test]
fn called_subgraphs_nest_inside_the_calling_operator() {
    let bytes = build(&with_if());
    let want = owned(&[
        ("cond", 0, 7),
        ("x", 0, 8),
        ("y", 1, 8),
        ("z", 8, 8),
        ("then_in", 2, 3),
        ("then_mid", 3, 4),
        ("then_out", 4, 4),
        ("else_in", 5, 6),
        ("else_mid", 6, 7),
        ("else_out", 7, 7),
    ]);
    assert_eq!(lifetimes(&bytes), want);
    let planned = plan_model(&bytes, &PlanOptions::default()).unwrap();
    // The plan covers the tensors of every subgraph, in order.
    assert_eq!(planned.offsets.len(), 10);
    assert!(planned.optimal);
}

#[test]
fn a_subgraph_that_calls_itself_is_refused() {
    let mut m = with_if();
    m.graphs[1].ops[0].code = 0;
    m.graphs[1].ops[0].calls = Some((92, 1, -1));
    let err = analyze(&build(&m)).unwrap_err();
    assert!(
        err.to_string().contains("subgraph 1: called recursively"),
        "{err}"
    );
}

#[test]
fn an_if_without_its_options_is_refused() {
    let mut m = with_if();
    m.graphs[0].ops[0].calls = None;
    let err = analyze(&build(&m)).unwrap_err().to_string();
    assert_eq!(
        err,
        "invalid model: subgraph 0 operator 0: IF without IfOptions (builtin_options type 0)"
    );
}

#[test]
fn the_written_model_is_the_original_plus_its_plan() {
    let src = build(&chain());
    let planned = plan_model(&src, &PlanOptions::default()).unwrap();
    let out = &planned.bytes;
    // The original bytes follow the new head unchanged, at a multiple of 16.
    let shift = out.len() - src.len();
    assert_eq!(&out[shift..], &src[..]);
    assert_eq!(shift % 16, 0);
    let (before, after) = (model::read(&src).unwrap(), model::read(out).unwrap());
    assert_eq!(after.version, before.version);
    assert_eq!(after.operator_codes, before.operator_codes);
    assert_eq!(after.subgraphs, before.subgraphs);
    assert_eq!(after.buffers[..3], before.buffers[..]);
    assert_eq!(after.buffers.len(), 4);
    assert_eq!(after.metadata[0], before.metadata[0]);
    assert_eq!(after.metadata.len(), 2);
    // The description, which memplan does not read, is still there.
    assert_eq!(description(out), Some("test chain"));
    // The plan: header, then one offset per tensor; -1 for those TFLM does not plan.
    let (buffer, offsets) = after.offline_plan().unwrap().unwrap();
    assert_eq!(buffer, 3);
    assert_eq!(offsets, planned.offsets);
    let data = after.buffers[3].data.unwrap();
    let word = |i: usize| i32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!((word(0), word(1), word(2)), (1, 1, 8));
    assert_eq!(
        (offsets[1], offsets[3], offsets[6], offsets[7]),
        (-1, -1, -1, -1)
    );
    assert_eq!(planned.height, 64);
    assert!(planned.optimal);
    // The plan's data is 16-aligned in the file (the schema's force_align).
    let at = data.as_ptr() as usize - out.as_ptr() as usize;
    assert_eq!(at % 16, 0);
}

/// The root table's `description` (field 3), read by hand.
fn description(b: &[u8]) -> Option<&str> {
    let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let root = u32_at(0);
    let vtable = root - i32::from_le_bytes(b[root..root + 4].try_into().unwrap()) as usize;
    let field = u16::from_le_bytes(b[vtable + 10..vtable + 12].try_into().unwrap()) as usize;
    if field == 0 {
        return None;
    }
    let s = root + field + u32_at(root + field);
    std::str::from_utf8(&b[s + 4..s + 4 + u32_at(s)]).ok()
}

#[test]
fn an_existing_plan_is_replaced_only_when_asked_in_its_own_slot() {
    let src = build(&chain());
    let first = plan_model(&src, &PlanOptions::default()).unwrap().bytes;
    let err = plan_model(&first, &PlanOptions::default()).unwrap_err();
    assert!(matches!(err, TfliteError::HasPlan { buffer: 3 }), "{err}");
    let replace = PlanOptions {
        replace_existing: true,
        ..PlanOptions::default()
    };
    let second = plan_model(&first, &replace).unwrap();
    assert!(second.replaced);
    let m = model::read(&second.bytes).unwrap();
    assert_eq!(m.buffers.len(), 4, "the old plan's buffer is reused");
    assert_eq!(m.offline_plan_entries().len(), 1);
    assert_eq!(m.offline_plan().unwrap().unwrap().1, second.offsets);
}

#[test]
fn a_plan_that_overlaps_live_tensors_is_never_written() {
    let src = build(&chain());
    let good = plan_model(&src, &PlanOptions::default()).unwrap().offsets;
    // x and a are both live at scope 1: put them at the same address.
    let mut bad = good.clone();
    bad[2] = bad[0];
    let err = write_plan(&src, &bad, false).unwrap_err().to_string();
    assert!(err.starts_with("the plan fails the checker"), "{err}");
    assert!(err.contains("'x'") && err.contains("'a'"), "{err}");
    // A variable given an offset would move into the head: refused too.
    let mut var = good.clone();
    var[6] = 4096;
    let err = write_plan(&src, &var, false).unwrap_err().to_string();
    assert!(err.contains("tensor 6 ('v')"), "{err}");
    // Misaligned.
    let mut odd = good;
    odd[5] += 8;
    assert!(write_plan(&src, &odd, false).is_err());
}

#[test]
fn unsupported_models_are_refused_with_the_place() {
    let mut m = chain();
    m.graphs[0].tensors[2].ty = STRING;
    let err = analyze(&build(&m)).unwrap_err().to_string();
    assert_eq!(
        err,
        "unsupported: subgraph 0 tensor 2 ('a'): TFLM cannot allocate STRING tensors"
    );
    let mut m = chain();
    m.graphs[0].tensors[4].shape = Some(vec![-1, 8]);
    let err = analyze(&build(&m)).unwrap_err().to_string();
    assert!(err.contains("tensor 4 ('b'): dimension -1"), "{err}");
    let mut m = chain();
    m.external = vec![(1, 4096, 256)];
    let err = analyze(&build(&m)).unwrap_err().to_string();
    assert!(
        err.contains("buffer 1 keeps its data outside the flatbuffer"),
        "{err}"
    );
}

#[test]
fn broken_indices_are_named() {
    type Break = Box<dyn Fn(&mut M)>;
    let cases: Vec<(Break, &str)> = vec![
        (
            Box::new(|m| m.graphs[0].ops[1].inputs[0] = 99),
            "invalid model: subgraph 0 operator 1 input 0: tensor index 99 out of range (8 tensors)",
        ),
        (
            Box::new(|m| m.graphs[0].ops[2].outputs[0] = -1),
            "invalid model: subgraph 0 operator 2 output 0: tensor index -1 out of range (8 tensors)",
        ),
        (
            Box::new(|m| m.graphs[0].outputs[0] = 8),
            "invalid model: subgraph 0 output 0: tensor index 8 out of range (8 tensors)",
        ),
        (
            Box::new(|m| m.metadata[0].1 = 7),
            "invalid model: metadata 0 ('min_runtime_version'): buffer 7 past the end (3 buffers)",
        ),
        (
            Box::new(|m| m.graphs[0].tensors[1].buffer = 3),
            "invalid model: subgraph 0 tensor 1 ('w'): buffer 3 past the end (3 buffers)",
        ),
        (
            Box::new(|m| m.graphs[0].ops[0].code = 2),
            "invalid model: subgraph 0 operator 0: operator code 2 out of range (2 codes)",
        ),
    ];
    for (break_it, message) in cases {
        let mut m = chain();
        break_it(&mut m);
        assert_eq!(analyze(&build(&m)).unwrap_err().to_string(), message);
    }
}

#[test]
fn truncated_and_mutated_files_give_errors_not_panics() {
    let src = build(&chain());
    let planned = plan_model(&src, &PlanOptions::default()).unwrap().bytes;
    for file in [&src, &planned] {
        for len in 0..file.len() {
            // Any result is fine but a panic; most cuts break an offset.
            let _ = analyze(&file[..len]);
        }
        assert!(analyze(&file[..file.len() / 2]).is_err());
        // Deterministic byte flips (a small LCG): every outcome is an Ok or an Err.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..3000 {
            let mut bad = file.to_vec();
            for _ in 0..3 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let at = (state >> 33) as usize % bad.len();
                bad[at] = (state >> 20) as u8;
            }
            // Planned when it reads; what is written must read back and pass the checker.
            memplan_tflite::fuzzing::read_and_plan(&bad);
        }
    }
    assert_eq!(
        analyze(b"not a model at all").unwrap_err().to_string(),
        "not a TFLite model (no 'TFL3' file identifier at bytes 4..8)"
    );
}

#[test]
fn a_vector_whose_length_runs_past_the_file_is_refused() {
    let src = build(&chain());
    // The buffers' data vectors: find w's 256 bytes of 1s and claim a huge length.
    let at = src
        .windows(4)
        .position(|w| w == 256u32.to_le_bytes())
        .unwrap();
    let mut bad = src.clone();
    bad[at..at + 4].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    let err = analyze(&bad).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "the file is truncated (or an offset in it is corrupt): it has {} bytes, but the \
             model refers to bytes up to ",
            bad.len()
        )),
        "{err}"
    );
}

/// A file cut short says so, with its length.
#[test]
fn a_truncated_file_says_it_is_truncated() {
    let src = build(&chain());
    let cut = &src[..src.len() - 4];
    let err = analyze(cut).unwrap_err();
    assert!(matches!(err, TfliteError::Truncated { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "the file is truncated (or an offset in it is corrupt): it has {} bytes",
            cut.len()
        )),
        "{text}"
    );
}

/// A U-Net-like decoder step: an INT8 TRANSPOSE_CONV, whose reference kernel requests
/// 4 bytes per output element; the plan must leave that hole while it runs.
#[test]
fn room_is_left_for_the_reference_kernels_scratch() {
    let mut x = t("x", &[1, 4, 4, 8]);
    x.ty = I8;
    let mut shape = t("shape", &[4]);
    (shape.ty, shape.buffer) = (2, 1);
    let mut w = t("w", &[8, 3, 3, 8]);
    (w.ty, w.buffer) = (I8, 2);
    let mut up = t("up", &[1, 8, 8, 8]);
    up.ty = I8;
    let mut y = t("y", &[1, 8, 8, 8]);
    y.ty = I8;
    let m = M {
        codes: vec![67, ADD],
        graphs: vec![G {
            tensors: vec![x, shape, w, up, y],
            inputs: vec![0],
            outputs: vec![4],
            ops: vec![op(0, &[1, 2, 0], &[3]), op(1, &[3, 3], &[4])],
        }],
        buffers: vec![None, Some(vec![0; 16]), Some(vec![1; 576])],
        ..M::default()
    };
    let bytes = build(&m);
    let a = analyze(&bytes).unwrap();
    assert_eq!(a.scratch.len(), 1);
    let s = &a.scratch[0];
    assert_eq!(
        (s.subgraph, s.operator, s.bytes, s.first, s.last),
        (0, 0, 2048, 1, 1)
    );
    // x (128) + up (512) + scratch (2048) are live together at scope 1.
    let planned = plan_model(&bytes, &PlanOptions::default()).unwrap();
    assert_eq!(planned.height, 128 + 512 + 2048);
    // Without the room, the tensors alone: up and y at scope 2.
    let bare = PlanOptions {
        scratch: memplan_tflite::ScratchOptions {
            reference_kernels: false,
            extra: vec![],
        },
        ..PlanOptions::default()
    };
    assert_eq!(plan_model(&bytes, &bare).unwrap().height, 1024);
    // The scratch has no slot in the offline plan: one offset per tensor.
    assert_eq!(planned.offsets.len(), 5);
    // A request for an operator that does not exist is refused.
    let wrong = PlanOptions {
        scratch: memplan_tflite::ScratchOptions {
            reference_kernels: true,
            extra: vec![memplan_tflite::ScratchRequest {
                subgraph: 0,
                operator: 2,
                bytes: 64,
            }],
        },
        ..PlanOptions::default()
    };
    let err = plan_model(&bytes, &wrong).unwrap_err().to_string();
    assert_eq!(
        err,
        "scratch request 0:2:64: subgraph 0 has 2 operators (0 to 1)"
    );
    let request = |subgraph, operator, bytes| PlanOptions {
        scratch: memplan_tflite::ScratchOptions {
            reference_kernels: true,
            extra: vec![memplan_tflite::ScratchRequest {
                subgraph,
                operator,
                bytes,
            }],
        },
        ..PlanOptions::default()
    };
    for (options, message) in [
        (
            request(1, 0, 64),
            "scratch request 1:0:64: the model has 1 subgraph (number 0)",
        ),
        (
            request(0, 1, 0),
            "scratch request 0:1:0: BYTES must be between 1 and 2^31 - 1 (TFLM's sizes are 32-bit)",
        ),
        (
            request(0, 1, 1 << 31),
            "scratch request 0:1:2147483648: BYTES must be between 1 and 2^31 - 1 (TFLM's sizes are 32-bit)",
        ),
    ] {
        let err = plan_model(&bytes, &options).unwrap_err();
        assert!(matches!(err, TfliteError::Scratch { .. }), "{err:?}");
        assert_eq!(err.to_string(), message);
    }
}
