//! Which optional shares to take: each only where it lowers or keeps the load.
//!
//! Taking a share joins two storages into one, whose load can be lower (an in-place
//! pair is counted once in the step where both are live) or higher (a concat input
//! inside its output reserves the output's size from the input's birth). The shares are
//! tried one by one, in place before inside, each in declaration order; a share is
//! taken when the storages' max load falls, or stays and the total area (bytes × steps)
//! does not grow. The profile is a tree over the problem's distinct times with range
//! additions and the maximum at its root, so each try costs O(m log T) for the m
//! segments of the two storages (the tree is `crate::maxtree`'s, the one every planner
//! keeps its loads in).
//!
//! The load only bounds the plan; the driver still plans without the optional shares and
//! keeps that plan when it is lower (`driver/shares.rs`).

use crate::maxtree::MaxTree;
use crate::share::ShareKind;
use crate::types::joins::{Groups, Join};
use crate::types::{Lifetime, Problem, Time};

/// The load of one storage: its size over the union of its members' live segments.
struct Footprint {
    size: i128,
    segments: Vec<Lifetime>,
}

struct Profile<'t> {
    times: &'t [Time],
    tree: MaxTree<i128>,
    area: i128,
}

impl Profile<'_> {
    fn slot(&self, t: Time) -> usize {
        self.times.partition_point(|&x| x < t)
    }

    fn add(&mut self, f: &Footprint, sign: i128) {
        for s in &f.segments {
            let (lo, hi) = (self.slot(s.start), self.slot(s.end));
            self.tree.range_add(lo, hi, sign * f.size);
            self.area += sign * f.size * (s.end.0 - s.start.0) as i128;
        }
    }
}

fn footprint(groups: &Groups<'_>, parts: &[(u32, u64)]) -> Footprint {
    let bufs = groups.shared.buffers;
    let mut segments: Vec<Lifetime> = Vec::new();
    let mut size = 0u64;
    for &(g, shift) in parts {
        for &i in groups.members(g) {
            let b = &bufs[i as usize];
            size = size.max(groups.rel(i as usize) + shift + b.size.0);
            segments.extend(b.live_segments());
        }
    }
    segments.sort_unstable();
    let mut merged: Vec<Lifetime> = Vec::with_capacity(segments.len());
    for s in segments {
        match merged.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => merged.push(s),
        }
    }
    Footprint {
        size: size as i128,
        segments: merged,
    }
}

/// Takes, in `groups`, the optional shares of `problem` that lower or keep the load.
pub(crate) fn choose(problem: &Problem, groups: &mut Groups<'_>) {
    let mut order: Vec<usize> = (0..problem.shares().len())
        .filter(|&k| !problem.shares()[k].required)
        .collect();
    if order.is_empty() {
        return;
    }
    order.sort_by_key(|&k| (problem.shares()[k].kind != ShareKind::InPlace, k));
    let mut times: Vec<Time> = problem
        .buffers()
        .iter()
        .flat_map(|b| b.live_segments().flat_map(|s| [s.start, s.end]))
        .collect();
    times.sort_unstable();
    times.dedup();
    let mut profile = Profile {
        tree: MaxTree::new(&vec![0; times.len()], 0, i128::MIN / 4),
        times: &times,
        area: 0,
    };
    for i in 0..problem.len() {
        let g = groups.group_of(i);
        if g as usize == i {
            let f = footprint(groups, &[(g, 0)]);
            profile.add(&f, 1);
        }
    }
    for k in order {
        let Ok(join) = groups.plan_take(k) else {
            continue;
        };
        let Some(j) = join else {
            groups.apply(None);
            continue;
        };
        if lowers_or_keeps(groups, &mut profile, &j) {
            groups.apply(Some(j));
        }
    }
}

/// Applies `j`'s change to the profile when it lowers or keeps the load; else leaves
/// the profile as it was.
fn lowers_or_keeps(groups: &Groups<'_>, profile: &mut Profile<'_>, j: &Join) -> bool {
    let (top, area) = (profile.tree.max(), profile.area);
    let old = [
        footprint(groups, &[(j.keep, 0)]),
        footprint(groups, &[(j.absorb, 0)]),
    ];
    let new = footprint(
        groups,
        &[(j.keep, j.shift_keep), (j.absorb, j.shift_absorb)],
    );
    for f in &old {
        profile.add(f, -1);
    }
    profile.add(&new, 1);
    let (new_top, new_area) = (profile.tree.max(), profile.area);
    if new_top < top || (new_top == top && new_area <= area) {
        return true;
    }
    profile.add(&new, -1);
    for f in &old {
        profile.add(f, 1);
    }
    false
}
