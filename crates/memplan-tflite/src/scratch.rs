//! Kernel scratch buffers: space that kernels request from the arena at start-up
//! (`RequestScratchBufferInArena` in their `Prepare`), which TFLM then plans *online*,
//! around the offline plan.
//!
//! No offline plan can place them, since the offline format has a slot per tensor only.
//! But a plan that packs the tensors tightly can leave no hole for them, and TFLM then
//! puts them on top, above the height (on the INT8 U-Net: BENCHMARKS.md §10). So memplan adds each expected request to its problem as a buffer live
//! while its operator runs (TFLM's rule: from the operator's scope to the scope after the
//! subgraphs it calls), and writes no offset for it: the plan leaves a hole of the right
//! size at the right time, and TFLM's greedy placement (largest first, lowest gap that
//! fits) finds it.
//!
//! The sizes depend on the kernel library. [`reference_requests`] gives those of TFLM's
//! reference kernels (`tensorflow/lite/micro/kernels/*.cc`); other libraries (CMSIS-NN,
//! ESP-NN, Xtensa) request other sizes, which a user adds with [`ScratchRequest`]s.

use crate::model::{Model, Operator};

/// TFLite builtin codes of the operators whose reference kernels request scratch.
const CONV_2D: i32 = 3;
const DEPTHWISE_CONV_2D: i32 = 4;
const FULLY_CONNECTED: i32 = 9;
const MEAN: i32 = 40;
const TRANSPOSE_CONV: i32 = 67;
const SUM: i32 = 74;
const REDUCE_MAX: i32 = 82;
const REDUCE_MIN: i32 = 89;
const MIRROR_PAD: i32 = 100;
const ADD_N: i32 = 106;

/// TensorType codes used below.
const INT8: i8 = 9;
const INT16: i8 = 7;
const INT4: i8 = 17;
const FLOAT32: i8 = 0;

/// A pointer's size in the scratch requests that hold pointers (ADD_N): 8, the larger of
/// a 32-bit microcontroller's and a 64-bit host's.
const POINTER: u64 = 8;

/// Scratch space a user expects an operator to request (e.g. from another kernel
/// library), in addition to the reference kernels' requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchRequest {
    /// The operator's subgraph.
    pub subgraph: usize,
    /// The operator's index in its subgraph.
    pub operator: usize,
    /// Bytes requested.
    pub bytes: u64,
}

/// Which scratch requests the plan leaves room for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchOptions {
    /// The requests of TFLM's reference kernels ([`reference_requests`]). On by default.
    pub reference_kernels: bool,
    /// More requests, e.g. those of an optimised kernel library.
    pub extra: Vec<ScratchRequest>,
}

impl Default for ScratchOptions {
    fn default() -> Self {
        ScratchOptions {
            reference_kernels: true,
            extra: Vec::new(),
        }
    }
}

/// One scratch request the plan leaves room for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scratch {
    /// The requesting operator's subgraph.
    pub subgraph: usize,
    /// The operator's index in its subgraph.
    pub operator: usize,
    /// Bytes requested (before TFLM rounds them up to 16).
    pub bytes: u64,
    /// First and last allocation scope in which it is live (both included).
    pub first: i64,
    /// See `first`.
    pub last: i64,
}

/// The element count of a tensor's shape (1 for a scalar); 0 if it has a negative or
/// overflowing dimension (such a model is refused elsewhere).
fn elements(model: &Model<'_>, s: usize, t: i32) -> u64 {
    let Some(tensor) = usize::try_from(t)
        .ok()
        .and_then(|t| model.subgraphs[s].tensors.get(t))
    else {
        return 0;
    };
    tensor
        .shape
        .as_deref()
        .unwrap_or_default()
        .iter()
        .try_fold(1u64, |n, &d| {
            u64::try_from(d).ok().and_then(|d| n.checked_mul(d))
        })
        .unwrap_or(0)
}

fn rank(model: &Model<'_>, s: usize, t: i32) -> u64 {
    usize::try_from(t)
        .ok()
        .and_then(|t| model.subgraphs[s].tensors.get(t))
        .map_or(0, |x| x.shape.as_ref().map_or(0, |v| v.len() as u64))
}

fn type_of(model: &Model<'_>, s: usize, t: i32) -> Option<i8> {
    let t = usize::try_from(t).ok()?;
    model.subgraphs[s].tensors.get(t).map(|x| x.tensor_type)
}

/// The scratch requests of TFLM's reference kernels for one operator, in bytes:
///
/// | operator | requests |
/// |---|---|
/// | TRANSPOSE_CONV | 4 × output elements (INT8 input), 8 × (INT16) |
/// | CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED | filter elements, with an INT4 filter (unpacked) |
/// | MEAN, SUM | 4 × output elements (INT8 or INT16 input); 4 × input rank; 4 × axes |
/// | REDUCE_MAX, REDUCE_MIN | 4 × input rank; 4 × axes |
/// | MIRROR_PAD | 4 × input rank, twice |
/// | ADD_N | a pointer per input (FLOAT32 or INT8 output) |
pub fn reference_requests(model: &Model<'_>, s: usize, op: &Operator) -> Vec<u64> {
    let input = |n: usize| op.inputs.get(n).copied().unwrap_or(-1);
    let output = op.outputs.first().copied().unwrap_or(-1);
    let mut out = Vec::new();
    match op.code {
        TRANSPOSE_CONV => {
            // TRANSPOSE_CONV's inputs: output shape, filter, input (, bias).
            match type_of(model, s, input(2)) {
                Some(INT8) => out.push(4 * elements(model, s, output)),
                Some(INT16) => out.push(8 * elements(model, s, output)),
                _ => {}
            }
        }
        CONV_2D | DEPTHWISE_CONV_2D | FULLY_CONNECTED
            if type_of(model, s, input(1)) == Some(INT4) =>
        {
            out.push(elements(model, s, input(1)));
        }
        MEAN | SUM | REDUCE_MAX | REDUCE_MIN => {
            let quantized = matches!(type_of(model, s, input(0)), Some(INT8 | INT16));
            if matches!(op.code, MEAN | SUM) && quantized {
                out.push(4 * elements(model, s, output));
            }
            out.push(4 * rank(model, s, input(0)));
            out.push(4 * elements(model, s, input(1)));
        }
        MIRROR_PAD => {
            out.extend([4 * rank(model, s, input(0)); 2]);
        }
        ADD_N => {
            if matches!(type_of(model, s, output), Some(FLOAT32 | INT8)) {
                out.push(POINTER * op.inputs.len() as u64);
            }
        }
        _ => {}
    }
    out.retain(|&b| b > 0);
    out
}

/// Every request to leave room for, with the lifetime of its operator. `visits[s][k]` is
/// operator `k` of subgraph `s`'s (first, last) scope, `None` if TFLM never reaches it
/// (then it requests nothing at a known time, and nothing is reserved).
pub(crate) fn requests(
    model: &Model<'_>,
    visits: &[Vec<Option<(i64, i64)>>],
    options: &ScratchOptions,
) -> Vec<Scratch> {
    let mut out = Vec::new();
    for (s, g) in model.subgraphs.iter().enumerate() {
        for (k, op) in g.operators.iter().enumerate() {
            let Some((first, last)) = visits[s][k] else {
                continue;
            };
            let mut bytes = if options.reference_kernels {
                reference_requests(model, s, op)
            } else {
                Vec::new()
            };
            bytes.extend(
                options
                    .extra
                    .iter()
                    .filter(|r| r.subgraph == s && r.operator == k && r.bytes > 0)
                    .map(|r| r.bytes),
            );
            out.extend(bytes.into_iter().map(|bytes| Scratch {
                subgraph: s,
                operator: k,
                bytes,
                first,
                last,
            }));
        }
    }
    out
}
