pub use crate::generate::{generate_model_like, GenOptions};
pub use crate::generate_dense::{generate_dense_trace, DenseGenOptions};
pub use crate::greedy::repair::RepairStats;
/// The per-position maxima behind shared objects' lower bound (its sum), for tests that
/// check it against a reference.
#[cfg(feature = "shared_objects")]
pub use crate::shared_objects::bound::positional_maxima;
pub use crate::telamalloc::measure::{rounds_alone as telamalloc_rounds_alone, RoundRun};
pub use crate::telamalloc::microbench::{generate_microbenchmark, MicrobenchKind};
pub use crate::tiles::generate::{generate_tiled, Layout, TiledGenOptions};

/// Lowers the height of the valid plan `offsets` (one per buffer, in problem order) with
/// at most `moves` moves of the peak repair that polishes boxing's plans, stopping at
/// `floor`; seeded, unbounded in time. For `benches/polish.rs`.
pub fn polish(
    problem: &crate::Problem,
    offsets: &mut [u64],
    moves: u64,
    seed: u64,
    floor: u64,
) -> RepairStats {
    let mut typed: Vec<crate::Offset> = offsets.iter().map(|&o| crate::Offset(o)).collect();
    let stats = crate::greedy::repair::lower_peak(
        problem,
        &mut typed,
        moves,
        seed,
        crate::Size(floor),
        &crate::budget::Budget::unlimited(),
    );
    for (o, t) in offsets.iter_mut().zip(typed) {
        *o = t.get();
    }
    stats
}
