//! The pooled-capacity proof of infeasibility: at some time `t`, the buffers that may
//! only use a set `S` of bounded memories are larger together than the memories of `S`
//! together. No plan exists then: at `t` each of those buffers occupies its bytes in one
//! memory of `S`, and each memory holds at most its capacity.
//!
//! ```text
//!   fast: 256, mid: 256;  a, b, c: 200 bytes each, live at 0, may use fast|mid
//!   t = 0:  a + b + c = 600 > 256 + 256 = 512   →  no plan
//! ```
//!
//! One sweep over time keeps the live load per allowed set (a map from set to bytes); at
//! each time where a segment starts, every set `S` of bounded memories (every subset when
//! there are at most [`SUBSET_MEMORIES`] bounded memories, else each one alone and all of
//! them) gets `need(S) = Σ load(a) over the allowed sets a ⊆ S`. The allowed sets are
//! the size presolve's (a buffer larger than a memory cannot use it), which only
//! strengthens the argument. O(events × sets × subsets), charged to nothing: the sets
//! are few.

use crate::memory_types::{Memory, MemoryIdx, MemorySet};
use crate::types::{Problem, Size, Time};

use super::Infeasibility;

/// Up to this many bounded memories, every subset of them is tried.
pub(crate) const SUBSET_MEMORIES: usize = 8;

/// The first time (then the smallest set of memories) at which the pooled-capacity
/// argument proves that no plan exists, or `None`.
pub(crate) fn proof(
    problem: &Problem,
    memories: &[Memory],
    allowed: &[MemorySet],
) -> Option<Infeasibility> {
    let bounded: Vec<MemoryIdx> = (0..memories.len() as u32)
        .map(MemoryIdx)
        .filter(|m| memories[m.index()].capacity.is_some())
        .collect();
    if bounded.is_empty() {
        return None;
    }
    let bounded_set = MemorySet::of(bounded.iter().copied());
    let mut sets: Vec<MemorySet> = if bounded.len() <= SUBSET_MEMORIES {
        (1u64..1 << bounded.len())
            .map(|code| {
                MemorySet::of(
                    (0..bounded.len())
                        .filter(|&j| code >> j & 1 == 1)
                        .map(|j| bounded[j]),
                )
            })
            .collect()
    } else {
        let mut s: Vec<MemorySet> = bounded.iter().map(|&m| MemorySet::single(m)).collect();
        s.push(bounded_set);
        s
    };
    // Smaller sets first: the report names the fewest memories.
    sets.sort_by_key(|s| (s.len(), s.0));
    let capacity = |s: MemorySet| -> u64 {
        s.iter()
            .filter_map(|m| memories[m.index()].capacity)
            .map(Size::get)
            .fold(0u64, u64::saturating_add)
    };
    // Events: (time, end before start, buffer).
    let mut events: Vec<(Time, bool, usize)> = Vec::new();
    for (i, b) in problem.buffers().iter().enumerate() {
        if allowed[i].0 & !bounded_set.0 != 0 {
            continue; // it may use an unbounded memory: it never overloads
        }
        for seg in b.live_segments() {
            events.push((seg.start, true, i));
            events.push((seg.end, false, i));
        }
    }
    events.sort_unstable();
    let mut load: Vec<(MemorySet, u64)> = Vec::new();
    let bufs = problem.buffers();
    let mut k = 0;
    while k < events.len() {
        let t = events[k].0;
        let mut started = false;
        while k < events.len() && events[k].0 == t {
            let (_, start, i) = events[k];
            let size = bufs[i].size.get();
            let at = match load.iter().position(|&(s, _)| s == allowed[i]) {
                Some(at) => at,
                None => {
                    load.push((allowed[i], 0));
                    load.len() - 1
                }
            };
            if start {
                load[at].1 += size;
                started = true;
            } else {
                load[at].1 -= size;
            }
            k += 1;
        }
        if !started {
            continue;
        }
        for &s in &sets {
            let need: u64 = load
                .iter()
                .filter(|&&(a, _)| a.0 & !s.0 == 0)
                .map(|&(_, l)| l)
                .fold(0u64, u64::saturating_add);
            let cap = capacity(s);
            if need > cap {
                return Some(report(problem, memories, allowed, s, t, need, cap));
            }
        }
    }
    None
}

/// The proof at time `t` for the memories of `set`.
fn report(
    problem: &Problem,
    memories: &[Memory],
    allowed: &[MemorySet],
    set: MemorySet,
    t: Time,
    need: u64,
    capacity: u64,
) -> Infeasibility {
    let names: Vec<String> = set
        .iter()
        .map(|m| memories[m.index()].name.clone())
        .collect();
    let buffers = problem
        .buffers()
        .iter()
        .enumerate()
        .filter(|&(i, b)| {
            allowed[i].0 & !set.0 == 0 && b.live_segments().any(|s| s.start <= t && t < s.end)
        })
        .map(|(_, b)| b.id.clone())
        .collect();
    Infeasibility {
        memory: names[0].clone(),
        memories: names,
        capacity: Size(capacity),
        time: Some(t),
        need,
        buffers,
        exhaustive: false,
    }
}
