//! The naive spill strategies a compiler writes first, kept to measure the planner
//! against ([`SpillOptions::baseline`](super::SpillOptions::baseline)).
//!
//! ```text
//!   1. cover        sweep time; wherever the kept load exceeds C, spill live buffers in
//!                   the baseline's order until it does not
//!   2. place        memplan's planner on the kept buffers, under C
//!   3. repair       if the plan overflows: spill the buffers that end above C, and plan
//!                   again when a forced-fast one overflows
//! ```
//!
//! No un-spilling, no insertion into free windows, no improvement: those are the
//! planner's techniques, and what the comparison measures.

use super::heuristic::{cover_overloads_by, place_cover, Start};
use super::model::{Decision, SpillModel};
use super::place::{LifetimeIndex, Placer};
use super::SpillBaseline;

/// Runs `baseline` (see the module docs).
pub(crate) fn run(
    model: &SpillModel<'_>,
    placer: &mut Placer<'_>,
    index: &LifetimeIndex,
    baseline: SpillBaseline,
) -> Start {
    let bufs = model.problem.buffers();
    let mut spilled: Vec<bool> = model.base.iter().map(|&d| d == Decision::Slow).collect();
    match baseline {
        SpillBaseline::LargestFirst => cover_overloads_by(model, &mut spilled, |i| {
            (u64::MAX - bufs[i].size.0, i as u32)
        }),
        SpillBaseline::CostPerByte => cover_overloads_by(model, &mut spilled, |i| {
            // Non-negative floats order like their bits.
            let per = model.costs[i] as f64 / bufs[i].size.0.max(1) as f64;
            (per.to_bits(), i as u32)
        }),
    }
    place_cover(model, placer, index, spilled, false)
}
