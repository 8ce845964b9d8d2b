//! The three greedy strategies of TFLite §4. Each returns `(object of each buffer,
//! object sizes)`. Lifetimes are whole (gaps ignored). Ties are broken by buffer index
//! and object id, so results are deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::objects::Objects;
use crate::index::TimeIndex;
use crate::types::{Lifetime, Problem, Size};

const UNASSIGNED: u32 = u32::MAX;

fn span(problem: &Problem, i: usize) -> (u64, u64) {
    let lt = problem.buffers()[i].lifetime;
    (lt.start.0, lt.end.0)
}

/// Greedy by Size (§4.3, Alg. 2): largest buffer first, to the smallest suitable object.
pub(super) fn by_size(problem: &Problem) -> (Vec<u32>, Vec<u64>) {
    let bufs = problem.buffers();
    let mut order: Vec<usize> = (0..bufs.len()).collect();
    order.sort_by_key(|&i| Reverse(bufs[i].size));
    let mut objs = Objects::new();
    let mut object_of = vec![UNASSIGNED; bufs.len()];
    for i in order {
        let (s, e) = span(problem, i);
        let size = bufs[i].size.0;
        // Every object is at least `size`: sizes only decrease along the order.
        let found = objs.at_least(size).find(|&o| objs.fits(o, s, e));
        object_of[i] = match found {
            Some(o) => {
                objs.assign(o, s, e, size);
                o
            }
            None => objs.create(s, e, size),
        };
    }
    (object_of, objs.into_sizes())
}

/// Greedy by Breadth (§4.2, Alg. 1). The "operators" are the distinct start times: the
/// profile can only grow at a start, and every buffer is live at its own start, so
/// visiting them covers every buffer and every maximal profile.
pub(super) fn by_breadth(problem: &Problem) -> (Vec<u32>, Vec<u64>) {
    let bufs = problem.buffers();
    // Breadth at each distinct start: one sweep, ends before starts at equal times.
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(2 * bufs.len());
    for b in bufs {
        events.push((b.lifetime.start.0, true, b.size.0));
        events.push((b.lifetime.end.0, false, b.size.0));
    }
    events.sort_unstable_by_key(|&(t, is_start, _)| (t, is_start));
    let mut breadth: Vec<(u64, u64)> = Vec::new(); // (time, breadth)
    let mut load: u64 = 0;
    for (k, &(t, is_start, size)) in events.iter().enumerate() {
        if is_start {
            load = load.saturating_add(size);
        } else {
            load -= size;
        }
        let last_at_t = events.get(k + 1).is_none_or(|n| n.0 != t);
        if last_at_t && is_start {
            breadth.push((t, load));
        }
    }
    breadth.sort_by_key(|&(t, b)| (Reverse(b), t));

    let mut index = TimeIndex::new(problem);
    let mut objs = Objects::new();
    let mut object_of = vec![UNASSIGNED; bufs.len()];
    let mut profile: Vec<u32> = Vec::new();
    for (t, _) in breadth {
        profile.clear();
        index.for_each_overlapping(Lifetime::new(t, t + 1), |i| profile.push(i));
        for &i in &profile {
            index.remove(i);
        }
        profile.sort_by_key(|&i| (Reverse(bufs[i as usize].size), i));
        for &i in &profile {
            let i = i as usize;
            let (s, e) = span(problem, i);
            let size = bufs[i].size.0;
            // The smallest suitable object not smaller than the buffer, else the
            // largest suitable one (which grows), else a new one.
            let found = objs
                .at_least(size)
                .find(|&o| objs.fits(o, s, e))
                .or_else(|| {
                    // Among equal sizes prefer the lower id, as `at_least` does.
                    let mut best: Option<u32> = None;
                    for o in objs.smaller_than(size) {
                        if best.is_some_and(|b| objs.size(b) > objs.size(o)) {
                            break;
                        }
                        if objs.fits(o, s, e) {
                            best = Some(best.map_or(o, |b: u32| b.min(o)));
                        }
                    }
                    best
                });
            object_of[i] = match found {
                Some(o) => {
                    objs.assign(o, s, e, size);
                    o
                }
                None => objs.create(s, e, size),
            };
        }
    }
    (object_of, objs.into_sizes())
}

/// Greedy by Size Improved (§4.4): stages by positional maximum; inside a stage, the
/// (buffer, object) pair with the smallest time gap first.
pub(super) fn by_size_improved(problem: &Problem, maxima: &[Size]) -> (Vec<u32>, Vec<u64>) {
    let bufs = problem.buffers();
    let mut distinct: Vec<u64> = maxima.iter().map(|s| s.0).collect();
    distinct.dedup();
    // Stage 2k holds sizes equal to distinct[k]; stage 2k + 1 sizes strictly between
    // distinct[k + 1] (or 0) and distinct[k]. `distinct` is decreasing.
    let stage_of = |size: u64| -> usize {
        let k = distinct.partition_point(|&p| p > size);
        if k < distinct.len() && distinct[k] == size {
            2 * k
        } else {
            2 * k - 1 // k ≥ 1: no buffer is larger than the first maximum
        }
    };
    let mut stages: Vec<Vec<u32>> = vec![Vec::new(); 2 * distinct.len()];
    for (i, b) in bufs.iter().enumerate() {
        stages[stage_of(b.size.0)].push(i as u32);
    }
    let mut objs = Objects::new();
    let mut object_of = vec![UNASSIGNED; bufs.len()];
    for stage in stages.iter_mut().filter(|s| !s.is_empty()) {
        assign_stage(problem, stage, &mut objs, &mut object_of);
    }
    (object_of, objs.into_sizes())
}

/// One stage of Greedy by Size Improved.
///
/// The heap holds candidates `(gap, position of the buffer in the stage, object)`. Invariant: for every unassigned
/// buffer of the stage, the smallest candidate it has in the heap is at most its true
/// best gap. It holds because (1) a buffer's best is pushed when the stage starts and
/// recomputed whenever one of its candidates turns out unsuitable, and (2) gaps only
/// shrink as objects fill up, and every shrink is pushed: adding `[s, e)` to an object
/// only changes the gaps of buffers in the hole `[s, e)` was put in. So a popped
/// candidate whose gap is still exact is the best pair of the whole stage.
fn assign_stage(problem: &Problem, stage: &mut [u32], objs: &mut Objects, object_of: &mut [u32]) {
    let bufs = problem.buffers();
    // Sorted by start, to find the buffers inside a hole.
    stage.sort_by_key(|&i| (bufs[i as usize].lifetime.start, i));
    let starts: Vec<u64> = stage
        .iter()
        .map(|&i| bufs[i as usize].lifetime.start.0)
        .collect();
    // fits_none_below[k]: stage[k]'s buffer fitted no object below this id once.
    let mut fits_none_below: Vec<u32> = vec![0; stage.len()];
    let mut best_of = |objs: &Objects, k: usize| -> Option<(u64, u32)> {
        let (s, e) = span(problem, stage[k] as usize);
        let best = objs.best_gap(s, e, fits_none_below[k]);
        if best.is_none() {
            fits_none_below[k] = objs.len() as u32;
        }
        best
    };
    let mut heap: BinaryHeap<Reverse<(u64, u32, u32)>> = BinaryHeap::new();
    for k in 0..stage.len() {
        if let Some((g, o)) = best_of(objs, k) {
            heap.push(Reverse((g, k as u32, o)));
        }
    }
    let mut remaining = stage.len();
    // Pushes the candidates of the unassigned stage buffers inside the hole [lo, hi) of
    // object `o`.
    let push_hole = |objs: &Objects,
                     object_of: &[u32],
                     heap: &mut BinaryHeap<Reverse<(u64, u32, u32)>>,
                     o: u32,
                     lo: u64,
                     hi: u64| {
        let from = starts.partition_point(|&t| t < lo);
        for (k, &j) in stage.iter().enumerate().skip(from) {
            let (s, e) = span(problem, j as usize);
            if s >= hi {
                break;
            }
            if object_of[j as usize] != UNASSIGNED || e > hi {
                continue;
            }
            if let Some(g) = objs.gap(o, s, e) {
                heap.push(Reverse((g, k as u32, o)));
            }
        }
    };
    while remaining > 0 {
        let mut assigned = None;
        while let Some(Reverse((g, k, o))) = heap.pop() {
            let i = stage[k as usize];
            if object_of[i as usize] != UNASSIGNED {
                continue;
            }
            let (s, e) = span(problem, i as usize);
            match objs.gap(o, s, e) {
                Some(cur) if cur == g => {
                    assigned = Some((i, o));
                    break;
                }
                // A smaller gap for this pair was pushed when it shrank.
                Some(_) => continue,
                None => {
                    if let Some((g, o)) = best_of(objs, k as usize) {
                        heap.push(Reverse((g, k, o)));
                    }
                }
            }
        }
        match assigned {
            Some((i, o)) => {
                let (s, e) = span(problem, i as usize);
                let (lo, hi) = objs.hole_around(o, s, e);
                objs.assign(o, s, e, bufs[i as usize].size.0);
                object_of[i as usize] = o;
                remaining -= 1;
                push_hole(objs, object_of, &mut heap, o, lo, hi);
            }
            None => {
                // No buffer of the stage fits any object: the largest gets a new one.
                let i = *stage
                    .iter()
                    .filter(|&&i| object_of[i as usize] == UNASSIGNED)
                    .min_by_key(|&&i| (Reverse(bufs[i as usize].size), i))
                    .expect("remaining > 0");
                let (s, e) = span(problem, i as usize);
                let o = objs.create(s, e, bufs[i as usize].size.0);
                object_of[i as usize] = o;
                remaining -= 1;
                push_hole(objs, object_of, &mut heap, o, 0, s);
                push_hole(objs, object_of, &mut heap, o, e, u64::MAX);
            }
        }
    }
}
