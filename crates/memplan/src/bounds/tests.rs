//! Every bound against a brute-force optimum on small random instances: never above it,
//! and above the max load where the instance is built so that it must be.
//!
//! The reference tries every order of the free buffers and stacks each on the highest
//! top of the buffers before it that it is live with (aligned, stepping over fixed
//! buffers): the compaction argument of `exact/search.rs` says some order gives an
//! optimal plan. It shares no code with the search or the bounds.

use super::relax::{components, granularity, windows};
use super::*;
use crate::analysis::{lifetime_boundaries, max_load};
use crate::rng::Rng;
use crate::types::{Buffer, Offset};
use crate::{check_offsets, Problem};

/// The least height of any plan, by brute force over orders (n ≤ 8 free buffers).
fn brute_force_optimum(p: &Problem) -> Size {
    fn go(
        p: &Problem,
        order: &mut Vec<usize>,
        left: &mut Vec<usize>,
        tops: &mut [Offset],
        h: Size,
        best: &mut Size,
    ) {
        if h >= *best {
            return;
        }
        if left.is_empty() {
            *best = h;
            return;
        }
        let bufs = p.buffers();
        for k in 0..left.len() {
            let b = left.swap_remove(k);
            let mut y = order
                .iter()
                .filter(|&&o| bufs[o].live_together(&bufs[b]))
                .map(|&o| tops[o])
                .max()
                .unwrap_or(Offset::ZERO);
            y = clear_of_fixed(p, b, y);
            tops[b] = y + bufs[b].size;
            order.push(b);
            go(p, order, left, tops, h.max(tops[b].as_height()), best);
            order.pop();
            left.push(b);
            let last = left.len() - 1;
            left.swap(k, last);
        }
    }
    let bufs = p.buffers();
    let mut tops: Vec<Offset> = bufs
        .iter()
        .map(|b| b.fixed_offset.map_or(Offset::ZERO, |o| o + b.size))
        .collect();
    let fixed_top = tops.iter().copied().max().unwrap_or(Offset::ZERO);
    let mut left: Vec<usize> = (0..bufs.len())
        .filter(|&i| bufs[i].fixed_offset.is_none())
        .collect();
    let mut best = Size(u64::MAX);
    go(
        p,
        &mut Vec::new(),
        &mut left,
        &mut tops,
        fixed_top.as_height(),
        &mut best,
    );
    best
}

/// The lowest aligned offset ≥ `y` where `b` clears every fixed buffer it is live with.
fn clear_of_fixed(p: &Problem, b: usize, mut y: Offset) -> Offset {
    let b = &p.buffers()[b];
    y = y.align_up(b.alignment);
    loop {
        let blocker = p.buffers().iter().find(|f| {
            f.fixed_offset
                .is_some_and(|o| f.live_together(b) && o < y + b.size && y < o + f.size)
        });
        match blocker {
            Some(f) => y = (f.fixed_offset.expect("fixed") + f.size).align_up(b.alignment),
            None => return y,
        }
    }
}

/// A random instance of `n` buffers over a short horizon; sizes times `unit`, with
/// alignment, gaps and fixed offsets mixed in when asked.
fn random_problem(rng: &mut Rng, n: usize, unit: u64, mixed: bool) -> Problem {
    let mut bufs: Vec<Buffer> = Vec::new();
    for i in 0..n {
        let start = rng.range(0, 5);
        let len = rng.range(1, 4);
        let mut b = Buffer::new(format!("b{i}"), start, start + len, unit * rng.range(1, 6));
        if mixed && rng.chance(20) {
            b = b.with_alignment(2 * unit);
        }
        if mixed && len >= 3 && rng.chance(20) {
            b = b.with_gap(start + 1, start + 2);
        }
        if mixed && rng.chance(25) {
            // Pinned, unless it would overlap a pinned buffer (the problem says so).
            let off = rng.range(0, 4) * b.alignment.0;
            bufs.push(b.clone().with_fixed_offset(off));
            if Problem::new(bufs.clone()).is_ok() {
                continue;
            }
            bufs.pop();
        }
        bufs.push(b);
    }
    Problem::new(bufs).expect("valid by construction")
}

/// `n` random buffers over `[0, h)`, then one filler per time step up to the max load:
/// the loads are flat, and each step's free room must be one contiguous hole.
fn flat_problem(rng: &mut Rng, n: usize, h: u64, l: u64, smax: u64) -> Problem {
    let mut bufs = Vec::new();
    for i in 0..n {
        let start = rng.range(0, h - 1);
        let len = rng.range(1, l).min(h - start);
        bufs.push(Buffer::new(
            format!("b{i}"),
            start,
            start + len,
            rng.range(1, smax),
        ));
    }
    let load = |t: u64, bufs: &[Buffer]| -> Size {
        bufs.iter()
            .filter(|b| b.lifetime.start <= Time(t) && Time(t) < b.lifetime.end)
            .map(|b| b.size)
            .sum()
    };
    let peak = (0..h).map(|t| load(t, &bufs)).max().unwrap_or(Size::ZERO);
    for t in 0..h {
        let lack = peak - load(t, &bufs);
        if lack > Size::ZERO {
            bufs.push(Buffer::new(format!("fill{t}"), t, t + 1, lack.0));
        }
    }
    Problem::new(bufs).expect("valid by construction")
}

fn unlimited_options() -> ProverOptions {
    ProverOptions {
        last_nodes: u64::MAX / 8,
        windows: vec![2, 4],
        ..ProverOptions::default()
    }
}

/// The bounds of every kind on many small instances: valid, and the full search reaches
/// the optimum (its plan checks and has that height).
fn against_brute_force(seed: u64, instances: usize, unit: u64, mixed: bool) -> usize {
    let mut rng = Rng::new(seed);
    let mut above = 0;
    for _ in 0..instances {
        let n = rng.range(2, 8) as usize;
        let p = random_problem(&mut rng, n, unit, mixed);
        let opt = brute_force_optimum(&p);
        let budget = Budget::unlimited();
        let cheap = ProverOptions {
            search: false,
            ..ProverOptions::default()
        };
        let c = lower_bound_with(&p, &budget, &cheap);
        assert!(c.bound <= opt, "cheap bound {:?} above {opt} on {p:?}", c);
        assert!(c.bound >= crate::analysis::lower_bound(&p));
        let full = lower_bound_with(&p, &budget, &unlimited_options());
        assert!(
            full.bound <= opt,
            "{:?} above {opt} on {p:?}",
            full.provenance
        );
        if let Some(plan) = &full.plan {
            let s = check_offsets(&p, plan, None).expect("the assembled plan is valid");
            assert_eq!(s.height, full.bound);
        }
        // Unlimited, the search is exact: the bound is the optimum, with a plan at it.
        assert_eq!(full.bound, opt, "{:?} on {p:?}", full.provenance);
        assert!(full.plan.is_some(), "the unlimited search ends with a plan");
        // Each window alone is a relaxation.
        for comp in components(&p) {
            for w in [1, 2, 3] {
                for win in windows(&comp, w) {
                    assert!(
                        brute_force_optimum(&win.problem) <= opt,
                        "window above {opt}"
                    );
                    assert_eq!(granularity(&win.problem).0 % granularity(&p).0, 0);
                }
            }
        }
        // Capacity mode agrees at the optimum and just under it.
        let at = settle_with(&p, opt, &budget, &unlimited_options());
        assert!(matches!(at, Settled::Fits(_)), "{at:?} at the optimum");
        if opt > Size::ZERO {
            let under = settle_with(&p, opt - Size(1), &budget, &unlimited_options());
            assert!(
                matches!(under, Settled::Infeasible(_)),
                "{under:?} under the optimum {opt} on {p:?}"
            );
        }
        if opt > max_load(&p).max(crate::analysis::fixed_top(&p)) {
            above += 1;
        }
    }
    above
}

#[test]
fn bounds_never_exceed_the_brute_force_optimum_and_the_search_reaches_it() {
    // Small random instances without fixed buffers almost always pack at the max load
    // (none of 10 million with ≤ 7 buffers over 4 steps, sizes 1-3, in a scratch run):
    // the instances above it come from `flat_problem` below.
    against_brute_force(1, 300, 1, false);
}

#[test]
fn bounds_hold_with_alignment_gaps_and_fixed_offsets() {
    let above = against_brute_force(2, 300, 1, true);
    assert!(above >= 5, "only {above} instances above the max load");
}

#[test]
fn granularity_steps_by_the_unit() {
    // Sizes in units of 64: the proof at a capacity raises the bound to the next unit.
    let above = against_brute_force(3, 150, 64, true);
    assert!(above >= 2, "only {above} instances above the max load");
}

#[test]
fn holes_bound_sees_a_buffer_too_large_for_the_hole() {
    // The picture of the module doc: F fixed at [hole, hole + 2), b of size 3, both live
    // at 0. With a hole of 2 below F, b goes above it; with a hole of 3 it fits below.
    let cheap = ProverOptions {
        search: false,
        ..ProverOptions::default()
    };
    for (hole, bound, why) in [
        (2, 7, Provenance::FixedHoles { time: Time(0) }),
        (3, 5, Provenance::MaxLoad),
    ] {
        let bufs = vec![
            Buffer::new("F", 0, 2, 2).with_fixed_offset(hole),
            Buffer::new("b", 0, 2, 3),
        ];
        let p = Problem::new(bufs).unwrap();
        assert_eq!(max_load(&p), Size(5));
        let b = lower_bound_with(&p, &Budget::unlimited(), &cheap);
        assert_eq!((b.bound, b.provenance), (Size(bound), why));
        assert_eq!(brute_force_optimum(&p), Size(bound));
    }
}

/// Found by [`flat_problem`] and checked by brute force: loads are flat (7 at every
/// step) and each step's filler must take one contiguous hole, which the three
/// buffers crossing several steps cannot leave at every step with one offset each.
fn contiguity_instance() -> Problem {
    let specs = [
        (1, 4, 3),
        (2, 5, 1),
        (2, 3, 2),
        (0, 3, 1),
        (0, 1, 6),
        (1, 2, 3),
        (3, 4, 3),
        (4, 5, 6),
    ];
    let bufs = specs
        .iter()
        .enumerate()
        .map(|(i, &(s, e, z))| Buffer::new(format!("b{i}"), s, e, z))
        .collect();
    Problem::new(bufs).unwrap()
}

#[test]
fn the_search_proves_a_bound_above_the_max_load() {
    let p = contiguity_instance();
    let opt = brute_force_optimum(&p);
    assert_eq!(max_load(&p), Size(7));
    assert!(opt > Size(7), "the brute force packs it at {opt}");
    let b = lower_bound_with(&p, &Budget::unlimited(), &unlimited_options());
    assert_eq!(b.bound, opt);
    assert!(matches!(b.provenance, Provenance::Search { .. }));
    assert!(prove_infeasible(&p, opt - Size(1), &Budget::unlimited()));
    assert!(!prove_infeasible(&p, opt, &Budget::unlimited()));
}

#[test]
fn flat_instances_above_the_max_load_are_proven_exactly() {
    // Random flat instances of at most 8 buffers: the prover's verdict at the max load
    // against brute force, both ways, and the exact bound wherever it is above.
    let mut rng = Rng::new(5);
    let (mut above, mut checked) = (0, 0);
    for k in 0..8000 {
        let p = flat_problem(&mut rng, 4, 5, 3, 6);
        if p.len() > 8 {
            continue;
        }
        let load = max_load(&p);
        let infeasible = prove_infeasible(&p, load, &Budget::unlimited());
        // Brute force on every proven case and on one in 20 of the others.
        if infeasible || k % 20 == 0 {
            checked += 1;
            let opt = brute_force_optimum(&p);
            assert_eq!(infeasible, opt > load, "{p:?}");
            let b = lower_bound_with(&p, &Budget::unlimited(), &unlimited_options());
            assert_eq!(b.bound, opt);
            above += usize::from(infeasible);
        }
    }
    assert!(above >= 2 && checked >= 100, "{above} above of {checked}");
}

#[test]
fn windows_alone_prove_what_the_search_proves() {
    // An instance above its max load, then a copy of it later in time, joined to it by
    // one long small buffer: one component, which a window around either copy bounds on
    // its own.
    let p = contiguity_instance();
    let opt = brute_force_optimum(&p);
    let end = p.buffers().iter().map(|b| b.lifetime.end).max().unwrap();
    let span = end - Time(0);
    let mut bufs = p.buffers().to_vec();
    for b in p.buffers() {
        let mut c = b.clone();
        c.id = format!("{}'", b.id);
        c.lifetime = crate::Lifetime {
            start: b.lifetime.start + span,
            end: b.lifetime.end + span,
        };
        c.gaps.clear();
        bufs.push(c);
    }
    bufs.push(Buffer::new("link", 0, 2 * span, 1));
    let q = Problem::new(bufs).unwrap();
    assert_eq!(components(&q).len(), 1);
    let only_windows = ProverOptions {
        search: false,
        windows: vec![lifetime_boundaries(&p).len() + 1],
        ..unlimited_options()
    };
    let b = lower_bound_with(&q, &Budget::unlimited(), &only_windows);
    // The link adds 1 everywhere; each copy alone needs `opt`.
    assert!(b.bound > opt, "{} ≤ {opt}", b.bound);
    assert!(matches!(b.provenance, Provenance::Window { .. }));
    assert_eq!(b.plan, None, "windows alone give no plan");
    let full = lower_bound_with(&q, &Budget::unlimited(), &unlimited_options());
    assert!(full.bound >= b.bound);
    let plan = full.plan.expect("a plan at the bound");
    assert_eq!(check_offsets(&q, &plan, None).unwrap().height, full.bound);
}

#[test]
fn a_spent_budget_still_gives_a_valid_bound() {
    let p = contiguity_instance();
    let budget = Budget::unlimited();
    budget.cancel();
    let (b, prov) = lower_bound(&p, &budget);
    assert_eq!(b, max_load(&p));
    assert_eq!(prov, Provenance::MaxLoad);
    assert!(!prove_infeasible(&p, max_load(&p), &budget));
    assert!(prove_infeasible(&p, max_load(&p) - Size(1), &budget));
}

#[test]
fn no_buffers_has_bound_zero_and_fits_anywhere() {
    let p = Problem::new(Vec::new()).unwrap();
    let b = lower_bound_with(&p, &Budget::unlimited(), &ProverOptions::default());
    assert_eq!(b.bound, Size::ZERO);
    assert_eq!(b.plan, Some(Vec::new()));
    assert_eq!(
        settle(&p, Size(0), &Budget::unlimited()),
        Settled::Fits(Vec::new())
    );
}

#[test]
fn the_report_carries_the_holes_bound_as_its_one_bound() {
    // The picture of the module doc: max load 5, optimum 7. The greedy planners alone
    // (no exact search to prove it) find 7; the holes bound proves it.
    let bufs = vec![
        Buffer::new("F", 0, 2, 2).with_fixed_offset(2),
        Buffer::new("b", 0, 2, 3),
    ];
    let p = Problem::new(bufs).unwrap();
    let request = crate::Request::minimise().with_budget(Budget::unlimited());
    let mut options = crate::Options {
        planner: crate::Planner::GreedyPortfolio,
        ..crate::Options::default()
    };
    let r = crate::plan(&p, &request, &options).unwrap();
    assert_eq!((r.max_load, r.lower_bound), (Size(5), Size(7)));
    assert!(matches!(r.outcome, crate::Outcome::Optimal(_)), "{r:?}");
    assert_eq!(r.fragmentation(), Some(Size(0)));
    options.bounds.holes = false;
    let r = crate::plan(&p, &request, &options).unwrap();
    assert_eq!(r.lower_bound, Size(5));
    assert!(matches!(
        r.outcome,
        crate::Outcome::Feasible {
            lower_bound: Size(5),
            ..
        }
    ));
    assert_eq!(r.fragmentation(), Some(Size(2)));
    // Fitting under 6: the holes bound proves that nothing fits.
    let fit = crate::Request::fit(Size(6)).with_budget(Budget::unlimited());
    options.bounds.holes = true;
    let r = crate::plan(&p, &fit, &options).unwrap();
    assert_eq!(r.outcome, crate::Outcome::Infeasible);
    assert_eq!(r.lower_bound, Size(7));
}

#[test]
fn cheap_bounds_round_up_to_the_granularity() {
    // Sizes and alignments in units of 64: a proof that 7 × 64 is infeasible (a bound of 7 × 64 + 1)
    // is a bound of 8 × 64; without the rounding it stays.
    let p = contiguity_instance();
    let bufs: Vec<Buffer> = p
        .buffers()
        .iter()
        .map(|b| {
            let mut c = b.clone();
            c.size = b.size * 64;
            c.alignment = Size(64);
            c
        })
        .collect();
    let q = Problem::new(bufs).unwrap();
    let on = BoundOptions::default();
    let off = BoundOptions {
        granularity: false,
        ..BoundOptions::default()
    };
    let proven = Size(7 * 64 + 1);
    let budget = Budget::unlimited();
    assert_eq!(raise_cheaply(&q, proven, &on, &budget), Size(8 * 64));
    assert_eq!(raise_cheaply(&q, proven, &off, &budget), proven);
    assert_eq!(raise_cheaply(&q, Size(7 * 64), &on, &budget), Size(7 * 64));
    assert!(brute_force_optimum(&q) >= Size(8 * 64));
}

#[test]
fn the_prover_inside_plan_reaches_the_optimum_alone() {
    // The greedy planners and the prover, no exact search after it: the prover proves
    // the optimum and hands over a plan at it.
    let p = contiguity_instance();
    let opt = brute_force_optimum(&p);
    let request = crate::Request::minimise().with_budget(Budget::unlimited());
    let mut options = crate::Options {
        planner: crate::Planner::GreedyPortfolio,
        ..crate::Options::default()
    };
    options.bounds.prover = true;
    let r = crate::plan(&p, &request, &options).unwrap();
    assert_eq!(r.lower_bound, opt);
    let crate::Outcome::Optimal(plan) = &r.outcome else {
        panic!("{r:?}")
    };
    assert_eq!(plan.height(), opt);
    // Fitting under opt − 1: proven infeasible by the prover alone.
    let fit = crate::Request::fit(opt - Size(1)).with_budget(Budget::unlimited());
    let r = crate::plan(&p, &fit, &options).unwrap();
    assert_eq!(r.outcome, crate::Outcome::Infeasible);
}
