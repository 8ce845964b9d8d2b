//! Typed errors. Every message is one line, lowercase, and quotes the offending input.

use thiserror::Error;

use crate::units::{Lifetime, Offset, Size};

/// A rule of [`crate::Problem::new`] that a buffer breaks.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("buffer '{}' (#{index}): {kind}", Escaped(id))]
pub struct ProblemError {
    /// Position of the offending buffer in the input.
    pub index: usize,
    /// Its id.
    pub id: String,
    /// What is wrong.
    pub kind: ProblemErrorKind,
}

/// What is wrong with a buffer.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProblemErrorKind {
    /// Size 0.
    #[error("size must be at least 1")]
    ZeroSize,
    /// `start >= end`.
    #[error("lifetime {lifetime} is empty: start must be before end")]
    EmptyLifetime {
        /// The lifetime as given.
        lifetime: Lifetime,
    },
    /// Alignment 0.
    #[error("alignment must be at least 1")]
    ZeroAlignment,
    /// A fixed offset that is not a multiple of the alignment.
    #[error("fixed offset {offset} is not a multiple of alignment {alignment}")]
    MisalignedFixedOffset {
        /// The fixed offset.
        offset: Offset,
        /// The alignment.
        alignment: Size,
    },
    /// Another buffer has the same id.
    #[error("duplicate id: buffer #{first_index} has the same id")]
    DuplicateId {
        /// The first buffer with this id.
        first_index: usize,
    },
    /// A gap with `start >= end`.
    #[error("gap {gap} is empty")]
    EmptyGap {
        /// The gap.
        gap: Lifetime,
    },
    /// A gap that is not inside the lifetime.
    #[error("gap {gap} is outside the lifetime {lifetime}")]
    GapOutsideLifetime {
        /// The gap.
        gap: Lifetime,
        /// The buffer's lifetime.
        lifetime: Lifetime,
    },
    /// Two gaps of the same buffer overlap.
    #[error("gaps {first} and {second} overlap")]
    GapsOverlap {
        /// The earlier gap.
        first: Lifetime,
        /// The later gap.
        second: Lifetime,
    },
    /// Offsets and sizes would not fit in 64 bits.
    #[error("sizes, alignments and fixed offsets overflow 64-bit addresses")]
    Overflow,
    /// Two fixed buffers overlap in time and address.
    #[error("fixed placement overlaps fixed buffer '{other}' in time and address")]
    FixedOverlap {
        /// The other fixed buffer.
        other: String,
    },
    /// More than `u32::MAX` buffers.
    #[error("more than 4,294,967,295 buffers")]
    TooManyBuffers,
    /// A share names a target that is not a buffer of the problem.
    #[error(
        "shares the storage of '{}', which is not a buffer of the problem",
        Escaped(target)
    )]
    ShareUnknownTarget {
        /// The target's id.
        target: String,
    },
    /// A share names a buffer that is not in the problem (the error's index is the
    /// share's position in the list of shares).
    #[error("is not a buffer of the problem, but share #{share} names it")]
    ShareUnknownBuffer {
        /// The share's position.
        share: usize,
    },
    /// A buffer shares its own storage.
    #[error("shares storage with itself")]
    ShareWithItself,
    /// The same share is declared twice.
    #[error("declares the same share of '{}' twice", Escaped(target))]
    DuplicateShare {
        /// The target's id.
        target: String,
    },
    /// A share's offset would misalign the buffer.
    #[error(
        "share offset {offset} into '{}' is not a multiple of alignment {alignment}",
        Escaped(target)
    )]
    MisalignedShare {
        /// The target's id.
        target: String,
        /// The share's offset.
        offset: Offset,
        /// The buffer's alignment.
        alignment: Size,
    },
    /// An inside share does not fit in its target.
    #[error(
        "inside '{}' at +{offset} with size {size} ends past its size {target_size}",
        Escaped(target)
    )]
    ShareOutsideTarget {
        /// The target's id.
        target: String,
        /// The share's offset.
        offset: Offset,
        /// The buffer's size.
        size: Size,
        /// The target's size.
        target_size: Size,
    },
    /// This memplan was built without the `shares` feature (the lean C library).
    #[error("declares a share, but this memplan was built without shares (the lean build)")]
    SharesNotBuilt,
    /// A required share breaks its lifetime rule, or required shares contradict each other.
    #[error("required share of '{}' cannot hold: {reason}", Escaped(target))]
    RequiredShareCannotHold {
        /// The target's id.
        target: String,
        /// Why, naming the times or the buffers.
        reason: String,
    },
}

impl ProblemErrorKind {
    /// The input field the rule is about, as named in memplan's CSV format.
    pub fn field(&self) -> &'static str {
        match self {
            ProblemErrorKind::ZeroSize | ProblemErrorKind::Overflow => "size",
            ProblemErrorKind::EmptyLifetime { .. } => "upper",
            ProblemErrorKind::ZeroAlignment => "alignment",
            ProblemErrorKind::MisalignedFixedOffset { .. }
            | ProblemErrorKind::FixedOverlap { .. } => "offset",
            ProblemErrorKind::DuplicateId { .. } | ProblemErrorKind::TooManyBuffers => "id",
            ProblemErrorKind::EmptyGap { .. }
            | ProblemErrorKind::GapOutsideLifetime { .. }
            | ProblemErrorKind::GapsOverlap { .. } => "gaps",
            ProblemErrorKind::ShareUnknownTarget { .. }
            | ProblemErrorKind::ShareUnknownBuffer { .. }
            | ProblemErrorKind::ShareWithItself
            | ProblemErrorKind::DuplicateShare { .. }
            | ProblemErrorKind::MisalignedShare { .. }
            | ProblemErrorKind::ShareOutsideTarget { .. }
            | ProblemErrorKind::RequiredShareCannotHold { .. }
            | ProblemErrorKind::SharesNotBuilt => "shares",
        }
    }
}

/// An error reading a CSV or JSON file. `line` is 1-based; `column` names the field.
#[derive(Debug, Error)]
#[error("{}{kind}", location(*line, column.as_deref()))]
pub struct ReadError {
    /// The line of the input the error is on (0 when it concerns the whole input).
    pub line: u64,
    /// The column (header name) the error is in, when there is one.
    pub column: Option<String>,
    /// What is wrong.
    pub kind: ReadErrorKind,
}

/// `line L, column 'C': ` for a CSV column; a JSON field's path (`buffers[2].memories`,
/// with a `[`) is written as it is.
fn location(line: u64, column: Option<&str>) -> String {
    match (line, column) {
        (0, None) => String::new(),
        (0, Some(c)) if c.contains('[') => format!("{c}: "),
        (0, Some(c)) => format!("column '{c}': "),
        (l, None) => format!("line {l}: "),
        (l, Some(c)) if c.contains('[') => format!("line {l}, {c}: "),
        (l, Some(c)) => format!("line {l}, column '{c}': "),
    }
}

/// What is wrong with the input text.
#[derive(Debug, Error)]
pub enum ReadErrorKind {
    /// Reading failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The input has no header line.
    #[error("empty input: expected a header line such as 'id,lower,upper,size'")]
    Empty,
    /// A required column is missing.
    #[error("missing column '{}' in the header", Escaped(.0))]
    MissingColumn(&'static str),
    /// A required column is missing, and the header suggests why: another separator
    /// than commas, or an unknown column close to the missing name (a typo).
    #[error("missing column '{}' in the header: {hint}", Escaped(.missing))]
    MissingColumnHint {
        /// The column.
        missing: &'static str,
        /// What the header suggests, for people.
        hint: String,
    },
    /// A column name appears twice (compared case-insensitively).
    #[error("duplicate column '{}' in the header", Escaped(.0))]
    DuplicateColumn(String),
    /// Two different column names give the same field: aliases (`lower` and `start`), or
    /// `upper` (half-open) and `end` (inclusive), which both give the end of the lifetime.
    #[error(
        "columns '{}' and '{}' both give {what}; keep one",
        Escaped(.first),
        Escaped(.second)
    )]
    SameField {
        /// The header name seen first.
        first: String,
        /// The header name seen second.
        second: String,
        /// What both give, e.g. `the end of the lifetime ('upper' half-open, 'end' inclusive)`.
        what: &'static str,
    },
    /// A header field with no name (often a trailing comma).
    #[error("column {0} of the header has no name (a trailing comma?)")]
    EmptyColumnName(usize),
    /// A line with the wrong number of fields.
    #[error("expected {expected} fields as in the header, found {found}")]
    FieldCount {
        /// Fields in the header.
        expected: usize,
        /// Fields on this line.
        found: usize,
    },
    /// A field that is not a valid number.
    #[error("not a non-negative integer: '{}'", Escaped(.0))]
    BadNumber(String),
    /// A number that is too large.
    #[error("number too large for 64 bits: '{}'", Escaped(.0))]
    NumberTooLarge(String),
    /// A malformed gap list.
    #[error("bad gap '{}': expected 'lo-hi' with lo < hi, gaps separated by spaces", Escaped(.0))]
    BadGap(String),
    /// A share entry that is not `kind:target[@offset][!]`.
    #[error("bad share '{}': expected 'in_place:target' or 'inside:target@offset', with '!' for a required one, shares separated by spaces", Escaped(.0))]
    BadShare(String),
    /// An empty id.
    #[error("empty id")]
    EmptyId,
    /// An absurdly long id.
    #[error("id is {0} bytes long; the limit is 4096")]
    IdTooLong(usize),
    /// The text is not valid CSV (e.g. not UTF-8, an unterminated quote).
    #[error("malformed csv: {0}")]
    Csv(String),
    /// The text is not valid JSON.
    #[error("malformed JSON: {0}")]
    Json(String),
    /// A tiled problem's tensor breaks a rule of [`crate::tiles::TiledProblem::new`].
    #[cfg(feature = "tiles")]
    #[error("{0}")]
    Tiles(TileError),
    /// Valid JSON, but a field (`buffers[2].size`) is not what a problem needs.
    #[error("JSON {field}: {message}")]
    JsonField {
        /// Where: `buffers[2].size`, `capacity`, `(top level)`.
        field: String,
        /// What was expected and found, e.g. `expected a non-negative integer, found the
        /// string "0"`.
        message: String,
    },
    /// An inclusive end of `u64::MAX` cannot be made half-open.
    #[error("inclusive end {0} cannot be converted to a half-open end")]
    EndTooLarge(u64),
    /// The buffers break a rule of [`crate::Problem::new`].
    #[error("{0}")]
    Problem(ProblemError),
    /// A plan file names a buffer twice.
    #[error("buffer '{}' is placed twice", Escaped(.0))]
    DuplicatePlacement(String),
    /// A plan file names a buffer the problem does not have.
    #[error("unknown buffer '{}'", Escaped(.0))]
    UnknownBuffer(String),
    /// A plan file leaves a buffer out.
    #[error("buffer '{}' has no offset", Escaped(.0))]
    MissingPlacement(String),
    /// A rule of several memories: a `memplan::memories::MemoriesError`, boxed (this
    /// module sits below the model of several memories; downcast it to match on it).
    #[error("{0}")]
    Memories(Box<dyn std::error::Error + Send + Sync>),
    /// A buffer's set of allowed memories names none (`|` alone, an empty JSON list).
    #[error("the set of memories is empty")]
    EmptyMemorySet,
    /// A problem planned across the memories of its own file has none.
    #[error("no memories: the file has no 'memories' section")]
    NoMemories,
    /// A problem across memories gives a buffer's memory, which is a plan's output.
    #[error("'{}': a buffer's memory is the plan's output; pin it or give its allowed memories in the 'memories' column", Escaped(.0))]
    MemoryIsOutput(String),
    /// A plan's offset + size exceeds 64 bits.
    #[error("offset + size of buffer '{}' overflows 64 bits", Escaped(.0))]
    PlanOverflow(String),
}

/// Why [`crate::plan`] could not run. (A plan that does not fit a capacity is not an
/// error: it is an [`crate::Outcome`].)
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PlanError {
    /// The named planner (or strategy, or order) does not exist.
    #[error("unknown planner '{}' (expected one of: {})", Escaped(.name), .expected.join(", "))]
    UnknownPlanner {
        /// The name given.
        name: String,
        /// The names that exist.
        expected: Vec<String>,
    },
    /// A planner produced a plan that the checker rejects. This is a bug in memplan.
    #[error("internal error: planner '{planner}' produced an invalid plan: {detail}")]
    InvalidPlan {
        /// Which planner.
        planner: String,
        /// The checker's first complaint.
        detail: String,
    },
    /// The storages of the shares taken could not be built (their sizes overflow).
    #[error("shares: {detail}")]
    Shares {
        /// What went wrong.
        detail: String,
    },
}

/// Quoted input in an error message, with control characters escaped (`\u{0}`, `\t`),
/// so that a stray NUL or escape sequence in a file is seen, not swallowed by the
/// terminal.
pub(crate) struct Escaped<'a>(pub(crate) &'a str);

impl std::fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write as _;
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                f.write_char(c)?;
            }
        }
        Ok(())
    }
}

/// A rule of [`crate::tiles::TiledProblem::new`] that a tensor breaks (feature `tiles`).
#[cfg(feature = "tiles")]
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("tensor '{id}' (#{index}): {kind}")]
pub struct TileError {
    /// Position of the tensor in the input.
    pub index: usize,
    /// Its id.
    pub id: String,
    /// What is wrong.
    pub kind: TileErrorKind,
}

/// What is wrong with a tiled tensor (feature `tiles`).
#[cfg(feature = "tiles")]
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TileErrorKind {
    /// Empty id.
    #[error("empty id")]
    EmptyId,
    /// Another tensor has the same id.
    #[error("duplicate id: tensor #{0} has the same id")]
    DuplicateId(usize),
    /// Rank 0, or shape and strides of different lengths.
    #[error("shape has {shape} axes and strides {strides}; both need the same number, at least 1")]
    Rank {
        /// Axes in the shape.
        shape: usize,
        /// Axes in the strides.
        strides: usize,
    },
    /// A zero in the shape, the strides or the element size.
    #[error("shape, strides and element size must be at least 1")]
    Zero,
    /// Axes interleave in memory.
    #[error("stride of axis {0} does not cover the axes inside it (strides[a] < strides[a+1] * shape[a+1])")]
    Interleaved(usize),
    /// A tile whose rank differs from the tensor's.
    #[error("tile {0} has offset and sizes of the wrong rank")]
    TileRank(usize),
    /// A tile with a zero size or outside the tensor.
    #[error("tile {0} is empty or outside the tensor")]
    TileOutside(usize),
    /// A tile with an empty lifetime.
    #[error("tile {tile} has an empty lifetime {lifetime}")]
    TileLifetime {
        /// Which tile.
        tile: usize,
        /// Its lifetime.
        lifetime: Lifetime,
    },
    /// Sizes too large for 64-bit addresses (or over 2^62 bytes in all).
    #[error("sizes overflow 64-bit addresses")]
    Overflow,
    /// A tile or tensor splits into too many chunks (over 2^24).
    #[error("an item splits into more than 16,777,216 contiguous chunks")]
    TooManyChunks,
}
