//! A seeded generator of tiled CNN-like networks, tiled as an NPU with a small on-chip
//! memory would tile them.
//!
//! # The network
//!
//! A stem tensor (112×112, 16–32 channels, one byte per element as in a quantised
//! model), then `blocks` blocks in four stages; the first block of stages 2–4 halves
//! the spatial size (stride 2) and doubles the channels, as in MobileNet/ResNet:
//!
//! - a **residual** block: 1×1 expand, 3×3 depthwise, 1×1 project, then `add` with the
//!   block's input when the shapes match (the input stays live across the block);
//! - a **concat** block: a 1×1 branch and a 3×3 branch of the input, then `concat`.
//!
//! # The tiling rule
//!
//! Every tensor is split along its height (an outer axis) into `k` tiles of `r` rows,
//! `k = ceil(bytes / (on_chip / 4))` (at most one tile per row), so that an input tile,
//! an output tile and weights fit on chip together. With NHWC a tile is one contiguous
//! run; with NCHW it is one run per channel (strided).
//!
//! Layers run one after another; a layer whose output has `k` tiles takes steps
//! `S, …, S + k − 1` and writes output tile `j` at step `S + j`. Output rows
//! `[j r, (j+1) r)` of a layer with stride `s` and kernel halo `h` (1 for 3×3, else 0)
//! read input rows `[j r s − h, (j+1) r s + h)`. So a tile:
//!
//! - is born at the step its producer writes it (the network input at time 0);
//! - dies after the last step of its last consumer that reads one of its rows;
//! - the whole tensor is never used at once (empty whole lifetime), except the network
//!   output, which the host reads whole after the last step.
//!
//! ```text
//!   step        S   S+1  S+2  S+3
//!   in tile 0   ===)                  read by steps S (and S+1 with a halo)
//!   in tile 1   ========)
//!   out tile 0  [=====================...   until its own consumers are done
//!   out tile 1      [=================...
//! ```

use super::{Tile, TiledProblem, TiledTensor};
use crate::rng::Rng;
use crate::types::Lifetime;

/// Memory layout of the generated tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Batch, height, width, channels: a height tile is contiguous.
    Nhwc,
    /// Batch, channels, height, width: a height tile is one run per channel.
    Nchw,
}

/// Options for [`generate_tiled`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiledGenOptions {
    /// The seed: the same options give the same network.
    pub seed: u64,
    /// Memory layout.
    pub layout: Layout,
    /// Number of blocks (at least 1).
    pub blocks: usize,
    /// On-chip memory in bytes; tiles are at most a quarter of it (at least 1 row).
    pub on_chip: u64,
}

impl Default for TiledGenOptions {
    fn default() -> TiledGenOptions {
        TiledGenOptions {
            seed: 1,
            layout: Layout::Nhwc,
            blocks: 16,
            on_chip: 256 * 1024,
        }
    }
}

struct Tensor {
    h: u64,
    w: u64,
    c: u64,
    /// Rows per tile and number of tiles.
    rows: u64,
    tiles: u64,
    /// Birth step of each tile, and its last use so far.
    born: Vec<u64>,
    last: Vec<u64>,
}

struct Net {
    tensors: Vec<Tensor>,
    step: u64,
    on_chip: u64,
}

impl Net {
    fn tensor(&mut self, h: u64, w: u64, c: u64, born_at: Option<u64>) -> usize {
        let bytes = h * w * c;
        let budget = (self.on_chip / 4).max(1);
        let k = bytes.div_ceil(budget).clamp(1, h);
        let rows = h.div_ceil(k);
        let tiles = h.div_ceil(rows);
        let born = match born_at {
            Some(t) => vec![t; tiles as usize],
            None => vec![0; tiles as usize],
        };
        self.tensors.push(Tensor {
            h,
            w,
            c,
            rows,
            tiles,
            last: born.clone(),
            born,
        });
        self.tensors.len() - 1
    }

    /// A layer reading `inputs` (kernel halo `halo`, stride `stride`) and writing a new
    /// `h × w × c` tensor; returns it.
    fn layer(&mut self, inputs: &[usize], c: u64, stride: u64, halo: u64) -> usize {
        let (h, w) = {
            let x = &self.tensors[inputs[0]];
            (x.h.div_ceil(stride), x.w.div_ceil(stride))
        };
        let out = self.tensor(h, w, c, None);
        let start = self.step;
        let (rows, tiles) = (self.tensors[out].rows, self.tensors[out].tiles);
        for j in 0..tiles {
            self.tensors[out].born[j as usize] = start + j;
            self.tensors[out].last[j as usize] = start + j;
        }
        for &i in inputs {
            let x = &mut self.tensors[i];
            for t in 0..x.tiles {
                let end_row = (t + 1) * x.rows + halo;
                let j_last = (end_row.div_ceil(rows * stride) - 1).min(tiles - 1);
                let l = &mut x.last[t as usize];
                *l = (*l).max(start + j_last);
            }
        }
        self.step += tiles;
        out
    }
}

/// Makes a tiled CNN-like network (residual and concat blocks in four stages), each
/// tensor split along its height into tiles that fit a small on-chip memory, with the
/// lifetimes an NPU executing it layer by layer would give them.
pub fn generate_tiled(options: &TiledGenOptions) -> TiledProblem {
    let mut rng = Rng::new(options.seed);
    let mut net = Net {
        tensors: Vec::new(),
        step: 1,
        on_chip: options.on_chip.max(1),
    };
    let mut c = [16u64, 24, 32][rng.range(0, 2) as usize];
    let mut x = net.tensor(112, 112, c, Some(0));
    let blocks = options.blocks.max(1);
    for b in 0..blocks {
        let stage = b * 4 / blocks;
        let downsample = b > 0 && stage != (b - 1) * 4 / blocks;
        let stride = if downsample { 2 } else { 1 };
        let c_out = if downsample { c * 2 } else { c };
        if rng.chance(65) {
            let expand = c * [2u64, 4, 6][rng.range(0, 2) as usize];
            let a = net.layer(&[x], expand, 1, 0);
            let d = net.layer(&[a], expand, stride, 1);
            let y = net.layer(&[d], c_out, 1, 0);
            x = if downsample {
                y
            } else {
                net.layer(&[y, x], c_out, 1, 0)
            };
        } else {
            let half = (c_out / 2).max(1);
            let p = net.layer(&[x], half, stride, 0);
            let q = net.layer(&[x], c_out - half, stride, 1);
            x = net.layer(&[p, q], c_out, 1, 0);
        }
        c = c_out;
    }
    let end = net.step;
    let output = x;
    let mut tensors = Vec::with_capacity(net.tensors.len());
    for (n, t) in net.tensors.iter().enumerate() {
        let (shape, strides, axis) = match options.layout {
            Layout::Nhwc => (
                vec![1, t.h, t.w, t.c],
                vec![t.h * t.w * t.c, t.w * t.c, t.c, 1],
                1,
            ),
            Layout::Nchw => (
                vec![1, t.c, t.h, t.w],
                vec![t.c * t.h * t.w, t.h * t.w, t.w, 1],
                2,
            ),
        };
        let is_output = n == output;
        let tiles = (0..t.tiles)
            .map(|j| {
                let mut offset = vec![0u64; 4];
                let mut sizes = shape.clone();
                offset[axis] = j * t.rows;
                sizes[axis] = t.rows.min(t.h - j * t.rows);
                let last = if is_output { end } else { t.last[j as usize] };
                Tile {
                    offset,
                    sizes,
                    lifetime: Lifetime::new(t.born[j as usize], last + 1),
                }
            })
            .collect();
        tensors.push(TiledTensor {
            id: format!("t{n}"),
            shape,
            strides,
            element_size: 1,
            lifetime: if is_output {
                Lifetime::new(end, end + 1)
            } else {
                Lifetime::new(0, 0)
            },
            tiles,
        });
    }
    TiledProblem::new(tensors).expect("generated tensors are valid")
}
