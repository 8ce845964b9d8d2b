//! The microbenchmarks of TelaMalloc §7.1 (Table 1), generated with a seed.
//!
//! ```text
//!   non-overlapping-N           full-overlap-N
//!   [)                          [====)
//!     [)                        [====)
//!       [)   ...                [====)   ...
//!   time ->                     time ->
//! ```
//!
//! - non-overlapping-N: N buffers `[i, i + 1)`, never live together; the capacity is the
//!   largest size, which is enough.
//! - full-overlap-N: N buffers all live in `[0, 1)`; the capacity is the sum of the
//!   sizes, exactly enough.
//!
//! Sizes are drawn from 1 to 4,096 bytes, rounded up to 64, as in a model's tensors.

use crate::rng::Rng;
use crate::types::{Buffer, Problem, Size};

/// Which microbenchmark of TelaMalloc's Table 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MicrobenchKind {
    /// N buffers that never overlap in time.
    NonOverlapping,
    /// N buffers that are all live at the same time.
    FullOverlap,
}

impl MicrobenchKind {
    /// `non-overlapping` or `full-overlap`.
    pub fn name(self) -> &'static str {
        match self {
            MicrobenchKind::NonOverlapping => "non-overlapping",
            MicrobenchKind::FullOverlap => "full-overlap",
        }
    }
}

/// Makes a microbenchmark of TelaMalloc's Table 1 with `buffers` buffers and "enough"
/// capacity: non-overlapping (`[i, i + 1)`, capacity the largest size) or full-overlap
/// (all live in `[0, 1)`, capacity the sum of sizes). Sizes are 1–4,096 bytes, rounded
/// up to 64. The same seed gives the same problem.
pub fn generate_microbenchmark(kind: MicrobenchKind, buffers: usize, seed: u64) -> (Problem, Size) {
    let mut rng = Rng::new(seed);
    let bufs: Vec<Buffer> = (0..buffers as u64)
        .map(|i| {
            let size = rng.range(1, 4096).div_ceil(64) * 64;
            match kind {
                MicrobenchKind::NonOverlapping => Buffer::new(i.to_string(), i, i + 1, size),
                MicrobenchKind::FullOverlap => Buffer::new(i.to_string(), 0, 1, size),
            }
        })
        .collect();
    let sizes = bufs.iter().map(|b| b.size);
    let capacity = match kind {
        MicrobenchKind::NonOverlapping => sizes.max().unwrap_or(Size::ZERO),
        MicrobenchKind::FullOverlap => sizes.sum(),
    };
    let problem = Problem::new(bufs).expect("generated buffers are valid");
    (problem, capacity)
}
