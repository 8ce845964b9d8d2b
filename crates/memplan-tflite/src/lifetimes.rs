//! Each tensor's lifetime and size, derived as TFLM's allocator derives them
//! (`micro_allocation_info.cc`, `micro_allocator.cc`, `memory_helpers.cc`); the rules
//! are stated in the crate's documentation.
//!
//! # Which tensors TFLM places in the head
//!
//! TFLM's own rule (`AllocationInfoBuilder::InitializeAllocationInfo` in
//! `tensorflow/lite/micro/micro_allocation_info.cc`, tflite-micro 90b983c):
//!
//! ```text
//!   needs_allocating = (eval_tensors[i].data.data == nullptr)
//!                      && !tensor->is_variable() && bytes != 0
//! ```
//!
//! evaluated in `FinishModelAllocation`, after every subgraph's kernels ran their
//! `Prepare` (`MicroInterpreter::AllocateTensors`: `InitSubgraphs`, `PrepareSubgraphs`,
//! then `FinishModelAllocation`). A tensor's data is not null then when:
//!
//! - its buffer has bytes: `micro_allocator.cc` points it at the flatbuffer
//!   ([`TensorKind::Constant`]);
//! - a kernel's `Prepare` points it elsewhere. Among TFLM's kernels only `VAR_HANDLE`
//!   always does: `VarHandlePrepare` (`kernels/var_handle.cc`) sets its output's
//!   `data.i32` to the resource id it keeps in its persistent `OpData`
//!   ([`TensorKind::ResourceHandle`]). (`DECODE` does so only when the application gives
//!   the interpreter alternate decompression memory; by default its outputs are planned.)
//!
//! Variables ([`TensorKind::Variable`]) and zero-byte tensors ([`TensorKind::Empty`])
//! are the rule's other two terms. Everything else is [`TensorKind::Planned`]. A
//! resource handle that is not a `VAR_HANDLE` output (a subgraph input of RESOURCE type,
//! say, which `WHILE` copies into) has null data and is planned, as in TFLM.

use crate::model::{Model, Subgraph, OP_VAR_HANDLE};
use crate::TfliteError;

/// TFLM's `MicroArenaBufferAlignment()`: the arena's head starts at a multiple of 16, and
/// every planned size is rounded up to 16.
pub const ARENA_ALIGNMENT: u64 = 16;

/// Subgraph calls may nest this deep (TFLM recurses without a limit).
const MAX_CALL_DEPTH: usize = 64;
/// At most this many allocation scopes (operators and subgraph entries, counted over
/// every call): TFLM's counter is an `int`, and a chain of subgraphs that each call the
/// next twice would otherwise take exponential time.
const MAX_SCOPES: i64 = 1 << 24;

/// Why TFLM does or does not plan a tensor in the arena's head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorKind {
    /// Planned: `bytes` in the head from step `first` to step `last`, both included.
    Planned,
    /// Its buffer has data: TFLM reads it from the model.
    Constant,
    /// A variable tensor: TFLM allocates it in the persistent tail.
    Variable,
    /// Zero bytes: TFLM plans nothing.
    Empty,
    /// An output of `VAR_HANDLE`: the kernel's `Prepare` points it at the resource id in
    /// its persistent data before TFLM plans, so TFLM does not place it in the head.
    ResourceHandle,
}

/// One tensor of the model, with TFLM's view of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorLife {
    /// Its index in the offline plan: the tensors of every subgraph, concatenated.
    pub index: usize,
    /// Its subgraph.
    pub subgraph: usize,
    /// Its index within the subgraph.
    pub local: usize,
    /// Its name in the model.
    pub name: String,
    /// The first operator of its subgraph that outputs it (its index in the subgraph:
    /// what `--scratch SUBGRAPH:OP:BYTES` names), or `None` (an input, a constant).
    pub producer: Option<usize>,
    /// Whether TFLM plans it.
    pub kind: TensorKind,
    /// Its bytes (element count × element size; 0 unless `Planned`).
    pub bytes: u64,
    /// First allocation scope in which it is live (-1: never reached).
    pub first: i64,
    /// Last allocation scope in which it is live (-1: never reached).
    pub last: i64,
}

impl TensorLife {
    /// The bytes TFLM reserves: `bytes` rounded up to [`ARENA_ALIGNMENT`].
    pub fn aligned_bytes(&self) -> u64 {
        self.bytes.div_ceil(ARENA_ALIGNMENT) * ARENA_ALIGNMENT
    }
}

/// The element size TFLM gives a `TensorType` (`TfLiteTypeSizeOf`); `None` for the
/// types it cannot allocate (STRING, VARIANT, INT2, UINT4, FLOAT8).
pub fn element_size(tensor_type: i8) -> Option<u64> {
    Some(match tensor_type {
        3 | 6 | 9 | 17 => 1,  // UINT8, BOOL, INT8, INT4 (one byte per element in TFLM)
        1 | 7 | 16 | 18 => 2, // FLOAT16, INT16, UINT16, BFLOAT16
        0 | 2 | 13 | 15 => 4, // FLOAT32, INT32, RESOURCE, UINT32
        4 | 8 | 10 | 12 => 8, // INT64, COMPLEX64, FLOAT64, UINT64
        11 => 16,             // COMPLEX128
        _ => return None,
    })
}

/// TFLite's name of a `TensorType`, for messages.
fn type_name(tensor_type: i8) -> String {
    const NAMES: [&str; 23] = [
        "FLOAT32",
        "FLOAT16",
        "INT32",
        "UINT8",
        "INT64",
        "STRING",
        "BOOL",
        "INT16",
        "COMPLEX64",
        "INT8",
        "FLOAT64",
        "COMPLEX128",
        "UINT64",
        "RESOURCE",
        "VARIANT",
        "UINT32",
        "UINT16",
        "INT4",
        "BFLOAT16",
        "INT2",
        "UINT4",
        "FLOAT8_E4M3FN",
        "FLOAT8_E5M2",
    ];
    usize::try_from(tensor_type)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or_else(|| format!("type {tensor_type}"), |n| n.to_string())
}

/// Each operator's (first, last) scope, by subgraph then operator; `None` if never reached.
pub(crate) type Visits = Vec<Vec<Option<(i64, i64)>>>;

/// Every tensor of the model, in offline-plan order, with its kind, size and lifetime,
/// and when each operator runs: from the scope it opens to the scope after the subgraphs
/// it calls (the lifetime TFLM gives its scratch buffers).
pub(crate) fn derive_with_visits(
    model: &Model<'_>,
) -> Result<(Vec<TensorLife>, Visits), TfliteError> {
    let mut lives = Vec::with_capacity(model.tensor_count());
    let mut base = Vec::with_capacity(model.subgraphs.len());
    for (s, g) in model.subgraphs.iter().enumerate() {
        base.push(lives.len());
        let handles: std::collections::HashSet<i32> = g
            .operators
            .iter()
            .filter(|op| op.code == OP_VAR_HANDLE)
            .flat_map(|op| op.outputs.iter().copied())
            .collect();
        for (t, tensor) in g.tensors.iter().enumerate() {
            let constant = model.buffers[tensor.buffer as usize].has_data();
            let mut life = TensorLife {
                index: lives.len(),
                subgraph: s,
                local: t,
                name: tensor.name.clone(),
                producer: None,
                kind: TensorKind::Empty,
                bytes: 0,
                first: -1,
                last: -1,
            };
            life.kind = if constant {
                TensorKind::Constant
            } else if tensor.is_variable {
                TensorKind::Variable
            } else if handles.contains(&(t as i32)) {
                TensorKind::ResourceHandle
            } else {
                life.bytes = tensor_bytes(s, t, tensor)?;
                if life.bytes == 0 {
                    TensorKind::Empty
                } else {
                    TensorKind::Planned
                }
            };
            lives.push(life);
        }
        for (k, op) in g.operators.iter().enumerate() {
            for &t in &op.outputs {
                let life = &mut lives[base[s] + t as usize];
                life.producer = life.producer.or(Some(k));
            }
        }
    }
    let mut marker = Marker {
        model,
        base: &base,
        lives: &mut lives,
        scope: 0,
        stack: Vec::new(),
        visits: model
            .subgraphs
            .iter()
            .map(|g| vec![None; g.operators.len()])
            .collect(),
    };
    marker.mark(0)?;
    let visits = std::mem::take(&mut marker.visits);
    Ok((lives, visits))
}

/// The bytes of a tensor TFLM would allocate: the product of its shape (1 for a scalar)
/// times its element size.
fn tensor_bytes(s: usize, t: usize, tensor: &crate::model::Tensor) -> Result<u64, TfliteError> {
    let at = || format!("subgraph {s} tensor {t} ('{}')", tensor.name);
    let size = element_size(tensor.tensor_type).ok_or_else(|| TfliteError::Unsupported {
        at: at(),
        what: format!(
            "TFLM cannot allocate {} tensors",
            type_name(tensor.tensor_type)
        ),
    })?;
    let mut count: i64 = 1;
    for &d in tensor.shape.as_deref().unwrap_or_default() {
        if d < 0 {
            return Err(TfliteError::Unsupported {
                at: at(),
                what: format!("dimension {d}: TFLM needs static shapes"),
            });
        }
        count = count.saturating_mul(i64::from(d));
    }
    // TFLM multiplies in an `int`.
    if count > i64::from(i32::MAX) {
        return Err(TfliteError::Unsupported {
            at: at(),
            what: format!("{count} elements overflow TFLM's 32-bit element count"),
        });
    }
    Ok(count as u64 * size)
}

/// TFLM's `MarkAllocationLifetimes`, with its scope counter.
struct Marker<'m, 'a> {
    model: &'m Model<'a>,
    /// Each subgraph's first index in `lives`.
    base: &'m [usize],
    lives: &'m mut Vec<TensorLife>,
    scope: i64,
    /// The subgraphs being marked, innermost last.
    stack: Vec<usize>,
    visits: Visits,
}

impl Marker<'_, '_> {
    fn created(&mut self, s: usize, t: i32) {
        let life = &mut self.lives[self.base[s] + t as usize];
        if life.first == -1 {
            life.first = self.scope;
        }
    }

    fn used(&mut self, s: usize, t: i32) {
        self.lives[self.base[s] + t as usize].last = self.scope;
    }

    fn next_scope(&mut self) -> Result<(), TfliteError> {
        self.scope += 1;
        if self.scope > MAX_SCOPES {
            return Err(TfliteError::Unsupported {
                at: "the model".into(),
                what: format!("more than {MAX_SCOPES} operator steps over all subgraph calls"),
            });
        }
        Ok(())
    }

    fn mark(&mut self, s: usize) -> Result<(), TfliteError> {
        if self.stack.contains(&s) || self.stack.len() >= MAX_CALL_DEPTH {
            return Err(TfliteError::Invalid {
                at: format!("subgraph {s}"),
                what: format!(
                    "called recursively or nested deeper than {MAX_CALL_DEPTH} (call stack {:?})",
                    self.stack
                ),
            });
        }
        self.stack.push(s);
        let g: &Subgraph = &self.model.subgraphs[s];
        for &t in &g.inputs {
            self.created(s, t);
            self.used(s, t);
        }
        for (k, op) in g.operators.iter().enumerate() {
            self.next_scope()?;
            for &t in &op.outputs {
                self.created(s, t);
            }
            let start = self.scope;
            for &callee in &op.calls {
                self.next_scope()?;
                self.mark(callee)?;
            }
            let visit = &mut self.visits[s][k];
            *visit = Some((visit.map_or(start, |(first, _)| first), self.scope));
            for &t in op.inputs.iter().filter(|&&t| t >= 0) {
                self.used(s, t);
            }
            for &t in &op.outputs {
                self.used(s, t);
            }
        }
        for &t in &g.outputs {
            self.created(s, t);
            self.used(s, t);
        }
        self.stack.pop();
        Ok(())
    }
}
