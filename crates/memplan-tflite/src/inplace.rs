//! In-place operators: an operator's output may take over the storage of an input that
//! dies at that operator (`memplan tflite --in-place`, [`crate::PlanOptions::in_place`]).
//!
//! # When TFLM's reference kernels allow it
//!
//! TFLM places tensors where the offline plan says, without checking that tensors live
//! at the same time do not overlap (`micro_allocation_info.cc` checks only the number of
//! offsets; `GreedyMemoryPlanner` takes offline offsets as given and plans the kernels'
//! scratch buffers around them). So an output placed at the address of its input is
//! what the kernel sees: it is right exactly when the kernel reads `in[i]` before it
//! writes `out[i]`, and never reads `in[j]` after writing `out[i]` with `j` at or before
//! `i`'s bytes. The kernels below do so, in TFLM's reference implementations
//! (tflite-micro 90b983c, `tensorflow/lite/micro/kernels/` and
//! `tensorflow/lite/kernels/internal/reference/`), for float32 and int8:
//!
//! | operator | kernel | loop |
//! |---|---|---|
//! | ADD | `add.cc`: `reference_ops::Add`, `reference_integer_ops::Add` (`AddElementwise`); with broadcast, `BroadcastAdd4DSlow` → `BroadcastBinaryOpSimple` | `out[i] = f(in1[i], in2[i])`; with broadcast, a full-size input is read at the output's own index |
//! | MUL | `mul_common.cc`: `reference_ops::Mul`, `reference_integer_ops::Mul`; `BroadcastMul4DSlow` → `BroadcastBinaryOpSimple` | the same |
//! | RELU, RELU6 | `activations.cc`: `ReluFloat`, `Relu6Float`, `ReluQuantized`, `Relu6Quantized` | `val = in[i]; out[i] = f(val)` |
//! | LOGISTIC | `logistic.cc`: `reference_ops::Logistic` (float), `reference_integer_ops::Logistic` (int8) | the same |
//! | TANH | `tanh.cc`: `reference_ops::Tanh`, `reference_integer_ops::Tanh` | the same |
//! | HARD_SWISH | `hard_swish.cc`: `reference_ops::HardSwish` | the same (float: one pointer walk over both) |
//! | QUANTIZE | `quantize_common.cc`: int8 → int8 is `reference_ops::Requantize` | the same |
//! | RESHAPE | `reshape.cc`: `EvalReshapeReference` | copies only when `input->data.raw != output->data.raw`; in place, it does nothing |
//!
//! CONV_2D, DEPTHWISE_CONV_2D and every operator not listed are never shared: a
//! convolution reads a window of its input around each output, so an output written
//! over its input corrupts what later outputs read.
//!
//! # The pairs
//!
//! An operator's output may share an input's storage ([`pairs`]) when all hold:
//!
//! - the operator is listed above, and has one output;
//! - for ADD and MUL the input is full-size (as many elements as the output), never the
//!   broadcast one; for the others it is input 0;
//! - the input's and the output's types are equal, float32 or int8 (RESHAPE: any equal
//!   type, since it only copies bytes; QUANTIZE: int8 to int8), and their byte sizes are
//!   equal;
//! - both are planned in the head ([`TensorKind::Planned`]: not a constant, variable,
//!   resource handle or empty tensor);
//! - the input is not an input or output of its subgraph, and the output is not an input
//!   of its subgraph nor an output of a subgraph other than 0 (control flow copies those);
//! - this operator is the input's last user and the output's first writer, in one visit:
//!   TFLM's lifetimes give `input.last == output.first ==` the operator's scope, and the
//!   operator runs once (a subgraph called twice is left alone). memplan's half-open
//!   lifetimes `[first + 1, last + 2)` then meet its in-place rule exactly.
//!
//! Each pair becomes an optional [`memplan::Share`], output in place of input: the
//! planner takes it only where it lowers or keeps the plan, and the checker allows the
//! two to overlap only there.

use crate::lifetimes::{TensorKind, TensorLife, Visits};
use crate::model::{Model, Operator, Subgraph};

/// TFLite builtin operator codes (`schema.fbs`).
pub(crate) const ADD: i32 = 0;
pub(crate) const LOGISTIC: i32 = 14;
pub(crate) const MUL: i32 = 18;
pub(crate) const RELU: i32 = 19;
pub(crate) const RELU6: i32 = 21;
pub(crate) const RESHAPE: i32 = 22;
pub(crate) const TANH: i32 = 28;
pub(crate) const QUANTIZE: i32 = 114;
pub(crate) const HARD_SWISH: i32 = 117;

/// TensorType codes.
const FLOAT32: i8 = 0;
const INT8: i8 = 9;

/// The operators whose output may share an input's storage, with their TFLite names, in
/// builtin-code order.
pub const IN_PLACE_OPERATORS: [(i32, &str); 9] = [
    (ADD, "ADD"),
    (LOGISTIC, "LOGISTIC"),
    (MUL, "MUL"),
    (RELU, "RELU"),
    (RELU6, "RELU6"),
    (RESHAPE, "RESHAPE"),
    (TANH, "TANH"),
    (QUANTIZE, "QUANTIZE"),
    (HARD_SWISH, "HARD_SWISH"),
];

/// The TFLite name of an in-place operator's code, if it is one.
pub fn in_place_operator(code: i32) -> Option<&'static str> {
    IN_PLACE_OPERATORS
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| *n)
}

/// An operator's output that may take over the storage of one of its inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InPlacePair {
    /// The operator's subgraph.
    pub subgraph: usize,
    /// The operator's index in its subgraph.
    pub operator: usize,
    /// The operator's TFLite name (`ADD`, `HARD_SWISH`, ...).
    pub op: &'static str,
    /// The output tensor (its index in the offline plan, as [`TensorLife::index`]).
    pub output: usize,
    /// The input tensor whose storage it may take (index in the offline plan).
    pub input: usize,
}

/// Which inputs of `op` may be shared: their positions among the operator's inputs.
fn candidate_inputs(code: i32) -> &'static [usize] {
    match code {
        ADD | MUL => &[0, 1],
        _ => &[0],
    }
}

/// Whether the operator's kernel is alias-safe for these tensor types.
fn types_allowed(code: i32, input: i8, output: i8) -> bool {
    if input != output {
        return false;
    }
    match code {
        RESHAPE => true,
        QUANTIZE => output == INT8,
        _ => matches!(output, FLOAT32 | INT8),
    }
}

/// Every in-place pair of the model, by subgraph, operator, then input position. An
/// ADD or MUL may give two (one per full-size input): the planner takes at most one,
/// since both inputs are live at the operator.
pub(crate) fn pairs(
    model: &Model<'_>,
    tensors: &[TensorLife],
    visits: &Visits,
) -> Vec<InPlacePair> {
    let mut base = Vec::with_capacity(model.subgraphs.len());
    let mut n = 0;
    for g in &model.subgraphs {
        base.push(n);
        n += g.tensors.len();
    }
    if n != tensors.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (s, g) in model.subgraphs.iter().enumerate() {
        for (k, op) in g.operators.iter().enumerate() {
            let Some(name) = in_place_operator(op.code) else {
                continue;
            };
            let Some(scope) = visits.get(s).and_then(|v| v.get(k)).copied().flatten() else {
                continue;
            };
            let site = Site {
                g,
                s,
                op,
                base: base[s],
                tensors,
                scope,
            };
            for &position in candidate_inputs(op.code) {
                let Some((input, output)) = site.pair(position) else {
                    continue;
                };
                // ADD(x, x): one pair.
                let seen = out.last().is_some_and(|p: &InPlacePair| {
                    (p.subgraph, p.operator, p.input) == (s, k, input)
                });
                if !seen {
                    out.push(InPlacePair {
                        subgraph: s,
                        operator: k,
                        op: name,
                        output,
                        input,
                    });
                }
            }
        }
    }
    out
}

/// One operator of one subgraph, with what [`Site::pair`] needs to judge its inputs.
struct Site<'a> {
    g: &'a Subgraph,
    s: usize,
    op: &'a Operator,
    /// The subgraph's first tensor in `tensors`.
    base: usize,
    tensors: &'a [TensorLife],
    /// The operator's (first, last) scope over its visits.
    scope: (i64, i64),
}

impl Site<'_> {
    /// `(input, output)` as offline-plan indices, when the operator's input at
    /// `position` may be shared by its output.
    fn pair(&self, position: usize) -> Option<(usize, usize)> {
        let (first, last) = self.scope;
        // Visited once (a subgraph called twice gives first < last).
        if first != last || first < 0 || self.op.outputs.len() != 1 {
            return None;
        }
        let local_in = *self.op.inputs.get(position)?;
        let local_out = self.op.outputs[0];
        if local_in < 0 || local_in == local_out {
            return None;
        }
        let (li, lo) = (
            usize::try_from(local_in).ok()?,
            usize::try_from(local_out).ok()?,
        );
        let (ti, to) = (self.g.tensors.get(li)?, self.g.tensors.get(lo)?);
        let (input, output) = (
            self.tensors.get(self.base + li)?,
            self.tensors.get(self.base + lo)?,
        );
        let planned = input.kind == TensorKind::Planned && output.kind == TensorKind::Planned;
        let io = |t: i32| self.g.inputs.contains(&t) || self.g.outputs.contains(&t);
        let boundary = io(local_in)
            || self.g.inputs.contains(&local_out)
            || (self.s != 0 && self.g.outputs.contains(&local_out));
        let sized = types_allowed(self.op.code, ti.tensor_type, to.tensor_type)
            && input.bytes == output.bytes;
        let dies_here = input.last == first && output.first == first && input.first <= first;
        (planned && !boundary && sized && dies_here).then_some((input.index, output.index))
    }
}

/// What in-place planning did ([`crate::PlannedModel::in_place`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InPlaceReport {
    /// How many pairs the model has ([`crate::Analysis::in_place`]).
    pub candidates: usize,
    /// The pairs the written plan takes: each output at its input's offset.
    pub shared: Vec<InPlacePair>,
    /// The bytes of the outputs that share an input's storage (rounded up to 16).
    pub shared_bytes: u64,
    /// The head planned without sharing, with the same options (`None` when no plan was
    /// found without sharing, under a capacity).
    pub height_without: Option<u64>,
    /// What sharing saves: `height_without - height` (0 when the plan without sharing is
    /// kept).
    pub saved: u64,
}

/// Plans the model twice, without and with its in-place pairs as optional shares, and
/// keeps the plan with sharing only when its head is lower (or it is the only plan).
/// (So planning takes about twice as long: each plan gets the whole budget.)
/// Returns the kept plan's report, the problem to check it against (with the shares,
/// which a plan without sharing passes as well) and what sharing did.
pub(crate) fn plan(
    analysis: &crate::Analysis,
    request: &memplan::Request,
    options: &memplan::Options,
) -> Result<(memplan::Report, memplan::Problem, Option<InPlaceReport>), crate::TfliteError> {
    let shared_problem = analysis.problem_in_place()?;
    let without = memplan::plan(&analysis.problem, request, options)?;
    let with = memplan::plan(&shared_problem, request, options)?;
    let height = |r: &memplan::Report| r.outcome.plan().map(|p| p.height().get());
    let (h_with, h_without) = (height(&with), height(&without));
    // With sharing when it is lower, or the only plan; when neither has a plan (under a
    // capacity), its report, whose max load is the bound with sharing.
    let take = match (h_with, h_without) {
        (Some(a), Some(b)) => a < b,
        (_, None) => true,
        (None, Some(_)) => false,
    };
    let kept = if take { with } else { without };
    // A pair is taken where its output sits at its input's offset: without a share they
    // could not, since both are live at the operator's step.
    let shared: Vec<InPlacePair> = match (take, kept.outcome.plan()) {
        (true, Some(p)) => {
            let offset_of = tensor_offsets(analysis, p);
            analysis
                .in_place
                .iter()
                .filter(|pair| offset_of.get(&pair.output) == offset_of.get(&pair.input))
                .cloned()
                .collect()
        }
        _ => Vec::new(),
    };
    let shared_bytes = shared
        .iter()
        .map(|p| analysis.tensors[p.output].aligned_bytes())
        .sum();
    let saved = match (take, h_with, h_without) {
        (true, Some(a), Some(b)) => b - a,
        _ => 0,
    };
    let report = InPlaceReport {
        candidates: analysis.in_place.len(),
        shared,
        shared_bytes,
        height_without: h_without,
        saved,
    };
    Ok((kept, shared_problem, Some(report)))
}

/// Each planned tensor's offset in `plan`, by tensor index.
fn tensor_offsets(
    analysis: &crate::Analysis,
    plan: &memplan::Plan,
) -> std::collections::HashMap<usize, u64> {
    analysis
        .tensor_of
        .iter()
        .enumerate()
        .map(|(b, &t)| (t, plan.offsets()[b].get()))
        .collect()
}

/// The pairs as optional in-place shares of `buffers` (the tensors' buffers, tensor
/// `tensor_of[b]` for buffer `b`): each output in place of its input.
pub(crate) fn shares(
    buffers: &[memplan::Buffer],
    tensor_of: &[usize],
    pairs: &[InPlacePair],
) -> Result<Vec<memplan::Share>, crate::TfliteError> {
    let buffer_of: std::collections::HashMap<usize, usize> =
        tensor_of.iter().enumerate().map(|(b, &t)| (t, b)).collect();
    pairs
        .iter()
        .map(
            |p| match (buffer_of.get(&p.output), buffer_of.get(&p.input)) {
                (Some(&out), Some(&inp)) => Ok(memplan::Share::in_place(
                    buffers[out].id.clone(),
                    buffers[inp].id.clone(),
                )),
                _ => Err(crate::TfliteError::Internal(format!(
                    "in-place pair of tensors {} and {} names a tensor TFLM does not plan",
                    p.output, p.input
                ))),
            },
        )
        .collect()
}
