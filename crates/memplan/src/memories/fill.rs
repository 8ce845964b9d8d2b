//! The fallback when the level-by-level sweep fails at a later bounded memory: one pass
//! over the buffers, largest first, each into the first memory of the sweep's order
//! that it may use and where a first-fit offset under the capacity exists (the shape of
//! ExecuTorch's banked greedy pass). Buffers with a fixed offset go first, at their
//! address in their memory. "Largest" is by size, by size × lifetime or by lifetime
//! ([`FillOrder`]); the sweep keeps the cheapest plan of the three.
//!
//! ```text
//!   buffers by size:  e(8) a(4) b(4) c(4)
//!   e -> tcm? no room -> ocram? fits at 0
//!   a -> tcm at 0, ...
//! ```
//!
//! It proves nothing; its plan, when it finds one, is checked like any other. Cost:
//! O(n²) overlap tests in the worst case (each buffer against those already placed in
//! the memories it tries).

use crate::budget::Budget;
use crate::memory_types::{MemoryIdx, MemorySet};
use crate::types::{Buffer, BufferIdx, Offset, Problem, Size};

/// A placed buffer: its live segments (lifetime minus gaps), offset and end.
struct Placed {
    segments: Vec<(u64, u64)>,
    offset: u64,
    end: u64,
}

/// The half-open intervals in which `b` occupies its bytes.
fn segments(b: &Buffer) -> Vec<(u64, u64)> {
    let mut out = Vec::with_capacity(b.gaps.len() + 1);
    let mut at = b.lifetime.start.get();
    for g in &b.gaps {
        if g.start.get() > at {
            out.push((at, g.start.get()));
        }
        at = at.max(g.end.get());
    }
    if b.lifetime.end.get() > at {
        out.push((at, b.lifetime.end.get()));
    }
    out
}

fn overlap(a: &[(u64, u64)], b: &[(u64, u64)]) -> bool {
    a.iter()
        .any(|&(s, e)| b.iter().any(|&(t, f)| s < f && t < e))
}

/// The lowest offset, a multiple of `alignment`, at which `size` bytes fit beside the
/// `busy` ranges, with its end at most `capacity` (`None`: unbounded).
fn first_fit(
    busy: &mut [(u64, u64)],
    size: u64,
    alignment: u64,
    capacity: Option<u64>,
) -> Option<u64> {
    busy.sort_unstable();
    let mut at = 0u64;
    for &(lo, hi) in busy.iter() {
        if at.checked_add(size)? <= lo {
            break;
        }
        at = at.max(hi.checked_next_multiple_of(alignment)?);
    }
    let end = at.checked_add(size)?;
    capacity.is_none_or(|c| end <= c).then_some(at)
}

/// The order in which [`run`] takes the buffers (after the fixed ones), largest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FillOrder {
    /// By size (ties: the longer lifetime).
    Size,
    /// By size × lifetime.
    Area,
    /// By lifetime (ties: the larger).
    Lifetime,
}

impl FillOrder {
    /// Every order, the one tried first first.
    pub(crate) const ALL: [FillOrder; 3] = [FillOrder::Size, FillOrder::Area, FillOrder::Lifetime];
}

/// One pass: per buffer its memory and offset, or `None` when some buffer fits nowhere
/// (or the budget runs out). `order` is the sweep's order of the memories; `alignment`
/// gives a buffer's alignment in a memory (the lcm of the two).
pub(crate) fn run(
    problem: &Problem,
    allowed: &[MemorySet],
    order: &[MemoryIdx],
    capacities: &[Option<Size>],
    alignment: &dyn Fn(BufferIdx, MemoryIdx) -> u64,
    order_key: FillOrder,
    budget: &Budget,
) -> Option<(Vec<MemoryIdx>, Vec<Offset>)> {
    let bufs = problem.buffers();
    let n = bufs.len();
    let mut placed: Vec<Vec<Placed>> = (0..capacities.len()).map(|_| Vec::new()).collect();
    let mut memory = vec![MemoryIdx(0); n];
    let mut offsets = vec![Offset::ZERO; n];
    let mut by_size: Vec<BufferIdx> = problem.indices().collect();
    // Fixed buffers first, then by the order's key, largest first (ties: input order).
    by_size.sort_by_key(|&i| {
        let b = &bufs[i.index()];
        let (size, len) = (u128::from(b.size.get()), u128::from(b.lifetime.len()));
        let key = match order_key {
            FillOrder::Size => size << 64 | len,
            FillOrder::Area => size * len,
            FillOrder::Lifetime => len << 64 | size,
        };
        (b.fixed_offset.is_none(), std::cmp::Reverse(key), i)
    });
    for (k, &i) in by_size.iter().enumerate() {
        if k % 64 == 0 && budget.exhausted() {
            return None;
        }
        let b = &bufs[i.index()];
        let segs = segments(b);
        let mut done = false;
        for &m in order.iter().filter(|&&m| allowed[i.index()].contains(m)) {
            let capacity = capacities[m.index()].map(Size::get);
            let mut busy: Vec<(u64, u64)> = placed[m.index()]
                .iter()
                .filter(|p| overlap(&p.segments, &segs))
                .map(|p| (p.offset, p.end))
                .collect();
            let at = match b.fixed_offset {
                // Its address (validated: aligned, under the capacity); the fixed
                // buffers go first, and a valid problem's fixed buffers never collide.
                Some(f) => Some(f.get()),
                None => first_fit(&mut busy, b.size.get(), alignment(i, m), capacity),
            };
            if let Some(at) = at {
                placed[m.index()].push(Placed {
                    segments: segs.clone(),
                    offset: at,
                    end: at + b.size.get(),
                });
                memory[i.index()] = m;
                offsets[i.index()] = Offset(at);
                done = true;
                break;
            }
        }
        if !done {
            return None;
        }
    }
    Some((memory, offsets))
}
