//! A TFLite model as plain Rust values: what the verified flatbuffer says, with every
//! index checked against the vector it points into.
//!
//! Reading never indexes past a vector: the `flatbuffers` verifier checks every offset
//! and length of the fields read ([`crate::schema`]), and this module checks every index
//! (tensor, buffer, operator code, subgraph) before anything follows it. A broken index
//! is an [`Invalid`](crate::TfliteError::Invalid) error that names where it is.

use crate::schema;
use crate::TfliteError;

/// The name TFLM looks for in the model's metadata.
pub const OFFLINE_PLAN_NAME: &str = "OfflineMemoryAllocation";

/// TFLite's builtin operator codes for the operators that call subgraphs.
pub(crate) const OP_IF: i32 = 118;
pub(crate) const OP_WHILE: i32 = 119;
pub(crate) const OP_CALL_ONCE: i32 = 129;
/// `VAR_HANDLE`, whose output TFLM does not place in the head (see `lifetimes.rs`).
pub(crate) const OP_VAR_HANDLE: i32 = 142;

/// A whole model, borrowing the file's bytes for buffer data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model<'a> {
    /// The schema version the file declares.
    pub version: u32,
    /// Each operator code's builtin code.
    pub operator_codes: Vec<i32>,
    /// The subgraphs; subgraph 0 is the one TFLM invokes.
    pub subgraphs: Vec<Subgraph>,
    /// The buffers, in file order.
    pub buffers: Vec<BufferData<'a>>,
    /// The metadata entries, in file order.
    pub metadata: Vec<MetadataEntry>,
}

/// One subgraph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subgraph {
    /// Its tensors.
    pub tensors: Vec<Tensor>,
    /// Indices into `tensors`.
    pub inputs: Vec<i32>,
    /// Indices into `tensors`.
    pub outputs: Vec<i32>,
    /// In execution order.
    pub operators: Vec<Operator>,
}

/// One tensor, as the file describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Its name (lossily decoded if not UTF-8).
    pub name: String,
    /// Its shape; `None` for a scalar.
    pub shape: Option<Vec<i32>>,
    /// TFLite's `TensorType` code.
    pub tensor_type: i8,
    /// Index into the model's buffers.
    pub buffer: u32,
    /// A variable tensor (state kept across invocations).
    pub is_variable: bool,
}

/// One operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operator {
    /// Its builtin code (through `operator_codes`).
    pub code: i32,
    /// Tensor indices; -1 is an omitted optional input.
    pub inputs: Vec<i32>,
    /// Tensor indices.
    pub outputs: Vec<i32>,
    /// The subgraphs it calls, in TFLM's order: then/else (IF), cond/body (WHILE),
    /// init (CALL_ONCE). Empty for every other operator.
    pub calls: Vec<usize>,
}

/// One buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferData<'a> {
    /// Its `data` vector, when present.
    pub data: Option<&'a [u8]>,
}

impl BufferData<'_> {
    /// True when the buffer holds bytes, which makes its tensors constants in TFLM.
    pub fn has_data(&self) -> bool {
        self.data.is_some_and(|d| !d.is_empty())
    }
}

/// One metadata entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataEntry {
    /// Its name (lossily decoded if not UTF-8).
    pub name: String,
    /// Index into the model's buffers.
    pub buffer: u32,
}

fn invalid(at: String, what: impl Into<String>) -> TfliteError {
    TfliteError::Invalid {
        at,
        what: what.into(),
    }
}

fn text(bytes: Option<&[u8]>) -> String {
    String::from_utf8_lossy(bytes.unwrap_or_default()).into_owned()
}

/// Checks the file identifier and runs the flatbuffer verifier.
pub(crate) fn verified(bytes: &[u8]) -> Result<schema::Model<'_>, TfliteError> {
    if bytes.len() < 8 || &bytes[4..8] != b"TFL3" {
        return Err(TfliteError::NotTflite);
    }
    schema::verified_model(bytes).map_err(|e| {
        if let flatbuffers::InvalidFlatbuffer::RangeOutOfBounds { range, .. } = &e {
            if range.end > bytes.len() {
                return TfliteError::Truncated {
                    len: bytes.len(),
                    needed: range.end,
                };
            }
        }
        // The verifier's message ends with a trace on tab-indented lines: one line here.
        let text = e.to_string();
        TfliteError::Flatbuffer(text.split_whitespace().collect::<Vec<_>>().join(" "))
    })
}

/// Reads and checks a model. Refuses the parts of the format TFLM cannot run and that
/// memplan could not carry over: data stored after the flatbuffer (`Buffer.offset`/`size`,
/// `Operator.large_custom_options_*`, `Model.external_buffers`, the > 2 GB extensions).
pub fn read(bytes: &[u8]) -> Result<Model<'_>, TfliteError> {
    from_root(verified(bytes)?)
}

/// [`read`] from a root the verifier has already passed.
pub(crate) fn from_root(root: schema::Model<'_>) -> Result<Model<'_>, TfliteError> {
    if root.external_buffer_count() > 0 {
        return Err(TfliteError::External(
            "the model lists external buffers (Model.external_buffers)".into(),
        ));
    }
    let operator_codes: Vec<i32> = root
        .operator_codes()
        .map(|v| v.iter().map(|c| c.builtin_code()).collect())
        .unwrap_or_default();
    let mut buffers = Vec::new();
    for (i, b) in root.buffers().into_iter().flatten().enumerate() {
        let (offset, size) = b.external();
        if offset > 1 || size > 1 {
            return Err(TfliteError::External(format!(
                "buffer {i} keeps its data outside the flatbuffer (offset {offset}, size {size})"
            )));
        }
        buffers.push(BufferData { data: b.data() });
    }
    let mut metadata = Vec::new();
    for (i, m) in root.metadata().into_iter().flatten().enumerate() {
        let entry = MetadataEntry {
            name: text(m.name()),
            buffer: m.buffer(),
        };
        if entry.buffer as usize >= buffers.len() {
            return Err(invalid(
                format!("metadata {i} ('{}')", entry.name),
                format!(
                    "buffer {} past the end ({} buffers)",
                    entry.buffer,
                    buffers.len()
                ),
            ));
        }
        metadata.push(entry);
    }
    let graphs = root
        .subgraphs()
        .ok_or_else(|| invalid("the model".into(), "no subgraphs"))?;
    if graphs.is_empty() {
        return Err(invalid("the model".into(), "no subgraphs"));
    }
    let mut subgraphs = Vec::with_capacity(graphs.len());
    for (s, g) in graphs.iter().enumerate() {
        subgraphs.push(subgraph(
            s,
            g,
            &operator_codes,
            graphs.len(),
            buffers.len(),
        )?);
    }
    Ok(Model {
        version: root.version(),
        operator_codes,
        subgraphs,
        buffers,
        metadata,
    })
}

fn ints(v: Option<flatbuffers::Vector<'_, i32>>) -> Vec<i32> {
    v.map(|v| v.iter().collect()).unwrap_or_default()
}

/// Checks that every index in `indices` names one of `count` tensors (-1 allowed when
/// `optional`).
fn check_tensors(
    at: &str,
    indices: &[i32],
    count: usize,
    optional: bool,
) -> Result<(), TfliteError> {
    for (n, &t) in indices.iter().enumerate() {
        if (t == -1 && optional) || (t >= 0 && (t as usize) < count) {
            continue;
        }
        return Err(invalid(
            format!("{at} {n}"),
            format!("tensor index {t} out of range ({count} tensors)"),
        ));
    }
    Ok(())
}

fn subgraph(
    s: usize,
    g: schema::SubGraph<'_>,
    codes: &[i32],
    subgraph_count: usize,
    buffer_count: usize,
) -> Result<Subgraph, TfliteError> {
    let mut tensors = Vec::new();
    for (t, x) in g.tensors().into_iter().flatten().enumerate() {
        let tensor = Tensor {
            name: text(x.name()),
            shape: x.shape().map(|v| v.iter().collect()),
            tensor_type: x.tensor_type(),
            buffer: x.buffer(),
            is_variable: x.is_variable(),
        };
        if tensor.buffer as usize >= buffer_count {
            return Err(invalid(
                format!("subgraph {s} tensor {t} ('{}')", tensor.name),
                format!(
                    "buffer {} past the end ({buffer_count} buffers)",
                    tensor.buffer
                ),
            ));
        }
        tensors.push(tensor);
    }
    let (inputs, outputs) = (ints(g.inputs()), ints(g.outputs()));
    check_tensors(
        &format!("subgraph {s} input"),
        &inputs,
        tensors.len(),
        false,
    )?;
    check_tensors(
        &format!("subgraph {s} output"),
        &outputs,
        tensors.len(),
        false,
    )?;
    let mut operators = Vec::new();
    for (k, op) in g.operators().into_iter().flatten().enumerate() {
        let at = format!("subgraph {s} operator {k}");
        operators.push(operator(&at, op, codes, subgraph_count, tensors.len())?);
    }
    Ok(Subgraph {
        tensors,
        inputs,
        outputs,
        operators,
    })
}

fn operator(
    at: &str,
    op: schema::Operator<'_>,
    codes: &[i32],
    subgraph_count: usize,
    tensor_count: usize,
) -> Result<Operator, TfliteError> {
    let code = *codes.get(op.opcode_index() as usize).ok_or_else(|| {
        invalid(
            at.to_string(),
            format!(
                "operator code {} out of range ({} codes)",
                op.opcode_index(),
                codes.len()
            ),
        )
    })?;
    let (off, size) = op.large_custom_options();
    if off != 0 || size != 0 {
        return Err(TfliteError::External(format!(
            "{at} keeps its custom options outside the flatbuffer (offset {off}, size {size})"
        )));
    }
    let (inputs, outputs) = (ints(op.inputs()), ints(op.outputs()));
    check_tensors(&format!("{at} input"), &inputs, tensor_count, true)?;
    check_tensors(&format!("{at} output"), &outputs, tensor_count, false)?;
    let expected = match code {
        OP_IF => Some(("IF", "IfOptions", schema::OPTIONS_IF)),
        OP_WHILE => Some(("WHILE", "WhileOptions", schema::OPTIONS_WHILE)),
        OP_CALL_ONCE => Some(("CALL_ONCE", "CallOnceOptions", schema::OPTIONS_CALL_ONCE)),
        _ => None,
    };
    let mut calls = Vec::new();
    if let Some((name, options, kind)) = expected {
        let (found, first, second) = op.called_subgraphs();
        if found != kind || first.is_none() {
            return Err(invalid(
                at.to_string(),
                format!("{name} without {options} (builtin_options type {found})"),
            ));
        }
        // TFLM skips an index of -1 and follows any other.
        for index in [first, second].into_iter().flatten().filter(|&i| i != -1) {
            if index < 0 || index as usize >= subgraph_count {
                return Err(invalid(
                    at.to_string(),
                    format!("{name} calls subgraph {index} ({subgraph_count} subgraphs)"),
                ));
            }
            calls.push(index as usize);
        }
    }
    Ok(Operator {
        code,
        inputs,
        outputs,
        calls,
    })
}

impl Model<'_> {
    /// The tensors of every subgraph, concatenated: the order of TFLM's offline plan.
    pub fn tensor_count(&self) -> usize {
        self.subgraphs.iter().map(|g| g.tensors.len()).sum()
    }

    /// The metadata entries named exactly [`OFFLINE_PLAN_NAME`], by position.
    pub fn offline_plan_entries(&self) -> Vec<usize> {
        (0..self.metadata.len())
            .filter(|&i| self.metadata[i].name == OFFLINE_PLAN_NAME)
            .collect()
    }

    /// The offline plan TFLM would use (the last entry so named, as TFLM reads them):
    /// the buffer index and its offsets, one per tensor of every subgraph, -1 for
    /// "planned by TFLM". `None` when the model has none.
    pub fn offline_plan(&self) -> Option<Result<(u32, Vec<i32>), TfliteError>> {
        let &entry = self.offline_plan_entries().last()?;
        let buffer = self.metadata[entry].buffer;
        let data = self.buffers[buffer as usize].data.unwrap_or_default();
        let bad = |what: String| invalid(format!("metadata {entry} ('{OFFLINE_PLAN_NAME}')"), what);
        let words: Vec<i32> = data
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if !data.len().is_multiple_of(4) || words.len() < 3 {
            return Some(Err(bad(format!(
                "buffer {buffer} holds {} bytes, not a header of 3 int32 and an offset per tensor",
                data.len()
            ))));
        }
        let n = words[2];
        if n < 0 || n as usize != words.len() - 3 {
            return Some(Err(bad(format!(
                "declares {n} offsets but buffer {buffer} holds {}",
                words.len() - 3
            ))));
        }
        Some(Ok((buffer, words[3..].to_vec())))
    }
}
