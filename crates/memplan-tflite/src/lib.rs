//! memplan for TensorFlow Lite for Microcontrollers (TFLM): reads a `.tflite` model,
//! derives each tensor's lifetime as TFLM's allocator does, plans the arena with
//! memplan, and writes a copy of the model whose `OfflineMemoryAllocation` metadata
//! tells TFLM where each tensor goes.
//!
//! # TFLM's model of the arena
//!
//! TFLM runs a model out of one `tensor_arena`. Its *head* holds the tensors that are
//! neither constants nor variables, planned once at start-up; its *tail* holds persistent
//! allocations (TFLM's own structures, variable tensors, kernel data). memplan plans the
//! head. The rules below are those of TFLM's `micro_allocation_info.cc`,
//! `micro_allocator.cc` and `memory_helpers.cc`, as of the sources read for this crate:
//!
//! - **Which tensors.** TFLM places a tensor in the head when its data is still null
//!   once the kernels are prepared, it is not a variable, and its size is not zero
//!   (`lifetimes.rs` quotes the rule). So a tensor is planned when its buffer has no data
//!   (a buffer with bytes makes it a constant, read from the model), it is not a
//!   variable (variables live in the tail), it is not an output of `VAR_HANDLE` (whose
//!   `Prepare` points it at the resource id in persistent memory), and its size is not
//!   zero. Its size is the product of its `shape` (1 for a scalar) times its element
//!   size (1 for INT8, UINT8, BOOL and INT4, which TFLM keeps one per byte; 2, 4, 8 or 16
//!   for the others; STRING, VARIANT and the sub-byte or 8-bit float types cannot be
//!   allocated).
//! - **Alignment.** The head starts at a multiple of 16, and every size is rounded up to
//!   16 (`MicroArenaBufferAlignment()`); memplan plans the rounded sizes at offsets that
//!   are multiples of 16.
//! - **Lifetimes.** One counter of *allocation scopes* runs over the whole model,
//!   starting at 0 in subgraph 0:
//!   - a subgraph's inputs are created and used at the scope in which it is entered;
//!   - each operator opens a new scope; its outputs are created in it; then the
//!     subgraphs it calls are marked (each call opens a scope of its own first); then its
//!     inputs (except -1, an omitted optional input) and its outputs are used at the
//!     current scope, which is past the called subgraphs;
//!   - a subgraph's outputs are created (if not yet) and used at the current scope once
//!     its operators are marked: its last operator's (or, with no operator, the scope
//!     it was entered in).
//!
//!   A tensor lives from the first scope that creates it to the last that uses it,
//!   **both included**. memplan's half-open lifetime is `[first + 1, last + 2)`: TFLM's
//!   "never reached" (-1) becomes time 0, so that such tensors overlap only each other,
//!   as in TFLM's planner.
//! - **Several subgraphs.** Only subgraph 0 is entered directly. `IF` calls its then and
//!   else subgraphs, `WHILE` its cond and body, `CALL_ONCE` its init subgraph, each one
//!   marked once per calling operator, in that order. The offline plan lists the tensors
//!   of every subgraph, concatenated in subgraph order. A subgraph that calls itself,
//!   directly or not, is refused (TFLM would recurse without end).
//!
//! ```text
//!   scope:      0        1          2
//!   subgraph 0: in ──── CONV ──► a ─ ADD ──► b   (b: the subgraph's output)
//!               in: [0,1]   a: [1,2]     b: [2,2]   → memplan: [1,3) [2,4) [3,4)
//! ```
//!
//! # The offline plan
//!
//! A metadata entry named `OfflineMemoryAllocation` points at a buffer of int32 words:
//! `[version = 1, number of subgraphs, n, offset of tensor 0, …, offset of tensor n−1]`,
//! with `n` the number of tensors over all subgraphs and -1 for "planned by TFLM". TFLM
//! places every tensor that has an offset there, relative to the head's start, without
//! checking the plan, and plans the rest (kernel scratch buffers, requested at run time)
//! around them. memplan gives an offset to every planned tensor and -1 to the others,
//! checks the plan with memplan's independent checker before writing it, and checks the
//! written file again by reading it back.
//!
//! # Kernel scratch buffers
//!
//! Kernels request scratch space at start-up, which TFLM places online around the
//! offline plan (the format has no slot for it). The plan leaves room for the requests
//! it can predict, as buffers live while their operator runs, so that TFLM finds a hole
//! instead of growing the head: those of TFLM's reference kernels, and any a user adds
//! for another kernel library ([`ScratchOptions`], `scratch.rs`).
//!
//! The arena a user must reserve is the head (the plan's height, scratch room included)
//! plus TFLM's persistent allocations (the tail).
//!
//! # In-place operators
//!
//! TFLM shares nothing on its own, but it places tensors where the offline plan says
//! without checking for overlap. With [`PlanOptions::in_place`] (off by default) an
//! operator's output may take over the storage of an input that dies there, for the
//! operators whose reference kernels read `in[i]` before they write `out[i]` (ADD, MUL,
//! RELU, RELU6, LOGISTIC, TANH, HARD_SWISH, QUANTIZE int8, and RESHAPE, which then skips
//! its copy). `inplace.rs` states the rules and the kernels they were read from. The
//! written plan shares only when that lowers the head.

#![deny(missing_docs)]

mod error;
/// The fuzz target's body (feature `fuzzing`).
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod inplace;
mod lifetimes;
pub mod model;
mod schema;
mod scratch;
mod write;

pub use error::TfliteError;
pub use inplace::{in_place_operator, InPlacePair, InPlaceReport, IN_PLACE_OPERATORS};
pub use lifetimes::{element_size, TensorKind, TensorLife, ARENA_ALIGNMENT};
pub use scratch::{reference_requests, Scratch, ScratchOptions, ScratchRequest};

use memplan::{Buffer, Offset, Outcome, Problem, Report, Size};

/// The offline plan's format version (the first word).
pub const OFFLINE_PLAN_VERSION: i32 = 1;

/// The first tflite-micro commit that reads the offline plan of a model with several
/// subgraphs as memplan writes it: e60e8ca, 2023-03-29, "Add support for offline planning
/// in case of multiple subgraphs" (tflite-micro PR 1195). From 8c41f96 (2022-03-01, which
/// planned every subgraph) until then, TFLM read each subgraph's offsets from the start
/// of the plan again (`offline_offsets[i]` in `micro_allocation_info.cc`), misplacing the
/// tensors of subgraphs 1 and later. A model of one subgraph is read right by every
/// tflite-micro (docs/tflite-micro.md).
pub const MULTI_SUBGRAPH_TFLM: &str = "tflite-micro e60e8ca (2023-03-29)";

/// What the doors say once about a model of several subgraphs: the TFLM version it needs
/// ([`MULTI_SUBGRAPH_TFLM`]).
pub fn multi_subgraph_note() -> String {
    format!(
        "a model of several subgraphs (IF, WHILE, CALL_ONCE): TFLM reads its offline plan \
         right from {MULTI_SUBGRAPH_TFLM} on; an older TFLM (or a vendor fork of one) \
         misplaces the tensors of subgraphs 1 and later (docs/tflite-micro.md)"
    )
}

/// A model's tensors as memplan's problem.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// How many subgraphs the model has.
    pub subgraphs: usize,
    /// Every tensor of the model, in offline-plan order.
    pub tensors: Vec<TensorLife>,
    /// The kernel scratch requests the plan leaves room for (see [`ScratchOptions`]).
    pub scratch: Vec<Scratch>,
    /// The planned tensors as buffers, then the scratch requests: ids are tensor names
    /// (made unique) and `scratch:S:K:N` (the N-th request of operator K of subgraph S);
    /// sizes are rounded up to 16 and offsets must be multiples of 16.
    pub problem: Problem,
    /// For each tensor buffer of `problem` (the first `tensor_of.len()`), the index of
    /// its tensor in `tensors`.
    pub tensor_of: Vec<usize>,
    /// The offline plan the model already carries, if any: its buffer and offsets.
    pub existing_plan: Option<(u32, Vec<i32>)>,
    /// The operators' outputs that may take over an input's storage (`inplace.rs`), found
    /// whether or not in-place planning is asked for.
    pub in_place: Vec<InPlacePair>,
}

impl Analysis {
    /// The max load of the tensors alone, without the scratch room: the most bytes of
    /// tensors TFLM keeps live at one step.
    pub fn tensor_max_load(&self) -> u64 {
        let tensors = &self.problem.buffers()[..self.tensor_of.len()];
        Problem::new(tensors.to_vec()).map_or(0, |p| memplan::max_load(&p).get())
    }

    /// The in-place pairs as optional shares of [`Analysis::problem`]'s buffers: each
    /// output in place of its input.
    pub fn shares(&self) -> Result<Vec<memplan::Share>, TfliteError> {
        inplace::shares(self.problem.buffers(), &self.tensor_of, &self.in_place)
    }

    /// [`Analysis::problem`] with [`Analysis::shares`] declared.
    pub fn problem_in_place(&self) -> Result<Problem, TfliteError> {
        Problem::with_shares(self.problem.buffers().to_vec(), self.shares()?)
            .map_err(|e| TfliteError::Internal(e.to_string()))
    }

    /// [`check_offsets`] for this model; with `in_place`, an output may also overlap an
    /// input whose storage it may take ([`Analysis::in_place`]).
    pub fn check_offsets(&self, offsets: &[i32], in_place: bool) -> Result<u64, TfliteError> {
        let pairs: &[InPlacePair] = if in_place { &self.in_place } else { &[] };
        check_offsets_with(&self.tensors, offsets, pairs)
    }
}

/// Reads a model and derives the problem TFLM's planner solves, with room for the
/// reference kernels' scratch requests.
pub fn analyze(bytes: &[u8]) -> Result<Analysis, TfliteError> {
    analyze_with(bytes, &ScratchOptions::default())
}

/// [`analyze`], leaving room for the scratch requests `scratch` names.
pub fn analyze_with(bytes: &[u8], scratch: &ScratchOptions) -> Result<Analysis, TfliteError> {
    analysis_of(&read(bytes)?, scratch)
}

/// A model read once: its verified root (for the writer), the model as values, and
/// TFLM's view of its tensors and operators.
struct Read<'a> {
    root: schema::Model<'a>,
    model: model::Model<'a>,
    tensors: Vec<TensorLife>,
    visits: lifetimes::Visits,
}

fn read(bytes: &[u8]) -> Result<Read<'_>, TfliteError> {
    let root = model::verified(bytes)?;
    let model = model::from_root(root)?;
    let (tensors, visits) = lifetimes::derive_with_visits(&model)?;
    Ok(Read {
        root,
        model,
        tensors,
        visits,
    })
}

fn analysis_of(read: &Read<'_>, scratch: &ScratchOptions) -> Result<Analysis, TfliteError> {
    let (model, tensors) = (&read.model, &read.tensors);
    for r in &scratch.extra {
        let count = model.subgraphs.get(r.subgraph).map(|g| g.operators.len());
        let what = match count {
            None => format!(
                "the model has {}",
                counted(model.subgraphs.len(), "subgraph")
            ),
            Some(n) if r.operator >= n => {
                format!("subgraph {} has {}", r.subgraph, counted(n, "operator"))
            }
            _ if r.bytes == 0 || r.bytes > i32::MAX as u64 => {
                "BYTES must be between 1 and 2^31 - 1 (TFLM's sizes are 32-bit)".into()
            }
            _ => continue,
        };
        return Err(TfliteError::Scratch {
            request: format!("{}:{}:{}", r.subgraph, r.operator, r.bytes),
            what,
        });
    }
    let scratch = scratch::requests(model, &read.visits, scratch);
    let existing_plan = model.offline_plan().transpose()?;
    let (mut buffers, tensor_of) = tensor_buffers(tensors);
    let mut seen = std::collections::HashMap::new();
    for r in &scratch {
        let n = seen.entry((r.subgraph, r.operator)).or_insert(0usize);
        let id = format!("scratch:{}:{}:{n}", r.subgraph, r.operator);
        *n += 1;
        let bytes = r.bytes.div_ceil(ARENA_ALIGNMENT) * ARENA_ALIGNMENT;
        buffers.push(
            Buffer::new(id, (r.first + 1) as u64, (r.last + 2) as u64, bytes)
                .with_alignment(ARENA_ALIGNMENT),
        );
    }
    let problem = Problem::new(buffers).map_err(|e| TfliteError::Internal(e.to_string()))?;
    Ok(Analysis {
        subgraphs: model.subgraphs.len(),
        tensors: tensors.clone(),
        scratch,
        problem,
        tensor_of,
        existing_plan,
        in_place: inplace::pairs(model, tensors, &read.visits),
    })
}

/// `n` and `what`, plural when `n` is not 1: "1 subgraph", "65 operators" (the numbers
/// 0 to n-1 name them).
fn counted(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what} (number 0)"),
        0 => format!("no {what}s"),
        n => format!("{n} {what}s (0 to {})", n - 1),
    }
}

/// Unique buffer ids from tensor names: the name itself, or `name#index` when the name
/// is empty or repeats (the index is the tensor's place in the offline plan).
fn ids(tensors: &[&TensorLife]) -> Vec<String> {
    let mut count = std::collections::HashMap::new();
    for t in tensors {
        *count.entry(t.name.as_str()).or_insert(0usize) += 1;
    }
    let mut taken = std::collections::HashSet::new();
    tensors
        .iter()
        .map(|t| {
            let id = if t.name.is_empty() || count[t.name.as_str()] > 1 {
                format!("{}#{}", t.name, t.index)
            } else {
                t.name.clone()
            };
            // `name#index` could itself be another tensor's name.
            let mut id = id;
            while !taken.insert(id.clone()) {
                id.push('\'');
            }
            id
        })
        .collect()
}

/// The tensors TFLM plans as buffers, and each one's tensor index.
fn tensor_buffers(tensors: &[TensorLife]) -> (Vec<Buffer>, Vec<usize>) {
    let planned: Vec<&TensorLife> = tensors
        .iter()
        .filter(|t| t.kind == TensorKind::Planned)
        .collect();
    let buffers = ids(&planned)
        .into_iter()
        .zip(&planned)
        .map(|(id, t)| {
            Buffer::new(
                id,
                (t.first + 1) as u64,
                (t.last + 2) as u64,
                t.aligned_bytes(),
            )
            .with_alignment(ARENA_ALIGNMENT)
        })
        .collect();
    (buffers, planned.iter().map(|t| t.index).collect())
}

/// The tensors TFLM plans as a problem, with the in-place `pairs` as optional shares.
fn problem(
    tensors: &[TensorLife],
    pairs: &[InPlacePair],
) -> Result<(Problem, Vec<usize>), TfliteError> {
    let (buffers, tensor_of) = tensor_buffers(tensors);
    let shares = inplace::shares(&buffers, &tensor_of, pairs)?;
    let problem =
        Problem::with_shares(buffers, shares).map_err(|e| TfliteError::Internal(e.to_string()))?;
    Ok((problem, tensor_of))
}

/// What [`plan_model`] does.
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// The goal (minimise the head, or fit it under a capacity) and the budget, as for
    /// [`memplan::plan`].
    pub request: memplan::Request,
    /// The planner and its techniques, as for [`memplan::plan`].
    pub plan: memplan::Options,
    /// Replace an offline plan the model already has (otherwise it is an error).
    pub replace_existing: bool,
    /// The kernel scratch requests to leave room for.
    pub scratch: ScratchOptions,
    /// Let an operator's output take over the storage of an input that dies there, for
    /// the operators whose TFLM reference kernels allow it (`inplace.rs`). Off by
    /// default: other kernel libraries (CMSIS-NN, ESP-NN, Xtensa) were not checked. The
    /// plan written shares only when that lowers the head below the plan without
    /// sharing, which is planned too.
    pub in_place: bool,
}

/// A planned model.
#[derive(Debug)]
pub struct PlannedModel {
    /// The new file: the model with its offline plan.
    pub bytes: Vec<u8>,
    /// The model's tensors and problem.
    pub analysis: Analysis,
    /// The planner's report; its outcome holds the plan.
    pub report: Report,
    /// The offline plan's offsets, one per tensor (-1: not planned).
    pub offsets: Vec<i32>,
    /// The plan's height: the head bytes TFLM needs for these tensors and the scratch
    /// requests room was left for.
    pub height: u64,
    /// The plan is proven minimal (its height is the max load).
    pub optimal: bool,
    /// The model already had an offline plan, which this one replaces.
    pub replaced: bool,
    /// With [`PlanOptions::in_place`]: the shares taken and the bytes saved.
    pub in_place: Option<InPlaceReport>,
}

/// Plans a model and writes its offline plan. The plan passes memplan's checker before
/// it is written, and the written file is read back and checked again: same tensors,
/// operators, buffers and metadata, and the plan it carries valid for its lifetimes.
pub fn plan_model(bytes: &[u8], options: &PlanOptions) -> Result<PlannedModel, TfliteError> {
    let read = read(bytes)?;
    let analysis = analysis_of(&read, &options.scratch)?;
    if let (Some((buffer, _)), false) = (&analysis.existing_plan, options.replace_existing) {
        return Err(TfliteError::HasPlan { buffer: *buffer });
    }
    let capacity = options.request.capacity();
    let (report, target, in_place) = if options.in_place {
        inplace::plan(&analysis, &options.request, &options.plan)?
    } else {
        let report = memplan::plan(&analysis.problem, &options.request, &options.plan)?;
        (report, analysis.problem.clone(), None)
    };
    let target = &target;
    let (plan, optimal) = match &report.outcome {
        Outcome::Optimal(p) => (p.clone(), true),
        Outcome::Feasible { plan, .. } => (plan.clone(), false),
        Outcome::Infeasible | Outcome::Unknown { .. } => {
            return Err(TfliteError::NoFit {
                capacity: capacity.map_or(0, Size::get),
                max_load: report.max_load.get(),
                proven: matches!(report.outcome, Outcome::Infeasible),
            })
        }
    };
    memplan::check(target, &plan, capacity).map_err(|f| TfliteError::Check(f.to_string()))?;
    let height = plan.height().get();
    if height > i32::MAX as u64 {
        return Err(TfliteError::Unsupported {
            at: "the plan".into(),
            what: format!("height {height} does not fit TFLM's 32-bit offsets"),
        });
    }
    let mut offsets = vec![-1i32; analysis.tensors.len()];
    for (b, &t) in analysis.tensor_of.iter().enumerate() {
        offsets[t] = plan.offsets()[b].get() as i32;
    }
    let out = write_read(
        bytes,
        &read,
        &offsets,
        options.replace_existing,
        options.in_place,
    )?;
    Ok(PlannedModel {
        bytes: out,
        replaced: analysis.existing_plan.is_some(),
        analysis,
        report,
        offsets,
        height,
        optimal,
        in_place,
    })
}

/// Writes `offsets` (one per tensor, -1 for TFLM's choice) as the model's offline plan
/// after checking them against the model's lifetimes, then reads the new file back and
/// checks it: the same model, and the same plan, valid. `replace` allows replacing an
/// existing plan. No two tensors live at the same time may overlap (see
/// [`write_plan_in_place`]). This and [`write_plan_in_place`] are the only ways this
/// crate writes a plan.
pub fn write_plan(bytes: &[u8], offsets: &[i32], replace: bool) -> Result<Vec<u8>, TfliteError> {
    write_read(bytes, &read(bytes)?, offsets, replace, false)
}

/// [`write_plan`], where an operator's output may also overlap an input whose storage it
/// may take (its in-place pairs, [`Analysis::in_place`]), at the input's offset.
pub fn write_plan_in_place(
    bytes: &[u8],
    offsets: &[i32],
    replace: bool,
) -> Result<Vec<u8>, TfliteError> {
    write_read(bytes, &read(bytes)?, offsets, replace, true)
}

/// [`write_plan`] for a model already read from `bytes`.
fn write_read(
    bytes: &[u8],
    read: &Read<'_>,
    offsets: &[i32],
    replace: bool,
    in_place: bool,
) -> Result<Vec<u8>, TfliteError> {
    let model = &read.model;
    let pairs = if in_place {
        inplace::pairs(model, &read.tensors, &read.visits)
    } else {
        Vec::new()
    };
    check_offsets_with(&read.tensors, offsets, &pairs)?;
    let entries = model.offline_plan_entries();
    if !entries.is_empty() && !replace {
        let buffer = model.metadata[entries[entries.len() - 1]].buffer;
        return Err(TfliteError::HasPlan { buffer });
    }
    let mut words = vec![
        OFFLINE_PLAN_VERSION,
        model.subgraphs.len() as i32,
        offsets.len() as i32,
    ];
    words.extend_from_slice(offsets);
    let reuse_buffer = reusable_buffer(model, &entries);
    // One plan to replace, of the same length, in a buffer of its own: overwrite its
    // words where they are, and the file keeps its size and layout.
    if let (Some(b), [_]) = (reuse_buffer, entries.as_slice()) {
        let data = model.buffers[b as usize].data.unwrap_or_default();
        if let Some(out) = write::in_place(bytes, data, &words) {
            verify_written(model, &out, b, model.metadata.clone(), offsets, in_place)?;
            return Ok(out);
        }
    }
    let edit = write::Edit {
        words: &words,
        reuse_buffer,
        drop_metadata: &entries,
    };
    let out = write::with_plan(bytes, &read.root, &edit)?;
    let plan_buffer = reuse_buffer.unwrap_or(model.buffers.len() as u32);
    // The metadata the new file must have: the entries kept, then the plan's.
    let mut metadata: Vec<model::MetadataEntry> = (0..model.metadata.len())
        .filter(|i| !entries.contains(i))
        .map(|i| model.metadata[i].clone())
        .collect();
    metadata.push(model::MetadataEntry {
        name: model::OFFLINE_PLAN_NAME.into(),
        buffer: plan_buffer,
    });
    verify_written(model, &out, plan_buffer, metadata, offsets, in_place)?;
    Ok(out)
}

/// The buffer of the plan being replaced, when nothing else refers to it (then the new
/// plan takes its slot instead of growing the buffers).
fn reusable_buffer(model: &model::Model<'_>, entries: &[usize]) -> Option<u32> {
    let &last = entries.last()?;
    let b = model.metadata[last].buffer;
    let used_by_tensor = model
        .subgraphs
        .iter()
        .any(|g| g.tensors.iter().any(|t| t.buffer == b));
    let used_by_other = model
        .metadata
        .iter()
        .enumerate()
        .any(|(i, m)| m.buffer == b && m.name != model::OFFLINE_PLAN_NAME && i != last);
    (b != 0 && !used_by_tensor && !used_by_other).then_some(b)
}

/// The tensors' placements as a memplan problem and plan, checked by memplan's
/// independent checker: every planned tensor has an offset (a multiple of 16), and no
/// two tensors live at the same time overlap.
pub fn check_offsets(tensors: &[TensorLife], offsets: &[i32]) -> Result<u64, TfliteError> {
    check_offsets_with(tensors, offsets, &[])
}

/// [`check_offsets`], where each output of `pairs` may also overlap its input, at its
/// input's offset (memplan's checker applies the in-place rule).
fn check_offsets_with(
    tensors: &[TensorLife],
    offsets: &[i32],
    pairs: &[InPlacePair],
) -> Result<u64, TfliteError> {
    if offsets.len() != tensors.len() {
        return Err(TfliteError::Check(format!(
            "{} offsets for {} tensors",
            offsets.len(),
            tensors.len()
        )));
    }
    // TFLM moves a variable with an offset into the head, where it loses its state
    // between invocations; constants and empty tensors ignore theirs. Only -1 is written.
    if let Some(t) = tensors
        .iter()
        .find(|t| t.kind != TensorKind::Planned && offsets[t.index] != -1)
    {
        return Err(TfliteError::Check(format!(
            "tensor {} ('{}') is {:?}, not planned, but has offset {}",
            t.index, t.name, t.kind, offsets[t.index]
        )));
    }
    let (problem, tensor_of) = problem(tensors, pairs)?;
    let mut placed = Vec::with_capacity(tensor_of.len());
    for (b, &t) in tensor_of.iter().enumerate() {
        let o = offsets[t];
        if o < 0 {
            return Err(TfliteError::Check(format!(
                "tensor {t} ('{}') is planned by TFLM but has offset {o}",
                problem.buffers()[b].id
            )));
        }
        placed.push(Offset(o as u64));
    }
    let plan = memplan::Plan::new(&problem, placed)
        .ok_or_else(|| TfliteError::Check("the plan does not match the tensors".into()))?;
    memplan::check(&problem, &plan, None).map_err(|f| TfliteError::Check(f.to_string()))?;
    Ok(plan.height().get())
}

/// Reads `out` back: the same model except for the plan's buffer, with `metadata`, and
/// the plan it carries is `offsets`, valid for its own lifetimes.
fn verify_written(
    before: &model::Model<'_>,
    out: &[u8],
    plan_buffer: u32,
    metadata: Vec<model::MetadataEntry>,
    offsets: &[i32],
    in_place: bool,
) -> Result<(), TfliteError> {
    let after = model::read(out).map_err(|e| TfliteError::Internal(format!("re-read: {e}")))?;
    let fail = |what: &str| Err(TfliteError::Internal(format!("the written model {what}")));
    if after.version != before.version
        || after.operator_codes != before.operator_codes
        || after.subgraphs != before.subgraphs
    {
        return fail("differs from the original in its subgraphs or operator codes");
    }
    let kept_buffers = (0..before.buffers.len()).filter(|&i| i != plan_buffer as usize);
    if kept_buffers
        .clone()
        .any(|i| after.buffers[i] != before.buffers[i])
        || after.buffers.len() < before.buffers.len()
    {
        return fail("differs from the original in its buffers");
    }
    if after.metadata != metadata {
        return fail("differs from the original in its metadata");
    }
    match after.offline_plan() {
        Some(Ok((b, written))) if b == plan_buffer && written == offsets => {}
        _ => return fail("does not carry the plan"),
    }
    let (tensors, visits) = lifetimes::derive_with_visits(&after)?;
    let pairs = if in_place {
        inplace::pairs(&after, &tensors, &visits)
    } else {
        Vec::new()
    };
    check_offsets_with(&tensors, offsets, &pairs).map(|_| ())
}
