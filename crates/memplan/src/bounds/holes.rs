//! The holes bound: at one time, the free buffers must fit into the address ranges that
//! the fixed buffers leave open (see the module doc of [`super`]).

use std::collections::BTreeMap;

use crate::budget::Budget;
use crate::types::{BufferIdx, Offset, Problem, Size, Time};

/// The holes bound and the time that gives it; `None` when it is no better than the
/// loads (no fixed buffer is live with a free one). When the budget runs out, the best
/// over the times swept so far.
pub(crate) fn holes_bound(problem: &Problem, budget: &Budget) -> Option<(Size, Time)> {
    if problem.buffers().iter().all(|b| b.fixed_offset.is_none()) {
        return None;
    }
    // (time, 0 = end / 1 = start, buffer): ends first, so that [a, t) and [t, b) never
    // meet, as the half-open rule says.
    let mut events: Vec<(Time, u8, BufferIdx)> = Vec::new();
    for (i, b) in problem.indexed() {
        for s in b.live_segments() {
            events.push((s.start, 1, i));
            events.push((s.end, 0, i));
        }
    }
    events.sort_unstable();
    // The free buffers' sizes live (with counts), the fixed ones' address ranges.
    let mut free: BTreeMap<Size, u32> = BTreeMap::new();
    let mut fixed: BTreeMap<Offset, Offset> = BTreeMap::new();
    let mut best: Option<(Size, Time)> = None;
    let mut k = 0;
    while k < events.len() {
        let t = events[k].0;
        let mut grew = false;
        while k < events.len() && events[k].0 == t {
            let (_, kind, i) = events[k];
            let b = problem.buffer(i);
            match (b.fixed_offset, kind) {
                (Some(o), 1) => {
                    fixed.insert(o, o + b.size);
                }
                (Some(o), _) => {
                    fixed.remove(&o);
                }
                (None, 1) => *free.entry(b.size).or_insert(0) += 1,
                (None, _) => match free.get_mut(&b.size) {
                    Some(c) if *c > 1 => *c -= 1,
                    _ => {
                        free.remove(&b.size);
                    }
                },
            }
            grew |= kind == 1;
            k += 1;
        }
        if !grew || fixed.is_empty() || free.is_empty() {
            continue;
        }
        if budget.exhausted() {
            // Each time's bound holds on its own: the best so far is a bound.
            break;
        }
        let at = bound_at(&free, &fixed);
        if best.is_none_or(|(b, _)| at > b) {
            best = Some((at, t));
        }
    }
    best
}

/// The bound at one time: `free` holds the sizes of the free buffers live (with counts),
/// `fixed` the address ranges `lo → hi` of the fixed ones.
fn bound_at(free: &BTreeMap<Size, u32>, fixed: &BTreeMap<Offset, Offset>) -> Size {
    let mut holes: Vec<Size> = Vec::with_capacity(fixed.len());
    let mut top = Offset::ZERO;
    for (&lo, &hi) in fixed {
        if lo > top {
            holes.push(lo - top);
        }
        top = top.max(hi);
    }
    let top = top.as_height();
    holes.sort_unstable_by(|a, b| b.cmp(a));
    // Thresholds s in decreasing order: A = total size of the free buffers of size ≥ s,
    // I = total length of the inner holes of length ≥ s.
    let (mut a, mut inner, mut h) = (Size::ZERO, Size::ZERO, 0usize);
    let mut best = top;
    for (&s, &count) in free.iter().rev() {
        a += s * u64::from(count);
        while h < holes.len() && holes[h] >= s {
            inner += holes[h];
            h += 1;
        }
        if a > inner {
            best = best.max(top + s.max(a - inner));
        }
    }
    best
}
