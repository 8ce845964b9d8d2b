//! The max load with shares: a lower bound on every plan's height, whichever optional
//! shares it takes.
//!
//! At a time `t`, two live buffers may overlap only along a share declared between them
//! whose rule holds. Join the live buffers along such shares: the buffers of one group
//! cover at least the largest of them, and two groups cannot overlap at all. So the
//! memory in use at `t` is at least `Σ over groups of the largest size`, and the max of
//! that over `t` bounds every plan. Without shares it is the max load.
//!
//! ```text
//!   time      0   1   2   3        x (8) and y (8), y in place of x at step 1
//!   x         [=======)
//!   y             [=======)
//!   bound     8   8   8            the max load would count 16 at step 1
//! ```

use crate::share::{in_place_breach, ShareKind};
use crate::types::joins::named;
use crate::types::{Problem, Size, Time};

/// The max load of `problem` with every share whose rule holds counted as taken where it
/// helps (see the module docs). The max load when there are no shares (slower than
/// [`crate::analysis::max_load`], which calls this only with shares).
pub(crate) fn shared_max_load(problem: &Problem) -> Size {
    let bufs = problem.buffers();
    // The shares that can let two buffers overlap, by buffer.
    let mut adjacent: Vec<Vec<u32>> = vec![Vec::new(); bufs.len()];
    for (k, s) in problem.shares().iter().enumerate() {
        let (b, t) = problem.share_ends(k);
        let holds = match s.kind {
            ShareKind::InPlace => {
                in_place_breach(named(&bufs[b.index()]), named(&bufs[t.index()])).is_none()
            }
            ShareKind::Inside => true,
        };
        if holds {
            adjacent[b.index()].push(t.0);
            adjacent[t.index()].push(b.0);
        }
    }
    // Events: (time, +1 start / -1 end, buffer). Ends before starts at one time.
    let mut events: Vec<(Time, i8, u32)> = Vec::new();
    for (i, b) in bufs.iter().enumerate() {
        for seg in b.live_segments() {
            events.push((seg.start, 1, i as u32));
            events.push((seg.end, -1, i as u32));
        }
    }
    events.sort_unstable();
    let mut plain: u128 = 0;
    let mut live_shared: Vec<u32> = Vec::new();
    let mut best: u128 = 0;
    let mut pos = vec![u32::MAX; bufs.len()];
    let mut k = 0;
    while k < events.len() {
        let t = events[k].0;
        while k < events.len() && events[k].0 == t {
            let (_, dir, i) = events[k];
            let size = bufs[i as usize].size.0 as u128;
            if adjacent[i as usize].is_empty() {
                if dir > 0 {
                    plain += size;
                } else {
                    plain -= size;
                }
            } else if dir > 0 {
                live_shared.push(i);
            } else if let Some(p) = live_shared.iter().position(|&x| x == i) {
                live_shared.swap_remove(p);
            }
            k += 1;
        }
        best = best.max(plain + groups_load(problem, &adjacent, &live_shared, &mut pos));
    }
    Size(u64::try_from(best).unwrap_or(u64::MAX))
}

/// `Σ over groups of the largest size` for the live buffers that have shares. `pos` is
/// scratch, one slot per buffer, `u32::MAX` outside the call.
fn groups_load(problem: &Problem, adjacent: &[Vec<u32>], live: &[u32], pos: &mut [u32]) -> u128 {
    if live.is_empty() {
        return 0;
    }
    for (p, &i) in live.iter().enumerate() {
        pos[i as usize] = p as u32;
    }
    let mut parent: Vec<usize> = (0..live.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (p, &i) in live.iter().enumerate() {
        for &j in &adjacent[i as usize] {
            let q = pos[j as usize];
            if q != u32::MAX {
                let (a, b) = (root(&mut parent, p), root(&mut parent, q as usize));
                if a != b {
                    parent[a] = b;
                }
            }
        }
    }
    let mut largest = vec![0u64; live.len()];
    for (p, &i) in live.iter().enumerate() {
        let r = root(&mut parent, p);
        largest[r] = largest[r].max(problem.buffers()[i as usize].size.0);
        pos[i as usize] = u32::MAX;
    }
    largest.iter().map(|&s| s as u128).sum()
}
