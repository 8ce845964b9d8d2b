//! Differential tests: planners and references that share no reasoning must agree.
//!
//! - every planner's height ≥ the exact minimum (the exact search without limits);
//! - the exact search and TelaMalloc agree on feasibility whenever both finish;
//! - every shared-object total ≥ the sum of the positional maxima, which match an
//!   O(n · T) reference (sort the live sizes at every time);
//! - the checker agrees with an O(n²) reference on plans with fixed offsets, gaps,
//!   alignment and capacities.
//!
//! The exact search against brute force (n ≤ 8, every switch combination) lives with the
//! search, in `src/exact/tests.rs`; the checker's own O(n²) test (no fixed offsets) in
//! `src/checker.rs`. Instances come from `memplan::fuzzing` with fixed seeds.

use arbitrary::Unstructured;
use memplan::fuzzing::targets::{assert_report_consistent, reference_valid};
use memplan::fuzzing::{arbitrary_problem, ByteSource, FuzzKnobs};
use memplan::shared_objects::{plan_shared_objects, SharedOptions, SharedStrategy};
use memplan::testing::positional_maxima;
use memplan::{
    check_offsets, plan, Budget, Goal, Offset, Options, Outcome, Planner, Problem, Request, Size,
};

/// `count` problems with these knobs, from seed `seed`, each with its capacity (if any).
fn problems(seed: u64, count: usize, knobs: &FuzzKnobs) -> Vec<(Problem, Option<Size>)> {
    let mut src = ByteSource::new(seed);
    (0..count)
        .map(|_| {
            let bytes = src.bytes(512);
            arbitrary_problem(&mut Unstructured::new(&bytes), knobs).expect("zeros fill in")
        })
        .collect()
}

fn small(max_buffers: usize, capacity_chance: u8) -> FuzzKnobs {
    FuzzKnobs {
        max_buffers,
        max_size_log2: 4,
        horizon: 10,
        overlap_percent: 50,
        capacity_chance,
        capacity_percent: (85, 125),
        ..FuzzKnobs::default()
    }
}

/// Fit under `capacity` (or minimise without one), with no time limit.
fn request(capacity: Option<Size>) -> Request {
    Request {
        goal: Goal::from_capacity(capacity),
        budget: Budget::unlimited().with_node_limit(20_000),
    }
}

fn options(planner: Planner) -> Options {
    let mut o = Options {
        planner,
        threads: 1,
        ..Options::default()
    };
    o.boxing.iterations = 5;
    o
}

#[test]
fn no_planner_goes_below_the_exact_minimum() {
    let (mut above, mut total) = (0, 0);
    for (p, cap) in problems(21, 250, &small(8, 0)) {
        assert_eq!(cap, None, "no capacity: minimise mode");
        let exact = plan(&p, &request(cap), &options(Planner::Exact)).unwrap();
        let Outcome::Optimal(best) = &exact.outcome else {
            panic!(
                "no limit: the exact search proves its minimum: {:?}",
                exact.outcome
            )
        };
        let minimum = best.height();
        for planner in Planner::all() {
            let r = plan(&p, &request(cap), &options(planner)).unwrap();
            assert_report_consistent(&p, cap, &r);
            let h = r
                .outcome
                .plan()
                .expect("minimise mode always plans")
                .height();
            assert!(h >= minimum, "{planner} at {h} below the minimum {minimum}");
            if let Outcome::Optimal(_) = r.outcome {
                assert_eq!(h, minimum, "{planner} calls a non-minimal plan optimal");
            }
            above += usize::from(h > minimum);
            total += 1;
        }
    }
    // The instances are not all trivial: some heuristic misses the minimum somewhere.
    assert!(
        above > 0 && above < total,
        "{above} of {total} above the minimum"
    );
}

#[test]
fn exact_and_telamalloc_agree_on_feasibility() {
    let (mut both_fit, mut both_infeasible, mut tela_unknown) = (0, 0, 0);
    for (p, cap) in problems(22, 300, &small(10, 100)) {
        assert!(cap.is_some(), "capacity mode");
        let exact = plan(&p, &request(cap), &options(Planner::Exact)).unwrap();
        // The search itself, not the greedy plan it tries first.
        let mut search_only = options(Planner::Telamalloc);
        search_only.telamalloc.greedy_first = false;
        let tela = plan(&p, &request(cap), &search_only).unwrap();
        assert_report_consistent(&p, cap, &exact);
        assert_report_consistent(&p, cap, &tela);
        let exact_fits = match exact.outcome {
            Outcome::Optimal(_) | Outcome::Feasible { .. } => true,
            Outcome::Infeasible => false,
            Outcome::Unknown { .. } => panic!("no limit: the exact search decides"),
        };
        match tela.outcome {
            Outcome::Optimal(_) | Outcome::Feasible { .. } => {
                assert!(exact_fits, "TelaMalloc fits where exact proves none: {p:?}");
                both_fit += 1;
            }
            Outcome::Infeasible => {
                assert!(
                    !exact_fits,
                    "TelaMalloc proves infeasible what exact fits: {p:?}"
                );
                both_infeasible += 1;
            }
            Outcome::Unknown { .. } => tela_unknown += 1,
        }
    }
    assert!(
        both_fit > 20 && both_infeasible > 20,
        "both answers exercised: {both_fit} fit, {both_infeasible} infeasible, {tela_unknown} unknown"
    );
}

/// The positional maxima by definition: at every time, the live sizes largest first;
/// the i-th maximum is the largest i-th size over all times (gaps ignored).
fn reference_maxima(p: &Problem) -> Vec<Size> {
    let mut times: Vec<u64> = p.buffers().iter().map(|b| b.lifetime.start.0).collect();
    times.sort_unstable();
    times.dedup();
    let mut maxima: Vec<Size> = Vec::new();
    for t in times {
        let mut live: Vec<Size> = p
            .buffers()
            .iter()
            .filter(|b| b.lifetime.start.0 <= t && t < b.lifetime.end.0)
            .map(|b| b.size)
            .collect();
        live.sort_unstable_by(|a, b| b.cmp(a));
        for (i, s) in live.into_iter().enumerate() {
            if i == maxima.len() {
                maxima.push(s);
            } else {
                maxima[i] = maxima[i].max(s);
            }
        }
    }
    maxima
}

#[test]
fn shared_objects_stay_above_the_positional_maxima() {
    let knobs = FuzzKnobs {
        max_buffers: 30,
        max_size_log2: 8,
        ..FuzzKnobs::default()
    };
    let mut strictly_above = 0;
    for (p, _) in problems(23, 400, &knobs) {
        let maxima = positional_maxima(&p);
        assert_eq!(maxima, reference_maxima(&p), "{p:?}");
        let bound: u64 = maxima.iter().map(|s| s.0).sum();
        for strategy in SharedStrategy::ALL {
            let options = SharedOptions {
                strategy: Some(strategy),
                ..SharedOptions::default()
            };
            let r = plan_shared_objects(&p, &request(None), &options).unwrap();
            let total = r.outcome.best().expect("an assignment").total().0;
            assert!(
                total >= bound,
                "{strategy}: {total} below the bound {bound}"
            );
            strictly_above += usize::from(total > bound);
        }
    }
    assert!(strictly_above > 0, "the bound is not always reached");
}

#[test]
fn checker_agrees_with_the_pairwise_reference() {
    let knobs = FuzzKnobs {
        max_buffers: 12,
        max_size_log2: 5,
        horizon: 12,
        fixed_percent: 25,
        gap_percent: 30,
        capacity_chance: 30,
        capacity_percent: (90, 200),
        ..FuzzKnobs::default()
    };
    let mut src = ByteSource::new(24);
    let (mut valid, mut invalid) = (0, 0);
    for (p, cap) in problems(24, 3000, &knobs) {
        // A real plan, then the same with a few offsets moved.
        let greedy = plan(&p, &request(None), &options(Planner::Naive))
            .unwrap()
            .outcome
            .plan()
            .unwrap()
            .offsets()
            .to_vec();
        let mut offsets: Vec<Offset> = greedy.clone();
        for o in offsets.iter_mut() {
            if src.next_u64().is_multiple_of(4) {
                *o = Offset(src.next_u64() % 48);
            }
        }
        for offs in [&greedy, &offsets] {
            let want = reference_valid(&p, cap, offs);
            assert_eq!(check_offsets(&p, offs, cap).is_ok(), want, "{p:?} {offs:?}");
            if want {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
    }
    assert!(
        valid > 500 && invalid > 500,
        "{valid} valid, {invalid} invalid"
    );
}
