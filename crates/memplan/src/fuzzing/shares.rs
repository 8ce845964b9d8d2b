//! Shares under fuzzing: random problems of [`super::arbitrary_problem`] with random
//! [`crate::Share`]s, planned under random switches and checked; and random offsets near
//! the shares' relations, judged by the checker and by a pairwise reference.

use arbitrary::{Result, Unstructured};

use super::targets::assert_report_consistent;
use super::{arbitrary_problem, FuzzKnobs};
use crate::budget::Budget;
use crate::share::{Share, ShareKind};
use crate::types::{Offset, Problem, Time};
use crate::{check_offsets, plan, Goal, Options, Request, ShareOptions};

/// `problem` with random shares: in place (most of the time with the target's end moved
/// to the step after the buffer's birth, so that the rule holds) and inside (at an
/// offset that fits), some required. `None` when the required shares contradict.
pub fn arbitrary_shares(u: &mut Unstructured<'_>, problem: &Problem) -> Result<Option<Problem>> {
    let mut bufs = problem.buffers().to_vec();
    let n = bufs.len();
    let mut shares = Vec::new();
    for i in 0..n {
        if n < 2 || u.int_in_range(0..=2u8)? == 0 {
            continue;
        }
        let j = u.int_in_range(0..=n - 1)?;
        if j == i || bufs[j].fixed_offset.is_some() && bufs[i].fixed_offset.is_some() {
            continue;
        }
        let (b, t) = (&bufs[i], &bufs[j]);
        let mut share = if u.arbitrary::<bool>()? && b.size <= t.size {
            let room = t.size.0 - b.size.0;
            let off = u.int_in_range(0..=room)? / b.alignment.0 * b.alignment.0;
            Share::inside(&b.id, &t.id, off)
        } else {
            if u.int_in_range(0..=3u8)? != 0 && t.lifetime.start <= b.lifetime.start {
                let end = b.lifetime.start.0.saturating_add(1);
                let t = &mut bufs[j];
                // Keep the gaps inside the shortened lifetime.
                t.lifetime.end = Time(end.max(t.lifetime.start.0 + 1));
                let life = t.lifetime;
                t.gaps.retain(|g| life.contains(g));
            }
            Share::in_place(&bufs[i].id, &bufs[j].id)
        };
        if u.int_in_range(0..=7u8)? == 0 {
            share = share.required();
        }
        shares.push(share);
    }
    Ok(Problem::with_shares(bufs, shares).ok())
}

/// The O(n²) reference with shares: what [`crate::check_offsets`] must say.
fn reference_valid(problem: &Problem, offsets: &[Offset]) -> bool {
    let bufs = problem.buffers();
    let placed_ok = bufs.iter().zip(offsets).all(|(b, o)| {
        o.0.checked_add(b.size.0).is_some()
            && o.0 % b.alignment.0 == 0
            && b.fixed_offset.is_none_or(|f| f == *o)
    });
    if !placed_ok {
        return false;
    }
    let required = problem.shares().iter().enumerate().all(|(k, s)| {
        let (b, t) = problem.share_ends(k);
        !s.required || offsets[t.index()].0.checked_add(s.offset.0) == Some(offsets[b.index()].0)
    });
    if !required {
        return false;
    }
    let live = |b: &crate::Buffer, t: u64| {
        b.lifetime.start.0 <= t
            && t < b.lifetime.end.0
            && !b.gaps.iter().any(|g| g.start.0 <= t && t < g.end.0)
    };
    for i in 0..bufs.len() {
        for j in i + 1..bufs.len() {
            let (a, b) = (&bufs[i], &bufs[j]);
            let addr =
                offsets[i].0 < offsets[j].0 + b.size.0 && offsets[j].0 < offsets[i].0 + a.size.0;
            let lo = a.lifetime.start.0.max(b.lifetime.start.0);
            let hi = a.lifetime.end.0.min(b.lifetime.end.0);
            let time = addr && (lo..hi).any(|t| live(a, t) && live(b, t));
            if !time {
                continue;
            }
            let allowed = problem.shares().iter().enumerate().any(|(k, s)| {
                let (x, y) = problem.share_ends(k);
                let (x, y) = (x.index(), y.index());
                if !((x == i && y == j) || (x == j && y == i)) {
                    return false;
                }
                let (lx, ly) = (bufs[x].lifetime, bufs[y].lifetime);
                let at = offsets[y].0.checked_add(s.offset.0) == Some(offsets[x].0);
                at && match s.kind {
                    ShareKind::InPlace => ly.start <= lx.start && ly.end.0 <= lx.start.0 + 1,
                    ShareKind::Inside => s.offset.0 + bufs[x].size.0 <= bufs[y].size.0,
                }
            });
            if !allowed {
                return false;
            }
        }
    }
    true
}

/// The `shares` target: a problem with shares planned under random switches (every plan
/// checked, the report consistent with the max load with shares), then random offsets
/// judged by the checker and the pairwise reference alike.
pub fn shares(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let knobs = FuzzKnobs {
        max_buffers: 10,
        horizon: 12,
        max_size_log2: 6,
        ..FuzzKnobs::default()
    };
    let Ok((base, capacity)) = arbitrary_problem(&mut u, &knobs) else {
        return;
    };
    let Ok(Some(problem)) = arbitrary_shares(&mut u, &base) else {
        return;
    };
    let options = Options {
        shares: ShareOptions {
            optional: u.arbitrary().unwrap_or(true),
            fallback: u.arbitrary().unwrap_or(true),
        },
        threads: 1,
        ..Options::default()
    };
    let request = Request {
        goal: Goal::from_capacity(capacity),
        budget: Budget::new().with_work_limit(2_000u64),
    };
    let report =
        plan(&problem, &request, &options).unwrap_or_else(|e| panic!("{e} on {problem:?}"));
    assert_report_consistent(&problem, capacity, &report);
    if let Some(p) = report.outcome.plan() {
        let taken = problem.taken_shares(p.offsets(), |_| ());
        assert_eq!(
            taken, report.taken_shares,
            "the shares taken are the plan's"
        );
    }
    let mut offsets: Vec<Offset> = (0..problem.len())
        .map(|_| Offset(u.int_in_range(0..=64u64).unwrap_or(0)))
        .collect();
    for k in 0..problem.shares().len() {
        if u.arbitrary::<bool>().unwrap_or(false) {
            let (b, t) = problem.share_ends(k);
            offsets[b.index()] = Offset(offsets[t.index()].0 + problem.shares()[k].offset.0);
        }
    }
    assert_eq!(
        check_offsets(&problem, &offsets, None).is_ok(),
        reference_valid(&problem, &offsets),
        "checker and reference disagree on {offsets:?} for {problem:?}"
    );
}
