//! The orderings in which greedy planners place buffers. Every ordering lists each
//! free (not fixed) buffer exactly once and breaks its last tie by input index, so it is
//! deterministic.

use crate::analysis::load_profile;
use crate::index::TimeIndex;
use crate::sort::{self, Field, Field::Ascending, Field::Descending};
use crate::types::{Buffer, BufferIdx, Lifetime, Problem, Size};

/// How a greedy planner orders the buffers before placing them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Largest size first; ties: longer lifetime, earlier start (idealloc's "big rocks
    /// first", TFLite's Greedy by Size).
    Size,
    /// Largest size × lifetime first; ties: larger size.
    Area,
    /// Longest lifetime first; ties: larger size.
    Lifetime,
    /// Earliest start first; ties: longer lifetime, larger size (linear-scan order).
    Start,
    /// Highest contention first: the largest load during the buffer's lifetime.
    /// Ties, as in TelaMalloc §3.1: larger alignment, larger size × lifetime², longer lifetime.
    Contention,
    /// TFLite §5.3, Greedy by Breadth: time steps in decreasing order of load; at each,
    /// its not-yet-ordered live buffers, largest first.
    Breadth,
}

impl Order {
    /// Every ordering, in the portfolio's order.
    pub const ALL: [Order; 6] = [
        Order::Size,
        Order::Area,
        Order::Contention,
        Order::Breadth,
        Order::Lifetime,
        Order::Start,
    ];

    /// The ordering's name, e.g. `size`.
    pub fn name(self) -> &'static str {
        match self {
            Order::Size => "size",
            Order::Area => "area",
            Order::Lifetime => "lifetime",
            Order::Start => "start",
            Order::Contention => "contention",
            Order::Breadth => "breadth",
        }
    }

    /// The free buffers in this order.
    pub(crate) fn sequence(self, problem: &Problem) -> Vec<BufferIdx> {
        let mut seq: Vec<BufferIdx> = problem
            .indexed()
            .filter(|(_, b)| b.fixed_offset.is_none())
            .map(|(i, _)| i)
            .collect();
        let len = |b: &Buffer| b.lifetime.len();
        let buffer = |i| problem.buffer(i);
        // Size, lifetime and start order: as one integer per buffer when the key fits
        // 128 bits (the same order: the key orders every pair), else by the tuple.
        let packed = |seq: &mut Vec<BufferIdx>, fields: fn(&Buffer) -> [Field; 3]| {
            sort::by_packed_key(seq, |i| fields(buffer(i)))
        };
        match self {
            Order::Size
                if packed(&mut seq, |b| {
                    let (size, len) = (b.size.get(), b.lifetime.len());
                    [
                        Descending(size),
                        Descending(len),
                        Ascending(b.lifetime.start.get()),
                    ]
                }) => {}
            Order::Lifetime
                if packed(&mut seq, |b| {
                    let (size, len) = (b.size.get(), b.lifetime.len());
                    // The third field is constant: no bits.
                    [Descending(len), Descending(size), Ascending(0)]
                }) => {}
            Order::Start
                if packed(&mut seq, |b| {
                    let (size, len) = (b.size.get(), b.lifetime.len());
                    [
                        Ascending(b.lifetime.start.get()),
                        Descending(len),
                        Descending(size),
                    ]
                }) => {}
            Order::Size => sort::by_cached_key(&mut seq, |&i| {
                let b = buffer(i);
                (std::cmp::Reverse((b.size, len(b))), b.lifetime.start, i)
            }),
            Order::Area => sort::by_cached_key(&mut seq, |&i| {
                let b = buffer(i);
                (std::cmp::Reverse((area(b), b.size)), i)
            }),
            Order::Lifetime => sort::by_cached_key(&mut seq, |&i| {
                let b = buffer(i);
                (std::cmp::Reverse((len(b), b.size)), i)
            }),
            Order::Start => sort::by_cached_key(&mut seq, |&i| {
                let b = buffer(i);
                (b.lifetime.start, std::cmp::Reverse((len(b), b.size)), i)
            }),
            Order::Contention => {
                let contention = contention(problem);
                sort::by_cached_key(&mut seq, |&i| {
                    let b = buffer(i);
                    let l = u128::from(len(b));
                    let weight = u128::from(b.size.get()).saturating_mul(l.saturating_mul(l));
                    (
                        std::cmp::Reverse((contention[i], b.alignment, weight, len(b))),
                        i,
                    )
                })
            }
            Order::Breadth => return breadth_sequence(problem),
        }
        seq
    }
}

/// Size × lifetime, in bytes × time steps.
pub(crate) fn area(b: &Buffer) -> u128 {
    u128::from(b.size.get()) * u128::from(b.lifetime.len())
}

/// For each buffer, the largest load at any time in its lifetime (TelaMalloc §3.1);
/// gaps are not taken out of the lifetime here.
/// A max-segment-tree over the load profile answers each buffer in O(log n).
pub(crate) fn contention(problem: &Problem) -> Vec<Size> {
    let steps = load_profile(problem);
    let m = steps.len().max(1);
    let mut tree = vec![Size::ZERO; 2 * m];
    for (k, s) in steps.iter().enumerate() {
        tree[m + k] = s.load;
    }
    for node in (1..m).rev() {
        tree[node] = tree[2 * node].max(tree[2 * node + 1]);
    }
    let range_max = |mut lo: usize, mut hi: usize| {
        let mut best = Size::ZERO;
        lo += m;
        hi += m;
        while lo < hi {
            if lo & 1 == 1 {
                best = best.max(tree[lo]);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                best = best.max(tree[hi]);
            }
            lo /= 2;
            hi /= 2;
        }
        best
    };
    problem
        .buffers()
        .iter()
        .map(|b| {
            // Steps in effect during [start, end): from the one at or before start.
            let first = steps
                .partition_point(|s| s.time <= b.lifetime.start)
                .saturating_sub(1);
            let last = steps.partition_point(|s| s.time < b.lifetime.end);
            range_max(first, last.max(first + 1).min(steps.len()))
        })
        .collect()
}

/// Greedy by Breadth's order (TFLite §4.2 and §5.3): the "operators" are the steps of the
/// load profile; the heaviest step first, and within it the largest unordered buffer first.
/// Ordered buffers are removed from an index of their lifetimes, so each is enumerated
/// once (gapped buffers may be seen again at steps inside their gaps).
fn breadth_sequence(problem: &Problem) -> Vec<BufferIdx> {
    let bufs = problem.buffers();
    let mut live_index = TimeIndex::new(problem);
    let steps = load_profile(problem);
    let mut by_load: Vec<usize> = (0..steps.len())
        .filter(|&k| steps[k].load > Size::ZERO)
        .collect();
    sort::by_key(&mut by_load, |&k| (std::cmp::Reverse(steps[k].load), k));
    let mut seq = Vec::with_capacity(bufs.len());
    let mut here: Vec<BufferIdx> = Vec::new();
    let largest_first = |i: &BufferIdx| (std::cmp::Reverse(bufs[*i].size), *i);
    for k in by_load {
        let t = steps[k].time;
        here.clear();
        live_index.for_each_overlapping(
            Lifetime {
                start: t,
                end: t + 1,
            },
            |i| {
                if bufs[i].gaps.iter().all(|g| !(g.start <= t && t < g.end)) {
                    here.push(i);
                }
            },
        );
        for &i in &here {
            live_index.remove(i);
        }
        sort::unstable_by_key(&mut here, largest_first);
        seq.extend(
            here.iter()
                .copied()
                .filter(|&i| bufs[i].fixed_offset.is_none()),
        );
    }
    // A buffer whose gaps cover its whole lifetime is live at no step, so no step lists
    // it; it still needs an offset (it conflicts with nothing): last, largest first.
    let free = bufs.iter().filter(|b| b.fixed_offset.is_none()).count();
    if seq.len() < free {
        let mut listed = vec![false; bufs.len()];
        for &i in &seq {
            listed[i] = true;
        }
        let mut rest: Vec<BufferIdx> = problem
            .indexed()
            .filter(|&(i, b)| !listed[i] && b.fixed_offset.is_none())
            .map(|(i, _)| i)
            .collect();
        sort::unstable_by_key(&mut rest, largest_first);
        seq.extend(rest);
    }
    debug_assert_eq!(seq.len(), free);
    seq
}

impl sort::PackedIndex for BufferIdx {
    fn to_u32(self) -> u32 {
        self.0
    }
    fn from_u32(x: u32) -> Self {
        BufferIdx(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indices(raw: &[u32]) -> Vec<BufferIdx> {
        raw.iter().map(|&i| BufferIdx(i)).collect()
    }

    fn problem() -> Problem {
        Problem::new(vec![
            Buffer::new("a", 0, 2, 4),
            Buffer::new("b", 1, 9, 2),
            Buffer::new("c", 5, 6, 3),
            Buffer::new("d", 5, 7, 8).with_fixed_offset(0),
            Buffer::new("e", 0, 10, 1).with_gap(4, 8),
        ])
        .unwrap()
    }

    #[test]
    fn every_order_lists_free_buffers_once() {
        let p = problem();
        for o in Order::ALL {
            let mut s = o.sequence(&p);
            s.sort_unstable();
            assert_eq!(s, indices(&[0, 1, 2, 4]), "{}", o.name());
        }
    }

    #[test]
    fn a_buffer_gapped_over_its_whole_lifetime_is_still_ordered() {
        // Found by the fuzz smoke test: breadth lists buffers by the steps they are live
        // at, and this one is live at none.
        let p = Problem::new(vec![
            Buffer::new("a", 0, 4, 8).with_gap(0, 4),
            Buffer::new("b", 0, 4, 8),
        ])
        .unwrap();
        for o in Order::ALL {
            let mut s = o.sequence(&p);
            s.sort_unstable();
            assert_eq!(s, indices(&[0, 1]), "{}", o.name());
        }
    }

    #[test]
    fn orders_follow_their_keys() {
        let p = problem();
        assert_eq!(Order::Size.sequence(&p), indices(&[0, 2, 1, 4]));
        assert_eq!(Order::Start.sequence(&p), indices(&[4, 0, 1, 2]));
        assert_eq!(Order::Lifetime.sequence(&p), indices(&[4, 1, 0, 2]));
        // Loads: t0..1: a+e=5, t1..2: a+b+e=7, t2..4: b+e=3, t4..5: b=2, t5..6: b+c+d=13,
        // t6..7: b+d=10, t7..8: b=2, t8..9: b+e=3, t9..10: e=1.
        // e's contention counts its whole lifetime, gap included.
        assert_eq!(contention(&p), [7, 13, 13, 13, 13].map(Size));
        // Contention: b, c and e tie at 13; size x lifetime^2 breaks it: b 2x64, e 1x100, c 3x1.
        assert_eq!(Order::Contention.sequence(&p), indices(&[1, 4, 2, 0]));
        // Breadth: heaviest step t5 (b, c, d live): c (3) then b (2); then t1 (a, e): a, e.
        assert_eq!(Order::Breadth.sequence(&p), indices(&[2, 1, 0, 4]));
    }
}
