//! The kept load over time, which the heuristic, the improvement, the baselines and the
//! exact search all read: the sweep events of the kept buffers' live segments, the load
//! between them, each buffer's time under overload, and a range-add, max tree
//! ([`LoadTree`], on `crate::maxtree`) that answers "does this buffer still fit by load?".
//!
//! The load at `t` counts the kept buffers live at `t` (gaps honoured, lifetimes
//! half-open: a buffer ending at `t` and one starting at `t` never add up).

use crate::maxtree::MaxTree;
use crate::types::{BufferIdx, Size, Time};

use super::model::LevelModel;

/// A sweep event: a live segment of `buffer` starts or ends at `time`. Events order by
/// time, then ends before starts (half-open lifetimes), then by buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Event {
    pub(crate) time: Time,
    pub(crate) start: bool,
    pub(crate) buffer: BufferIdx,
}

/// Sweep events of the live segments of the kept buffers, sorted.
pub(crate) fn events(model: &LevelModel<'_>, spilled: &[bool]) -> Vec<Event> {
    let mut ev = Vec::new();
    for (buffer, b) in model.problem.indexed() {
        if !spilled[buffer] {
            for seg in b.live_segments() {
                ev.push(Event {
                    time: seg.start,
                    start: true,
                    buffer,
                });
                ev.push(Event {
                    time: seg.end,
                    start: false,
                    buffer,
                });
            }
        }
    }
    ev.sort_unstable();
    ev
}

/// The kept load from each event time of `ev` (see [`events`]) to the next.
pub(crate) fn load_steps(model: &LevelModel<'_>, ev: &[Event]) -> Vec<(Time, Size)> {
    let mut steps = Vec::new();
    let (mut load, mut k) = (Size::ZERO, 0);
    while k < ev.len() {
        let t = ev[k].time;
        while k < ev.len() && ev[k].time == t {
            let size = model.problem.buffer(ev[k].buffer).size;
            if ev[k].start {
                load += size;
            } else {
                load -= size;
            }
            k += 1;
        }
        steps.push((t, load));
    }
    steps
}

/// For each buffer, the time during which it is live and the kept load exceeds the
/// capacity (0 for spilled ones).
pub(crate) fn overload_time(model: &LevelModel<'_>, spilled: &[bool], ev: &[Event]) -> Vec<u64> {
    // (time, overloaded time from the first event to it)
    let mut marks: Vec<(Time, u64)> = Vec::new();
    let (mut acc, mut prev) = (0u64, None::<(Time, bool)>);
    for (t, load) in load_steps(model, ev) {
        if let Some((pt, over)) = prev {
            acc += if over { t - pt } else { 0 };
        }
        marks.push((t, acc));
        prev = Some((t, load > model.capacity));
    }
    let at = |t: Time| marks[marks.partition_point(|&(m, _)| m < t)].1;
    model
        .problem
        .indexed()
        .map(|(i, b)| {
            if spilled[i] {
                return 0;
            }
            b.live_segments().map(|s| at(s.end) - at(s.start)).sum()
        })
        .collect()
}

/// The kept load over time as a range-add, max tree (`crate::maxtree`) over the
/// elementary intervals between event times, supporting "add a buffer" and "would it
/// fit", both O(segments · log n).
pub(crate) struct LoadTree<'m> {
    model: &'m LevelModel<'m>,
    times: Vec<Time>,
    tree: MaxTree<Size>,
}

impl<'m> LoadTree<'m> {
    /// The tree of the kept buffers' load.
    pub(crate) fn new(model: &'m LevelModel<'m>, spilled: &[bool]) -> LoadTree<'m> {
        let mut times: Vec<Time> = model
            .problem
            .buffers()
            .iter()
            .flat_map(|b| b.live_segments().flat_map(|s| [s.start, s.end]))
            .collect();
        times.sort_unstable();
        times.dedup();
        let leaves = times.len().max(1);
        let mut tree = LoadTree {
            model,
            times,
            tree: MaxTree::new(&vec![Size::ZERO; leaves], Size::ZERO, Size::ZERO),
        };
        for i in model.problem.indices().filter(|&i| !spilled[i]) {
            tree.add(i);
        }
        tree
    }

    fn span(&self, s: Time, e: Time) -> (usize, usize) {
        let at = |t| self.times.partition_point(|&x| x < t);
        (at(s), at(e))
    }

    /// True when adding buffer `i` keeps the load at most the capacity.
    pub(crate) fn fits(&self, i: BufferIdx) -> bool {
        let b = self.model.problem.buffer(i);
        b.live_segments().all(|s| {
            let (lo, hi) = self.span(s.start, s.end);
            self.tree.max_in(lo, hi).unwrap_or(Size::ZERO) + b.size <= self.model.capacity
        })
    }

    /// Adds buffer `i`'s load.
    pub(crate) fn add(&mut self, i: BufferIdx) {
        let b = self.model.problem.buffer(i);
        for s in b.live_segments() {
            let (lo, hi) = self.span(s.start, s.end);
            self.tree.range_add(lo, hi, b.size);
        }
    }
}
