//! The independent checker: does a plan really place every buffer validly?
//!
//! # The model
//!
//! A buffer `b` with lifetime `[s, e)`, gaps `G` and size `z`, placed at offset `o`,
//! occupies the rectangle `[s, e) × [o, o + z)` minus the columns of its gaps. A plan is
//! valid when:
//!
//! 1. every buffer is placed exactly once;
//! 2. every offset is a multiple of the buffer's alignment, and `o + z` fits in a `u64`;
//! 3. a buffer with a fixed offset is placed exactly there;
//! 4. with a capacity `C`, every `o + z ≤ C`;
//! 5. no two rectangles share a cell: whenever two buffers are live at the same time,
//!    their address ranges are disjoint, unless a [`crate::Share`] declared between
//!    them allows it: the buffer at its target's offset plus the share's, and in place,
//!    the target born no later and dead by the step after the buffer's birth; inside,
//!    within the target's size (`checker/shares.rs`);
//! 6. every required share is taken.
//!
//! ```text
//!   address
//!     16 |        +-------+
//!        |        |   b   |       a = [0, 4) x [0, 12)
//!     12 +--------+---+   |       b = [3, 7) x [8, 16)
//!        |    a   |XXX|   |       XXX: both live at time 3, addresses [8, 12)
//!      8 |        +---+---+            -> Overlap { a, b, times [3, 4), addresses [8, 12) }
//!        |            |
//!      0 +------------+----------- time
//!        0        3   4       7
//! ```
//!
//! # How
//!
//! Rule 5 is checked by one sweep over time. Live segments are kept in a set ordered by
//! address (`checker/live_set.rs`: each placed buffer's rank by address, found once). Valid live segments never overlap, so a segment entering the sweep can only
//! collide with its neighbour below or with the segments above that start before its end;
//! both are found in O(log n). A colliding segment is reported and left out of the map so
//! that the map stays disjoint. This finds a violation whenever one exists; it reports
//! every buffer that collides with a valid one, though not every colliding pair.
//! Total cost O(n log n).
//!
//! This module deliberately shares no code with the planners (not even the helpers on
//! [`Buffer`]): a bug in a shared helper must not hide a bug in a plan.

use crate::types::{Buffer, BufferIdx, Lifetime, Offset, Plan, Problem, Size, Time};

mod live_set;
#[cfg(feature = "memories")]
mod memories;
#[cfg(feature = "shared_objects")]
mod shared_objects;
#[cfg(feature = "shares")]
mod shares;
#[cfg(feature = "tiles")]
mod tiles;
mod violation;

use live_set::{AddressOrder, LiveSet};
#[cfg(feature = "memories")]
pub use memories::{check_memories, MemoriesCheckSummary};
#[cfg(feature = "shared_objects")]
pub use shared_objects::check_shared_objects;
#[cfg(feature = "tiles")]
pub use tiles::check_tiles;
use violation::Collector;
pub use violation::{CheckFailure, CheckSummary, Placed, Violation};

/// Checks a plan against its problem and, when given, a capacity.
pub fn check(
    problem: &Problem,
    plan: &Plan,
    capacity: Option<Size>,
) -> Result<CheckSummary, CheckFailure> {
    check_offsets(problem, plan.offsets(), capacity)
}

/// Checks raw offsets, indexed like the problem's buffers, and, when given, a capacity.
pub fn check_offsets(
    problem: &Problem,
    offsets: &[Offset],
    capacity: Option<Size>,
) -> Result<CheckSummary, CheckFailure> {
    if offsets.len() != problem.len() {
        return Err(Violation::WrongCount {
            expected: problem.len(),
            found: offsets.len(),
        }
        .into());
    }
    finish(
        problem,
        |i| Some(offsets[i]),
        capacity,
        Collector::default(),
    )
}

/// Checks placements given by id, as read from a plan file: each buffer must appear
/// exactly once, and no unknown id may appear; and, when given, a capacity.
pub fn check_placements(
    problem: &Problem,
    placements: &[(String, Offset)],
    capacity: Option<Size>,
) -> Result<CheckSummary, CheckFailure> {
    let mut c = Collector::default();
    let mut index: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(problem.len());
    for (i, b) in problem.buffers().iter().enumerate() {
        index.insert(b.id.as_str(), i);
    }
    let mut placed: Vec<Option<Offset>> = vec![None; problem.len()];
    let mut twice = vec![false; problem.len()];
    for (id, off) in placements {
        match index.get(id.as_str()) {
            None => c.push(Violation::Unknown { id: id.clone() }),
            Some(&i) if placed[i].is_some() => {
                if !twice[i] {
                    twice[i] = true;
                    c.push(Violation::PlacedTwice { id: id.clone() });
                }
            }
            Some(&i) => placed[i] = Some(*off),
        }
    }
    for (i, p) in placed.iter().enumerate() {
        if p.is_none() {
            c.push(Violation::Missing {
                id: problem.buffers()[i].id.clone(),
            });
        }
    }
    finish(problem, |i| placed[i], capacity, c)
}

/// The checker's own idea of a buffer's live segments: lifetime minus gaps.
fn segments_of(b: &Buffer) -> Vec<Lifetime> {
    let mut gaps = b.gaps.clone();
    gaps.sort();
    let mut out = Vec::with_capacity(gaps.len() + 1);
    let mut t = b.lifetime.start;
    for g in gaps {
        if g.start > t {
            out.push(Lifetime {
                start: t,
                end: g.start,
            });
        }
        t = t.max(g.end);
    }
    if b.lifetime.end > t {
        out.push(Lifetime {
            start: t,
            end: b.lifetime.end,
        });
    }
    out
}

fn placed_view(b: &Buffer, lo: Offset, hi: Offset) -> Placed {
    Placed {
        id: b.id.clone(),
        lifetime: b.lifetime,
        addresses: (lo, hi),
    }
}

/// Rules 2 to 6 on the placements `placed` (by buffer index; `None` for a buffer that is
/// not placed, already reported).
fn finish(
    problem: &Problem,
    placed: impl Fn(usize) -> Option<Offset>,
    capacity: Option<Size>,
    mut c: Collector,
) -> Result<CheckSummary, CheckFailure> {
    let bufs = problem.buffers();
    let mut height = Size::ZERO;
    // Rules 2-4, and the address range of every buffer that can take part in the sweep.
    let mut range: Vec<Option<(Offset, Offset)>> = vec![None; bufs.len()];
    for (i, b) in bufs.iter().enumerate() {
        let Some(off) = placed(i) else { continue };
        let Some(end) = off.checked_add(b.size) else {
            c.push(Violation::AddressOverflow {
                id: b.id.clone(),
                offset: off,
                size: b.size,
            });
            continue;
        };
        if !off.is_aligned_to(b.alignment) {
            c.push(Violation::Misaligned {
                id: b.id.clone(),
                offset: off,
                alignment: b.alignment,
            });
        }
        if let Some(fixed) = b.fixed_offset {
            if fixed != off {
                c.push(Violation::MovedFixed {
                    id: b.id.clone(),
                    fixed,
                    offset: off,
                });
            }
        }
        if let Some(cap) = capacity {
            if end > cap {
                c.push(Violation::AboveCapacity {
                    buffer: placed_view(b, off, end),
                    capacity: cap,
                });
            }
        }
        height = height.max(end.as_height());
        range[i] = Some((off, end));
    }
    #[cfg(feature = "shares")]
    if !problem.shares().is_empty() {
        shares::sweep(problem, &range, &mut c);
        shares::required_taken(problem, &placed, &mut c);
        return c.finish(CheckSummary::new(bufs.len(), height));
    }
    sweep(bufs, &range, &mut c);
    c.finish(CheckSummary::new(bufs.len(), height))
}

/// Rule 5 without shares: the sweep over the placed buffers' address ranges `range`.
fn sweep(bufs: &[Buffer], range: &[Option<(Offset, Offset)>], c: &mut Collector) {
    // Live, mutually disjoint segments: their buffers' ranks by (low address, buffer).
    let by_address = AddressOrder::new(range);
    let mut live = LiveSet::new(by_address.order.len());
    let buffer_of = |r: u32| by_address.order[r as usize] as usize;
    walk_events(bufs, range, |t, kind, i| {
        let (lo, hi) = range[i].expect("only placed buffers have events");
        let r = by_address.rank[i];
        if kind == 0 {
            live.remove(r);
            return;
        }
        let below = live
            .next_below(r)
            .filter(|&s| range[buffer_of(s)].is_some_and(|(_, phi)| phi > lo));
        let starts_below_end = |s: &u32| range[buffer_of(*s)].is_some_and(|(slo, _)| slo < hi);
        let mut above = live.next_above(r).filter(starts_below_end);
        if below.is_none() && above.is_none() {
            live.insert(r);
            return;
        }
        // A collision: reported (the segments found again), and left out of the set.
        let bi = &bufs[i];
        let seg = segment_at(bi, t, |s| s.start == t);
        let mut report = |s: u32| {
            let j = buffer_of(s);
            let (jlo, jhi) = range[j].expect("a live buffer is placed");
            let bj = &bufs[j];
            let jseg = segment_at(bj, t, |s| s.start <= t && t < s.end);
            c.push(Violation::Overlap {
                first: placed_view(bj, jlo, jhi),
                second: placed_view(bi, lo, hi),
                times: Lifetime {
                    start: jseg.start.max(seg.start),
                    end: jseg.end.min(seg.end),
                },
                addresses: (jlo.max(lo), jhi.min(hi)),
            });
        };
        if let Some(s) = below {
            report(s);
        }
        while let Some(s) = above {
            report(s);
            above = live.next_above(s).filter(starts_below_end);
        }
    });
}

/// The live segment of `b` that `which` picks (the one starting at `t`, or the one live
/// at `t`): the lifetime itself when `b` has no gaps.
fn segment_at(b: &Buffer, t: Time, which: impl Fn(&Lifetime) -> bool) -> Lifetime {
    if b.gaps.is_empty() {
        return b.lifetime;
    }
    segments_of(b)
        .into_iter()
        .find(which)
        .unwrap_or(Lifetime { start: t, end: t })
}

/// Calls `f(time, kind, buffer)` for every event of the placed buffers (kind 0: a live
/// segment ends; 1: one starts), in [`sorted_events`]' order. When the time span is
/// short the events are placed by counting, as buffer indices alone (the time and kind
/// are those of their place), else they are sorted.
fn walk_events(
    bufs: &[Buffer],
    range: &[Option<(Offset, Offset)>],
    mut f: impl FnMut(Time, u8, usize),
) {
    let Some((first, last)) = short_span(bufs) else {
        for (t, kind, i, _) in sorted_events(bufs, range) {
            f(t, kind, i.index());
        }
        return;
    };
    let key = |t: Time, kind: u8| 2 * (t - first) as usize + kind as usize;
    let mut at = vec![0u32; 2 * (last - first) as usize + 3];
    for_each_event(bufs, range, |(t, kind, _, _)| at[key(t, kind) + 1] += 1);
    for k in 1..at.len() {
        at[k] += at[k - 1];
    }
    let mut events = vec![0u32; at[at.len() - 1] as usize];
    for_each_event(bufs, range, |(t, kind, i, _)| {
        let k = key(t, kind);
        events[at[k] as usize] = i.0;
        at[k] += 1;
    });
    // Now `at[k]` is where place `k`'s events end.
    let mut from = 0;
    for (k, &end) in at.iter().enumerate() {
        let (t, kind) = (first + (k / 2) as u64, (k % 2) as u8);
        for &i in &events[from..end as usize] {
            f(t, kind, i as usize);
        }
        from = end as usize;
    }
}

/// The first start and last end of the buffers when the span between them is short
/// enough (at most 2n + 1024 steps) to place the events by counting.
fn short_span(bufs: &[Buffer]) -> Option<(Time, Time)> {
    let first = bufs
        .iter()
        .map(|b| b.lifetime.start)
        .min()
        .unwrap_or(Time(0));
    let last = bufs.iter().map(|b| b.lifetime.end).max().unwrap_or(Time(0));
    (last - first <= 2 * bufs.len() as u64 + 1024).then_some((first, last))
}

/// The sweep's events `(time, 0 = end / 1 = start, buffer, other end)` of the placed
/// buffers, sorted. No two events share (time, kind, buffer) (a buffer's segments are
/// disjoint), so ordering by (time, kind) with ties in buffer order is the sorted
/// order: when the time span is short (at most 2n + 1024 steps) the events are placed
/// by counting, in O(n + span), else sorted.
fn sorted_events(bufs: &[Buffer], range: &[Option<(Offset, Offset)>]) -> Vec<Event> {
    let Some((first, last)) = short_span(bufs) else {
        let mut events = Vec::with_capacity(2 * bufs.len());
        for_each_event(bufs, range, |e| events.push(e));
        events.sort_unstable();
        return events;
    };
    let key = |t: Time, kind: u8| 2 * (t - first) as usize + kind as usize;
    let mut at = vec![0u32; 2 * (last - first) as usize + 3];
    for_each_event(bufs, range, |(t, kind, _, _)| at[key(t, kind) + 1] += 1);
    for k in 1..at.len() {
        at[k] += at[k - 1];
    }
    let total = at[at.len() - 1] as usize;
    let mut events = vec![(Time(0), 0u8, BufferIdx(0), Time(0)); total];
    for_each_event(bufs, range, |e @ (t, kind, _, _)| {
        let k = key(t, kind);
        events[at[k] as usize] = e;
        at[k] += 1;
    });
    events
}

/// A sweep event: (time, 0 = end / 1 = start, buffer, the segment's other end).
type Event = (Time, u8, BufferIdx, Time);

/// Every event of the placed buffers, in buffer order, by a plain loop (no allocation
/// for a buffer without gaps).
#[inline]
fn for_each_event(bufs: &[Buffer], range: &[Option<(Offset, Offset)>], mut f: impl FnMut(Event)) {
    for (i, b) in bufs.iter().enumerate() {
        if range[i].is_none() {
            continue;
        }
        let i = BufferIdx::new(i);
        if b.gaps.is_empty() {
            f((b.lifetime.start, 1, i, b.lifetime.end));
            f((b.lifetime.end, 0, i, b.lifetime.start));
        } else {
            for seg in segments_of(b) {
                f((seg.start, 1, i, seg.end));
                f((seg.end, 0, i, seg.start));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Buffer;

    fn p(bufs: Vec<Buffer>) -> Problem {
        Problem::new(bufs).unwrap()
    }

    fn offs(v: &[u64]) -> Vec<Offset> {
        v.iter().map(|&o| Offset(o)).collect()
    }

    #[test]
    fn events_placed_by_counting_are_the_sorted_events() {
        let mut rng = crate::rng::Rng::new(11);
        for case in 0..100u64 {
            let n = 1 + (rng.next_u64() % 30) as usize;
            let span = if case % 2 == 0 { 1 + n as u64 } else { 1 << 40 };
            let bufs: Vec<Buffer> = (0..n)
                .map(|i| {
                    let s = rng.next_u64() % span;
                    let len = 1 + rng.next_u64() % 6;
                    let mut b = Buffer::new(format!("b{i}"), s, s + len, 1);
                    if len >= 4 && rng.next_u64().is_multiple_of(2) {
                        b.gaps = vec![Lifetime::new(s + 1, s + 2)];
                    }
                    b
                })
                .collect();
            let problem = p(bufs);
            let bufs = problem.buffers();
            let range: Vec<Option<(Offset, Offset)>> = (0..n)
                .map(|i| (i % 5 != 4).then_some((Offset(0), Offset(1))))
                .collect();
            let mut sorted: Vec<(Time, u8, BufferIdx, Time)> = Vec::new();
            for (i, b) in problem.indexed().filter(|&(i, _)| range[i].is_some()) {
                for seg in segments_of(b) {
                    sorted.push((seg.start, 1, i, seg.end));
                    sorted.push((seg.end, 0, i, seg.start));
                }
            }
            sorted.sort_unstable();
            assert_eq!(sorted_events(bufs, &range), sorted, "case {case}");
        }
    }

    /// The O(n²) reference: every pair, every segment pair.
    fn reference_valid(problem: &Problem, capacity: Option<Size>, offsets: &[Offset]) -> bool {
        let bufs = problem.buffers();
        for (i, b) in bufs.iter().enumerate() {
            let o = offsets[i];
            let Some(end) = o.checked_add(b.size) else {
                return false;
            };
            if !o.is_aligned_to(b.alignment) || b.fixed_offset.is_some_and(|f| f != o) {
                return false;
            }
            if capacity.is_some_and(|c| end > c) {
                return false;
            }
        }
        for i in 0..bufs.len() {
            for j in i + 1..bufs.len() {
                let (a, b) = (&bufs[i], &bufs[j]);
                let (ao, bo) = (offsets[i], offsets[j]);
                let addr = ao < bo.saturating_add(b.size) && bo < ao.saturating_add(a.size);
                let time = segments_of(a)
                    .iter()
                    .any(|s| segments_of(b).iter().any(|t| s.overlaps(t)));
                if addr && time {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn doc_example_overlap_is_named() {
        let prob = p(vec![Buffer::new("a", 0, 4, 12), Buffer::new("b", 3, 7, 8)]);
        let err = check_offsets(&prob, &offs(&[0, 8]), None).unwrap_err();
        assert_eq!(err.violations.len(), 1);
        match &err.violations[0] {
            Violation::Overlap {
                first,
                second,
                times,
                addresses,
            } => {
                assert_eq!(first.id, "a");
                assert_eq!(second.id, "b");
                assert_eq!(*times, Lifetime::new(3, 4));
                assert_eq!(*addresses, (Offset(8), Offset(12)));
            }
            v => panic!("unexpected {v:?}"),
        }
        let msg = err.to_string();
        assert!(
            msg.contains("'a'")
                && msg.contains("'b'")
                && msg.contains("[3, 4)")
                && msg.contains("[8, 12)"),
            "{msg}"
        );
        assert_eq!(
            check_offsets(&prob, &offs(&[0, 12]), None).unwrap().height,
            Size(20)
        );
    }

    #[test]
    fn touching_lifetimes_and_addresses_are_fine() {
        let prob = p(vec![
            Buffer::new("a", 0, 4, 8),
            Buffer::new("b", 4, 7, 8),
            Buffer::new("c", 0, 7, 2),
        ]);
        assert!(check_offsets(&prob, &offs(&[0, 0, 8]), None).is_ok());
    }

    #[test]
    fn gaps_are_honoured() {
        let prob = p(vec![
            Buffer::new("a", 0, 10, 8).with_gap(2, 6),
            Buffer::new("b", 2, 6, 8),
        ]);
        assert!(check_offsets(&prob, &offs(&[0, 0]), None).is_ok());
        let prob = p(vec![
            Buffer::new("a", 0, 10, 8).with_gap(2, 6),
            Buffer::new("b", 2, 7, 8),
        ]);
        assert!(check_offsets(&prob, &offs(&[0, 0]), None).is_err());
    }

    #[test]
    fn every_rule_is_reported() {
        let prob = p(vec![
            Buffer::new("a", 0, 4, 8).with_alignment(4),
            Buffer::new("f", 0, 4, 8).with_fixed_offset(16),
        ]);
        let cap = Some(Size(20));
        let err = check_offsets(&prob, &offs(&[2, 20]), cap).unwrap_err();
        let kinds: Vec<_> = err.violations.iter().map(std::mem::discriminant).collect();
        assert!(err
            .violations
            .iter()
            .any(|v| matches!(v, Violation::Misaligned { .. })));
        assert!(err
            .violations
            .iter()
            .any(|v| matches!(v, Violation::MovedFixed { .. })));
        assert!(err
            .violations
            .iter()
            .any(|v| matches!(v, Violation::AboveCapacity { .. })));
        assert_eq!(kinds.len(), 3);
        let err = check_offsets(&prob, &offs(&[u64::MAX - 3, 16]), cap).unwrap_err();
        assert!(matches!(
            err.violations[0],
            Violation::AddressOverflow { .. }
        ));
        let err = check_offsets(&prob, &offs(&[0]), cap).unwrap_err();
        assert!(matches!(err.violations[0], Violation::WrongCount { .. }));
    }

    #[test]
    fn placements_by_id() {
        let prob = p(vec![Buffer::new("a", 0, 4, 8), Buffer::new("b", 5, 7, 8)]);
        let ok = vec![("b".to_string(), Offset(0)), ("a".to_string(), Offset(0))];
        assert!(check_placements(&prob, &ok, None).is_ok());
        let bad = vec![
            ("a".to_string(), Offset(0)),
            ("a".to_string(), Offset(0)),
            ("zz".to_string(), Offset(0)),
        ];
        let err = check_placements(&prob, &bad, None).unwrap_err();
        assert!(err
            .violations
            .contains(&Violation::PlacedTwice { id: "a".into() }));
        assert!(err
            .violations
            .contains(&Violation::Unknown { id: "zz".into() }));
        assert!(err
            .violations
            .contains(&Violation::Missing { id: "b".into() }));
    }

    #[test]
    fn sweep_agrees_with_quadratic_reference() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..3000 {
            let n = 1 + next(9) as usize;
            let mut bufs = Vec::new();
            for i in 0..n {
                let s = next(12);
                let e = s + 1 + next(6);
                let mut b = Buffer::new(format!("b{i}"), s, e, 1 + next(6))
                    .with_alignment([1, 1, 2, 4][next(4) as usize]);
                if e - s >= 3 && next(3) == 0 {
                    b = b.with_gap(s + 1, e - 1);
                }
                bufs.push(b);
            }
            let cap = if next(4) == 0 {
                Some(Size(10 + next(20)))
            } else {
                None
            };
            let prob = p(bufs);
            let offsets: Vec<Offset> = (0..n).map(|_| Offset(next(16))).collect();
            let want = reference_valid(&prob, cap, &offsets);
            let got = check_offsets(&prob, &offsets, cap);
            assert_eq!(got.is_ok(), want, "offsets {offsets:?} for {prob:?}");
            if let Err(f) = got {
                invalid += 1;
                // Every reported overlap is a real one.
                for v in &f.violations {
                    if let Violation::Overlap { first, second, .. } = v {
                        let i = prob
                            .buffers()
                            .iter()
                            .position(|b| b.id == first.id)
                            .unwrap();
                        let j = prob
                            .buffers()
                            .iter()
                            .position(|b| b.id == second.id)
                            .unwrap();
                        let two = p(vec![prob.buffers()[i].clone(), prob.buffers()[j].clone()]);
                        let pair = [offsets[i], offsets[j]];
                        let aligned_ok = pair
                            .iter()
                            .zip(two.buffers())
                            .all(|(o, b)| o.is_aligned_to(b.alignment));
                        if aligned_ok {
                            assert!(!reference_valid(&two, None, &pair), "{v}");
                        }
                    }
                }
            } else {
                valid += 1;
            }
        }
        assert!(
            valid > 100 && invalid > 100,
            "both verdicts exercised: {valid} valid, {invalid} invalid"
        );
    }
}
