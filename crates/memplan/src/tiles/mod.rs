//! Tile-aware planning: tensors whose strided tiles free their bytes before the whole
//! tensor dies (Kvochko et al., "Off-Chip Memory Allocation for Neural Processing Units").
//!
//! # The model
//!
//! An NPU with a small on-chip memory processes a tensor tile by tile. A [`TiledTensor`]
//! has a shape, element strides (outer axis first), an element size, a lifetime *as a
//! whole* (often empty: no operator uses the whole tensor at once) and [`Tile`]s, each a
//! box of the tensor (per-axis offset and sizes) with its own lifetime. A tile's bytes
//! are a strided, usually non-contiguous set (eq. 1), rendered as contiguous chunks
//! (Alg. 3). An *item* is a tile, or the whole tensor during its whole-tensor lifetime.
//!
//! A plan gives each tensor a base address; its tiles sit at fixed offsets from it. A
//! plan is valid when no two items of different tensors that are live at the same time
//! share a byte. The *peak* is the highest byte end of any live item.
//!
//! ```text
//!   input X (4 tiles), output Y (4 tiles): step j reads X tile j, writes Y tile j
//!   time      0    1    2    3    4
//!   X tile 0  [===)                        freed after step 0
//!   X tile 1  [========)
//!   X tile 2  [=============)
//!   X tile 3  [==================)
//!   Y tile 0       [=====================> written at step 0 (here: from time 1)
//!   addresses: Y may start one tile below X's end: Y tile j lands on X tile j−1's
//!   bytes, which are dead by then. Whole-tensor planning would need X + Y.
//! ```
//!
//! # The allocator (TensorAllocate, Alg. 1)
//!
//! Tensors are placed one at a time in one of three orders ([`TileOrder`]: largest
//! extent, longest lifetime, most peers first). For a tensor, its *peers* are the placed
//! items live at the same time as one of its items, found with an interval index over
//! item lifetimes. The search starts at address 0; while some item of the tensor
//! collides with a peer (Alg. 2), the address moves up by the collision's size (see
//! `chunks::collision_shift`). Every move skips only addresses that still collide, so
//! the search ends at the lowest valid address. [`plan_tiles`] runs every order and
//! keeps the lowest peak.
//!
//! The input and the JSON format are described in docs/tiles.md ([`read_tiled_json`]).

mod allocate;
mod checker;
pub(crate) mod chunks;
#[cfg(any(test, feature = "testing"))]
pub(crate) mod generate;
#[cfg(feature = "json")]
mod json;

pub use crate::error::{TileError, TileErrorKind};
pub use checker::check_tiles;
#[cfg(feature = "json")]
pub use json::{read_tiled_json, write_tiled_json};

use crate::types::{Buffer, Lifetime, Offset, Problem, Size};

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
    /// with [`plan_tiles`].
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

/// The order in which [`plan_tiles`] places tensors (§III-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileOrder {
    /// Largest extent first.
    Size,
    /// Longest span (first to last live item) first.
    Lifetime,
    /// Most peer tensors (tensors with an item live at the same time) first.
    Peers,
}

impl TileOrder {
    /// Every order, in the order [`plan_tiles`] runs them (and breaks ties).
    pub const ALL: [TileOrder; 3] = [TileOrder::Size, TileOrder::Lifetime, TileOrder::Peers];

    /// `size`, `lifetime` or `peers`.
    pub fn name(self) -> &'static str {
        match self {
            TileOrder::Size => "size",
            TileOrder::Lifetime => "lifetime",
            TileOrder::Peers => "peers",
        }
    }
}

impl std::str::FromStr for TileOrder {
    type Err = crate::PlanError;
    fn from_str(s: &str) -> Result<TileOrder, crate::PlanError> {
        TileOrder::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| crate::PlanError::UnknownPlanner(s.to_string()))
    }
}

/// Options for [`plan_tiles`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileOptions {
    /// One order, or `None` (the default) for every order, keeping the lowest peak.
    pub order: Option<TileOrder>,
    /// Clear one (item, peer) pair at a time, moving up past all its colliding chunks
    /// until that pair is free, and repeat over all pairs until none moves the address;
    /// instead of restarting the whole scan after the first collision, as the paper does.
    /// Both skip only invalid addresses, so both find the same (lowest valid) address;
    /// this one rescans far less. On by default.
    pub jump_past_all_collisions: bool,
    /// Also plan the tensors whole ([`TiledProblem::whole_tensors`], with the default offset
    /// planner) and keep that plan when its peak is lower, so that the result is never
    /// worse than tile-oblivious planning. On by default.
    pub whole_tensor_fallback: bool,
    /// Run [`check_tiles`] on the result and fail with [`crate::PlanError::InvalidPlan`]
    /// if it disagrees. On by default.
    pub verify: bool,
}

impl Default for TileOptions {
    fn default() -> TileOptions {
        TileOptions {
            order: None,
            jump_past_all_collisions: true,
            whole_tensor_fallback: true,
            verify: true,
        }
    }
}

/// A base address for every tensor, indexed like [`TiledProblem::tensors`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TilePlan {
    /// The base addresses.
    pub offsets: Vec<Offset>,
    /// The highest byte end of any live item.
    pub peak: Size,
}

/// What [`plan_tiles`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileReport {
    /// The kept plan (lowest peak) and its bounds on the peak: `Optimal` when the peak
    /// equals [`TileReport::lower_bound`]; with a capacity, `Infeasible` when the bound
    /// exceeds it and `Unknown` (with the plan) when only the plan does.
    pub outcome: crate::Outcome<TilePlan>,
    /// A proven lower bound on any plan's peak: the largest sum, over the tensors, of the
    /// bytes of their largest live item at one time.
    pub lower_bound: Size,
    /// The order that produced it.
    pub order: TileOrder,
    /// Every order run, with its peak.
    pub candidates: Vec<(TileOrder, Size)>,
    /// The kept plan is the whole-tensor plan (see [`TileOptions::whole_tensor_fallback`]);
    /// `order` then names the best tile-aware order, which it beat.
    pub whole_tensor_fallback: bool,
}

/// Places every tensor with TensorAllocate (Alg. 1 of Kvochko et al.): each tensor gets
/// a base address, its tiles sit at fixed offsets from it, and a tile's bytes may be
/// reused once the tile is dead, before the whole tensor dies. No two live items of
/// different tensors share a byte. TensorAllocate is one pass per order; the request's
/// budget bounds the whole-tensor fallback, and its goal decides the outcome
/// ([`TileReport::outcome`]).
pub fn plan_tiles(
    problem: &TiledProblem,
    request: &crate::Request,
    options: &TileOptions,
) -> Result<TileReport, crate::PlanError> {
    let items = allocate::Items::new(problem);
    let orders: Vec<TileOrder> = match options.order {
        Some(o) => vec![o],
        None => TileOrder::ALL.to_vec(),
    };
    let mut best: Option<(TilePlan, TileOrder)> = None;
    let mut candidates = Vec::new();
    for order in orders {
        let plan = items.place(problem, order, options.jump_past_all_collisions);
        candidates.push((order, plan.peak));
        if best.as_ref().is_none_or(|(b, _)| plan.peak < b.peak) {
            best = Some((plan, order));
        }
    }
    let (mut plan, order) = best.expect("at least one order");
    let mut fell_back = false;
    if options.whole_tensor_fallback {
        if let Some(whole) = whole_tensor_plan(problem, request)? {
            if whole.peak < plan.peak {
                plan = whole;
                fell_back = true;
            }
        }
    }
    if options.verify {
        check_tiles(problem, &plan.offsets).map_err(|f| crate::PlanError::InvalidPlan {
            planner: format!("tiles {}", order.name()),
            detail: f.to_string(),
        })?;
    }
    let lower_bound = items.lower_bound();
    let peak = plan.peak;
    Ok(TileReport {
        outcome: crate::Outcome::judge(plan, peak, lower_bound, request.capacity()),
        lower_bound,
        order,
        candidates,
        whole_tensor_fallback: fell_back,
    })
}

/// The tile-oblivious plan as a tile plan: each tensor at its whole-tensor offset (tensors
/// that are never live at 0). Every item lies inside its tensor's extent and whole span,
/// so the plan is valid; its peak is measured over the live items.
fn whole_tensor_plan(
    problem: &TiledProblem,
    request: &crate::Request,
) -> Result<Option<TilePlan>, crate::PlanError> {
    let whole = problem.whole_tensors();
    if whole.is_empty() {
        return Ok(None);
    }
    let options = crate::Options {
        planner: crate::Planner::GreedyPortfolio,
        verify: false,
        ..crate::Options::default()
    };
    // Minimised within the request's budget, started now (nothing is checked inside).
    let budget = request
        .budget
        .start(std::time::Instant::now(), std::time::Duration::ZERO);
    let report = crate::driver::run_within(&whole, None, &options, &budget)?;
    let Some(p) = report.outcome.plan() else {
        return Ok(None);
    };
    let by_id: std::collections::HashMap<&str, Offset> = whole
        .buffers()
        .iter()
        .zip(p.offsets())
        .map(|(b, &o)| (b.id.as_str(), o))
        .collect();
    let offsets: Vec<Offset> = problem
        .tensors()
        .iter()
        .map(|t| by_id.get(t.id.as_str()).copied().unwrap_or(Offset::ZERO))
        .collect();
    let peak = items_peak(problem, &offsets);
    Ok(Some(TilePlan { offsets, peak }))
}

/// The highest byte end of any live item under `offsets`.
fn items_peak(problem: &TiledProblem, offsets: &[Offset]) -> Size {
    let mut peak = Offset::ZERO;
    for (t, &o) in problem.tensors().iter().zip(offsets) {
        if !t.lifetime.is_empty() {
            peak = peak.max(o + Size(t.extent()));
        }
        for tile in &t.tiles {
            // The tile's last element is at Σ (offset + size − 1) · stride (eq. 1).
            let last: u64 = (0..t.shape.len())
                .map(|a| (tile.offset[a] + tile.sizes[a] - 1) * t.strides[a])
                .sum();
            peak = peak.max(o + Size((last + 1) * t.element_size));
        }
    }
    peak.as_height()
}
