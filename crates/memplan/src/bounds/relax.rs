//! Relaxations: smaller problems whose optimum is never above the whole problem's, and
//! the granularity of heights (see the module doc of [`super`] for why each is valid).

use crate::analysis::{lifetime_boundaries, time_components};
use crate::types::{Buffer, BufferIdx, Lifetime, Problem, Size, Time};

/// What a [`Part`] is, for the provenance of a bound proven on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PartKind {
    /// A time component: its buffers, unchanged. Its optimum is at most the problem's,
    /// and the problem's optimum is the largest of its components'.
    Component,
    /// Every lifetime of a component clipped to `[start, end)`: a relaxation only.
    Window { start: Time, end: Time },
}

/// A sub-problem that bounds the whole problem from below.
#[derive(Clone, Debug)]
pub(crate) struct Part {
    pub(crate) problem: Problem,
    /// Problem index of each buffer of `problem`.
    pub(crate) members: Vec<BufferIdx>,
    pub(crate) kind: PartKind,
    /// The part's own max load and fixed top: its cheapest bound.
    pub(crate) floor: Size,
    /// Every height a compacted plan of the part can have is a multiple of this.
    pub(crate) granularity: Size,
}

impl Part {
    fn new(problem: Problem, members: Vec<BufferIdx>, kind: PartKind) -> Part {
        Part {
            floor: crate::analysis::lower_bound(&problem),
            granularity: granularity(&problem),
            problem,
            members,
            kind,
        }
    }
}

/// The gcd of every size, alignment and fixed offset (1 for no buffers). In a compacted
/// plan every offset is 0, a fixed buffer's top, or a top rounded up to an alignment,
/// so every offset, top and height is a multiple of it.
pub(crate) fn granularity(problem: &Problem) -> Size {
    let mut g = 0u64;
    for b in problem.buffers() {
        g = gcd(g, b.size.0);
        g = gcd(g, b.alignment.0);
        if let Some(o) = b.fixed_offset {
            g = gcd(g, o.0);
        }
    }
    Size(g.max(1))
}

/// The greatest common divisor (`gcd(0, b) = b`).
pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The smallest multiple of `g` above `c`: the bound once `c` is proven infeasible.
pub(crate) fn next_multiple(c: Size, g: Size) -> Size {
    Size((c.0 / g.0).saturating_add(1).saturating_mul(g.0))
}

/// The time components of `problem`, as parts (the heaviest floor first, ties in time
/// order).
pub(crate) fn components(problem: &Problem) -> Vec<Part> {
    let bufs = problem.buffers();
    let mut parts: Vec<Part> = time_components(problem)
        .into_iter()
        .map(|c| {
            let sub: Vec<_> = c.buffers.iter().map(|&i| bufs[i].clone()).collect();
            let sub = Problem::new(sub).expect("a subset of a valid problem is valid");
            Part::new(sub, c.buffers, PartKind::Component)
        })
        .collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.floor));
    parts
}

/// The whole problem as one part (the components not split).
pub(crate) fn whole(problem: &Problem) -> Part {
    let members = problem.indices().collect();
    Part::new(problem.clone(), members, PartKind::Component)
}

/// At most this many windows of each width are searched: the heaviest.
pub(crate) const MAX_WINDOWS: usize = 64;

/// Windows of `width` consecutive lifetime boundaries of `part` (a component), every
/// `width / 2` boundaries, each with every lifetime clipped to it; only windows smaller
/// than the part, and only the [`MAX_WINDOWS`] heaviest (by their max load, then
/// earliest), heaviest first.
pub(crate) fn windows(part: &Part, width: usize) -> Vec<Part> {
    let times = lifetime_boundaries(&part.problem);
    let width = width.max(1);
    if times.len() <= width + 1 {
        return Vec::new();
    }
    let profile = segment_loads(&part.problem, &times);
    let stride = (width / 2).max(1);
    let mut starts: Vec<(Size, usize)> = (0..times.len() - width)
        .step_by(stride)
        .map(|i| {
            (
                profile[i..i + width]
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(Size::ZERO),
                i,
            )
        })
        .collect();
    starts.sort_by_key(|&(load, i)| (std::cmp::Reverse(load), i));
    starts.truncate(MAX_WINDOWS);
    starts
        .into_iter()
        .map(|(_, i)| {
            let window = Lifetime {
                start: times[i],
                end: times[i + width],
            };
            let mut sub = Vec::new();
            let mut members = Vec::new();
            for (b, &m) in part.problem.buffers().iter().zip(&part.members) {
                if let Some(c) = clip(b, window) {
                    sub.push(c);
                    members.push(m);
                }
            }
            let sub = Problem::new(sub).expect("clipping keeps a problem valid");
            let kind = PartKind::Window {
                start: window.start,
                end: window.end,
            };
            Part::new(sub, members, kind)
        })
        .collect()
}

/// The load on each segment `[times[i], times[i + 1])`, for choosing windows only (a
/// live segment that starts or ends inside a segment, at a gap, counts from the next
/// boundary on).
fn segment_loads(problem: &Problem, times: &[Time]) -> Vec<Size> {
    // The sizes of the segments counted from and up to each boundary; a segment between
    // two neighbouring boundaries counts nowhere. A buffer counts at most once on each
    // segment and ends come off before starts go on, so the running load stays within
    // the sum of the sizes.
    let mut starting = vec![Size::ZERO; times.len()];
    let mut ending = vec![Size::ZERO; times.len()];
    for b in problem.buffers() {
        for s in b.live_segments() {
            let lo = times.partition_point(|&t| t < s.start);
            let hi = times.partition_point(|&t| t < s.end);
            if lo < hi {
                starting[lo] += b.size;
                ending[hi] += b.size;
            }
        }
    }
    let mut load = Size::ZERO;
    starting
        .into_iter()
        .zip(ending)
        .map(|(on, off)| {
            load = load - off + on;
            load
        })
        .collect()
}

/// `b` with its lifetime and gaps cut to `window`; `None` when nothing is left.
fn clip(b: &Buffer, window: Lifetime) -> Option<Buffer> {
    let cut = |l: &Lifetime| Lifetime {
        start: l.start.max(window.start),
        end: l.end.min(window.end),
    };
    let lifetime = cut(&b.lifetime);
    if lifetime.is_empty() {
        return None;
    }
    let mut c = b.clone();
    c.lifetime = lifetime;
    c.gaps = b.gaps.iter().map(cut).filter(|g| !g.is_empty()).collect();
    // Live nowhere in the window (a gap covers it): no conflict to keep.
    let live = c.live_segments().next().is_some();
    live.then_some(c)
}
