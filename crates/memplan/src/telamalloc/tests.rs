//! Unit tests of the search that need its counters.

use super::microbench::{generate_microbenchmark, MicrobenchKind};
use super::*;
use crate::checker::check_offsets;
use crate::outcome::Halt;
use crate::rng::Rng;
use crate::types::Buffer;

fn never() -> bool {
    false
}

#[test]
fn microbenchmarks_need_no_backtracking() {
    for kind in [MicrobenchKind::NonOverlapping, MicrobenchKind::FullOverlap] {
        for n in [1, 10, 300] {
            let (p, cap) = generate_microbenchmark(kind, n, 3);
            let (end, stats) = search(&p, cap, &Config::default(), &never);
            let Verdict::Found(off) = end else {
                panic!("{} {n}: no plan", kind.name())
            };
            check_offsets(&p, &off, Some(cap)).expect("valid");
            assert_eq!(stats.steps, n as u64, "{} {n}", kind.name());
            assert_eq!(stats.minor_backtracks + stats.major_backtracks, 0);
        }
    }
}

fn random_problem(rng: &mut Rng, n: usize) -> Problem {
    Problem::new(random_buffers(rng, n, 12, 8, 6)).unwrap()
}

/// `n` buffers starting in `0..=starts`, living `1..=1 + lengths` steps, of `1..=1 + sizes`
/// bytes (`Rng::range` is inclusive).
fn random_buffers(rng: &mut Rng, n: usize, starts: u64, lengths: u64, sizes: u64) -> Vec<Buffer> {
    (0..n)
        .map(|i| {
            let s = rng.range(0, starts);
            Buffer::new(
                format!("{i}"),
                s,
                s + 1 + rng.range(0, lengths),
                1 + rng.range(0, sizes),
            )
        })
        .collect()
}

/// A search's end as a comparable key: plans by their offsets, verdicts by kind.
fn key(end: SearchEnd) -> (u8, Vec<Offset>) {
    match end {
        Verdict::Found(off) => (0, off),
        Verdict::Infeasible => (1, Vec::new()),
        Verdict::Stopped(Halt::Exhausted) => (2, Vec::new()),
        Verdict::Stopped(_) => (3, Vec::new()),
    }
}

/// Every combination of the switches: plans found are valid; a generous capacity is
/// always met; `Found` never contradicts a proof of infeasibility (max load).
#[test]
fn all_technique_combinations_agree() {
    let mut rng = Rng::new(11);
    let problems: Vec<Problem> = (0..8).map(|k| random_problem(&mut rng, 4 + k)).collect();
    for mask in 0u32..256 {
        let o = {
            let mut opts = Config {
                step_limit: 20_000,
                ..Config::default()
            };
            opts.heuristics = mask & 1 != 0;
            opts.lowest_position = mask & 2 != 0;
            opts.phases = mask & 4 != 0;
            opts.backjump = mask & 8 != 0;
            opts.prepend_candidates = mask & 16 != 0;
            opts.subtree_limit = mask & 32 != 0;
            opts.subtree_backtracks = 10;
            opts.section_inference = mask & 64 != 0;
            opts.row_order = mask & 128 != 0;
            opts.dominance = mask % 5 != 0;
            opts.per_heuristic = mask as usize % 3;
            opts.canonical = mask % 3 != 1;
            opts.complete_candidates = mask % 7 != 0;
            opts.section_floors = mask % 11 != 0;
            opts.restarts = (mask / 3) % 2 == 0;
            opts.tighten = mask % 13 != 0;
            opts.dynamic_decomposition = mask % 17 != 0;
            opts
        };
        for p in &problems {
            let load = max_load(p);
            let naive = p.naive_height();
            for cap in [naive, load + (naive - load) / 2, load] {
                let (end, _) = search(p, cap, &o, &never);
                match end {
                    Verdict::Found(off) => {
                        check_offsets(p, &off, Some(cap))
                            .unwrap_or_else(|f| panic!("mask {mask}: {f}"));
                    }
                    Verdict::Infeasible => assert!(
                        !o.is_complete(p) || cap < naive,
                        "mask {mask}: a proof at the naive height"
                    ),
                    _ => assert!(
                        cap < naive,
                        "mask {mask}: nothing found at the naive height"
                    ),
                }
            }
        }
    }
}

/// The restart cycle commits its attempts in order, so its answer does not depend on
/// the thread count: the same plan (or the same verdict) on 1, 2 and 3 threads, with
/// step limits small enough to run out in the middle of a cycle.
#[test]
fn the_restart_cycle_gives_one_answer_whatever_the_threads() {
    let mut rng = Rng::new(41);
    let mut seen = [0usize; 4];
    for round in 0..40 {
        let p = random_problem(&mut rng, 10 + round % 50);
        let load = max_load(&p);
        let naive = p.naive_height();
        for cap in [
            load - Size(1),
            load,
            load + Size(1),
            load + (naive - load) / 8,
        ] {
            for step_limit in [700, 2_500, 4_100, 9_000, 2_000_000] {
                let o = {
                    let mut opts = Config {
                        step_limit,
                        ..Config::default()
                    };
                    opts.widen = round % 2 == 0;
                    opts
                };
                let answers: Vec<(u8, Vec<Offset>)> = [1, 2, 3]
                    .iter()
                    .map(|&t| key(rounds::search_rounds(&p, cap, &o, &Budget::unlimited(), t)))
                    .collect();
                assert_eq!(
                    answers[0], answers[1],
                    "round {round}, cap {cap}, {step_limit}"
                );
                assert_eq!(
                    answers[0], answers[2],
                    "round {round}, cap {cap}, {step_limit}"
                );
                if answers[0].0 == 0 {
                    check_offsets(&p, &answers[0].1, Some(cap)).expect("valid");
                }
                seen[answers[0].0 as usize] += 1;
            }
        }
    }
    // Plans, proofs and spent step limits all came up.
    assert!(seen[0] > 0 && seen[1] > 0 && seen[3] > 0, "{seen:?}");
}

/// The exact solver's verdict on `p` under `cap`.
fn exact_feasible(p: &Problem, cap: Size) -> bool {
    let options = crate::Options {
        planner: crate::Planner::Exact,
        ..crate::Options::default()
    };
    let request = crate::Request::fit(cap).with_budget(Budget::unlimited());
    let report = crate::plan(p, &request, &options).expect("plans");
    match report.outcome {
        Outcome::Optimal(_) | Outcome::Feasible { .. } => true,
        Outcome::Infeasible => false,
        Outcome::Unknown { .. } => panic!("the exact solver has no limit here"),
    }
}

/// With canonical sequences, complete candidate lists and chronological backtracking
/// the search is complete: it finds a plan exactly when the exact solver does, whatever
/// the other (ordering) switches say.
#[test]
fn complete_configuration_agrees_with_the_exact_solver() {
    let mut rng = Rng::new(23);
    for round in 0..60 {
        let p = random_problem(&mut rng, 4 + round % 7);
        let load = max_load(&p);
        let naive = p.naive_height();
        for cap in [load, load + (naive - load) / 4, load + (naive - load) / 2] {
            let truth = exact_feasible(&p, cap);
            for mask in 0u32..128 {
                let o = {
                    let mut opts = Config {
                        step_limit: u64::MAX,
                        ..Config::default()
                    };
                    opts.dynamic_decomposition = mask & 32 != 0;
                    opts.per_heuristic = if mask & 64 != 0 { 0 } else { 1 };
                    opts.backjump = false;
                    opts.subtree_limit = false;
                    opts.heuristics = mask & 1 != 0;
                    opts.phases = mask & 2 != 0;
                    opts.row_order = mask & 4 != 0;
                    opts.section_inference = mask & 8 != 0;
                    opts.section_floors = mask & 16 != 0;
                    opts.prepend_candidates = mask & 3 != 0;
                    opts.dominance = mask % 3 != 0;
                    opts
                };
                let (end, _) = search(&p, cap, &o, &never);
                let found = match end {
                    Verdict::Found(off) => {
                        check_offsets(&p, &off, Some(cap)).expect("valid");
                        true
                    }
                    _ => false,
                };
                assert_eq!(found, truth, "round {round}, cap {cap}, mask {mask}");
            }
        }
    }
}

/// A problem of `parts` random problems one after the other in time, some of them a
/// single buffer, so that no buffer links two of them.
fn problem_in_parts(rng: &mut Rng, parts: usize) -> Problem {
    let mut bufs: Vec<Buffer> = Vec::new();
    for k in 0..parts as u64 {
        let n = if rng.range(0, 3) == 0 {
            1
        } else {
            2 + rng.range(0, 9) as usize
        };
        for b in random_problem(rng, n).buffers() {
            let mut b = b.clone();
            b.id = format!("{}", bufs.len());
            b.lifetime.start = b.lifetime.start + 100 * k;
            b.lifetime.end = b.lifetime.end + 100 * k;
            bufs.push(b);
        }
    }
    Problem::new(bufs).unwrap()
}

/// Searching the independent parts one after the other agrees with searching the whole:
/// plans are valid, a proof on one side is never contradicted by a plan on the other,
/// and complete configurations give the same verdict. Both also agree on 1 and 2
/// threads.
#[test]
fn independent_parts_agree_with_the_whole() {
    let mut rng = Rng::new(57);
    let mut found = 0;
    for round in 0..60 {
        let p = problem_in_parts(&mut rng, 2 + round % 5);
        let load = max_load(&p);
        let naive = p.naive_height();
        for cap in [load, load + (naive - load) / 8, load + (naive - load) / 2] {
            let complete = round % 2 == 0;
            let base = {
                let mut opts = Config {
                    step_limit: 200_000,
                    ..Config::default()
                };
                opts.backjump = !complete;
                opts.subtree_limit = !complete;
                opts
            };
            let mut verdicts = Vec::new();
            for parts in [true, false] {
                let o = {
                    let mut opts = base.clone();
                    opts.independent_parts = parts;
                    opts
                };
                let one = rounds::search_rounds(&p, cap, &o, &Budget::unlimited(), 1);
                let two = rounds::search_rounds(&p, cap, &o, &Budget::unlimited(), 2);
                let verdict = match (one, two) {
                    (Verdict::Found(a), Verdict::Found(b)) => {
                        assert_eq!(a, b, "round {round}, cap {cap}: 1 and 2 threads");
                        check_offsets(&p, &a, Some(cap)).expect("valid");
                        found += 1;
                        0
                    }
                    (Verdict::Infeasible, Verdict::Infeasible) => 1,
                    (Verdict::Stopped(a), Verdict::Stopped(b)) if a == b => {
                        2 + u8::from(a != Halt::Exhausted)
                    }
                    _ => panic!("round {round}, cap {cap}: 1 and 2 threads disagree"),
                };
                verdicts.push(verdict);
            }
            let (split, whole) = (verdicts[0], verdicts[1]);
            let mut both = [split, whole];
            both.sort_unstable();
            assert_ne!(
                both,
                [0, 1],
                "round {round}, cap {cap}: a plan against a proof"
            );
            if complete {
                assert_eq!(split == 0, whole == 0, "round {round}, cap {cap}");
            }
        }
    }
    assert!(found > 100, "{found}");
}

/// The parts share the step limit. Five buffers live together (one part, placed in five
/// steps, as the microbenchmarks show), then ten that never meet (ten parts, one step
/// each): fifteen steps find the plan and fourteen stop the search, so the first part's
/// steps count against the rest.
#[test]
fn independent_parts_share_the_step_limit() {
    let mut bufs: Vec<Buffer> = (0..5)
        .map(|i| Buffer::new(format!("{i}"), 0, 1, 64 * (i + 1)))
        .collect();
    let cap: Size = bufs.iter().map(|b| b.size).sum();
    bufs.extend((0..10).map(|i| Buffer::new(format!("s{i}"), 2 + i, 3 + i, 7 * (i + 1))));
    let p = Problem::new(bufs).unwrap();
    for (limit, expect_plan) in [(14, false), (15, true)] {
        for threads in [1, 2] {
            let o = Config {
                step_limit: limit,
                ..Config::default()
            };
            match rounds::search_rounds(&p, cap, &o, &Budget::unlimited(), threads) {
                Verdict::Found(off) => {
                    assert!(expect_plan, "a plan within {limit} steps");
                    check_offsets(&p, &off, Some(cap)).expect("valid");
                }
                Verdict::Stopped(Halt::Limit) => assert!(!expect_plan, "stopped at {limit} steps"),
                _ => panic!("{limit}: neither a plan nor the step limit"),
            }
        }
    }
}

/// A part larger than the one-thread threshold runs its cycle on several threads: with a
/// step limit that runs out inside it (50) and larger ones, 1, 2 and 3 threads give the
/// same answer. (Here the first attempt settles each part; several attempts inside a
/// part are the next test's.)
#[test]
fn large_parts_give_one_answer_whatever_the_threads() {
    let mut rng = Rng::new(71);
    let mut found = 0;
    for round in 0..6 {
        // One part of 70–95 buffers with sizes far apart.
        let mut bufs = random_buffers(&mut rng, 70 + round * 5, 30, 14, 99);
        let tail = problem_in_parts(&mut rng, 3);
        for b in tail.buffers() {
            let mut b = b.clone();
            b.id = format!("t{}", bufs.len());
            b.lifetime.start = b.lifetime.start + 1000;
            b.lifetime.end = b.lifetime.end + 1000;
            bufs.push(b);
        }
        let p = Problem::new(bufs).unwrap();
        let load = max_load(&p);
        let naive = p.naive_height();
        for cap in [load, load + (naive - load) / 16] {
            for step_limit in [50, 2_000, 30_000] {
                let o = Config {
                    step_limit,
                    ..Config::default()
                };
                let answers: Vec<(u8, Vec<Offset>)> = [1, 2, 3]
                    .iter()
                    .map(|&t| key(rounds::search_rounds(&p, cap, &o, &Budget::unlimited(), t)))
                    .collect();
                assert_eq!(answers[0], answers[1], "round {round}, {cap}, {step_limit}");
                assert_eq!(answers[0], answers[2], "round {round}, {cap}, {step_limit}");
                if answers[0].0 == 0 {
                    check_offsets(&p, &answers[0].1, Some(cap)).expect("valid");
                    found += 1;
                }
            }
        }
    }
    assert!(found > 0, "no plan at all");
}

/// Two challenging instances with several parts whose first part needs several attempts
/// of the cycle (E at 100%: 2 parts; F at 105%: 3 parts), so helpers run attempts
/// speculatively inside a part: one and two threads give the same plan.
#[test]
fn real_instances_in_parts_give_one_plan_whatever_the_threads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../benchmarks/minimalloc-challenging");
    for (name, cap) in [("E.1048576.csv", 1_048_576), ("F.1048576.csv", 1_101_004)] {
        let cap = Size(cap);
        let bytes = std::fs::read(root.join(name)).expect("vendored benchmark");
        let p = crate::io::csv::read_problem_csv(&bytes, &Default::default()).expect("valid");
        let plans: Vec<Vec<Offset>> = [1, 2]
            .iter()
            .map(|&t| {
                let o = Config::default();
                match rounds::search_rounds(&p, cap, &o, &Budget::unlimited(), t) {
                    Verdict::Found(off) => off,
                    _ => panic!("{name}: TelaMalloc solves it at {cap}"),
                }
            })
            .collect();
        assert_eq!(plans[0], plans[1], "{name}: one thread against two");
        check_offsets(&p, &plans[0], Some(cap)).expect("valid");
    }
}
