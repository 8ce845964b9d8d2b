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
pub(crate) mod chunks;
#[cfg(any(test, feature = "testing"))]
pub(crate) mod generate;
#[cfg(feature = "json")]
mod json;

pub use crate::checker::check_tiles;
pub use crate::error::{TileError, TileErrorKind};
pub use crate::tile_types::{Tile, TiledProblem, TiledTensor};
#[cfg(feature = "json")]
pub use json::{read_tiled_json, write_tiled_json};

use crate::types::{Offset, Size};

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
            .ok_or_else(|| crate::PlanError::UnknownPlanner {
                name: s.to_string(),
                expected: TileOrder::ALL.map(|o| o.name().to_string()).to_vec(),
            })
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
