//! What can be known about a problem before planning, from one event sweep.
//!
//! Every buffer contributes one *start* and one *end* event per live segment (its
//! lifetime minus its gaps). Sorting the events by time, with ends before starts at the
//! same time (the half-open rule), and walking them once gives:
//!
//! ```text
//!   time     0   1   2   3   4   5   6
//!   a(4)     [=======)
//!   b(2)         [===========)
//!   c(3)                         [===)
//!   load     4   6   2   2   0   3   0      max load 6 at time 1
//!   cuts     ^                   ^          components {a, b} and {c}
//! ```
//!
//! - the **load profile**, the total size live at each time, as a step function;
//! - the **max load** `L`: no plan can be lower than `L`, so a plan of height `L` is optimal;
//! - the number of **overlapping pairs**, the edges of the interference graph;
//! - the **time components**: maximal groups of buffers such that no buffer's lifetime
//!   crosses a cut between groups. Components can be planned independently and stacked
//!   at offset 0 each.
//!
//! Cost: O(n log n) for the sort, plus O(pairs) only for buffers with gaps.

use crate::types::{Buffer, BufferIdx, Lifetime, Problem, Size, Time};

/// One step of the load profile: from `time` until the next step's time, `load` bytes are live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadStep {
    /// When this load begins.
    pub time: Time,
    /// Total size live from `time` on.
    pub load: Size,
}

/// A maximal set of buffers whose lifetimes are chained by overlaps; no lifetime crosses
/// the boundary between two components.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// From the earliest start to the latest end of its buffers.
    pub span: Lifetime,
    /// Its buffers, in increasing index order.
    pub buffers: Vec<BufferIdx>,
}

/// The results of [`analyze`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The largest total size live at one time: a lower bound on every plan's height.
    pub max_load: Size,
    /// The first time at which the max load is reached.
    pub peak_time: Time,
    /// The most buffers live at one time.
    pub max_live: usize,
    /// The load as a step function, in increasing time; the last step has load 0.
    pub load_profile: Vec<LoadStep>,
    /// Pairs of distinct buffers that are live together at some time (gaps honoured).
    pub overlapping_pairs: u64,
    /// The independent time components, in increasing time order.
    pub components: Vec<Component>,
}

/// Sweep events for all live segments: `(time, is_start, size)`, sorted with ends first.
fn events(problem: &Problem) -> Vec<(Time, bool, Size)> {
    let mut ev = Vec::with_capacity(problem.len() * 2);
    for b in problem.buffers() {
        for seg in b.live_segments() {
            ev.push((seg.start, true, b.size));
            ev.push((seg.end, false, b.size));
        }
    }
    ev.sort_unstable_by_key(|&(t, is_start, _)| (t, is_start));
    ev
}

/// Every lifetime start and end of `problem`, sorted, without repeats: the times at
/// which the live set can change.
pub(crate) fn lifetime_boundaries(problem: &Problem) -> Vec<Time> {
    let mut times: Vec<Time> = problem
        .buffers()
        .iter()
        .flat_map(|b| [b.lifetime.start, b.lifetime.end])
        .collect();
    times.sort_unstable();
    times.dedup();
    times
}

/// The height of a plan given as offsets in problem order, typed or raw: the highest end
/// address (0 for no buffers). Overflow is the caller's to rule out.
pub(crate) fn height_of<O: Copy + Into<u64>>(problem: &Problem, offsets: &[O]) -> u64 {
    problem
        .buffers()
        .iter()
        .zip(offsets)
        .map(|(b, &o)| o.into() + b.size.0)
        .max()
        .unwrap_or(0)
}

/// The lower bound on any plan's height that every output reports: the [`max_load`], or
/// the top of the fixed buffers (the highest `fixed_offset + size`) when that is higher.
/// A plan at this height is optimal, and the fragmentation is measured against it.
pub fn lower_bound(problem: &Problem) -> Size {
    max_load(problem).max(fixed_top(problem))
}

/// The highest address a fixed buffer occupies, as a height (0 without fixed buffers).
pub(crate) fn fixed_top(problem: &Problem) -> Size {
    problem
        .buffers()
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| (o + b.size).as_height()))
        .max()
        .unwrap_or(Size::ZERO)
}

/// The max load alone (cheaper than [`analyze`]: no profile, no pairs). O(n + T) when
/// the time span T is at most about twice the number of buffers (a difference array
/// over the span), else O(n log n).
///
/// With [`crate::Share`]s, the max load counts the buffers live at one time that may
/// share storage along shares whose rules hold as one, the largest of them: no plan,
/// whichever optional shares it takes, is lower (`storage/bound.rs`).
pub fn max_load(problem: &Problem) -> Size {
    #[cfg(feature = "shares")]
    if !problem.shares().is_empty() {
        return crate::storage::shared_max_load(problem);
    }
    if let Some(load) = max_load_dense(problem) {
        return load;
    }
    let mut load = Size::ZERO;
    let mut best = Size::ZERO;
    for (_, is_start, size) in events(problem) {
        if is_start {
            load += size;
            best = best.max(load);
        } else {
            load -= size;
        }
    }
    best
}

/// [`max_load`] by a difference array over the time span, when that span is short
/// (at most 2n + 1024 steps, so the array is smaller than the sorted events); `None`
/// otherwise. The load over `[t, t + 1)` is the sizes started at or before `t` less
/// those ended at or before `t` (the half-open rule); every such prefix lies in
/// `[0, total size]`, so wrapping arithmetic gives it exactly.
fn max_load_dense(problem: &Problem) -> Option<Size> {
    let bufs = problem.buffers();
    let first = bufs.iter().map(|b| b.lifetime.start).min()?;
    let last = bufs.iter().map(|b| b.lifetime.end).max()?;
    let span = last - first;
    if span > 2 * bufs.len() as u64 + 1024 {
        return None;
    }
    let mut diff = vec![0u64; span as usize + 1];
    for b in bufs {
        for seg in b.live_segments() {
            let (s, e) = ((seg.start - first) as usize, (seg.end - first) as usize);
            let size = u64::from(b.size);
            diff[s] = diff[s].wrapping_add(size);
            diff[e] = diff[e].wrapping_sub(size);
        }
    }
    let mut load = 0u64;
    let mut best = 0u64;
    for d in diff {
        load = load.wrapping_add(d);
        best = best.max(load);
    }
    Some(Size(best))
}

/// The load profile alone: one step per distinct event time.
pub fn load_profile(problem: &Problem) -> Vec<LoadStep> {
    let mut out: Vec<LoadStep> = Vec::new();
    let mut load = Size::ZERO;
    for (t, is_start, size) in events(problem) {
        if is_start {
            load += size;
        } else {
            load -= size;
        }
        match out.last_mut() {
            Some(last) if last.time == t => last.load = load,
            _ => out.push(LoadStep { time: t, load }),
        }
    }
    out
}

/// Runs one event sweep (ends before starts at the same time, the half-open rule):
/// the load profile, the max load (no plan is lower), the number of overlapping pairs
/// and the time components (groups no lifetime crosses between, which plan
/// independently). O(n log n), plus O(pairs) for buffers with gaps.
pub fn analyze(problem: &Problem) -> Analysis {
    let ev = events(problem);
    let mut load = Size::ZERO;
    let mut live = 0usize;
    let (mut max_load, mut peak_time) = (Size::ZERO, Time(0));
    let mut max_live = 0usize;
    let mut segment_pairs = 0u64;
    let mut profile: Vec<LoadStep> = Vec::new();
    for &(t, is_start, size) in &ev {
        if is_start {
            segment_pairs += live as u64;
            live += 1;
            load += size;
            max_live = max_live.max(live);
            if load > max_load {
                (max_load, peak_time) = (load, t);
            }
        } else {
            live -= 1;
            load -= size;
        }
        match profile.last_mut() {
            Some(last) if last.time == t => last.load = load,
            _ => profile.push(LoadStep { time: t, load }),
        }
    }
    Analysis {
        max_load,
        peak_time,
        max_live,
        load_profile: profile,
        overlapping_pairs: segment_pairs - gap_overcount(problem),
        components: time_components(problem),
    }
}

/// Counting segment starts counts a pair of buffers once per pair of their segments that
/// overlap. For buffers without gaps that is exactly once; this returns the excess for
/// pairs that involve a gapped buffer.
fn gap_overcount(problem: &Problem) -> u64 {
    let bufs = problem.buffers();
    if bufs.iter().all(|b| b.gaps.is_empty()) {
        return 0;
    }
    let mut by_start: Vec<BufferIdx> = problem.indices().collect();
    crate::sort::unstable_by_key(&mut by_start, |&i| bufs[i].lifetime.start);
    let mut excess = 0u64;
    for (gi, g) in problem.indexed().filter(|(_, b)| !b.gaps.is_empty()) {
        // Buffers starting before g ends; those that also end after g starts overlap it.
        let upto = by_start.partition_point(|&i| bufs[i].lifetime.start < g.lifetime.end);
        for &j in &by_start[..upto] {
            let x = &bufs[j];
            // Visit each gapped pair once, from its lower index.
            if j == gi || !x.lifetime.overlaps(&g.lifetime) || (!x.gaps.is_empty() && j < gi) {
                continue;
            }
            let m = overlapping_segment_pairs(g, x);
            excess += m.saturating_sub(1);
        }
    }
    excess
}

fn overlapping_segment_pairs(a: &Buffer, b: &Buffer) -> u64 {
    let mut n = 0;
    for s in a.live_segments() {
        n += b.live_segments().filter(|t| s.overlaps(t)).count() as u64;
    }
    n
}

/// For each buffer, the number of its time component (components numbered in time order).
pub(crate) fn component_ids(problem: &Problem) -> Vec<u32> {
    let mut ids = vec![0u32; problem.len()];
    for (k, c) in time_components(problem).iter().enumerate() {
        for b in &c.buffers {
            ids[b.index()] = k as u32;
        }
    }
    ids
}

/// Cuts `sequence`, which must be grouped by time component (`component[i]`), into at
/// most `parts` runs of whole components of about equal length. Buffers of different
/// components never conflict, so the runs can be placed apart (e.g. on different threads).
pub(crate) fn split_at_components<'a>(
    sequence: &'a [BufferIdx],
    component: &[u32],
    parts: usize,
) -> Vec<&'a [BufferIdx]> {
    let mut cuts = vec![0];
    for t in 1..parts.max(1) {
        let mut at = (sequence.len() * t / parts).max(*cuts.last().expect("non-empty"));
        while at < sequence.len()
            && at > 0
            && component[sequence[at]] == component[sequence[at - 1]]
        {
            at += 1;
        }
        cuts.push(at);
    }
    cuts.push(sequence.len());
    cuts.windows(2)
        .map(|w| &sequence[w[0]..w[1]])
        .filter(|r| !r.is_empty())
        .collect()
}

/// Groups buffers into independent time components (gaps ignored: a buffer is one
/// piece of memory for its whole lifetime).
pub(crate) fn time_components(problem: &Problem) -> Vec<Component> {
    let bufs = problem.buffers();
    let mut order: Vec<BufferIdx> = problem.indices().collect();
    crate::sort::unstable_by_key(&mut order, |&i| (bufs[i].lifetime.start, i));
    let mut out: Vec<Component> = Vec::new();
    for i in order {
        let lt = bufs[i].lifetime;
        match out.last_mut() {
            Some(c) if lt.start < c.span.end => {
                c.span.end = c.span.end.max(lt.end);
                c.buffers.push(i);
            }
            _ => out.push(Component {
                span: lt,
                buffers: vec![i],
            }),
        }
    }
    for c in &mut out {
        c.buffers.sort_unstable();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Buffer;

    fn problem(bufs: Vec<Buffer>) -> Problem {
        Problem::new(bufs).unwrap()
    }

    #[test]
    fn max_load_by_difference_array_matches_the_sweep() {
        let mut rng = crate::rng::Rng::new(7);
        for case in 0..200u64 {
            let n = 1 + (rng.next_u64() % 40) as usize;
            // Short spans take the difference array, long ones the sorted events.
            let span = if case % 2 == 0 { 1 + n as u64 } else { 1 << 40 };
            let base = rng.next_u64() % 1000;
            let bufs: Vec<Buffer> = (0..n)
                .map(|i| {
                    let s = base + rng.next_u64() % span;
                    let len = 1 + rng.next_u64() % 8;
                    let mut b = Buffer::new(format!("b{i}"), s, s + len, 1 + rng.next_u64() % 100);
                    if len >= 3 && rng.next_u64().is_multiple_of(3) {
                        b.gaps = vec![Lifetime::new(s + 1, s + 2)];
                    }
                    b
                })
                .collect();
            let p = problem(bufs);
            assert_eq!(max_load(&p), analyze(&p).max_load, "case {case}");
            if case % 2 == 0 {
                assert!(max_load_dense(&p).is_some());
            }
        }
    }

    #[test]
    fn module_doc_example() {
        let p = problem(vec![
            Buffer::new("a", 0, 2, 4),
            Buffer::new("b", 1, 4, 2),
            Buffer::new("c", 5, 6, 3),
        ]);
        let a = analyze(&p);
        assert_eq!(a.max_load, Size(6));
        assert_eq!(a.peak_time, Time(1));
        assert_eq!(a.overlapping_pairs, 1);
        assert_eq!(a.components.len(), 2);
        assert_eq!(a.components[0].buffers, vec![BufferIdx(0), BufferIdx(1)]);
        assert_eq!(a.components[1].span, Lifetime::new(5, 6));
        let loads: Vec<(Time, Size)> = a.load_profile.iter().map(|s| (s.time, s.load)).collect();
        let expected = [(0, 4), (1, 6), (2, 2), (4, 0), (5, 3), (6, 0)];
        assert_eq!(loads, expected.map(|(t, l)| (Time(t), Size(l))));
        assert_eq!(max_load(&p), a.max_load);
        assert_eq!(load_profile(&p), a.load_profile);
    }

    #[test]
    fn half_open_touching_buffers_do_not_overlap() {
        let p = problem(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 2, 4, 4)]);
        let a = analyze(&p);
        assert_eq!(a.max_load, Size(4));
        assert_eq!(a.overlapping_pairs, 0);
        assert_eq!(a.components.len(), 2);
    }

    #[test]
    fn gaps_reduce_load_and_pairs() {
        // a has a gap exactly where b lives; c overlaps both segments of a.
        let p = problem(vec![
            Buffer::new("a", 0, 10, 5).with_gap(3, 6),
            Buffer::new("b", 3, 6, 7),
            Buffer::new("c", 0, 10, 1),
            Buffer::new("d", 0, 10, 1).with_gap(2, 8),
        ]);
        let a = analyze(&p);
        assert_eq!(a.max_load, Size(8));
        // pairs: a-c, a-d, b-c, c-d  (a-b never live together; b-d neither)
        assert_eq!(a.overlapping_pairs, 4);
    }

    #[test]
    fn pairs_match_quadratic_count() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        for _ in 0..50 {
            let n = 2 + next() % 12;
            let mut bufs = Vec::new();
            for i in 0..n {
                let s = next() % 20;
                let e = s + 1 + next() % 10;
                let mut b = Buffer::new(format!("b{i}"), s, e, 1 + next() % 5);
                if e - s >= 3 && next() % 2 == 0 {
                    b = b.with_gap(s + 1, s + 2);
                }
                bufs.push(b);
            }
            let p = problem(bufs);
            let bs = p.buffers();
            let mut expect = 0;
            for i in 0..bs.len() {
                for j in i + 1..bs.len() {
                    expect += bs[i].live_together(&bs[j]) as u64;
                }
            }
            assert_eq!(analyze(&p).overlapping_pairs, expect);
        }
    }
}
