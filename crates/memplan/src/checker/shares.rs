//! Rule 5 with shares: two live buffers may overlap only along a share declared between
//! them whose rule holds (see [`crate::share`]); and rule 6: every required share is
//! taken.
//!
//! The sweep of the parent module keeps live segments pairwise disjoint, which shares
//! break. Here the map holds *blocks* instead: maximal runs of live segments whose
//! address ranges overlap each other, so that blocks stay disjoint and a segment that
//! enters meets exactly the blocks that its range touches (the one below, and those
//! starting before its end). It is checked against every member of those blocks whose
//! range it overlaps; when all of them share with it by a rule that holds, it joins
//! them into one block. When a segment leaves, its block is split again into runs.
//!
//! ```text
//!   address               block [0, 16): x [0, 16), y [0, 16) in place of x
//!     16 +-------+
//!        | x | y |        z enters at [8, 12): it overlaps x and y but shares with
//!      0 +-------+        neither -> Overlap { x, z }, Overlap { y, z }
//! ```
//!
//! The rules are implemented here again, apart from the planners'.

use std::collections::BTreeMap;

use super::violation::Collector;
use super::{placed_view, sorted_events};
use crate::share::ShareKind;
use crate::types::{Buffer, BufferIdx, Lifetime, Offset, Problem, Time};
use crate::Violation;

/// A live segment: its buffer, addresses and times.
#[derive(Clone, Copy)]
struct Live {
    i: BufferIdx,
    lo: Offset,
    hi: Offset,
    seg: Lifetime,
}

/// Overlapping live segments: `hi` is the highest end of its members.
struct Block {
    hi: Offset,
    members: Vec<Live>,
}

/// `(unordered buffer pair, share)` for every declared share, sorted.
fn shares_by_pair(problem: &Problem) -> Vec<((u32, u32), usize)> {
    let mut by_pair: Vec<((u32, u32), usize)> = (0..problem.shares().len())
        .map(|k| {
            let (b, t) = problem.share_ends(k);
            ((b.0.min(t.0), b.0.max(t.0)), k)
        })
        .collect();
    by_pair.sort_unstable();
    by_pair
}

/// Why share `k` does not let its buffer at `ob` overlap its target at `ot`, if it does.
fn breach(problem: &Problem, k: usize, ob: Offset, ot: Offset) -> Option<String> {
    let s = &problem.shares()[k];
    let (bi, ti) = problem.share_ends(k);
    let (b, t): (&Buffer, &Buffer) = (problem.buffer(bi), problem.buffer(ti));
    let want = ot.0.checked_add(s.offset.0);
    if want != Some(ob.0) {
        return Some(format!(
            "'{}' is at {ob}, not at '{}''s offset {ot} + {}",
            crate::error::Escaped(&b.id),
            crate::error::Escaped(&t.id),
            s.offset
        ));
    }
    match s.kind {
        ShareKind::InPlace if t.lifetime.start > b.lifetime.start => Some(format!(
            "'{}' is born at {}, after '{}' at {}",
            crate::error::Escaped(&t.id),
            t.lifetime.start,
            crate::error::Escaped(&b.id),
            b.lifetime.start
        )),
        ShareKind::InPlace if t.lifetime.end > Time(b.lifetime.start.0.saturating_add(1)) => {
            Some(format!(
                "'{}' is still live until {}, after '{}' is born at {} (read later)",
                crate::error::Escaped(&t.id),
                t.lifetime.end,
                crate::error::Escaped(&b.id),
                b.lifetime.start
            ))
        }
        ShareKind::Inside if s.offset.0.saturating_add(b.size.0) > t.size.0 => Some(format!(
            "'{}' ends at +{} inside '{}', past its size {}",
            crate::error::Escaped(&b.id),
            s.offset.0.saturating_add(b.size.0),
            crate::error::Escaped(&t.id),
            t.size
        )),
        _ => None,
    }
}

/// Rule 6: every required share taken.
pub(super) fn required_taken(
    problem: &Problem,
    placed: &dyn Fn(usize) -> Option<Offset>,
    c: &mut Collector,
) {
    for (k, s) in problem.shares().iter().enumerate() {
        let (b, t) = problem.share_ends(k);
        let (Some(ob), Some(ot)) = (placed(b.index()), placed(t.index())) else {
            continue;
        };
        let expected = ot.0.checked_add(s.offset.0);
        if s.required && expected != Some(ob.0) {
            c.push(Violation::ShareNotTaken {
                buffer: s.buffer.clone(),
                target: s.target.clone(),
                kind: s.kind,
                expected: Offset(expected.unwrap_or(u64::MAX)),
                found: ob,
            });
        }
    }
}

/// The violation of `x` and `y` overlapping, or `None` when a share allows it.
fn judge(
    problem: &Problem,
    by_pair: &[((u32, u32), usize)],
    x: &Live,
    y: &Live,
) -> Option<Violation> {
    let bufs = problem.buffers();
    let times = Lifetime {
        start: x.seg.start.max(y.seg.start),
        end: x.seg.end.min(y.seg.end),
    };
    let key = (x.i.0.min(y.i.0), x.i.0.max(y.i.0));
    let from = by_pair.partition_point(|&(p, _)| p < key);
    let ks: Vec<usize> = by_pair[from..]
        .iter()
        .take_while(|&&(p, _)| p == key)
        .map(|&(_, k)| k)
        .collect();
    if ks.is_empty() {
        return Some(Violation::Overlap {
            first: placed_view(&bufs[x.i.index()], x.lo, x.hi),
            second: placed_view(&bufs[y.i.index()], y.lo, y.hi),
            times,
            addresses: (x.lo.max(y.lo), x.hi.min(y.hi)),
        });
    }
    let at = |i: BufferIdx| if i == x.i { x } else { y };
    let mut first_reason = None;
    for &k in &ks {
        let (b, t) = problem.share_ends(k);
        let (lb, lt) = (at(b), at(t));
        match breach(problem, k, lb.lo, lt.lo) {
            None => return None,
            Some(reason) if first_reason.is_none() => first_reason = Some((k, reason)),
            Some(_) => {}
        }
    }
    let (k, reason) = first_reason.expect("a pair with shares has a first");
    let (b, t) = problem.share_ends(k);
    let (lb, lt) = (at(b), at(t));
    Some(Violation::ShareBroken {
        buffer: placed_view(&bufs[b.index()], lb.lo, lb.hi),
        target: placed_view(&bufs[t.index()], lt.lo, lt.hi),
        kind: problem.shares()[k].kind,
        times,
        reason,
    })
}

/// Rule 5 with shares, over the placed buffers' address ranges `range`.
pub(super) fn sweep(problem: &Problem, range: &[Option<(Offset, Offset)>], c: &mut Collector) {
    let by_pair = shares_by_pair(problem);
    let bufs = problem.buffers();
    let events = sorted_events(bufs, range);
    let mut blocks: BTreeMap<Offset, Block> = BTreeMap::new();
    // The block (its low address) that holds each buffer's live segment.
    let mut block_of: Vec<Option<Offset>> = vec![None; bufs.len()];
    for (t, kind, i, other_end) in events {
        let (lo, hi) = range[i.index()].expect("only placed buffers have events");
        if kind == 0 {
            if let Some(key) = block_of[i.index()].take() {
                leave(&mut blocks, &mut block_of, key, i);
            }
            continue;
        }
        let entering = Live {
            i,
            lo,
            hi,
            seg: Lifetime {
                start: t,
                end: other_end,
            },
        };
        let mut keys: Vec<Offset> = Vec::new();
        if let Some((&k, b)) = blocks.range(..lo).next_back() {
            if b.hi > lo {
                keys.push(k);
            }
        }
        keys.extend(blocks.range(lo..hi).map(|(&k, _)| k));
        let mut clean = true;
        for k in &keys {
            for m in &blocks[k].members {
                if m.lo < hi && lo < m.hi {
                    if let Some(v) = judge(problem, &by_pair, m, &entering) {
                        c.push(v);
                        clean = false;
                    }
                }
            }
        }
        if !clean {
            continue;
        }
        let mut joined = Block {
            hi,
            members: vec![entering],
        };
        let mut low = lo;
        for k in keys {
            let b = blocks.remove(&k).expect("a key just read");
            low = low.min(k);
            joined.hi = joined.hi.max(b.hi);
            joined.members.extend(b.members);
        }
        for m in &joined.members {
            block_of[m.i.index()] = Some(low);
        }
        blocks.insert(low, joined);
    }
}

/// Removes `i` from the block at `key`, splitting what remains into overlapping runs.
fn leave(
    blocks: &mut BTreeMap<Offset, Block>,
    block_of: &mut [Option<Offset>],
    key: Offset,
    i: BufferIdx,
) {
    let mut block = blocks
        .remove(&key)
        .expect("every live buffer is in a block");
    block.members.retain(|m| m.i != i);
    if block.members.is_empty() {
        return;
    }
    if block.members.len() == 1 {
        let m = block.members[0];
        block_of[m.i.index()] = Some(m.lo);
        blocks.insert(
            m.lo,
            Block {
                hi: m.hi,
                members: block.members,
            },
        );
        return;
    }
    block.members.sort_by_key(|m| (m.lo, m.i.0));
    let mut run: Vec<Live> = Vec::new();
    let mut run_hi = Offset(0);
    for m in block.members {
        if !run.is_empty() && m.lo >= run_hi {
            let done = std::mem::take(&mut run);
            put(blocks, block_of, done, run_hi);
        }
        run_hi = if run.is_empty() {
            m.hi
        } else {
            run_hi.max(m.hi)
        };
        run.push(m);
    }
    put(blocks, block_of, run, run_hi);
}

fn put(
    blocks: &mut BTreeMap<Offset, Block>,
    block_of: &mut [Option<Offset>],
    members: Vec<Live>,
    hi: Offset,
) {
    let lo = members[0].lo;
    for m in &members {
        block_of[m.i.index()] = Some(lo);
    }
    blocks.insert(lo, Block { hi, members });
}
