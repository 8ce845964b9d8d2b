//! A tile's bytes as contiguous chunks (Alg. 3, RenderChunks) and the collision test
//! between two placed tiles (Alg. 2, CollisionSize).
//!
//! A tile with sizes `s` at element offset `o` of a tensor with element strides `d` and
//! element size `z` holds the bytes `z · Σ (o_i + x_i) · d_i + [0, z)` for
//! `0 ≤ x_i < s_i` (eq. 1). Its first byte is at `z · Σ o_i d_i`, `off(t)` in the paper.
//! From some axis on the tile is one block: every inner axis exactly fills the stride of
//! the axis outside it, and the innermost stride is one element. Above that axis the
//! tile is a grid of such blocks; adjacent blocks merge:
//!
//! ```text
//!   tensor 4 x 8 (row-major, strides [8, 1]), tile rows 0..4, columns 2..5:
//!   byte   0       8       16      24      32
//!          ..###.....###.....###.....###...     4 chunks of 3 bytes, at 2, 10, 18, 26
//!   tile rows 1..3, all columns: one chunk [8, 24)
//! ```
//!
//! Chunks come out in increasing address order because the layout is outer-to-inner
//! (each stride covers the whole extent of the axes inside it; checked on input).

use crate::types::{Offset, Size};

/// A run of contiguous bytes of a tile: `len` bytes from `start` bytes above the tensor's
/// base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub(crate) start: Size,
    pub(crate) len: Size,
}

impl Chunk {
    /// The bytes from the tensor's base to the chunk's end.
    #[inline]
    pub(crate) fn end(self) -> Size {
        self.start + self.len
    }
}

/// Chunks relative to the tensor's base, increasing, disjoint, never adjacent (adjacent
/// runs are merged).
pub(crate) type Chunks = Vec<Chunk>;

/// The chunks of a block with `sizes` at byte offset `base`, byte strides `strides`,
/// element size `esize` (Alg. 3).
pub(crate) fn render_chunks(sizes: &[u64], strides: &[u64], esize: u64, base: u64) -> Chunks {
    let rank = sizes.len();
    // contiguous[a]: axes a.. form one contiguous block of block_len[a] bytes (the
    // paper's test "the product of the inner sizes equals the stride").
    let mut contiguous = vec![true; rank + 1];
    let mut block_len = vec![esize; rank + 1];
    for a in (0..rank).rev() {
        contiguous[a] = contiguous[a + 1] && (sizes[a] == 1 || strides[a] == block_len[a + 1]);
        block_len[a] = sizes[a] * block_len[a + 1];
    }
    let mut out = Vec::new();
    render_axis(sizes, strides, &contiguous, &block_len, 0, base, &mut out);
    out
}

fn render_axis(
    sizes: &[u64],
    strides: &[u64],
    contiguous: &[bool],
    block_len: &[u64],
    axis: usize,
    base: u64,
    out: &mut Chunks,
) {
    if contiguous[axis] {
        push_merged(out, Size(base), Size(block_len[axis]));
        return;
    }
    for i in 0..sizes[axis] {
        render_axis(
            sizes,
            strides,
            contiguous,
            block_len,
            axis + 1,
            base + i * strides[axis],
            out,
        );
    }
}

fn push_merged(out: &mut Chunks, start: Size, len: Size) {
    if let Some(last) = out.last_mut() {
        if last.end() == start {
            last.len += len;
            return;
        }
    }
    out.push(Chunk { start, len });
}

/// How far the tile `a` at absolute base `a_base` must move up to clear the tile `b` at
/// `b_base`, or 0 when they share no byte (Alg. 2).
///
/// The paper returns `t1end − t2start` for the first overlapping pair of chunks. We
/// return `b_end − a_start`, which moves the new chunk's start to the end of the chunk
/// it hits: the same value when the new chunk starts inside the other (the paper's
/// example), and always a positive amount, so that the search always advances. No
/// smaller move can help: the pair still overlaps for every move below it. With
/// `all_pairs`, every overlapping pair is visited and the largest such move returned.
pub(crate) fn collision_shift(
    a: &[Chunk],
    a_base: Offset,
    b: &[Chunk],
    b_base: Offset,
    all_pairs: bool,
) -> Size {
    let (Some(a_first), Some(a_last), Some(b_first), Some(b_last)) =
        (a.first(), a.last(), b.first(), b.last())
    else {
        return Size::ZERO;
    };
    // Lines 1–2: one lies wholly to one side of the other.
    if a_base + a_last.end() <= b_base + b_first.start
        || b_base + b_last.end() <= a_base + a_first.start
    {
        return Size::ZERO;
    }
    let (mut i, mut j) = (0, 0);
    let mut shift = Size::ZERO;
    // Skip chunks of the longer list that end before the other's first chunk starts.
    if a.len() > 8 {
        i = a.partition_point(|c| a_base + c.end() <= b_base + b_first.start);
    }
    if b.len() > 8 {
        j = b.partition_point(|c| b_base + c.end() <= a_base + a_first.start);
    }
    while i < a.len() && j < b.len() {
        let (a_start, a_end) = (a_base + a[i].start, a_base + a[i].end());
        let (b_start, b_end) = (b_base + b[j].start, b_base + b[j].end());
        if a_end <= b_start {
            i += 1;
        } else if b_end <= a_start {
            j += 1;
        } else {
            shift = shift.max(b_end - a_start);
            if !all_pairs {
                return shift;
            }
            if a_end <= b_end {
                i += 1;
            } else {
                j += 1;
            }
        }
    }
    shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_example() {
        // A 4x64x128 tile of a 4x128x128 CHW tensor, one byte per element (§III-C.1).
        let c = render_chunks(&[4, 64, 128], &[16384, 128, 1], 1, 0);
        let runs: Vec<(u64, u64)> = c.iter().map(|c| (c.start.get(), c.len.get())).collect();
        assert_eq!(
            runs,
            vec![(0, 8192), (16384, 8192), (32768, 8192), (49152, 8192)]
        );
        // §III-C.2: the same tile of a tensor at 128 overlaps by 8192 − 128.
        let shift = |at| collision_shift(&c, Offset(at), &c, Offset::ZERO, false);
        assert_eq!(shift(128), Size(8192 - 128));
        assert_eq!(shift(8192), Size::ZERO);
    }

    #[test]
    fn matches_byte_enumeration() {
        let mut rng = crate::rng::Rng::new(11);
        for _ in 0..300 {
            let rank = rng.range(1, 4) as usize;
            let shape: Vec<u64> = (0..rank).map(|_| rng.range(1, 5)).collect();
            let esize = rng.range(1, 4);
            let mut strides = vec![0u64; rank];
            let mut acc = 1;
            for a in (0..rank).rev() {
                strides[a] = acc;
                acc *= shape[a] + if rng.chance(30) { rng.range(1, 2) } else { 0 };
            }
            let off: Vec<u64> = shape.iter().map(|&s| rng.range(0, s - 1)).collect();
            let sizes: Vec<u64> = shape
                .iter()
                .zip(&off)
                .map(|(&s, &o)| rng.range(1, s - o))
                .collect();
            let bstr: Vec<u64> = strides.iter().map(|s| s * esize).collect();
            let base: u64 = off.iter().zip(&bstr).map(|(o, d)| o * d).sum();
            let chunks = render_chunks(&sizes, &bstr, esize, base);
            // Every byte, by brute force.
            let mut bytes = Vec::new();
            let count: u64 = sizes.iter().product();
            for k in 0..count {
                let mut rest = k;
                let mut e = 0;
                for a in (0..rank).rev() {
                    e += (off[a] + rest % sizes[a]) * strides[a];
                    rest /= sizes[a];
                }
                bytes.extend((0..esize).map(|z| e * esize + z));
            }
            bytes.sort_unstable();
            let rendered: Vec<u64> = chunks
                .iter()
                .flat_map(|c| c.start.get()..c.end().get())
                .collect();
            assert_eq!(
                rendered, bytes,
                "shape {shape:?} sizes {sizes:?} strides {strides:?}"
            );
            for w in chunks.windows(2) {
                assert!(w[0].end() < w[1].start, "merged and ordered");
            }
        }
    }
}
