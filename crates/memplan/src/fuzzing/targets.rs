//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs`), as plain functions so that
//! the smoke test (`tests/fuzz_smoke.rs`) runs the very same code under `cargo test`.
//!
//! Each takes the fuzzer's bytes and panics only when a property fails: a parser that
//! panics instead of returning an error, a plan the independent checker rejects, an
//! outcome that contradicts itself, a bound above a height. Errors on bad input are fine.
//! Budgets are node and step limits (deterministic) except in [`plan_auto`], which also
//! gives a small time limit, as a compiler would.

use arbitrary::Unstructured;

use super::{arbitrary_problem, FuzzKnobs};
use crate::analysis::max_load;
use crate::checker::check_offsets;
use crate::io::csv::{read_placements_csv, read_problem_csv, write_plan_csv, write_problem_csv};
use crate::io::{LifetimeConvention, ReadOptions};
use crate::shared_objects::{
    check_shared_objects, plan_shared_objects, SharedOptions, SharedStrategy,
};
use crate::tiles::{
    check_tiles, plan_tiles, read_tiled_json, write_tiled_json, Tile, TileOptions, TileOrder,
    TiledProblem, TiledTensor,
};
use crate::types::{Lifetime, Offset, Plan, Problem, Size};
use crate::{
    plan, BoxingOptions, Budget, Goal, Options, Outcome, PlanToBeat, Planner, Report, Request,
};

/// The problem for a planner target: knobs drawn from the bytes, at most `max_buffers`.
type Case<'a> = (Problem, Option<Size>, Unstructured<'a>);

fn problem_from(data: &[u8], max_buffers: usize) -> Option<Case<'_>> {
    let mut u = Unstructured::new(data);
    let knobs = FuzzKnobs::arbitrary_within(&mut u, max_buffers).ok()?;
    let (p, capacity) = arbitrary_problem(&mut u, &knobs).ok()?;
    Some((p, capacity, u))
}

/// The request of a fuzz run: the capacity as its goal, no clock (work limits only).
fn request(capacity: Option<Size>) -> Request {
    Request {
        goal: Goal::from_capacity(capacity),
        budget: Budget::unlimited(),
    }
}

/// [`request`], with each search held to `nodes` nodes.
fn within(capacity: Option<Size>, nodes: u64) -> Request {
    Request {
        goal: Goal::from_capacity(capacity),
        budget: Budget::unlimited().with_node_limit(nodes),
    }
}

/// Everything a report promises, checked against the problem with the independent
/// checker, under the request's capacity `cap`. Returns the height of the plan in the
/// outcome, if any.
pub fn assert_report_consistent(
    problem: &Problem,
    cap: Option<Size>,
    report: &Report,
) -> Option<u64> {
    let load = max_load(problem);
    assert_eq!(report.max_load, load, "the report's max load");
    match &report.outcome {
        Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => {
            let s = crate::check(problem, p, cap)
                .unwrap_or_else(|f| panic!("{}: checker rejects the plan: {f}", report.planner));
            assert_eq!(s.height, p.height());
            assert!(p.height() >= load, "height below the max load");
            assert!(cap.is_none_or(|c| p.height() <= c), "plan above capacity");
            if let Outcome::Feasible { lower_bound, .. } = &report.outcome {
                assert!(*lower_bound >= load && *lower_bound < p.height());
                assert_eq!(*lower_bound, report.lower_bound, "one bound");
            } else {
                assert_eq!(report.lower_bound, p.height(), "Optimal at the bound");
            }
            Some(p.height().0)
        }
        Outcome::Infeasible => {
            let c = cap.expect("Infeasible without a capacity");
            assert!(
                report.lower_bound > c,
                "Infeasible with a bound under the capacity"
            );
            None
        }
        Outcome::Unknown {
            best_so_far,
            lower_bound,
        } => {
            let c = cap.expect("Unknown only with a capacity");
            assert!(*lower_bound >= load && *lower_bound <= c);
            assert_eq!(*lower_bound, report.lower_bound, "one bound");
            if let Some(b) = best_so_far {
                check_offsets(problem, b.offsets(), None)
                    .unwrap_or_else(|f| panic!("{}: best-so-far rejected: {f}", report.planner));
                assert!(b.height() > c, "a plan under capacity reported as Unknown");
            }
            None
        }
    }
}

fn run(problem: &Problem, request: &Request, options: &Options) -> Report {
    let report = plan(problem, request, options)
        .unwrap_or_else(|e| panic!("{}: {e} on {problem:?}", options.planner));
    assert_report_consistent(problem, request.capacity(), &report);
    report
}

/// The lowest greedy height (every order and fit), for soundness checks of proofs.
fn best_greedy(problem: &Problem) -> u64 {
    crate::greedy::portfolio()
        .into_iter()
        .filter_map(|(o, f)| {
            crate::greedy::run(problem, o, f, 1, &crate::budget::Budget::unlimited())
        })
        .map(|offs| {
            Plan::new(problem, offs)
                .expect("greedy plans fit in u64")
                .height()
                .0
        })
        .min()
        .unwrap_or(0)
}

/// A proof of infeasibility must not contradict a plan greedy found under the capacity.
fn assert_infeasible_is_sound(problem: &Problem, cap: Option<Size>, report: &Report) {
    if matches!(report.outcome, Outcome::Infeasible) {
        let c = cap.expect("checked").0;
        let g = best_greedy(problem);
        assert!(
            g > c,
            "{} proved infeasible but greedy fits at {g} <= {c}",
            report.planner
        );
    }
}

/// CSV parsing: never panics; a problem it reads survives a write/read round trip; the
/// placements reader and the plan writer never panic.
pub fn parse_csv(data: &[u8]) {
    let conventions = [
        None,
        Some(LifetimeConvention::HalfOpen),
        Some(LifetimeConvention::Inclusive),
    ];
    for lifetimes in conventions {
        let options = ReadOptions {
            lifetimes,
            ..ReadOptions::default()
        };
        if let Ok(p) = read_problem_csv(data, &options) {
            let mut text = Vec::new();
            write_problem_csv(&p, &mut text).expect("writing to memory");
            let back = read_problem_csv(&text, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("re-reading our own CSV: {e}"));
            assert_eq!(back.buffers(), p.buffers(), "CSV round trip");
            if lifetimes.is_none() {
                let offsets = crate::greedy::naive(&p);
                let plan = Plan::new(&p, offsets).expect("naive fits");
                let _ = write_plan_csv(data, &plan, std::io::sink());
            }
        }
    }
    let _ = read_placements_csv(data);
}

/// JSON parsing (problems, placements, tiled problems): never panics; what it reads
/// survives a round trip.
pub fn parse_json(data: &[u8]) {
    let _ = crate::io::json::looks_like_json(data);
    if let Ok((p, cap)) = crate::io::json::read_problem_json(data, &ReadOptions::default()) {
        let mut text = Vec::new();
        crate::io::json::write_problem_json(&p, cap, &mut text).expect("writing to memory");
        let back = crate::io::json::read_problem_json(&text, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("re-reading our own JSON: {e}"));
        assert_eq!(back, (p, cap), "JSON round trip");
    }
    let _ = crate::io::json::read_placements_json(data);
    if let Ok(t) = read_tiled_json(data) {
        let mut text = Vec::new();
        write_tiled_json(&t, &mut text).expect("writing to memory");
        let back = read_tiled_json(&text).expect("re-reading our own tiled JSON");
        assert_eq!(back, t, "tiled JSON round trip");
    }
}

/// Every greedy planner and the naive one, each followed by the checker.
pub fn plan_greedy(data: &[u8]) {
    let Some((p, cap, _)) = problem_from(data, 64) else {
        return;
    };
    let mut planners: Vec<Planner> = crate::greedy::portfolio()
        .into_iter()
        .map(|(o, f)| Planner::Greedy(o, f))
        .collect();
    planners.push(Planner::Naive);
    for planner in planners {
        let options = Options {
            planner,
            threads: 1,
            verify: false, // the checker runs below, on every plan
            ..Options::default()
        };
        run(&p, &request(cap), &options);
    }
    // Every kernel of every greedy planner gives the same offsets, and they pass the
    // checker (the capacity aside: greedy ignores it).
    for (order, fit) in crate::greedy::portfolio() {
        let sequence = order.sequence(&p);
        let plans = crate::greedy::offsets_by_each_kernel(&p, &sequence, fit);
        let (first, offsets) = &plans[0];
        if let Err(e) = check_offsets(&p, offsets, None) {
            panic!("{}-{} by the {first} kernel: {e}", order.name(), fit.name());
        }
        for (name, other) in &plans[1..] {
            assert_eq!(
                other,
                offsets,
                "{}-{}: the {name} and {first} kernels disagree",
                order.name(),
                fit.name()
            );
        }
    }
}

/// The exact search under a node limit: consistent outcomes, sound proofs, never
/// worse than greedy.
pub fn plan_exact(data: &[u8]) {
    let Some((p, cap, mut u)) = problem_from(data, 14) else {
        return;
    };
    let mut options = Options {
        planner: Planner::Exact,
        threads: 1,
        verify: false,
        ..Options::default()
    };
    let nodes = u.int_in_range(1..=3000).unwrap_or(1000);
    options.exact.canonical = u.arbitrary().unwrap_or(true);
    options.exact.dominance = u.arbitrary().unwrap_or(true);
    options.exact.decomposition = u.arbitrary().unwrap_or(true);
    options.exact.tighten = u.arbitrary().unwrap_or(true);
    options.bounds.holes = u.arbitrary().unwrap_or(true);
    options.bounds.granularity = u.arbitrary().unwrap_or(true);
    let report = run(&p, &within(cap, nodes), &options);
    assert_infeasible_is_sound(&p, cap, &report);
    if let (None, Some(plan)) = (cap, report.outcome.plan()) {
        assert!(plan.height().0 <= best_greedy(&p), "exact above greedy");
    }
}

/// Boxing with a few iterations and a seed from the bytes.
pub fn plan_boxing(data: &[u8]) {
    let Some((p, cap, mut u)) = problem_from(data, 48) else {
        return;
    };
    let options = Options {
        planner: Planner::Boxing,
        threads: 1,
        verify: false,
        boxing: BoxingOptions {
            iterations: u.int_in_range(1..=4).unwrap_or(1),
            seed: u.arbitrary().unwrap_or(0),
            calibrate_epsilon: u.arbitrary().unwrap_or(true),
            inherit_critical_times: u.arbitrary().unwrap_or(true),
            plan_to_beat: [
                PlanToBeat::Greedy,
                PlanToBeat::SizeThenLifetime,
                PlanToBeat::None,
            ][u.int_in_range(0..=2).unwrap_or(0)],
            ..BoxingOptions::default()
        },
        ..Options::default()
    };
    run(&p, &request(cap), &options);
}

/// TelaMalloc under a step limit, with its techniques switched from the bytes.
pub fn plan_telamalloc(data: &[u8]) {
    let Some((p, cap, mut u)) = problem_from(data, 24) else {
        return;
    };
    let mut options = Options {
        planner: Planner::Telamalloc,
        threads: 1,
        verify: false,
        ..Options::default()
    };
    let t = &mut options.telamalloc;
    let steps = u.int_in_range(1..=2000).unwrap_or(500);
    t.heuristics = u.arbitrary().unwrap_or(true);
    t.lowest_position = u.arbitrary().unwrap_or(true);
    t.phases = u.arbitrary().unwrap_or(true);
    t.backjump = u.arbitrary().unwrap_or(true);
    t.row_order = u.arbitrary().unwrap_or(false);
    t.greedy_first = u.arbitrary().unwrap_or(false);
    t.dynamic_decomposition = u.arbitrary().unwrap_or(true);
    t.independent_parts = u.arbitrary().unwrap_or(true);
    t.per_heuristic = u.int_in_range(0..=2).unwrap_or(1);
    let report = run(&p, &within(cap, steps), &options);
    assert_infeasible_is_sound(&p, cap, &report);
    // The restart cycle on two threads commits in attempt order: the same answer.
    if u.arbitrary().unwrap_or(false) {
        options.threads = 2;
        let two = run(&p, &within(cap, steps), &options);
        assert_eq!(report.outcome, two.outcome, "one thread against two");
    }
}

/// The default portfolio with small limits, and its thread-count independence when no
/// clock is involved.
pub fn plan_auto(data: &[u8]) {
    let Some((p, cap, mut u)) = problem_from(data, 32) else {
        return;
    };
    let mut options = Options {
        threads: 1,
        ..Options::default()
    };
    let nodes = u.int_in_range(1..=2000).unwrap_or(500);
    let one = run(&p, &within(cap, nodes), &options);
    assert_infeasible_is_sound(&p, cap, &one);
    options.threads = 2;
    let two = run(&p, &within(cap, nodes), &options);
    assert_eq!(
        one.outcome, two.outcome,
        "the plan depends on the thread count"
    );
    // Under a work limit (a few units, or the default), the plan is checked and does
    // not depend on the thread count either, and the work stays within the limit but
    // for the first plan's greedy pass and the cheap bounds.
    let units = u.int_in_range(0..=64).unwrap_or(3);
    for work in [units, Budget::DEFAULT_WORK_LIMIT] {
        let limited = Request {
            goal: Goal::from_capacity(cap),
            budget: Budget::new().with_work_limit(work),
        };
        options.threads = 1;
        let one = run(&p, &limited, &options);
        options.threads = 2;
        let two = run(&p, &limited, &options);
        assert_eq!(
            one.outcome, two.outcome,
            "work {work}: the plan depends on the threads"
        );
        assert_eq!(
            one.work, two.work,
            "work {work}: the work depends on the threads"
        );
        // Past the limit: the first plan's greedy pass (a quarter of a unit a buffer) and
        // the cheap bounds' sweep, each at least a unit.
        let slack = 2 + p.len() as u64 / 2;
        assert!(one.work <= work + slack, "work {work}: spent {}", one.work);
        assert_ne!(one.stopped_by, Some(crate::budget::Stop::Clock));
    }
    // Under a clock, the result only has to be consistent.
    let clocked = Request {
        goal: Goal::from_capacity(cap),
        budget: Budget::new().with_time_limit(std::time::Duration::from_millis(5)),
    };
    run(&p, &clocked, &options);
}

/// Shared objects: every strategy is accepted by its checker, and no total is below
/// the sum of the positional maxima or above the naive total.
pub fn shared_objects(data: &[u8]) {
    let Some((p, _, _)) = problem_from(data, 48) else {
        return;
    };
    let bound: u64 = crate::shared_objects::bound::positional_maxima(&p)
        .iter()
        .map(|s| s.0)
        .sum();
    let naive: u64 = p.buffers().iter().map(|b| b.size.0).sum();
    let strategies = SharedStrategy::ALL.into_iter().map(Some).chain([None]);
    for strategy in strategies {
        for nearest_first in [true, false] {
            let options = SharedOptions {
                strategy,
                nearest_first,
                verify: false,
            };
            let r =
                plan_shared_objects(&p, &request(None), &options).expect("never fails unverified");
            let a = r.outcome.plan().expect("minimising: always an assignment");
            let s = check_shared_objects(&p, a).unwrap_or_else(|f| panic!("{strategy:?}: {f}"));
            assert_eq!(s.height, a.total());
            assert_eq!(
                matches!(r.outcome, Outcome::Optimal(_)),
                s.height.0 == bound
            );
            assert_eq!(r.lower_bound.0, bound);
            assert!(bound <= s.height.0, "total below the lower bound");
            assert!(s.height.0 <= naive, "total above one object per buffer");
        }
    }
}

fn arbitrary_tensor(u: &mut Unstructured<'_>, index: usize) -> arbitrary::Result<TiledTensor> {
    let rank = u.int_in_range(1..=3usize)?;
    let shape: Vec<u64> = (0..rank)
        .map(|_| u.int_in_range(1..=9u64))
        .collect::<arbitrary::Result<_>>()?;
    // Strides outer-to-inner, each covering the axes inside it plus some padding;
    // sometimes not (the validator must then refuse).
    let mut strides = vec![0u64; rank];
    let mut inner = u.int_in_range(1..=3u64)?;
    for a in (0..rank).rev() {
        strides[a] = inner;
        inner = inner * shape[a] + u.int_in_range(0..=3u64)?;
    }
    if u.int_in_range(0..=19u8)? == 0 {
        strides.reverse();
    }
    let start = u.int_in_range(0..=20u64)?;
    let lifetime = if u.arbitrary()? {
        Lifetime::new(start, start + u.int_in_range(1..=8u64)?)
    } else {
        Lifetime::new(0, 0) // only the tiles are live
    };
    let mut tiles = Vec::new();
    for _ in 0..u.int_in_range(0..=4usize)? {
        let mut offset = Vec::with_capacity(rank);
        let mut sizes = Vec::with_capacity(rank);
        for &n in &shape {
            let o = u.int_in_range(0..=n - 1)?;
            offset.push(o);
            sizes.push(u.int_in_range(1..=n - o)?);
        }
        let s = u.int_in_range(0..=20u64)?;
        tiles.push(Tile {
            offset,
            sizes,
            lifetime: Lifetime::new(s, s + u.int_in_range(1..=6u64)?),
        });
    }
    Ok(TiledTensor {
        id: format!("t{index}"),
        shape,
        strides,
        element_size: u.int_in_range(1..=8u64)?,
        lifetime,
        tiles,
    })
}

/// Tiles: random strided tensors with tiles; every order and switch gives a plan its
/// checker accepts, and the fallback never makes the peak higher.
pub fn tiles(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(n) = u.int_in_range(0..=8usize) else {
        return;
    };
    let Ok(tensors) = (0..n)
        .map(|i| arbitrary_tensor(&mut u, i))
        .collect::<arbitrary::Result<Vec<_>>>()
    else {
        return;
    };
    let Ok(problem) = TiledProblem::new(tensors) else {
        return;
    };
    let _ = problem.whole_tensors();
    let orders = TileOrder::ALL.into_iter().map(Some).chain([None]);
    for order in orders {
        for jump in [true, false] {
            let mut peaks = Vec::new();
            for fallback in [false, true] {
                let options = TileOptions {
                    order,
                    jump_past_all_collisions: jump,
                    whole_tensor_fallback: fallback,
                    verify: false,
                };
                let r = plan_tiles(&problem, &request(None), &options).expect("plans");
                let plan = r.outcome.plan().expect("minimising: always a plan");
                let s = check_tiles(&problem, &plan.offsets)
                    .unwrap_or_else(|f| panic!("{order:?} jump {jump} fallback {fallback}: {f}"));
                assert_eq!(s.height, plan.peak, "reported peak");
                // The bound holds for this plan, as for any (each order's is one).
                assert!(r.lower_bound <= plan.peak, "the tile bound is above a plan");
                assert_eq!(
                    matches!(r.outcome, Outcome::Optimal(_)),
                    plan.peak == r.lower_bound
                );
                peaks.push(plan.peak);
            }
            assert!(peaks[1] <= peaks[0], "the fallback raised the peak");
        }
    }
}

/// The checker against an O(n²) reference written from the rules alone, on offsets
/// that are sometimes a valid plan, sometimes a perturbed one, sometimes random.
pub fn checker(data: &[u8]) {
    let Some((p, cap, mut u)) = problem_from(data, 24) else {
        return;
    };
    let base = crate::greedy::run(
        &p,
        crate::greedy::Order::ALL[0],
        crate::Fit::BestFit,
        1,
        &crate::budget::Budget::unlimited(),
    )
    .expect("not aborted");
    let mut offsets = base.clone();
    let mode = u.int_in_range(0..=2u8).unwrap_or(0);
    for (i, o) in offsets.iter_mut().enumerate() {
        match mode {
            0 => {}
            1 => {
                if u.int_in_range(0..=3u8).unwrap_or(1) == 0 {
                    let delta: i64 = u.int_in_range(-64..=64).unwrap_or(0);
                    *o = Offset(o.0.saturating_add_signed(delta));
                }
            }
            _ => {
                *o = Offset(u.int_in_range(0..=p.buffers()[i].size.0 * 2).unwrap_or(0));
                if u.int_in_range(0..=50u8).unwrap_or(1) == 0 {
                    *o = Offset(u64::MAX - u.int_in_range(0..=8u64).unwrap_or(0));
                }
            }
        }
    }
    if u.int_in_range(0..=30u8).unwrap_or(1) == 0 {
        offsets.pop(); // wrong count
    }
    let got = check_offsets(&p, &offsets, cap);
    let want = reference_valid(&p, cap, &offsets);
    assert_eq!(
        got.is_ok(),
        want,
        "checker vs reference on {p:?} / {offsets:?}"
    );
    if let Ok(s) = got {
        let h = p
            .buffers()
            .iter()
            .zip(&offsets)
            .map(|(b, o)| o.0 + b.size.0)
            .max()
            .unwrap_or(0);
        assert_eq!(s.height, Size(h));
    }
}

/// The plan rules, pair by pair (O(n²)), from the public model only.
pub fn reference_valid(problem: &Problem, capacity: Option<Size>, offsets: &[Offset]) -> bool {
    let bufs = problem.buffers();
    if offsets.len() != bufs.len() {
        return false;
    }
    for (b, o) in bufs.iter().zip(offsets) {
        let Some(end) = o.0.checked_add(b.size.0) else {
            return false;
        };
        if !o.is_aligned_to(b.alignment)
            || b.fixed_offset.is_some_and(|f| f != *o)
            || capacity.is_some_and(|c| end > c.0)
        {
            return false;
        }
    }
    for i in 0..bufs.len() {
        for j in i + 1..bufs.len() {
            let (a, b) = (&bufs[i], &bufs[j]);
            let (ao, bo) = (offsets[i].0, offsets[j].0);
            if ao < bo + b.size.0 && bo < ao + a.size.0 && a.live_together(b) {
                return false;
            }
        }
    }
    true
}

/// The lower bounds beyond the max load (`bounds/`): never above a plan's height
/// (greedy's), at least the max load and the fixed top, a plan at the bound when one is
/// given, and capacity answers that contradict neither.
pub fn lower_bounds(data: &[u8]) {
    use crate::bounds::{lower_bound_with, settle_with, ProverOptions, Settled};
    let Some((p, _, mut u)) = problem_from(data, 12) else {
        return;
    };
    let options = ProverOptions {
        holes: u.arbitrary().unwrap_or(true),
        search: u.arbitrary().unwrap_or(true),
        components: u.arbitrary().unwrap_or(true),
        granularity: u.arbitrary().unwrap_or(true),
        windows: vec![u.int_in_range(1..=6).unwrap_or(2)],
        first_nodes: 64,
        last_nodes: u.int_in_range(64..=20_000).unwrap_or(1000),
    };
    let budget = crate::budget::Budget::unlimited();
    let proven = lower_bound_with(&p, &budget, &options);
    assert!(
        proven.bound >= crate::analysis::lower_bound(&p),
        "below the max load"
    );
    let greedy = best_greedy(&p);
    assert!(
        proven.bound.0 <= greedy,
        "bound {proven:?} above greedy's {greedy}"
    );
    if let Some(plan) = &proven.plan {
        let s = check_offsets(&p, plan, None).unwrap_or_else(|f| panic!("plan at the bound: {f}"));
        assert_eq!(s.height, proven.bound, "the plan at the bound");
    }
    match settle_with(&p, Size(greedy), &budget, &options) {
        Settled::Infeasible(why) => panic!("greedy's height proven infeasible by {why:?}"),
        Settled::Fits(plan) => {
            check_offsets(&p, &plan, Some(Size(greedy))).unwrap_or_else(|f| panic!("fits: {f}"));
        }
        Settled::Unknown => {}
    }
    if proven.bound.0 > 0 {
        let below = settle_with(&p, Size(proven.bound.0 - 1), &budget, &options);
        assert!(
            !matches!(below, Settled::Fits(_)),
            "a plan under the proven bound {proven:?}"
        );
    }
}
