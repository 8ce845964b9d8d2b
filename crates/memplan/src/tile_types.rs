//! The data of tile-aware planning, shared by the planner (`crate::tiles`) and the
//! independent checker (`crate::checker`), which import it and not each other: tiled
//! tensors, their tiles and the validated problem.
//!
//! # The model
//!
//! A [`TiledTensor`] is a strided array in memory (a shape, element strides outer axis
//! first, an element size) with a lifetime *as a whole*, often empty, and [`Tile`]s: boxes
//! of the tensor (per-axis offset and sizes), each with its own non-empty lifetime. An
//! *item* is a tile, or the whole tensor during its whole-tensor lifetime. A plan gives
//! each tensor a base address; it is valid when no two items of different tensors live at
//! the same time share a byte (the checker's rule; the planner's model is in
//! `crate::tiles`).
//!
//! Invariants of a [`TiledProblem`], checked by [`TiledProblem::new`]: ids unique and
//! non-empty; shape, strides and element size non-zero and of one rank; strides outer to
//! inner, each covering the axes inside it; tiles of that rank, inside the tensor,
//! non-empty, with non-empty lifetimes; all extents together below 2^62 bytes; at most
//! 2^24 chunks per item.

use crate::error::{TileError, TileErrorKind};
use crate::types::{Buffer, Lifetime, Problem};

/// A box of a tensor processed at once, with its own lifetime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    /// First element of the box along each axis.
    pub offset: Vec<u64>,
    /// Elements of the box along each axis (each at least 1).
    pub sizes: Vec<u64>,
    /// When the tile's bytes must be kept, `[start, end)` (non-empty).
    pub lifetime: Lifetime,
}

/// A tensor in memory as a strided array, with tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledTensor {
    /// A unique name.
    pub id: String,
    /// Elements along each axis, outer axis first.
    pub shape: Vec<u64>,
    /// Distance in elements between neighbours along each axis. Each stride must cover
    /// the whole extent of the axes inside it (`strides[a] ≥ strides[a+1] · shape[a+1]`),
    /// so padding is allowed but axes may not interleave.
    pub strides: Vec<u64>,
    /// Bytes per element.
    pub element_size: u64,
    /// When the whole tensor must be kept; may be empty.
    pub lifetime: Lifetime,
    /// Its tiles; they may overlap each other.
    pub tiles: Vec<Tile>,
}

impl TiledTensor {
    /// Bytes from the first to the last byte of the tensor (its footprint if placed whole).
    pub fn extent(&self) -> u64 {
        let last: u64 = self
            .shape
            .iter()
            .zip(&self.strides)
            .map(|(&n, &d)| (n - 1) * d)
            .sum();
        (last + 1) * self.element_size
    }

    /// From the earliest start to the latest end of its live items (whole and tiles);
    /// empty when none is live.
    pub fn whole_span(&self) -> Lifetime {
        let lts = std::iter::once(self.lifetime)
            .chain(self.tiles.iter().map(|t| t.lifetime))
            .filter(|l| !l.is_empty());
        let mut span: Option<Lifetime> = None;
        for l in lts {
            span = Some(span.map_or(l, |s| Lifetime {
                start: s.start.min(l.start),
                end: s.end.max(l.end),
            }));
        }
        span.unwrap_or(Lifetime::new(0, 0))
    }
}

/// A validated set of tiled tensors. See [`TiledProblem::new`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledProblem {
    tensors: Vec<TiledTensor>,
}

/// At most this many chunks per item.
const MAX_CHUNKS: u64 = 1 << 24;

impl TiledProblem {
    /// Validates the tensors: ids unique and non-empty; shape, strides and element size
    /// non-zero and of the same rank; strides outer-to-inner (see
    /// [`TiledTensor::strides`]); tiles of the same rank, inside the tensor, non-empty,
    /// with non-empty lifetimes; all extents together below 2^62 bytes; at most 2^24
    /// chunks per item.
    pub fn new(tensors: Vec<TiledTensor>) -> Result<TiledProblem, TileError> {
        let mut total: u64 = 0;
        let mut seen = std::collections::HashMap::new();
        for (index, t) in tensors.iter().enumerate() {
            let err = |kind| TileError {
                index,
                id: t.id.clone(),
                kind,
            };
            if t.id.is_empty() {
                return Err(err(TileErrorKind::EmptyId));
            }
            if let Some(&first) = seen.get(t.id.as_str()) {
                return Err(err(TileErrorKind::DuplicateId(first)));
            }
            seen.insert(t.id.as_str(), index);
            let rank = t.shape.len();
            if rank == 0 || t.strides.len() != rank {
                return Err(err(TileErrorKind::Rank {
                    shape: rank,
                    strides: t.strides.len(),
                }));
            }
            if t.element_size == 0 || t.shape.contains(&0) || t.strides.contains(&0) {
                return Err(err(TileErrorKind::Zero));
            }
            let mut last: u64 = 0;
            for a in 0..rank {
                let span = (t.shape[a] - 1)
                    .checked_mul(t.strides[a])
                    .ok_or_else(|| err(TileErrorKind::Overflow))?;
                last = last
                    .checked_add(span)
                    .ok_or_else(|| err(TileErrorKind::Overflow))?;
                if a + 1 < rank {
                    let inner = t.strides[a + 1]
                        .checked_mul(t.shape[a + 1])
                        .ok_or_else(|| err(TileErrorKind::Overflow))?;
                    if t.strides[a] < inner && t.shape[a] > 1 {
                        return Err(err(TileErrorKind::Interleaved(a)));
                    }
                }
            }
            let extent = last
                .checked_add(1)
                .and_then(|l| l.checked_mul(t.element_size))
                .ok_or_else(|| err(TileErrorKind::Overflow))?;
            total = total
                .checked_add(extent)
                .filter(|&s| s < 1 << 62)
                .ok_or_else(|| err(TileErrorKind::Overflow))?;
            if chunk_bound(&t.shape, &t.strides) > MAX_CHUNKS && !t.lifetime.is_empty() {
                return Err(err(TileErrorKind::TooManyChunks));
            }
            for (k, tile) in t.tiles.iter().enumerate() {
                if tile.offset.len() != rank || tile.sizes.len() != rank {
                    return Err(err(TileErrorKind::TileRank(k)));
                }
                let inside = (0..rank).all(|a| {
                    tile.sizes[a] >= 1
                        && tile.offset[a]
                            .checked_add(tile.sizes[a])
                            .is_some_and(|e| e <= t.shape[a])
                });
                if !inside {
                    return Err(err(TileErrorKind::TileOutside(k)));
                }
                if tile.lifetime.is_empty() {
                    return Err(err(TileErrorKind::TileLifetime {
                        tile: k,
                        lifetime: tile.lifetime,
                    }));
                }
                if chunk_bound(&tile.sizes, &t.strides) > MAX_CHUNKS {
                    return Err(err(TileErrorKind::TooManyChunks));
                }
            }
        }
        Ok(TiledProblem { tensors })
    }

    /// The same tensors as plain buffers, each live as a whole from its first to its
    /// last live item with its whole extent: what a planner that ignores tiles must
    /// place. Tensors never live are left out. Plan it with [`crate::plan`] to compare
    /// with [`crate::tiles::plan_tiles`].
    pub fn whole_tensors(&self) -> Problem {
        let bufs: Vec<Buffer> = self
            .tensors()
            .iter()
            .filter_map(|t| {
                let lifetime = t.whole_span();
                (!lifetime.is_empty()).then(|| Buffer {
                    lifetime,
                    ..Buffer::new(t.id.clone(), 0, 1, t.extent())
                })
            })
            .collect();
        Problem::new(bufs).expect("ids are unique, extents non-zero and below 2^62 in all")
    }

    /// The tensors, in input order; plans are indexed the same way.
    pub fn tensors(&self) -> &[TiledTensor] {
        &self.tensors
    }

    /// Number of tensors.
    pub fn len(&self) -> usize {
        self.tensors.len()
    }

    /// True when there are no tensors.
    pub fn is_empty(&self) -> bool {
        self.tensors.is_empty()
    }
}

/// An upper bound on the chunks of a box: the product of the sizes of the axes outside
/// the innermost run of contiguous axes (a stride-1 innermost axis is one run).
fn chunk_bound(sizes: &[u64], strides: &[u64]) -> u64 {
    let mut n: u64 = 1;
    let rank = sizes.len();
    for a in 0..rank {
        if a + 1 == rank && strides[a] == 1 {
            break;
        }
        n = n.saturating_mul(sizes[a]);
    }
    n
}
