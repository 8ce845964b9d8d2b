//! Jobs: the buffers and the boxes that boxing builds around them, in one arena.
//!
//! A *job* is a rectangle: a size (its height in bytes) and a lifetime `[start, end)`.
//! Every free buffer is a leaf job. A *box* is a job whose contents are other jobs; its
//! lifetime is the hull of its contents' lifetimes and its size is large enough to
//! stack them (the boxing code guarantees this by construction, and the final
//! first-fit squeeze does not depend on it for validity):
//!
//! ```text
//!   box (size H = 3h)   [=======================)
//!     contents           [====)  [=========)
//!                           [=========)
//!                        [==============)
//! ```
//!
//! Boxes nest like Matryoshka dolls (idealloc §3.1). The arena stores jobs in a flat
//! vector and the contents of every box as a contiguous run of a flat child vector, so an
//! iteration's whole boxing is a few large allocations even on a million buffers.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::types::{Buffer, BufferIdx, Size, Time};

/// The leaf payload of the dummy job (idealloc §5.6): it is boxed like any job and
/// skipped when offsets are handed out.
const DUMMY: u32 = u32::MAX;

/// One job. `count == 0` marks a leaf whose `first` is a buffer index (or [`DUMMY`]);
/// otherwise the job is a box whose contents are `children[first .. first + count]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Job {
    pub size: Size,
    pub start: Time,
    pub end: Time,
    pub first: u32,
    pub count: u32,
}

impl Job {
    /// The leaf of buffer `i`: its size over its whole lifetime (gaps ignored).
    pub fn leaf(i: BufferIdx, b: &Buffer) -> Job {
        Job {
            size: b.size,
            start: b.lifetime.start,
            end: b.lifetime.end,
            first: i.0,
            count: 0,
        }
    }

    /// The dummy job (idealloc §5.6), a leaf of no buffer.
    pub fn dummy(size: Size, start: Time, end: Time) -> Job {
        Job {
            size,
            start,
            end,
            first: DUMMY,
            count: 0,
        }
    }

    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.count == 0
    }

    /// The buffer of a leaf (`None` for the dummy job).
    #[inline]
    pub fn buffer(&self) -> Option<BufferIdx> {
        debug_assert!(self.is_leaf());
        (self.first != DUMMY).then_some(BufferIdx(self.first))
    }
}

/// All jobs of one boxing run.
#[derive(Clone, Debug, Default)]
pub(super) struct Arena {
    pub jobs: Vec<Job>,
    pub children: Vec<u32>,
}

impl Arena {
    /// The contents of box `j` (empty for a leaf).
    #[inline]
    pub fn contents(&self, j: u32) -> &[u32] {
        let job = &self.jobs[j as usize];
        &self.children[job.first as usize..(job.first + job.count) as usize]
    }

    #[inline]
    pub fn job(&self, j: u32) -> &Job {
        &self.jobs[j as usize]
    }

    /// Appends boxes built against this arena; returns their new ids.
    pub fn absorb(&mut self, new: NewBoxes) -> Vec<u32> {
        let base_child = self.children.len() as u32;
        let base_job = self.jobs.len() as u32;
        self.children.extend_from_slice(&new.children);
        let n = new.jobs.len() as u32;
        self.jobs.extend(new.jobs.into_iter().map(|mut j| {
            j.first += base_child;
            j
        }));
        (base_job..base_job + n).collect()
    }
}

/// Boxes built (possibly on another thread) against a read-only [`Arena`]: their
/// contents are ids in that arena, their `first` is relative to `children` here.
#[derive(Default)]
pub(super) struct NewBoxes {
    pub jobs: Vec<Job>,
    pub children: Vec<u32>,
}

impl NewBoxes {
    /// Boxes `members` (ids in `arena`) into one box of `size` bytes.
    pub fn push_box(&mut self, arena: &Arena, size: Size, members: impl IntoIterator<Item = u32>) {
        let first = self.children.len() as u32;
        let (mut start, mut end) = (Time(u64::MAX), Time(0));
        for m in members {
            let j = arena.job(m);
            start = start.min(j.start);
            end = end.max(j.end);
            self.children.push(m);
        }
        let count = self.children.len() as u32 - first;
        if count == 0 {
            return;
        }
        self.jobs.push(Job {
            size,
            start,
            end,
            first,
            count,
        });
    }
}

/// Interval graph colouring (idealloc Fig. 2): gives each job the lowest row that is
/// free for its whole lifetime. Jobs are taken by increasing start (ties: the order of
/// `items`), so no two jobs in one row overlap, and the number of rows is the most jobs
/// live at one time, which is optimal. Returns the row of each item, in `items` order,
/// and the number of rows. O(n log n).
pub(super) fn colour_intervals(arena: &Arena, items: &[u32]) -> (Vec<u32>, u32) {
    let mut by_start: Vec<u32> = (0..items.len() as u32).collect();
    crate::sort::by_key(&mut by_start, |&k| arena.job(items[k as usize]).start);
    let mut rows = vec![0u32; items.len()];
    let mut active: BinaryHeap<Reverse<(Time, u32)>> = BinaryHeap::new();
    let mut free: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
    let mut next_row = 0u32;
    for k in by_start {
        let job = arena.job(items[k as usize]);
        while let Some(&Reverse((end, row))) = active.peek() {
            if end > job.start {
                break;
            }
            active.pop();
            free.push(Reverse(row));
        }
        let row = match free.pop() {
            Some(Reverse(r)) => r,
            None => {
                next_row += 1;
                next_row - 1
            }
        };
        rows[k as usize] = row;
        active.push(Reverse((job.end, row)));
    }
    (rows, next_row)
}

/// True when some two of `items` overlap in time. O(n log n).
pub(super) fn any_overlap(arena: &Arena, items: &[u32]) -> bool {
    let mut spans: Vec<(Time, Time)> = items
        .iter()
        .map(|&j| (arena.job(j).start, arena.job(j).end))
        .collect();
    spans.sort_unstable();
    let mut reach = Time(0);
    for (k, &(s, e)) in spans.iter().enumerate() {
        if k > 0 && s < reach {
            return true;
        }
        reach = reach.max(e);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena(spans: &[(u64, u64)]) -> Arena {
        Arena {
            jobs: spans
                .iter()
                .enumerate()
                .map(|(i, &(start, end))| Job {
                    size: Size(1),
                    start: Time(start),
                    end: Time(end),
                    first: i as u32,
                    count: 0,
                })
                .collect(),
            children: Vec::new(),
        }
    }

    #[test]
    fn colouring_uses_max_live_rows_and_never_overlaps() {
        let mut seed = 99u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) % m
        };
        for _ in 0..200 {
            let n = 1 + next(30) as usize;
            let spans: Vec<(u64, u64)> = (0..n)
                .map(|_| {
                    let s = next(40);
                    (s, s + 1 + next(10))
                })
                .collect();
            let a = arena(&spans);
            let items: Vec<u32> = (0..n as u32).collect();
            let (rows, count) = colour_intervals(&a, &items);
            let max_live = (0..60)
                .map(|t| spans.iter().filter(|&&(s, e)| s <= t && t < e).count())
                .max()
                .unwrap() as u32;
            assert_eq!(count, max_live);
            for i in 0..n {
                for j in i + 1..n {
                    let overlap = spans[i].0 < spans[j].1 && spans[j].0 < spans[i].1;
                    assert!(!(overlap && rows[i] == rows[j]));
                }
            }
            let overlapping = (0..n)
                .any(|i| (i + 1..n).any(|j| spans[i].0 < spans[j].1 && spans[j].0 < spans[i].1));
            assert_eq!(any_overlap(&a, &items), overlapping);
        }
    }
}
