//! A seeded generator of dense training traces: tens of thousands of buffers, thousands
//! live at once, 10⁸ or more overlapping pairs, sizes over many orders of magnitude (the
//! shape of the data-centre traces that memplan must plan in a short budget).
//!
//! One training step, forward then backward, over `steps` time steps:
//!
//! ```text
//!   time ->  0                      steps/2                    steps
//!   saved    [=================================================)      `live` activations,
//!              [=============================================)        nested: saved at
//!                 ...          [=========)                            forward time f, freed
//!                                                                      near steps − f
//!   temps      [)  [==)   [)       [=)     [)   [===)    [)           the rest: 1 to 64
//!   grads                              [=========)  [=====)            steps, 1 in 10 up to
//!                                                                      steps/8
//! ```
//!
//! At the turn (`steps/2`) every saved activation is live, so about `live` buffers are
//! live at the peak and every temp overlaps about half of them: `live²/2 + (n − live) ×
//! live/2` overlapping pairs, 2.6·10⁸ for the defaults at 62,000 buffers.
//!
//! Sizes are log-uniform inside three tiers of `[min_size, max_size]` (in log scale): 70%
//! in the lower 60% of the range, 28% in the next 25%, 2% in the top 15%, so that a few
//! giants dominate the load while most buffers are small, as in real traces.

use crate::rng::Rng;
use crate::types::{Buffer, Problem};

/// Options for [`generate_dense_trace`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DenseGenOptions {
    /// How many buffers (exactly).
    pub buffers: usize,
    /// The seed: the same options give the same problem.
    pub seed: u64,
    /// Time steps of the trace; 0: one and a half per buffer.
    pub steps: u64,
    /// Saved activations, all live at the turn; 0: one buffer in seven.
    pub live: usize,
    /// The smallest size in bytes (at least 1).
    pub min_size: u64,
    /// The largest size in bytes (at least `min_size`).
    pub max_size: u64,
}

impl Default for DenseGenOptions {
    /// 60,000 buffers shaped like a real training trace (62,185 buffers, 9,331 live at
    /// the peak, sizes from 2 B to 9.4 GB).
    fn default() -> DenseGenOptions {
        DenseGenOptions {
            buffers: 60_000,
            seed: 1,
            steps: 0,
            live: 0,
            min_size: 2,
            max_size: 9_400_000_000,
        }
    }
}

/// Makes a dense training trace (see the module doc). No capacity is set.
pub fn generate_dense_trace(options: &DenseGenOptions) -> Problem {
    let n = options.buffers;
    let steps = if options.steps == 0 {
        (n as u64 * 3 / 2).max(4)
    } else {
        options.steps.max(4)
    };
    let live = if options.live == 0 {
        n / 7
    } else {
        options.live.min(n)
    };
    let min = options.min_size.max(1);
    let max = options.max_size.max(min);
    let (lo, hi) = ((min as f64).ln(), (max as f64).ln());
    let mut rng = Rng::new(options.seed);
    let size = |rng: &mut Rng| {
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (a, b) = match rng.range(0, 99) {
            0..=69 => (0.0, 0.6),
            70..=97 => (0.6, 0.85),
            _ => (0.85, 1.0),
        };
        let x = lo + (hi - lo) * (a + (b - a) * u);
        (x.exp().round() as u64).clamp(min, max)
    };
    let half = steps / 2;
    let mut bufs = Vec::with_capacity(n);
    for k in 0..n {
        let (start, end) = if k < live {
            // Saved at forward time f, freed a little after the mirrored backward time.
            let f = rng.range(0, half - 1);
            let back = steps - 1 - f;
            (f, (back + rng.range(1, 8)).min(steps))
        } else {
            let start = rng.range(0, steps - 2);
            let len = if rng.chance(10) {
                rng.range(1, (steps / 8).max(1))
            } else {
                rng.range(1, 64)
            };
            (start, (start + len).min(steps))
        };
        bufs.push(Buffer::new(format!("t{k}"), start, end, size(&mut rng)));
    }
    Problem::new(bufs).expect("generated buffers are valid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::max_load;

    #[test]
    fn deterministic_dense_and_spread() {
        let o = DenseGenOptions {
            buffers: 3_000,
            ..DenseGenOptions::default()
        };
        let p = generate_dense_trace(&o);
        assert_eq!(p.len(), 3_000);
        assert_eq!(p, generate_dense_trace(&o));
        assert_ne!(p, generate_dense_trace(&DenseGenOptions { seed: 2, ..o }));
        // Every saved activation is live at the turn.
        let half = 3_000 * 3 / 2 / 2;
        let live_at_turn = p
            .buffers()
            .iter()
            .filter(|b| b.lifetime.start.0 <= half && half < b.lifetime.end.0)
            .count();
        assert!(live_at_turn >= 3_000 / 7, "{live_at_turn}");
        let sizes: Vec<u64> = p.buffers().iter().map(|b| b.size.0).collect();
        let (smallest, largest) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
        assert!(
            smallest < 1_000 && largest > 1_000_000_000,
            "{smallest} {largest}"
        );
        assert!(max_load(&p).0 > largest);
    }
}
