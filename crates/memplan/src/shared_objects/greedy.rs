//! The three greedy strategies of TFLite §4. Each returns `(object of each buffer,
//! object sizes)`. Lifetimes are whole (gaps ignored). Ties are broken by buffer index
//! and object id, so results are deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::objects::{Gap, ObjectIdx, Objects};
use crate::index::TimeIndex;
use crate::maxtree::MaxTree;
use crate::types::{BufferIdx, Lifetime, Problem, Size, Time};

const UNASSIGNED: ObjectIdx = ObjectIdx(u32::MAX);

/// A strategy's answer: the object of each buffer, and the object sizes.
pub(super) type Assignment = (Vec<ObjectIdx>, Vec<Size>);

fn span(problem: &Problem, i: BufferIdx) -> (Time, Time) {
    let lt = problem.buffer(i).lifetime;
    (lt.start, lt.end)
}

/// Greedy by Size (§4.3, Alg. 2): largest buffer first, to the smallest suitable object.
pub(super) fn by_size(problem: &Problem) -> Assignment {
    let bufs = problem.buffers();
    let mut order: Vec<BufferIdx> = problem.indices().collect();
    order.sort_by_key(|&i| Reverse(bufs[i].size));
    let mut objs = Objects::new();
    let mut object_of = vec![UNASSIGNED; bufs.len()];
    for i in order {
        let (s, e) = span(problem, i);
        let size = bufs[i].size;
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
pub(super) fn by_breadth(problem: &Problem) -> Assignment {
    let bufs = problem.buffers();
    // Breadth at each distinct start: one sweep, ends before starts at equal times.
    let mut events: Vec<(Time, bool, Size)> = Vec::with_capacity(2 * bufs.len());
    for b in bufs {
        events.push((b.lifetime.start, true, b.size));
        events.push((b.lifetime.end, false, b.size));
    }
    events.sort_unstable_by_key(|&(t, is_start, _)| (t, is_start));
    let mut breadth: Vec<(Time, Size)> = Vec::new(); // (time, breadth)
    let mut load = Size::ZERO;
    for (k, &(t, is_start, size)) in events.iter().enumerate() {
        if is_start {
            load = load.saturating_add(size);
        } else {
            load -= size;
        }
        let last_at_t = events.get(k + 1).is_none_or(|&(next, _, _)| next != t);
        if last_at_t && is_start {
            breadth.push((t, load));
        }
    }
    breadth.sort_by_key(|&(t, b)| (Reverse(b), t));

    let mut index = TimeIndex::new(problem);
    let mut objs = Objects::new();
    let mut object_of = vec![UNASSIGNED; bufs.len()];
    let mut profile: Vec<BufferIdx> = Vec::new();
    for (t, _) in breadth {
        profile.clear();
        index.for_each_overlapping(
            Lifetime {
                start: t,
                end: t + 1,
            },
            |i| profile.push(i),
        );
        for &i in &profile {
            index.remove(i);
        }
        profile.sort_by_key(|&i| (Reverse(bufs[i].size), i));
        for &i in &profile {
            let (s, e) = span(problem, i);
            let size = bufs[i].size;
            // The smallest suitable object not smaller than the buffer, else the
            // largest suitable one (which grows), else a new one.
            let found = objs
                .at_least(size)
                .find(|&o| objs.fits(o, s, e))
                .or_else(|| {
                    // Among equal sizes prefer the lower id, as `at_least` does.
                    let mut best: Option<ObjectIdx> = None;
                    for o in objs.smaller_than(size) {
                        if best.is_some_and(|b| objs.size(b) > objs.size(o)) {
                            break;
                        }
                        if objs.fits(o, s, e) {
                            best = Some(best.map_or(o, |b| b.min(o)));
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
///
/// With `nearest_first`, a buffer's best objects are found by walking held lifetimes
/// outward from it ([`Objects::best_gaps`]), after an O(log n) test that some object is
/// free throughout ([`BusyCount`]); without, by asking every object. Same answers.
pub(super) fn by_size_improved(
    problem: &Problem,
    maxima: &[Size],
    nearest_first: bool,
) -> Assignment {
    let bufs = problem.buffers();
    let mut distinct: Vec<Size> = maxima.to_vec();
    distinct.dedup();
    // Stage 2k holds sizes equal to distinct[k]; stage 2k + 1 sizes strictly between
    // distinct[k + 1] (or 0) and distinct[k]. `distinct` is decreasing.
    let stage_of = |size: Size| -> usize {
        let k = distinct.partition_point(|&p| p > size);
        if k < distinct.len() && distinct[k] == size {
            2 * k
        } else {
            2 * k - 1 // k ≥ 1: no buffer is larger than the first maximum
        }
    };
    let mut stages: Vec<Vec<BufferIdx>> = vec![Vec::new(); 2 * distinct.len()];
    for (i, b) in problem.indexed() {
        stages[stage_of(b.size)].push(i);
    }
    let mut objs = Objects::new();
    let mut object_of = vec![UNASSIGNED; bufs.len()];
    let mut busy = BusyCount::new(problem, nearest_first);
    for stage in stages.iter_mut().filter(|s| !s.is_empty()) {
        assign_stage(problem, stage, &mut objs, &mut object_of, &mut busy);
    }
    (object_of, objs.into_sizes())
}

/// `(gap, position in the stage, object, batch)`; ordered by gap first.
type Candidate = (Gap, usize, ObjectIdx, u32);
/// Candidates computed at once per buffer.
const BATCH: usize = 4;
/// The batch number of candidates pushed outside any batch.
const NO_BATCH: u32 = u32::MAX;

/// Per buffer of a stage: the id below which it fitted no object once (objects only
/// fill up, so it never will), and its current batch of candidates: the batch's number
/// and how many of its entries are still in the heap.
struct Batches {
    fits_none_below: Vec<ObjectIdx>,
    number: Vec<u32>,
    left: Vec<u32>,
}

impl Batches {
    /// Pushes the [`BATCH`] best candidates of `stage[k]` as a new batch.
    fn push(
        &mut self,
        problem: &Problem,
        stage: &[BufferIdx],
        objs: &Objects,
        busy: &BusyCount,
        heap: &mut BinaryHeap<Reverse<Candidate>>,
        k: usize,
    ) {
        let (s, e) = span(problem, stage[k]);
        let from = self.fits_none_below[k];
        let best = if !busy.enabled {
            objs.scan_gaps(s, e, from, BATCH)
        } else if busy.max_in(s, e) >= objs.len() as i64 {
            Vec::new() // at some time in [s, e) every object is busy
        } else {
            objs.best_gaps(s, e, from, BATCH)
        };
        if best.is_empty() {
            self.fits_none_below[k] = objs.next_id();
        }
        self.number[k] += 1;
        self.left[k] = best.len() as u32;
        for (g, o) in best {
            heap.push(Reverse((g, k, o, self.number[k])));
        }
    }
}

/// One stage of Greedy by Size Improved.
///
/// The heap holds candidates (see [`Candidate`]). Invariant: for every unassigned
/// buffer of the stage, the smallest candidate it has in the heap is at most its true
/// best gap. It holds because (1) a buffer's [`BATCH`] best candidates are pushed when
/// the stage starts, and again once all of a batch turned out stale: while one of the
/// batch is left, no object outside it can be better (its gap was no smaller then, and
/// any shrink since was pushed); (2) gaps only shrink as objects fill up, and every
/// shrink is pushed: adding `[s, e)` to an object only changes the gaps of buffers in
/// the hole `[s, e)` was put in. So a popped candidate whose gap is still exact is the
/// best pair of the whole stage.
fn assign_stage(
    problem: &Problem,
    stage: &mut [BufferIdx],
    objs: &mut Objects,
    object_of: &mut [ObjectIdx],
    busy: &mut BusyCount,
) {
    let bufs = problem.buffers();
    // Sorted by start, to find the buffers inside a hole.
    stage.sort_by_key(|&i| (bufs[i].lifetime.start, i));
    let starts: Vec<Time> = stage.iter().map(|&i| bufs[i].lifetime.start).collect();
    let mut batches = Batches {
        fits_none_below: vec![ObjectIdx(0); stage.len()],
        number: vec![0; stage.len()],
        left: vec![0; stage.len()],
    };
    let mut heap: BinaryHeap<Reverse<Candidate>> = BinaryHeap::new();
    for k in 0..stage.len() {
        batches.push(problem, stage, objs, busy, &mut heap, k);
    }
    let mut remaining = stage.len();
    // Pushes the candidates of the unassigned stage buffers inside the hole [lo, hi) of
    // object `o` (outside any batch).
    let push_hole = |objs: &Objects,
                     object_of: &[ObjectIdx],
                     heap: &mut BinaryHeap<Reverse<Candidate>>,
                     o: ObjectIdx,
                     (lo, hi): (Time, Time)| {
        let from = starts.partition_point(|&t| t < lo);
        for (k, &j) in stage.iter().enumerate().skip(from) {
            let (s, e) = span(problem, j);
            if s >= hi {
                break;
            }
            if object_of[j] != UNASSIGNED || e > hi {
                continue;
            }
            if let Some(g) = objs.gap(o, s, e) {
                heap.push(Reverse((g, k, o, NO_BATCH)));
            }
        }
    };
    while remaining > 0 {
        let mut assigned = None;
        while let Some(Reverse((g, k, o, b))) = heap.pop() {
            let i = stage[k];
            if object_of[i] != UNASSIGNED {
                continue;
            }
            let (s, e) = span(problem, i);
            if objs.gap(o, s, e) == Some(g) {
                assigned = Some((i, o));
                break;
            }
            // Stale: the pair no longer fits, or its smaller gap was pushed when it
            // shrank. Once the whole batch is stale, compute the next one.
            if b == batches.number[k] {
                batches.left[k] -= 1;
                if batches.left[k] == 0 {
                    batches.push(problem, stage, objs, busy, &mut heap, k);
                }
            }
        }
        match assigned {
            Some((i, o)) => {
                let (s, e) = span(problem, i);
                let hole = objs.hole_around(o, s, e);
                objs.assign(o, s, e, bufs[i].size);
                busy.add(s, e);
                object_of[i] = o;
                remaining -= 1;
                push_hole(objs, object_of, &mut heap, o, hole);
            }
            None => {
                // No buffer of the stage fits any object: the largest gets a new one.
                let i = *stage
                    .iter()
                    .filter(|&&i| object_of[i] == UNASSIGNED)
                    .min_by_key(|&&i| (Reverse(bufs[i].size), i))
                    .expect("remaining > 0");
                let (s, e) = span(problem, i);
                let o = objs.create(s, e, bufs[i].size);
                busy.add(s, e);
                object_of[i] = o;
                remaining -= 1;
                push_hole(objs, object_of, &mut heap, o, (Time(0), s));
                push_hole(objs, object_of, &mut heap, o, (e, Time(u64::MAX)));
            }
        }
    }
}

/// How many assigned buffers are live at each time, which is how many objects are busy
/// then (an object's buffers never overlap). When some time in `[s, e)` has every
/// object busy, `[s, e)` fits none: an O(log n) answer to the common dense case.
struct BusyCount {
    /// Off: nothing is counted and the caller asks every object.
    enabled: bool,
    coords: Vec<Time>,
    tree: MaxTree<i64>,
}

impl BusyCount {
    fn new(problem: &Problem, enabled: bool) -> BusyCount {
        if !enabled {
            return BusyCount {
                enabled,
                coords: Vec::new(),
                tree: MaxTree::counts(1),
            };
        }
        let mut coords: Vec<Time> = problem
            .buffers()
            .iter()
            .flat_map(|b| [b.lifetime.start, b.lifetime.end])
            .collect();
        coords.sort_unstable();
        coords.dedup();
        let n = coords.len().saturating_sub(1).max(1);
        BusyCount {
            enabled,
            coords,
            tree: MaxTree::counts(n),
        }
    }

    fn slots(&self, s: Time, e: Time) -> (usize, usize) {
        (
            self.coords.partition_point(|&c| c < s),
            self.coords.partition_point(|&c| c < e),
        )
    }

    fn add(&mut self, s: Time, e: Time) {
        if !self.enabled {
            return;
        }
        let (lo, hi) = self.slots(s, e);
        self.tree.range_add(lo, hi, 1);
    }

    fn max_in(&self, s: Time, e: Time) -> i64 {
        let (lo, hi) = self.slots(s, e);
        self.tree.max_in(lo, hi).unwrap_or(0)
    }
}
