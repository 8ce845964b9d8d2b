//! The one error type of the TFLite door.

/// Why a model could not be read, planned or written. Every message is one line that
/// says where (subgraph, tensor, operator, buffer or metadata entry) and what.
#[derive(Debug, thiserror::Error)]
pub enum TfliteError {
    /// The bytes do not start like a TFLite flatbuffer (no `TFL3` identifier).
    #[error("not a TFLite model (no 'TFL3' file identifier at bytes 4..8)")]
    NotTflite,
    /// The flatbuffer's offsets or lengths are broken (the verifier's message).
    #[error("invalid flatbuffer: {0}")]
    Flatbuffer(String),
    /// An index in the model points nowhere, or the model breaks a rule TFLM relies on.
    #[error("invalid model: {at}: {what}")]
    Invalid {
        /// Where: subgraph, operator, tensor or metadata entry.
        at: String,
        /// What is wrong.
        what: String,
    },
    /// A kernel scratch request ([`crate::ScratchRequest`]) that names no operator of the
    /// model, or asks for no bytes or more than TFLM's 32-bit sizes hold.
    #[error("scratch request {request}: {what}")]
    Scratch {
        /// The request, as `SUBGRAPH:OP:BYTES`.
        request: String,
        /// What is wrong with it.
        what: String,
    },
    /// The file ends before the model does: a flatbuffer offset or length points past its
    /// end.
    #[error("the file is truncated (or an offset in it is corrupt): it has {len} bytes, but the model refers to bytes up to {needed}")]
    Truncated {
        /// The file's length.
        len: usize,
        /// The end of the range read past it.
        needed: usize,
    },
    /// A valid model that TFLM cannot run, or that memplan cannot plan for it.
    #[error("unsupported: {at}: {what}")]
    Unsupported {
        /// Where.
        at: String,
        /// What.
        what: String,
    },
    /// Data stored outside the flatbuffer (the > 2 GB extension): TFLM reads constants
    /// only from `Buffer.data`, and the offsets would not survive the rewrite.
    #[error("unsupported: {0}; TFLM reads only data inside the flatbuffer, so memplan refuses such models")]
    External(String),
    /// The model already has an offline plan and replacing it was not asked for.
    #[error("the model already has an offline plan (metadata 'OfflineMemoryAllocation', buffer {buffer})")]
    HasPlan {
        /// The buffer holding the existing plan.
        buffer: u32,
    },
    /// With a capacity: no plan of the head fits under it.
    #[error("no plan fits the head under {capacity} bytes{}: the max load is {max_load}", if *proven { "" } else { " was found" })]
    NoFit {
        /// The capacity asked for.
        capacity: u64,
        /// The tensors' max load.
        max_load: u64,
        /// Proven impossible (max load above the capacity), not just not found.
        proven: bool,
    },
    /// The planner failed.
    #[error("planning failed: {0}")]
    Plan(#[from] memplan::PlanError),
    /// A plan failed memplan's checker; nothing was written.
    #[error("the plan fails the checker, nothing written: {0}")]
    Check(String),
    /// A bug in memplan: an internal consistency check failed.
    #[error("internal error: {0}")]
    Internal(String),
}
