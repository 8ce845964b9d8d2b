//! A seeded generator of model-like problems, for benchmarks and tests.
//!
//! The instance is a sequence of *blocks*, each the training step of a small CNN-like
//! network of depth `D` (100–160 layers):
//!
//! ```text
//!   time ->   forward (D steps)              backward (D steps)
//!   act 0     [=============================================)   saved for backward
//!   act 1       [=========================================)
//!   ...            ...                     ...
//!   act D-1                    [=====)
//!   temp        [) [) [) ...                 [) [) [)          workspace, one step
//!   skip        [====)    [====)                               residual, ~3 steps
//!   grad                               [==) [==) [==) ...      two steps each
//! ```
//!
//! Activation sizes follow a ResNet-like shape schedule (spatial size shrinks and
//! channels grow with depth; batch 1–8; 4-byte elements, rounded to 64 bytes); temps and
//! gradients are smaller. At the turn of each block all `D` activations are live, so at
//! least 100 buffers are live at the peak. Blocks follow each other in time, so the
//! instance has bounded concurrency however many buffers it has.

use crate::rng::Rng;
use crate::types::{Buffer, Problem};

/// Options for [`generate_model_like`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// How many buffers to make (exactly).
    pub buffers: usize,
    /// The seed: the same options give the same problem.
    pub seed: u64,
}

fn round64(bytes: u64) -> u64 {
    bytes.div_ceil(64).max(1) * 64
}

/// Makes a model-like problem: blocks that each look like a CNN training step (long
/// activations saved for the backward pass, one-step temps, short residuals and
/// gradients), one after another in time. No capacity is set.
pub fn generate_model_like(options: &GenOptions) -> Problem {
    let mut rng = Rng::new(options.seed);
    let mut bufs: Vec<Buffer> = Vec::with_capacity(options.buffers);
    let mut t: u64 = 0;
    let push = |bufs: &mut Vec<Buffer>, start: u64, end: u64, size: u64| {
        if bufs.len() < options.buffers {
            let id = bufs.len().to_string();
            bufs.push(Buffer::new(id, start, end, size));
        }
    };
    while bufs.len() < options.buffers {
        let depth = rng.range(100, 160);
        let batch = [1u64, 2, 4, 8][rng.range(0, 3) as usize];
        let t0 = t;
        let turn = t0 + depth; // first backward step
        let mut act_sizes = Vec::with_capacity(depth as usize);
        for layer in 0..depth {
            // Stage 0..4: spatial 112, 56, 28, 14, 7; channels 64 .. 2048.
            let stage = (layer * 5 / depth).min(4);
            let spatial = 112u64 >> stage;
            let channels = (64u64 << stage) * [1u64, 1, 2, 4][rng.range(0, 3) as usize] / 2;
            let act = round64(batch * spatial * spatial * channels * 4);
            act_sizes.push(act);
            // Saved until its mirrored backward step has run.
            let back = turn + (depth - 1 - layer);
            push(&mut bufs, t, back + 1, act);
            if rng.chance(50) {
                push(
                    &mut bufs,
                    t,
                    t + 1,
                    round64(rng.range(1 << 10, act.max(2 << 10))),
                );
            }
            if layer % 3 == 0 && rng.chance(70) {
                push(&mut bufs, t, t + rng.range(2, 4), act);
            }
            if rng.chance(10) {
                // A small constant-like buffer (bias, scale), alive a while.
                push(
                    &mut bufs,
                    t,
                    t + rng.range(1, 8),
                    round64(rng.range(64, 4096)),
                );
            }
            t += 1;
        }
        for layer in (0..depth).rev() {
            let grad = act_sizes[layer as usize];
            push(&mut bufs, t, t + 2, grad);
            if rng.chance(50) {
                push(
                    &mut bufs,
                    t,
                    t + 1,
                    round64(rng.range(1 << 10, grad.max(2 << 10))),
                );
            }
            t += 1;
        }
        // One idle step between blocks (the optimizer update).
        t += 1;
    }
    Problem::new(bufs).expect("generated buffers are valid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    #[test]
    fn deterministic_and_model_like() {
        let opts = GenOptions {
            buffers: 5000,
            seed: 42,
        };
        let a = generate_model_like(&opts);
        assert_eq!(a, generate_model_like(&opts));
        assert_eq!(a.len(), 5000);
        assert_ne!(
            a,
            generate_model_like(&GenOptions {
                buffers: 5000,
                seed: 43
            })
        );
        let an = analyze(&a);
        assert!(an.max_live >= 100, "max live {}", an.max_live);
        assert!(an.components.len() > 3, "blocks are independent in time");
        let sizes: std::collections::BTreeSet<u64> = a.buffers().iter().map(|b| b.size.0).collect();
        assert!(sizes.len() > 100, "mixed sizes");
    }
}
