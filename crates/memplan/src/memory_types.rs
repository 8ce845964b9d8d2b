//! The data of planning across several memories, shared by the planner
//! (`crate::memories`) and the independent checker (`crate::checker`), which import it
//! and not each other: the memories, the per-buffer input, the plan and the errors.
//!
//! # The model
//!
//! A list of memories `M0, M1, …, Mk−1`, each with a name (unique, non-empty), a
//! capacity (or none: unbounded), an alignment (every offset in it is a multiple) and
//! an optional cost per byte accessed. Per buffer: the set of memories it may use
//! ([`MemorySet`], default all; a set of one is a *pin*) and its traffic, `size ×
//! accesses` (accesses default 1), or given directly. A buffer with a fixed offset must
//! have a single allowed memory, or all of them (the default), which then means the
//! first memory: its offset is an address in that memory.
//!
//! A [`MemoryPlan`] gives each buffer one memory and an offset *in that memory*.
//! Invariants of a valid plan: each buffer's memory is in its allowed set; in every
//! memory, the buffers placed there form a valid plan of the ordinary kind (no two live
//! together overlap, fixed offsets kept) whose height is at most the memory's capacity
//! and whose offsets are multiples of both the buffer's and the memory's alignment.
//!
//! The objective: with costs on every memory, the least `Σ traffic × cost(memory)`;
//! without costs, lexicographic (as much traffic as possible in the first memory, then
//! in the second, …), and the plan's scalar `cost` is the traffic *outside the first
//! memory*, the lexicographic order's first criterion.
//!
//! Spill (feature `spill`) is the two-memory case: `fast` with a capacity, then an
//! unbounded `slow`, each buffer's cost as its traffic and its [`SpillMemory`]
//! preference as its allowed set; its errors are this model's ([`MemoriesError`]).

use thiserror::Error;

use crate::error::Escaped;
use crate::types::{BufferIdx, Offset, Problem, Size};

/// The position of a memory in the list given to the planner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemoryIdx(pub u32);

impl MemoryIdx {
    /// The index as a `usize`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The most memories one problem may list (a [`MemorySet`] is a 64-bit set).
pub const MAX_MEMORIES: usize = 64;

/// One memory: a name, a capacity (`None`: unbounded), an alignment and an optional
/// cost per byte accessed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Memory {
    /// A unique, non-empty name (`"tcm"`, `"sram"`, …).
    pub name: String,
    /// Bytes available, `None` for unbounded.
    pub capacity: Option<Size>,
    /// Every offset in this memory is a multiple of it (at least 1).
    pub alignment: Size,
    /// The cost of one byte of traffic in this memory; either every memory has one or
    /// none has (then the objective is lexicographic, in list order).
    pub cost: Option<u64>,
}

impl Memory {
    /// An unbounded memory with alignment 1 and no cost.
    pub fn new(name: impl Into<String>) -> Memory {
        Memory {
            name: name.into(),
            capacity: None,
            alignment: Size(1),
            cost: None,
        }
    }

    /// Builder-style: set the capacity.
    pub fn with_capacity(mut self, capacity: u64) -> Memory {
        self.capacity = Some(Size(capacity));
        self
    }

    /// Builder-style: set the alignment.
    pub fn with_alignment(mut self, alignment: u64) -> Memory {
        self.alignment = Size(alignment);
        self
    }

    /// Builder-style: set the cost per byte.
    pub fn with_cost(mut self, cost: u64) -> Memory {
        self.cost = Some(cost);
        self
    }
}

/// A set of memories (bit `m` for memory `m`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemorySet(pub u64);

impl MemorySet {
    /// The empty set.
    pub const EMPTY: MemorySet = MemorySet(0);

    /// All of the first `count` memories.
    pub fn all(count: usize) -> MemorySet {
        if count >= 64 {
            MemorySet(u64::MAX)
        } else {
            MemorySet((1u64 << count) - 1)
        }
    }

    /// Only memory `m` (a pin).
    pub fn single(m: MemoryIdx) -> MemorySet {
        MemorySet(1u64.checked_shl(m.0).unwrap_or(0))
    }

    /// The set of the given memories.
    pub fn of(memories: impl IntoIterator<Item = MemoryIdx>) -> MemorySet {
        memories
            .into_iter()
            .fold(MemorySet::EMPTY, |s, m| MemorySet(s.0 | Self::single(m).0))
    }

    /// True when `m` is in the set.
    pub fn contains(self, m: MemoryIdx) -> bool {
        m.0 < 64 && self.0 >> m.0 & 1 == 1
    }

    /// True when the set has no memory.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of memories in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The memories in the set, in index order.
    pub fn iter(self) -> impl Iterator<Item = MemoryIdx> {
        (0..64u32)
            .filter(move |&m| self.0 >> m & 1 == 1)
            .map(MemoryIdx)
    }
}

/// The per-buffer data of a multi-memory problem, as slices indexed like the problem's
/// buffers. `None` means the default for every buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoriesInput<'a> {
    /// The memories each buffer may use (default: all).
    pub allowed: Option<&'a [MemorySet]>,
    /// How many times each buffer is accessed (default 1): its traffic is `size ×
    /// accesses`.
    pub accesses: Option<&'a [u64]>,
    /// Each buffer's traffic given directly (replaces `size × accesses`; not with
    /// `accesses`). The two-memory spill form passes its costs here.
    pub traffic: Option<&'a [u64]>,
}

/// A plan across memories: per buffer, its memory and its offset in that memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoryPlan {
    /// Each buffer's memory. Indexed like the problem's buffers.
    pub memory: Vec<MemoryIdx>,
    /// Each buffer's offset in its own memory.
    pub offsets: Vec<Offset>,
    /// Per memory, the highest address used (0 when empty).
    pub heights: Vec<Size>,
    /// Per memory, the traffic of its buffers.
    pub traffic: Vec<u64>,
    /// The objective: `Σ traffic × cost` with costs, else the traffic outside the first
    /// memory.
    pub cost: u64,
}

/// Why a multi-memory input is not valid (or a plan does not match its problem).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MemoriesError {
    /// No memory was given.
    #[error("no memory given")]
    NoMemories,
    /// More than [`MAX_MEMORIES`].
    #[error("{0} memories given, at most 64 are supported")]
    TooManyMemories(usize),
    /// A memory with an empty name.
    #[error("memory #{0} has an empty name")]
    EmptyName(usize),
    /// Two memories with one name.
    #[error("duplicate memory name '{}'", Escaped(.0))]
    DuplicateMemory(String),
    /// A memory with alignment 0.
    #[error("memory '{}': alignment must be at least 1", Escaped(.0))]
    ZeroAlignment(String),
    /// Some memories have a cost and some do not.
    #[error("memory '{}' has no cost while others have one: give every memory a cost, or none", Escaped(.0))]
    PartialCosts(String),
    /// A name that is not one of the memories.
    #[error("unknown memory '{}'", Escaped(.0))]
    UnknownMemory(String),
    /// A per-buffer slice whose length is not the number of buffers.
    #[error("{found} {what} given for {expected} buffer(s)")]
    Count {
        /// `allowed sets`, `access counts`, `traffic figures` or (spill's) `costs`.
        what: &'static str,
        /// The number of buffers.
        expected: usize,
        /// The slice's length.
        found: usize,
    },
    /// Both `accesses` and `traffic` were given.
    #[error("give accesses or traffic, not both")]
    AccessesAndTraffic,
    /// A buffer with no allowed memory (or only memories beyond the list).
    #[error("buffer '{}' (#{index}) has no allowed memory", Escaped(.id))]
    EmptyAllowed {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
    },
    /// A buffer with a fixed offset may use several memories.
    #[error("buffer '{}' (#{index}) has a fixed offset, so it must be pinned to one memory", Escaped(.id))]
    FixedInSeveral {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
    },
    /// A buffer's fixed offset is not a multiple of its memory's alignment.
    #[error("buffer '{}' (#{index}): fixed offset {offset} is not a multiple of memory '{}''s alignment {alignment}", Escaped(.id), Escaped(.memory))]
    MisalignedFixed {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
        /// The fixed offset.
        offset: Offset,
        /// The memory.
        memory: String,
        /// Its alignment.
        alignment: Size,
    },
    /// A buffer pinned to a memory is larger than the memory, or its fixed end is above it.
    #[error("buffer '{}' (#{index}) needs {need} bytes of memory '{}', whose capacity is {capacity}", Escaped(.id), Escaped(.memory))]
    TooLarge {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
        /// Its size (or fixed end).
        need: u64,
        /// The memory.
        memory: String,
        /// Its capacity.
        capacity: Size,
    },
    /// A required share between two buffers whose allowed sets have no memory in common.
    #[error("buffer '{}' (#{index}) must share '{}', but the two may use no memory in common", Escaped(.id), Escaped(.target))]
    RequiredShareApart {
        /// The position of the share's buffer.
        index: usize,
        /// Its id.
        id: String,
        /// The id of the buffer whose storage it must share.
        target: String,
    },
    /// A spill problem's preference that is not `fast`, `slow` or `either`.
    #[error("unknown memory '{}' (expected fast, slow or either)", Escaped(.0))]
    UnknownPin(String),
    /// A buffer with a fixed offset was asked to live in a spill problem's slow memory.
    #[error("buffer '{}' (#{index}) has a fixed offset, so it cannot be slow", Escaped(.id))]
    FixedInSlow {
        /// Its position.
        index: usize,
        /// Its id.
        id: String,
    },
    /// Spill was asked for without a capacity (the request's goal is to minimise).
    #[error("spilling needs a capacity (the fast memory's): the request's goal is to minimise")]
    NoCapacity,
    /// Traffic, costs or alignments overflow a `u64`.
    #[error("{0} overflows 2^64 - 1")]
    Overflow(&'static str),
    /// memplan's planner failed on a memory's buffers.
    #[error(transparent)]
    Plan(#[from] crate::error::PlanError),
    /// The result failed [`crate::memories::check_memories`]. This is a bug in memplan.
    #[error("internal error: the plan fails its check: {0}")]
    InvalidPlan(String),
    /// A plan whose vectors do not match the problem or the memories.
    #[error(
        "the plan has {found} entries for {expected} buffer(s), or names a memory beyond the list"
    )]
    PlanShape {
        /// The number of buffers.
        expected: usize,
        /// The plan's number of entries.
        found: usize,
    },
}

/// Checks the list of memories: 1–64 of them, unique non-empty names, alignments at
/// least 1, costs on all or none.
pub fn validate_memories(memories: &[Memory]) -> Result<(), MemoriesError> {
    if memories.is_empty() {
        return Err(MemoriesError::NoMemories);
    }
    if memories.len() > MAX_MEMORIES {
        return Err(MemoriesError::TooManyMemories(memories.len()));
    }
    let with_cost = memories.iter().filter(|m| m.cost.is_some()).count();
    for (k, m) in memories.iter().enumerate() {
        if m.name.is_empty() {
            return Err(MemoriesError::EmptyName(k));
        }
        if memories[..k].iter().any(|o| o.name == m.name) {
            return Err(MemoriesError::DuplicateMemory(m.name.clone()));
        }
        if m.alignment.get() == 0 {
            return Err(MemoriesError::ZeroAlignment(m.name.clone()));
        }
        if with_cost != 0 && m.cost.is_none() {
            return Err(MemoriesError::PartialCosts(m.name.clone()));
        }
    }
    Ok(())
}

/// The index of the memory called `name` (the file readers' lookup).
#[cfg(any(feature = "csv", feature = "json"))]
pub(crate) fn memory_named(memories: &[Memory], name: &str) -> Result<MemoryIdx, MemoriesError> {
    memories
        .iter()
        .position(|m| m.name == name)
        .map(|k| MemoryIdx(k as u32))
        .ok_or_else(|| MemoriesError::UnknownMemory(name.to_string()))
}

/// The names of a set's memories, joined by `|` (the CSV and JSON form).
pub fn memory_set_names(memories: &[Memory], set: MemorySet) -> String {
    set.iter()
        .filter_map(|m| memories.get(m.index()).map(|x| x.name.as_str()))
        .collect::<Vec<_>>()
        .join("|")
}

/// Each buffer's traffic: given, `size × accesses`, or `size`. Checks the lengths and
/// that every figure, and their sum, fits in a `u64`.
pub fn traffic_of(problem: &Problem, input: &MemoriesInput<'_>) -> Result<Vec<u64>, MemoriesError> {
    let n = problem.len();
    let count = |what, s: Option<&[u64]>| match s {
        Some(s) if s.len() != n => Err(MemoriesError::Count {
            what,
            expected: n,
            found: s.len(),
        }),
        _ => Ok(()),
    };
    count("access counts", input.accesses)?;
    count("traffic figures", input.traffic)?;
    if input.accesses.is_some() && input.traffic.is_some() {
        return Err(MemoriesError::AccessesAndTraffic);
    }
    let traffic: Vec<u64> = match (input.traffic, input.accesses) {
        (Some(t), _) => t.to_vec(),
        (None, Some(a)) => problem
            .buffers()
            .iter()
            .zip(a)
            .map(|(b, &a)| b.size.get().checked_mul(a))
            .collect::<Option<_>>()
            .ok_or(MemoriesError::Overflow("a buffer's traffic"))?,
        (None, None) => problem.buffers().iter().map(|b| b.size.get()).collect(),
    };
    traffic
        .iter()
        .try_fold(0u64, |s, &t| s.checked_add(t))
        .ok_or(MemoriesError::Overflow("the total traffic"))?;
    Ok(traffic)
}

/// Each buffer's allowed set, checked: the count, no empty set (after dropping memories
/// beyond the list), a fixed offset only with one memory (or with all of them, which
/// then means the first), aligned to that memory, and below its capacity; a buffer larger than
/// every memory it may use. Expects [`validate_memories`] to have passed.
pub fn allowed_of(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
) -> Result<Vec<MemorySet>, MemoriesError> {
    let n = problem.len();
    let all = MemorySet::all(memories.len());
    if let Some(a) = input.allowed {
        if a.len() != n {
            return Err(MemoriesError::Count {
                what: "allowed sets",
                expected: n,
                found: a.len(),
            });
        }
    }
    let mut sets = Vec::with_capacity(n);
    for (i, b) in problem.indexed() {
        let given = input.allowed.map(|a| a[i]);
        let mut set = MemorySet(given.map_or(all.0, |s| s.0) & all.0);
        let at = |i: BufferIdx| (i.index(), b.id.clone());
        if set.is_empty() {
            let (index, id) = at(i);
            return Err(MemoriesError::EmptyAllowed { index, id });
        }
        if let Some(offset) = b.fixed_offset {
            if set == all {
                set = MemorySet::single(MemoryIdx(0));
            } else if set.len() != 1 {
                let (index, id) = at(i);
                return Err(MemoriesError::FixedInSeveral { index, id });
            }
            let m = set.iter().next().expect("one memory");
            let memory = &memories[m.index()];
            if !offset.is_aligned_to(memory.alignment) {
                let (index, id) = at(i);
                return Err(MemoriesError::MisalignedFixed {
                    index,
                    id,
                    offset,
                    memory: memory.name.clone(),
                    alignment: memory.alignment,
                });
            }
            let end = offset.get().saturating_add(b.size.get());
            if let Some(capacity) = memory.capacity.filter(|c| end > c.get()) {
                let (index, id) = at(i);
                return Err(MemoriesError::TooLarge {
                    index,
                    id,
                    need: end,
                    memory: memory.name.clone(),
                    capacity,
                });
            }
        }
        // Too large for every memory it may use (all bounded): name the largest.
        let largest = set
            .iter()
            .map(|m| (memories[m.index()].capacity, m))
            .max_by_key(|&(c, _)| c.map_or(u64::MAX, Size::get));
        if let Some((Some(capacity), m)) = largest {
            if b.size > capacity {
                let (index, id) = at(i);
                return Err(MemoriesError::TooLarge {
                    index,
                    id,
                    need: b.size.get(),
                    memory: memories[m.index()].name.clone(),
                    capacity,
                });
            }
        }
        sets.push(set);
    }
    Ok(sets)
}

/// Where a buffer of a spill problem must live: the two-memory form of an allowed set.
#[cfg(feature = "spill")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SpillMemory {
    /// In fast memory, under the capacity (implied for buffers with a fixed offset).
    Fast,
    /// In slow memory; its cost is always paid.
    Slow,
    /// Wherever the planner finds cheapest (the default).
    #[default]
    Either,
}

#[cfg(feature = "spill")]
impl SpillMemory {
    /// The name used by the CLI and files: `fast`, `slow` or `either`.
    pub fn name(self) -> &'static str {
        match self {
            SpillMemory::Fast => "fast",
            SpillMemory::Slow => "slow",
            SpillMemory::Either => "either",
        }
    }
}

#[cfg(feature = "spill")]
impl std::fmt::Display for SpillMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(feature = "spill")]
impl std::str::FromStr for SpillMemory {
    type Err = MemoriesError;
    /// `fast`, `slow`, or `either` (also `any` and the empty string).
    fn from_str(s: &str) -> Result<SpillMemory, MemoriesError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fast" => Ok(SpillMemory::Fast),
            "slow" => Ok(SpillMemory::Slow),
            "either" | "any" | "" => Ok(SpillMemory::Either),
            _ => Err(MemoriesError::UnknownPin(s.to_string())),
        }
    }
}
