//! Boxing: Buchsbaum et al.'s Theorem 16, Corollary 15, Theorem 2 and Lemma 1, as
//! repaired and simplified by idealloc (§3, §5.8).
//!
//! ```text
//!   box_all (Thm 16)          while (log2 r)^2 >= 1/ε: box the jobs of size <= μH
//!     └─ box_by_size_class      into boxes of size H (Cor 15); then one last Cor 15
//!        (Cor 15)               with μ* and H = h_max / μ* over everything left.
//!          └─ box_one_class     per rounded size h, k = ⌊H/h⌋ jobs per box (Thm 2):
//!             (Thm 2)             pick a critical time t, box the jobs live at t,
//!               └─ split_into_strips   recurse left and right of t.
//!                  (Lemma 1)
//! ```
//!
//! Every box of one Corollary 15 call has the same size `H`; at most `k` of its contents
//! are live at once, each of size at most `h`, and `k·h <= H`, so the contents fit.
//!
//! Randomness (the critical times) comes from a seeded [`Rng`]; each size class and each
//! sub-problem draws its own seed in a fixed order, so the result does not depend on the
//! thread count.

use super::epsilon::{mu, small_job_round, MAX_ROUNDS, PHI};
use super::jobs::{colour_intervals, Arena, NewBoxes};
use crate::budget::Budget;
use crate::rng::Rng;
use crate::types::{Size, Time};

/// Theorem 16: boxes `roots` (ids in `arena`) until a single size class of boxes is
/// left. Returns the top-level jobs, which all have the same size (they are boxes unless
/// there was nothing to box), or `None` when the budget ran out between two rounds.
pub(super) fn box_all(
    arena: &mut Arena,
    roots: Vec<u32>,
    epsilon: f64,
    rng: &mut Rng,
    threads: usize,
    gap_points: bool,
    budget: &Budget,
) -> Option<Vec<u32>> {
    if roots.is_empty() {
        return Some(roots);
    }
    let h_max = roots
        .iter()
        .map(|&j| arena.job(j).size)
        .max()
        .unwrap_or(Size(1));
    let mut x = roots;
    for _round in 0..MAX_ROUNDS {
        if budget.exhausted() {
            return None;
        }
        let h_min = x.iter().map(|&j| arena.job(j).size).min().unwrap_or(h_max);
        let Some((m, h)) = small_job_round(epsilon, h_min, h_max) else {
            break;
        };
        let threshold = m * h.get() as f64;
        let (small, large): (Vec<u32>, Vec<u32>) = x
            .iter()
            .partition(|&&j| arena.job(j).size.get() as f64 <= threshold);
        if small.is_empty() {
            break;
        }
        let boxes = box_by_size_class(arena, &small, h, m, rng, threads, gap_points);
        x = large;
        x.extend(boxes);
    }
    // The last application, with μ* in place of ε (§3.2) and H = h_max / μ*.
    if budget.exhausted() {
        return None;
    }
    let h_min = x.iter().map(|&j| arena.job(j).size).min().unwrap_or(h_max);
    let mu_star = mu(epsilon, h_max.get() as f64 / h_min.get() as f64).min(PHI);
    let h = Size((h_max.get() as f64 / mu_star).ceil() as u64);
    Some(box_by_size_class(
        arena,
        &x,
        h.max(h_max),
        mu_star,
        rng,
        threads,
        gap_points,
    ))
}

/// Rounds `size` up to `⌊(1 + ε)^i⌋` with `(1 + ε)^(i−1) < size <= (1 + ε)^i`
/// (Corollary 15's first step).
fn round_up(size: Size, epsilon: f64) -> Size {
    let bytes = size.get();
    if bytes <= 1 {
        return size;
    }
    let base = 1.0 + epsilon;
    let i = ((bytes as f64).ln() / base.ln()).ceil();
    let rounded = base.powf(i).floor();
    // Guard against floating-point error: never round down.
    if rounded >= bytes as f64 {
        Size((rounded as u64).max(bytes))
    } else {
        size
    }
}

/// Corollary 15: boxes `jobs` into boxes of size `box_size`, one size class at a time
/// (Theorem 2 per class). The classes are independent (idealloc §5.9) and are boxed on
/// up to `threads` threads; the boxes come back in class order. Returns the new box ids.
pub(super) fn box_by_size_class(
    arena: &mut Arena,
    jobs: &[u32],
    box_size: Size,
    epsilon: f64,
    rng: &mut Rng,
    threads: usize,
    gap_points: bool,
) -> Vec<u32> {
    let mut keyed: Vec<(Size, u32)> = jobs
        .iter()
        .map(|&j| (round_up(arena.job(j).size, epsilon), j))
        .collect();
    // By class, then by job: the order is the one total order, whatever sort runs.
    keyed.sort_unstable();
    let mut classes: Vec<(Size, Vec<u32>, u64)> = Vec::new();
    for (h, j) in keyed {
        match classes.last_mut() {
            Some((ch, members, _)) if *ch == h => members.push(j),
            _ => classes.push((h, vec![j], 0)),
        }
    }
    for c in &mut classes {
        c.2 = rng.next_u64();
    }
    let shared: &Arena = arena;
    let run = |(h, members, seed): &(Size, Vec<u32>, u64)| {
        // k = ⌊H/h⌋ jobs per box; invariants keep k >= 1, the guard keeps boxes valid.
        let per_box = (box_size.get() / h.get()).max(1) as usize;
        let size = box_size.max(*h);
        let mut out = NewBoxes::default();
        box_one_class(
            shared,
            members.clone(),
            per_box,
            size,
            epsilon,
            *seed,
            gap_points,
            &mut out,
        );
        out
    };
    let results: Vec<NewBoxes> = if threads <= 1 || classes.len() < 2 {
        classes.iter().map(run).collect()
    } else {
        let t = threads.min(classes.len());
        let mut slots: Vec<Option<NewBoxes>> = (0..classes.len()).map(|_| None).collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..t)
                .map(|w| {
                    let classes = &classes;
                    let run = &run;
                    s.spawn(move || {
                        (w..classes.len())
                            .step_by(t)
                            .map(|c| (c, run(&classes[c])))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for h in handles {
                for (c, r) in h.join().expect("boxing does not panic") {
                    slots[c] = Some(r);
                }
            }
        });
        slots
            .into_iter()
            .map(|s| s.expect("every class boxed"))
            .collect()
    };
    let mut ids = Vec::new();
    for r in results {
        ids.extend(arena.absorb(r));
    }
    ids
}

/// Theorem 2, simplified as in idealloc §5.8: boxes jobs of one size class, `per_box`
/// jobs to a box of `box_size` bytes.
///
/// A sub-problem is a set of jobs inside a bounding interval, with sorted *critical
/// times* inside it. Each job live at some critical time joins the `R` of the first such
/// time met by bisecting the list (the proof's recursive `R_⌈q/2⌉` split); every other job
/// lies between two consecutive critical times and goes to that slot's sub-problem.
/// Each `R` is boxed by Lemma 1; all of Lemma 1's unresolved jobs are packed together by
/// interval graph colouring and the rows boxed `per_box` at a time. With `gap_points`,
/// the ends of the free gaps in those rows become the critical times of the slots'
/// sub-problems (the free spaces of the proof, whose boxes idealloc drops but whose
/// endpoints it keeps). A sub-problem with no critical time at which one of its jobs is
/// live gets one injected: the start of a random job (§3.3). A work stack replaces the
/// recursion.
#[allow(clippy::too_many_arguments)]
fn box_one_class(
    arena: &Arena,
    members: Vec<u32>,
    per_box: usize,
    box_size: Size,
    epsilon: f64,
    seed: u64,
    gap_points: bool,
    out: &mut NewBoxes,
) {
    struct Sub {
        jobs: Vec<u32>,
        lo: Time,
        hi: Time,
        points: Vec<Time>,
        seed: u64,
    }
    let (lo, hi) = members
        .iter()
        .fold((Time(u64::MAX), Time(0)), |(l, h), &j| {
            (l.min(arena.job(j).start), h.max(arena.job(j).end))
        });
    let mut stack = vec![Sub {
        jobs: members,
        lo,
        hi,
        points: Vec::new(),
        seed,
    }];
    while let Some(sub) = stack.pop() {
        if sub.jobs.is_empty() {
            continue;
        }
        let mut rng = Rng::new(sub.seed);
        let mut points = sub.points;
        let contains = |points: &[Time], j: u32| {
            let job = arena.job(j);
            let k = points.partition_point(|&p| p < job.start);
            k < points.len() && points[k] < job.end
        };
        if !sub.jobs.iter().any(|&j| contains(&points, j)) {
            let t = arena
                .job(sub.jobs[rng.range(0, sub.jobs.len() as u64 - 1) as usize])
                .start;
            let k = points.partition_point(|&p| p < t);
            points.insert(k, t);
        }
        // Split: R per critical time, and the slots between critical times.
        let q = points.len();
        let mut r: Vec<Vec<u32>> = vec![Vec::new(); q];
        let mut slots: Vec<Vec<u32>> = vec![Vec::new(); q + 1];
        for &j in &sub.jobs {
            let job = arena.job(j);
            let (mut a, mut b) = (0usize, q);
            let mut hit = None;
            while a < b {
                let mid = (a + b) / 2;
                let t = points[mid];
                if job.start <= t && t < job.end {
                    hit = Some(mid);
                    break;
                } else if job.end <= t {
                    b = mid;
                } else {
                    a = mid + 1;
                }
            }
            match hit {
                Some(m) => r[m].push(j),
                None => slots[points.partition_point(|&p| p < job.start)].push(j),
            }
        }
        drop(sub.jobs);
        let mut unresolved = Vec::new();
        for live in &r {
            if !live.is_empty() {
                unresolved.extend(split_into_strips(
                    arena, live, per_box, box_size, epsilon, out,
                ));
            }
        }
        let gaps = box_rows(arena, &unresolved, per_box, box_size, (sub.lo, sub.hi), out);
        // Sub-problems, pushed in reverse so that they are boxed left to right.
        let seeds: Vec<u64> = (0..=q).map(|_| rng.next_u64()).collect();
        for (i, jobs) in slots.into_iter().enumerate().rev() {
            if jobs.is_empty() {
                continue;
            }
            let lo = if i == 0 { sub.lo } else { points[i - 1] };
            let hi = if i == q { sub.hi } else { points[i] };
            let inner = if gap_points {
                let a = gaps.partition_point(|&p| p <= lo);
                let b = gaps.partition_point(|&p| p < hi);
                gaps[a..b].to_vec()
            } else {
                Vec::new()
            };
            stack.push(Sub {
                jobs,
                lo,
                hi,
                points: inner,
                seed: seeds[i],
            });
        }
    }
}

/// Packs `jobs` by interval graph colouring and boxes the rows `per_box` at a time; a
/// box's contents are then at most `per_box` deep at any time. Returns the sorted,
/// distinct ends of the free gaps of the rows inside `bounds`.
fn box_rows(
    arena: &Arena,
    jobs: &[u32],
    per_box: usize,
    box_size: Size,
    (start, end): (Time, Time),
    out: &mut NewBoxes,
) -> Vec<Time> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let (rows, count) = colour_intervals(arena, jobs);
    let mut by_row: Vec<Vec<u32>> = vec![Vec::new(); count as usize];
    for (k, &j) in jobs.iter().enumerate() {
        by_row[rows[k] as usize].push(j);
    }
    let mut gaps = Vec::new();
    for row in &mut by_row {
        crate::sort::by_key(row, |&j| arena.job(j).start);
        let mut free_from = start;
        for &j in row.iter() {
            let job = arena.job(j);
            if job.start > free_from {
                gaps.push(free_from);
                gaps.push(job.start);
            }
            free_from = job.end;
        }
        if free_from < end {
            gaps.push(free_from);
        }
    }
    for group in by_row.chunks(per_box) {
        out.push_box(arena, box_size, group.iter().flatten().copied());
    }
    gaps.sort_unstable();
    gaps.dedup();
    gaps
}

/// Lemma 1 (idealloc appendix A): `live` jobs, all live at one time, are cut into
/// alternating *vertical* strips (earliest starts) and *horizontal* strips (latest ends).
/// The first two strips, of `per_box·⌈1/ε²⌉` jobs each, are returned unresolved; each
/// later strip of `per_box·⌈1/ε⌉` jobs is boxed `per_box` at a time: vertical strips by
/// decreasing end, horizontal strips by increasing start.
fn split_into_strips(
    arena: &Arena,
    live: &[u32],
    per_box: usize,
    box_size: Size,
    epsilon: f64,
    out: &mut NewBoxes,
) -> Vec<u32> {
    let n = live.len();
    let first_strip = per_box.saturating_mul((1.0 / (epsilon * epsilon)).ceil() as usize);
    if n <= first_strip.saturating_mul(2) {
        return live.to_vec();
    }
    let strip = per_box
        .saturating_mul((1.0 / epsilon).ceil() as usize)
        .max(1);
    let mut by_start: Vec<u32> = live.to_vec();
    crate::sort::by_key(&mut by_start, |&j| arena.job(j).start);
    let mut by_end: Vec<u32> = live.to_vec();
    crate::sort::by_key(&mut by_end, |&j| std::cmp::Reverse(arena.job(j).end));
    // Positions are per job id; a small sorted map keeps memory proportional to `live`.
    let mut taken_ids: Vec<u32> = live.to_vec();
    taken_ids.sort_unstable();
    let mut taken = vec![false; n];
    let slot = |j: u32| taken_ids.binary_search(&j).expect("live job");
    let (mut ps, mut pe, mut left) = (0usize, 0usize, n);
    let mut take = |from_start: bool, want: usize, taken: &mut Vec<bool>| -> Vec<u32> {
        let mut got = Vec::with_capacity(want.min(left));
        while got.len() < want && left > 0 {
            let j = if from_start {
                ps += 1;
                by_start[ps - 1]
            } else {
                pe += 1;
                by_end[pe - 1]
            };
            let s = slot(j);
            if !taken[s] {
                taken[s] = true;
                left -= 1;
                got.push(j);
            }
        }
        got
    };
    let mut unresolved = take(true, first_strip, &mut taken);
    unresolved.extend(take(false, first_strip, &mut taken));
    loop {
        let mut vertical = take(true, strip, &mut taken);
        if vertical.is_empty() {
            break;
        }
        crate::sort::by_key(&mut vertical, |&j| std::cmp::Reverse(arena.job(j).end));
        for group in vertical.chunks(per_box) {
            out.push_box(arena, box_size, group.iter().copied());
        }
        let mut horizontal = take(false, strip, &mut taken);
        if horizontal.is_empty() {
            break;
        }
        crate::sort::by_key(&mut horizontal, |&j| arena.job(j).start);
        for group in horizontal.chunks(per_box) {
            out.push_box(arena, box_size, group.iter().copied());
        }
    }
    unresolved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boxing::jobs::Job;

    #[test]
    fn rounding_never_rounds_down_and_groups() {
        for eps in [0.01, 0.1, 0.3, PHI] {
            let mut last = 0;
            for s in 1..5000u64 {
                let r = round_up(Size(s), eps).get();
                assert!(r >= s);
                assert!(r >= last, "monotone");
                last = r;
            }
        }
        assert!(round_up(Size(1000), 0.5) < Size(1000 * 3 / 2 + 1));
    }

    /// Boxes never hold more than `per_box` jobs live at one time.
    #[test]
    fn boxes_respect_their_depth() {
        let mut rng = Rng::new(5);
        for round in 0..30 {
            let n = 1 + rng.range(0, 400) as usize;
            let jobs: Vec<Job> = (0..n)
                .map(|i| {
                    let s = rng.range(0, 200);
                    Job {
                        size: Size(1),
                        start: Time(s),
                        end: Time(s + 1 + rng.range(0, 60)),
                        first: i as u32,
                        count: 0,
                    }
                })
                .collect();
            let arena = Arena {
                jobs,
                children: Vec::new(),
            };
            let per_box = 1 + rng.range(0, 5) as usize;
            let mut out = NewBoxes::default();
            let eps = [0.2, 0.5, PHI][round % 3];
            box_one_class(
                &arena,
                (0..n as u32).collect(),
                per_box,
                Size(per_box as u64),
                eps,
                round as u64,
                round % 2 == 0,
                &mut out,
            );
            let mut seen = vec![0; n];
            for b in &out.jobs {
                let members = &out.children[b.first as usize..(b.first + b.count) as usize];
                for &m in members {
                    seen[m as usize] += 1;
                }
                for t in b.start.get()..b.end.get() {
                    let live = |j: &Job| j.start <= Time(t) && Time(t) < j.end;
                    let depth = members.iter().filter(|&&m| live(arena.job(m))).count();
                    assert!(depth <= per_box, "round {round}: depth {depth} > {per_box}");
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "every job boxed once");
        }
    }
}
