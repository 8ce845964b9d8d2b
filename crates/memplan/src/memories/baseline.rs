//! The naive spill strategies a compiler writes first, kept to measure the planner
//! against ([`MemoriesOptions::baseline`](super::MemoriesOptions::baseline)).
//!
//! ```text
//!   1. cover        sweep time; wherever the kept load exceeds C, spill live buffers in
//!                   the baseline's order until it does not
//!   2. place        memplan's planner on the kept buffers, under C
//!   3. repair       a plan over C: spill the buffers that end above it (and, when a
//!                   forced-fast one does, its free neighbours, and place again);
//!                   no plan at all: spill the first buffer in order live at the kept
//!                   load's peak, and place again
//! ```
//!
//! No un-spilling, no insertion into free windows, no improvement: those are the
//! planner's techniques, and what the comparison measures.

use crate::types::{BufferIdx, Offset, Size, Time};

use super::heuristic::{cover_overloads_by, Start};
use super::load::{events, load_steps};
use super::model::{Decision, LevelModel, Solution};
use super::place::{repair, Effort, LifetimeIndex, Placement, Placer};
use super::Baseline;

/// Runs `baseline` (see the module docs).
pub(crate) fn run(
    model: &LevelModel<'_>,
    placer: &mut Placer<'_>,
    index: &LifetimeIndex,
    baseline: Baseline,
) -> Start {
    let bufs = model.problem.buffers();
    let key = |i: BufferIdx| match baseline {
        Baseline::LargestFirst => (u64::MAX - bufs[i].size.get(), i),
        // Non-negative floats order like their bits.
        Baseline::CostPerByte => (
            (model.costs[i] as f64 / bufs[i].size.get().max(1) as f64).to_bits(),
            i,
        ),
    };
    let mut spilled: Vec<bool> = model.base.iter().map(|&d| d == Decision::Slow).collect();
    cover_overloads_by(model, &mut spilled, key);
    loop {
        let kept: Vec<bool> = spilled.iter().map(|&s| !s).collect();
        let only_forced = model.only_forced_kept(&spilled);
        match placer.place(&kept, Effort::Best) {
            Placement::Fits(offsets) => return found(model, spilled, offsets),
            Placement::Unknown(Some(offsets)) if !only_forced => {
                if repair(model, index, &mut spilled, &offsets) {
                    return found(model, spilled, offsets);
                }
            }
            Placement::Infeasible if only_forced => return Start::Infeasible,
            Placement::Infeasible | Placement::Unknown(_) if only_forced => return Start::Unknown,
            Placement::Infeasible | Placement::Unknown(_) => {
                let at_peak = live_at_peak(model, &spilled);
                let next = at_peak
                    .into_iter()
                    .filter(|&i| !model.forced_fast(i))
                    .min_by_key(|&i| key(i));
                match next {
                    Some(i) if !placer.exhausted() => spilled[i] = true,
                    // Out of time, or only forced-fast buffers at the peak: spill every
                    // free buffer, as the last resort.
                    _ => model.spill_every_free(&mut spilled),
                }
            }
        }
    }
}

fn found(model: &LevelModel<'_>, spilled: Vec<bool>, offsets: Vec<Offset>) -> Start {
    Start::Found(Solution {
        cost: model.cost_of(&spilled),
        spilled,
        offsets,
    })
}

/// The kept buffers live when the kept load is highest (the first such time).
fn live_at_peak(model: &LevelModel<'_>, spilled: &[bool]) -> Vec<BufferIdx> {
    let ev = events(model, spilled);
    let (mut best, mut at) = (Size::ZERO, Time(0));
    for (t, load) in load_steps(model, &ev) {
        if load > best {
            (best, at) = (load, t);
        }
    }
    model
        .problem
        .indexed()
        .filter(|&(i, b)| !spilled[i] && b.live_segments().any(|s| s.start <= at && at < s.end))
        .map(|(i, _)| i)
        .collect()
}
