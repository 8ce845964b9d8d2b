//! In-place planning (`PlanOptions::in_place`, `memplan tflite --in-place`, issue 45):
//! which operator outputs may take over an input's storage, on models built here, and the
//! plans on the committed test models (never larger than without sharing; the figures of
//! issue 45's probe). Their runs on TFLM's interpreter are in
//! crates/memplan-py/tests/test_tflite_micro.py.

mod common;

use std::path::PathBuf;

use common::*;
use memplan_tflite::{
    analyze, plan_model, write_plan, write_plan_in_place, InPlacePair, PlanOptions, TfliteError,
};

const DEPTHWISE: i32 = 4;
const LOGISTIC: i32 = 14;
const MUL: i32 = 18;
const RELU: i32 = 19;
const RESHAPE: i32 = 22;
const TANH: i32 = 28;
const QUANTIZE: i32 = 114;
const HARD_SWISH: i32 = 117;

fn in_place() -> PlanOptions {
    PlanOptions {
        in_place: true,
        ..PlanOptions::default()
    }
}

/// The in-place pairs of a model, as (operator, output name, input name).
fn pairs(m: &M) -> Vec<(usize, String, String)> {
    let a = analyze(&build(m)).unwrap();
    let name = |t: usize| a.tensors[t].name.clone();
    a.in_place
        .iter()
        .map(|p: &InPlacePair| (p.operator, name(p.output), name(p.input)))
        .collect()
}

fn pair(op: usize, out: &str, inp: &str) -> (usize, String, String) {
    (op, out.to_string(), inp.to_string())
}

/// One subgraph `x → CONV → a → ops... ` with a constant filter `w` (tensor 1); `ops`
/// name tensors by index, `tensors` follow `x` and `w`. The last tensor is the output.
fn graph(codes: Vec<i32>, tensors: Vec<T>, ops: Vec<Op>) -> M {
    let mut w = t("w", &[4, 4]);
    w.buffer = 1;
    let mut all = vec![t("x", &[1, 4, 4, 4]), w];
    all.extend(tensors);
    let out = all.len() as i32 - 1;
    M {
        codes,
        graphs: vec![G {
            tensors: all,
            inputs: vec![0],
            outputs: vec![out],
            ops,
        }],
        buffers: vec![None, Some(vec![1; 64])],
        ..M::default()
    }
}

fn act(name: &str) -> T {
    t(name, &[1, 4, 4, 4])
}

/// `x → CONV → a → RELU → b → TANH → c → LOGISTIC → d → ADD(d, x) → y`: each
/// operator's output after the convolution may take its input's storage, a chain that
/// becomes one storage.
#[test]
fn a_chain_of_activations_becomes_one_storage() {
    let m = graph(
        vec![CONV, RELU, TANH, LOGISTIC, ADD],
        ["a", "b", "c", "d", "y"].map(act).to_vec(),
        vec![
            op(0, &[0, 1, -1], &[2]),
            op(1, &[2], &[3]),
            op(2, &[3], &[4]),
            op(3, &[4], &[5]),
            op(4, &[5, 0], &[6]),
        ],
    );
    assert_eq!(
        pairs(&m),
        vec![
            pair(1, "b", "a"),
            pair(2, "c", "b"),
            pair(3, "d", "c"),
            pair(4, "y", "d")
        ]
    );
    // x lives throughout: without sharing x, a and b at RELU; in place, x and one.
    let p = plan_model(&build(&m), &in_place()).unwrap();
    let report = p.in_place.as_ref().unwrap();
    assert_eq!(report.candidates, 4);
    assert_eq!(report.shared.len(), 4);
    assert_eq!(p.height, 2 * 256);
    assert_eq!(report.height_without, Some(3 * 256));
    assert_eq!(report.saved, 256);
    assert_eq!(report.shared_bytes, 4 * 256);
    let off = |n: &str| p.offsets[p.analysis.tensors.iter().position(|t| t.name == n).unwrap()];
    assert!(["b", "c", "d", "y"].iter().all(|&n| off(n) == off("a")));
    assert_ne!(off("x"), off("a"));
    // Without the option nothing is shared.
    let plain = plan_model(&build(&m), &PlanOptions::default()).unwrap();
    assert!(plain.in_place.is_none());
    assert_eq!(plain.height, 3 * 256);
}

/// Under a capacity: the chain fits 512 bytes only in place (no plan without sharing);
/// under 512 neither fits, and the error gives the bound with sharing.
#[test]
fn under_a_capacity_in_place_may_be_the_only_plan() {
    let m = graph(
        vec![CONV, RELU, TANH, LOGISTIC, ADD],
        ["a", "b", "c", "d", "y"].map(act).to_vec(),
        vec![
            op(0, &[0, 1, -1], &[2]),
            op(1, &[2], &[3]),
            op(2, &[3], &[4]),
            op(3, &[4], &[5]),
            op(4, &[5, 0], &[6]),
        ],
    );
    let src = build(&m);
    let capped = |bytes: u64, in_place: bool| PlanOptions {
        request: memplan::Request::fit(memplan::Size(bytes)),
        in_place,
        ..PlanOptions::default()
    };
    let err = plan_model(&src, &capped(512, false)).unwrap_err();
    assert!(
        matches!(
            err,
            TfliteError::NoFit {
                max_load: 768,
                proven: true,
                ..
            }
        ),
        "{err}"
    );
    let p = plan_model(&src, &capped(512, true)).unwrap();
    let r = p.in_place.unwrap();
    assert_eq!((p.height, r.height_without, r.saved), (512, None, 0));
    assert_eq!(r.shared.len(), 4);
    let err = plan_model(&src, &capped(496, true)).unwrap_err();
    assert!(
        matches!(
            err,
            TfliteError::NoFit {
                max_load: 512,
                proven: true,
                ..
            }
        ),
        "{err}"
    );
}

/// `x → CONV → a → RELU → b → CONV → c → DEPTHWISE_CONV → d → RELU → y`: a convolution's
/// output never takes its input's storage, though the input dies there.
#[test]
fn a_convolution_never_shares() {
    let m = graph(
        vec![CONV, RELU, DEPTHWISE],
        ["a", "b", "c", "d", "y"].map(act).to_vec(),
        vec![
            op(0, &[0, 1, -1], &[2]),
            op(1, &[2], &[3]),
            op(0, &[3, 1, -1], &[4]),
            op(2, &[4, 1, -1], &[5]),
            op(1, &[5], &[6]),
        ],
    );
    assert_eq!(pairs(&m), vec![pair(1, "b", "a"), pair(4, "y", "d")]);
}

/// An input read by a later operator is never shared: `a` feeds RELU and, later, ADD.
#[test]
fn an_input_read_later_is_never_shared() {
    let m = graph(
        vec![CONV, RELU, ADD],
        ["a", "b", "y"].map(act).to_vec(),
        vec![
            op(0, &[0, 1, -1], &[2]),
            op(1, &[2], &[3]),
            op(2, &[3, 2], &[4]),
        ],
    );
    // RELU's input `a` is read by ADD later; ADD may take either of its inputs, both
    // dying there, but `y` is the subgraph's output: it may, in subgraph 0.
    assert_eq!(pairs(&m), vec![pair(2, "y", "b"), pair(2, "y", "a")]);
    let p = plan_model(&build(&m), &in_place()).unwrap();
    let off = |n: &str| p.offsets[p.analysis.tensors.iter().position(|t| t.name == n).unwrap()];
    assert_ne!(off("a"), off("b"), "a is live while b is written");
    let report = p.in_place.unwrap();
    assert!(
        report.shared.len() <= 1,
        "y takes one input's storage at most"
    );
    assert!(p.height <= report.height_without.unwrap());
}

/// ADD and MUL share only a full-size input, never the broadcast one; ADD(b, b) gives one
/// pair.
#[test]
fn a_broadcast_input_is_never_shared() {
    let m = graph(
        vec![CONV, ADD, MUL],
        vec![
            act("a"),
            t("bias", &[1, 1, 1, 4]),
            act("b"),
            act("c"),
            act("y"),
        ],
        vec![
            op(0, &[0, 1, -1], &[2]),
            op(0, &[0, 1, -1], &[3]),
            op(1, &[3, 2], &[4]), // b = bias + a: only a
            op(2, &[4, 4], &[5]), // c = b * b: one pair
            op(1, &[5, 0], &[6]), // y = c + x: x is the subgraph's input
        ],
    );
    assert_eq!(
        pairs(&m),
        vec![pair(2, "b", "a"), pair(3, "c", "b"), pair(4, "y", "c")]
    );
}

/// Types: float32 and int8 only, input and output alike; QUANTIZE int8 to int8 only;
/// RESHAPE of any type, as long as the bytes match.
#[test]
fn types_and_sizes_must_match() {
    let typed = |name: &str, ty: i8, shape: &[i32]| {
        let mut x = t(name, shape);
        x.ty = ty;
        x
    };
    const I16: i8 = 7;
    let m = graph(
        vec![CONV, QUANTIZE, HARD_SWISH, RESHAPE, RELU],
        vec![
            act("a"),
            typed("q", I8, &[1, 4, 4, 4]),
            typed("r", I8, &[1, 4, 4, 4]),
            typed("h", I8, &[1, 4, 4, 4]),
            typed("s", I8, &[1, 64]),
            typed("i", I16, &[1, 64]),
            typed("j", I16, &[1, 64]),
            typed("k", I16, &[64]),
            typed("y", I16, &[1, 32]),
        ],
        vec![
            op(0, &[0, 1, -1], &[2]),
            op(1, &[2], &[3]),  // QUANTIZE float32 → int8: no
            op(1, &[3], &[4]),  // QUANTIZE int8 → int8: yes
            op(2, &[4], &[5]),  // HARD_SWISH int8: yes
            op(3, &[5], &[6]),  // RESHAPE int8: yes
            op(1, &[6], &[7]),  // QUANTIZE int8 → int16: no
            op(4, &[7], &[8]),  // RELU int16: no
            op(3, &[8], &[9]),  // RESHAPE int16, the same bytes: yes
            op(3, &[9], &[10]), // RESHAPE to fewer bytes: no
        ],
    );
    assert_eq!(
        pairs(&m),
        vec![
            pair(2, "r", "q"),
            pair(3, "h", "r"),
            pair(4, "s", "h"),
            pair(7, "k", "j"),
        ]
    );
}

/// Subgraph inputs and outputs, constants and variables are never shared inputs; a
/// subgraph other than 0 keeps its outputs apart too.
#[test]
fn boundaries_constants_and_variables_are_never_shared() {
    // x is subgraph 0's input: RELU(x) does not share it.
    let m = graph(
        vec![RELU, CONV],
        ["a", "y"].map(act).to_vec(),
        vec![op(0, &[0], &[2]), op(1, &[2, 1, -1], &[3])],
    );
    assert_eq!(pairs(&m), vec![]);
    // A constant or a variable input.
    let mut v = act("v");
    v.var = true;
    let mut c = act("c");
    c.buffer = 2;
    let mut m = graph(
        vec![CONV, RELU, ADD],
        vec![act("a"), v, c, act("b"), act("y")],
        vec![
            op(0, &[0, 1, -1], &[2]),
            op(1, &[3], &[5]), // b = relu(v)
            op(1, &[4], &[6]), // y = relu(c)
        ],
    );
    m.buffers.push(Some(vec![3; 256]));
    assert_eq!(pairs(&m), vec![]);
    // The IF model's branches: in → ADD → mid → ADD → out, `in` and `out` the branch's
    // input and output: no pair (mid's reader makes `out`, an output of subgraph 1).
    let a = analyze(&build(&with_if())).unwrap();
    let inside: Vec<_> = a.in_place.iter().filter(|p| p.subgraph > 0).collect();
    assert!(inside.is_empty(), "{inside:?}");
}

/// A plan in which an output sits at its input's offset is refused by `write_plan`
/// (no sharing allowed) and written by `write_plan_in_place`; one that puts a
/// convolution's output over its input is refused by both.
#[test]
fn writing_checks_the_shares() {
    // x lives to the end (the last CONV reads it too): RELU's step is the peak.
    let m = graph(
        vec![CONV, RELU],
        vec![act("a"), act("b"), t("y", &[1, 4])],
        vec![
            op(0, &[0, 1, -1], &[2]),
            op(1, &[2], &[3]),
            op(0, &[3, 1, 0], &[4]),
        ],
    );
    let src = build(&m);
    let p = plan_model(&src, &in_place()).unwrap();
    assert_eq!(p.in_place.as_ref().unwrap().shared.len(), 1);
    let err = write_plan(&src, &p.offsets, false).unwrap_err();
    assert!(matches!(err, TfliteError::Check(_)), "{err}");
    assert!(write_plan_in_place(&src, &p.offsets, false).is_ok());
    // y (CONV's output) over b, its input.
    let (b, y) = (3, 4);
    let mut wrong = p.offsets.clone();
    wrong[y] = wrong[b];
    for result in [
        write_plan(&src, &wrong, false),
        write_plan_in_place(&src, &wrong, false),
    ] {
        let err = result.unwrap_err().to_string();
        assert!(err.contains("fails the checker"), "{err}");
    }
}

// ---------------------------------------------------------------------------------------
// The committed models.

fn models() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/tflite/models");
    let mut found: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    found.sort();
    assert!(
        found.len() >= 24,
        "the test models are committed in {dir:?}"
    );
    found
}

/// Issue 45's probe: the head with --in-place at most these bytes (MobileNetV3-Small int8:
/// 73,728 → 64,512; the gated float32 CNN: 524,288 → 393,216), and MobileNetV2 int8
/// unchanged (its peak is at a depthwise convolution).
const TARGETS: [(&str, u64, u64); 3] = [
    ("mobilenet_v3_small_int8", 73_728, 64_512),
    ("gated_cnn_float32", 524_288, 393_216),
    ("mobilenet_v2_int8", 138_240, 138_240),
];

/// On every committed model, at the default budget: the head in place is never above the
/// head without (planned alone, with the same options), the written file carries a plan
/// that passes the checker with the model's in-place pairs, every pair taken is an
/// output at its input's offset, and no CONV_2D or DEPTHWISE_CONV_2D output shares; the
/// probe's targets are met.
#[test]
fn committed_models_in_place_never_larger_and_at_the_targets() {
    let mut rows = Vec::new();
    for (name, bytes) in models() {
        let plain = plan_model(&bytes, &PlanOptions::default()).unwrap();
        let p = plan_model(&bytes, &in_place()).unwrap();
        let r = p.in_place.as_ref().unwrap();
        assert!(
            p.height <= plain.height,
            "{name}: {} > {}",
            p.height,
            plain.height
        );
        assert_eq!(r.height_without, Some(plain.height), "{name}");
        assert_eq!(r.saved, plain.height - p.height, "{name}");
        assert_eq!(r.candidates, p.analysis.in_place.len());
        let again = analyze(&p.bytes).unwrap();
        assert_eq!(again.existing_plan.as_ref().unwrap().1, p.offsets, "{name}");
        again.check_offsets(&p.offsets, true).unwrap();
        if r.shared.is_empty() {
            again.check_offsets(&p.offsets, false).unwrap();
        } else {
            assert!(again.check_offsets(&p.offsets, false).is_err(), "{name}");
        }
        for s in &r.shared {
            assert_eq!(p.offsets[s.output], p.offsets[s.input], "{name}: {s:?}");
            assert!(!matches!(s.op, "CONV_2D" | "DEPTHWISE_CONV_2D"));
        }
        if let Some(&(_, before, target)) = TARGETS.iter().find(|t| t.0 == name) {
            assert_eq!(plain.height, before, "{name} without sharing");
            assert!(p.height <= target, "{name}: {} > {target}", p.height);
        }
        rows.push(format!(
            "{name:28} {:>9} {:>9} {:>3} of {:>3} shared",
            plain.height,
            p.height,
            r.shared.len(),
            r.candidates
        ));
    }
    println!("{}", rows.join("\n"));
    assert!(TARGETS
        .iter()
        .all(|t| rows.iter().any(|r| r.starts_with(&format!("{} ", t.0)))));
}
