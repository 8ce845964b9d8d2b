//! TensorAllocate (Alg. 1) over the three orders of §III-A.

use std::cmp::Reverse;

use super::chunks::{collision_shift, render_chunks, Chunks};
use super::{TileOrder, TilePlan, TiledProblem};
use crate::index::TimeIndex;
use crate::types::{Buffer, BufferIdx, Lifetime, Offset, Problem, Size, Time};

/// Every live item (a tile, or a whole tensor during its whole lifetime), rendered once.
/// Items are indexed by [`BufferIdx`]: item `k` is buffer `k` of [`Items::as_problem`].
pub(super) struct Items {
    /// `tensor[k]`: the tensor of item `k`.
    tensor: Vec<usize>,
    lifetime: Vec<Lifetime>,
    /// Chunks relative to the tensor's base.
    chunks: Vec<Chunks>,
    /// Items of each tensor.
    of_tensor: Vec<Vec<BufferIdx>>,
    /// The items as buffers, so that [`TimeIndex`] can index their lifetimes.
    as_problem: Problem,
}

impl Items {
    pub(super) fn new(problem: &TiledProblem) -> Items {
        let mut tensor = Vec::new();
        let mut lifetime = Vec::new();
        let mut chunks = Vec::new();
        let mut of_tensor = vec![Vec::new(); problem.len()];
        for (ti, t) in problem.tensors().iter().enumerate() {
            let strides: Vec<u64> = t.strides.iter().map(|d| d * t.element_size).collect();
            let mut add = |lt: Lifetime, c: Chunks| {
                of_tensor[ti].push(BufferIdx::new(tensor.len()));
                tensor.push(ti);
                lifetime.push(lt);
                chunks.push(c);
            };
            if !t.lifetime.is_empty() {
                add(
                    t.lifetime,
                    render_chunks(&t.shape, &strides, t.element_size, 0),
                );
            }
            for tile in &t.tiles {
                let base: u64 = tile.offset.iter().zip(&strides).map(|(o, d)| o * d).sum();
                add(
                    tile.lifetime,
                    render_chunks(&tile.sizes, &strides, t.element_size, base),
                );
            }
        }
        let bufs: Vec<Buffer> = lifetime
            .iter()
            .enumerate()
            .map(|(k, &lifetime)| Buffer {
                lifetime,
                ..Buffer::new(k.to_string(), 0, 1, 1)
            })
            .collect();
        let as_problem = Problem::new(bufs).expect("item lifetimes are non-empty");
        Items {
            tensor,
            lifetime,
            chunks,
            of_tensor,
            as_problem,
        }
    }

    /// A lower bound on any plan's peak: at each time, every tensor occupies at least the
    /// bytes of its largest live item, and items of different tensors never share a
    /// byte while live, so the peak is at least the largest sum over tensors of their
    /// largest live item. A sweep over the item lifetimes, O(items log items).
    pub(super) fn lower_bound(&self) -> Size {
        use std::collections::BTreeMap;
        let bytes = |k: BufferIdx| self.chunks[k].iter().map(|c| c.len).sum::<Size>();
        // (time, is_start, item): ends before starts at the same time (half-open).
        let mut events: Vec<(Time, bool, BufferIdx)> = Vec::with_capacity(2 * self.tensor.len());
        for (k, lt) in self.as_problem.indices().zip(&self.lifetime) {
            events.push((lt.start, true, k));
            events.push((lt.end, false, k));
        }
        events.sort_unstable();
        let mut live: Vec<BTreeMap<Size, u32>> = vec![BTreeMap::new(); self.of_tensor.len()];
        let (mut total, mut best) = (Size::ZERO, Size::ZERO);
        for (_, start, k) in events {
            let t = self.tensor[k];
            let before = live[t].keys().next_back().copied().unwrap_or(Size::ZERO);
            let b = bytes(k);
            if start {
                *live[t].entry(b).or_insert(0) += 1;
            } else if let Some(n) = live[t].get_mut(&b) {
                *n -= 1;
                if *n == 0 {
                    live[t].remove(&b);
                }
            }
            let after = live[t].keys().next_back().copied().unwrap_or(Size::ZERO);
            total = total - before + after;
            best = best.max(total);
        }
        best
    }

    fn top(&self, k: BufferIdx) -> Size {
        self.chunks[k].last().map_or(Size::ZERO, |c| c.end())
    }

    /// Tensors in the given order, ties by index.
    fn order(&self, problem: &TiledProblem, order: TileOrder) -> Vec<usize> {
        let n = problem.len();
        let mut idx: Vec<usize> = (0..n).collect();
        match order {
            TileOrder::Size => idx.sort_by_key(|&t| Reverse(problem.tensors()[t].extent())),
            TileOrder::Lifetime => {
                idx.sort_by_key(|&t| Reverse(problem.tensors()[t].whole_span().len()))
            }
            TileOrder::Peers => {
                let index = TimeIndex::new(&self.as_problem);
                let mut peers = vec![0usize; n];
                let mut seen = vec![usize::MAX; n];
                for (t, items) in self.of_tensor.iter().enumerate() {
                    for &k in items {
                        index.for_each_overlapping(self.lifetime[k], |p| {
                            let pt = self.tensor[p];
                            if pt != t && seen[pt] != t {
                                seen[pt] = t;
                                peers[t] += 1;
                            }
                        });
                    }
                }
                idx.sort_by_key(|&t| Reverse(peers[t]));
            }
        }
        idx
    }

    /// Places every tensor in `order` at the lowest address where none of its items
    /// collides with a placed peer.
    pub(super) fn place(
        &self,
        problem: &TiledProblem,
        order: TileOrder,
        all_pairs: bool,
    ) -> TilePlan {
        let mut index = TimeIndex::new_empty(&self.as_problem);
        let mut base = vec![Offset::ZERO; problem.len()];
        let mut peers: Vec<Vec<BufferIdx>> = Vec::new();
        let mut peak = Offset::ZERO;
        for t in self.order(problem, order) {
            let items = &self.of_tensor[t];
            peers.clear();
            for &k in items {
                let mut p = Vec::new();
                index.for_each_overlapping(self.lifetime[k], |q| p.push(q));
                peers.push(p);
            }
            let mut addr = Offset::ZERO;
            if all_pairs {
                // Clear each (item, peer) pair in turn, moving up until that pair is free,
                // and repeat the pass until no pair moves the address.
                loop {
                    let before = addr;
                    for (n, &k) in items.iter().enumerate() {
                        for &q in &peers[n] {
                            let (a, b) = (&self.chunks[k], &self.chunks[q]);
                            let b_base = base[self.tensor[q]];
                            loop {
                                let s = collision_shift(a, addr, b, b_base, true);
                                if s == Size::ZERO {
                                    break;
                                }
                                addr += s;
                            }
                        }
                    }
                    if addr == before {
                        break;
                    }
                }
            } else {
                // The paper's loop: restart the scan after the first collision found.
                loop {
                    let mut shift = Size::ZERO;
                    'items: for (n, &k) in items.iter().enumerate() {
                        for &q in &peers[n] {
                            shift = collision_shift(
                                &self.chunks[k],
                                addr,
                                &self.chunks[q],
                                base[self.tensor[q]],
                                false,
                            );
                            if shift > Size::ZERO {
                                break 'items;
                            }
                        }
                    }
                    if shift == Size::ZERO {
                        break;
                    }
                    addr += shift;
                }
            }
            base[t] = addr;
            for &k in items {
                index.insert(k, self.lifetime[k].end);
                peak = peak.max(addr + self.top(k));
            }
        }
        TilePlan {
            offsets: base,
            peak: peak.as_height(),
        }
    }
}
