//! Spill, the two-memory form of several memories, through the public API: against brute force on small
//! instances, the checker on random ones, determinism, input errors, and the fuzz body.

use std::time::{Duration, Instant};

use memplan::fuzzing::ByteSource;
use memplan::memories::{
    plan_spill, Baseline as SpillBaseline, MemoriesCheckSummary, MemoriesError,
    MemoriesOptions as SpillOptions, MemoriesProblem, MemoriesReport as SpillReport, MemoryIdx,
    MemoryPlan, SpillMemory as Memory,
};
use memplan::{
    max_load, plan, Budget, Buffer, CheckFailure, Options, Outcome, Plan, Planner, Problem,
    Request, Size, Violation,
};
use proptest::prelude::*;

/// A random instance: buffers, capacity, costs (or none), memory preferences (or none).
struct Instance {
    problem: Problem,
    capacity: Size,
    costs: Option<Vec<u64>>,
    memory: Option<Vec<Memory>>,
}

impl Instance {
    fn run(&self, options: &SpillOptions) -> SpillReport {
        self.run_within(Budget::unlimited(), options)
    }

    fn run_within(&self, budget: Budget, options: &SpillOptions) -> SpillReport {
        let request = Request::fit(self.capacity).with_budget(budget);
        let (costs, pins) = (self.costs.as_deref(), self.memory.as_deref());
        plan_spill(&self.problem, costs, pins, &request, options).expect("plans")
    }
}

/// Fit under `capacity`, with no time limit.
fn fit(capacity: Size) -> Request {
    Request::fit(capacity).with_budget(Budget::unlimited())
}

/// Up to `max_n` buffers over 12 steps, sizes up to 16, some alignment, gaps, one fixed
/// buffer at times; capacity 30–110 % of the max load.
fn random_instance(src: &mut ByteSource, max_n: u64) -> Instance {
    let mut r = |m: u64| src.next_u64() % m;
    let n = 1 + r(max_n) as usize;
    let mut bufs = Vec::new();
    for i in 0..n {
        let start = r(12);
        let end = start + 1 + r(6);
        let mut b = Buffer::new(format!("b{i}"), start, end, 1 + r(16));
        if r(5) == 0 {
            b = b.with_alignment(1 << r(3));
        }
        if end - start >= 3 && r(6) == 0 {
            b = b.with_gap(start + 1, start + 2);
        }
        bufs.push(b);
    }
    if r(4) == 0 {
        bufs[0] = bufs[0].clone().with_alignment(1).with_fixed_offset(r(8));
    }
    let problem = Problem::new(bufs).expect("valid");
    let capacity = Size(max_load(&problem).0 * (30 + r(81)) / 100);
    let costs = (r(3) != 0).then(|| (0..n).map(|_| r(21)).collect());
    let memory = (r(2) == 0).then(|| {
        (0..n)
            .map(|i| match r(10) {
                0 => Memory::Fast,
                1 if i > 0 || problem.buffers()[0].fixed_offset.is_none() => Memory::Slow,
                _ => Memory::Either,
            })
            .collect()
    });
    Instance {
        problem,
        capacity,
        costs,
        memory,
    }
}

/// The exact planner under the capacity, without limits: does this set fit?
fn fits(problem: &Problem, members: &[usize], capacity: Size) -> bool {
    let bufs = members
        .iter()
        .map(|&i| problem.buffers()[i].clone())
        .collect();
    let sub = Problem::new(bufs).expect("subset");
    let options = Options {
        planner: Planner::Exact,
        threads: 1,
        ..Options::default()
    };
    match plan(&sub, &fit(capacity), &options).expect("plans").outcome {
        Outcome::Optimal(_) | Outcome::Feasible { .. } => true,
        Outcome::Infeasible => false,
        Outcome::Unknown { .. } => panic!("the exact search without limits gave Unknown"),
    }
}

/// The cheapest spill set by enumeration: every subset of the free buffers, cheapest
/// first, until one whose kept set fits. `None` when none does.
fn brute_force(inst: &Instance) -> Option<u64> {
    let p = &inst.problem;
    let n = p.len();
    let cost = |i: usize| inst.costs.as_ref().map_or(p.buffers()[i].size.0, |c| c[i]);
    let pref = |i: usize| inst.memory.as_ref().map_or(Memory::Either, |m| m[i]);
    let fast = |i: usize| p.buffers()[i].fixed_offset.is_some() || pref(i) == Memory::Fast;
    let free: Vec<usize> = (0..n)
        .filter(|&i| !fast(i) && pref(i) != Memory::Slow)
        .collect();
    let base: u64 = (0..n).filter(|&i| pref(i) == Memory::Slow).map(cost).sum();
    let mut sets: Vec<(u64, u32)> = (0..1u32 << free.len())
        .map(|mask| {
            let c: u64 = (0..free.len())
                .filter(|&k| mask >> k & 1 == 1)
                .map(|k| cost(free[k]))
                .sum();
            (base + c, mask)
        })
        .collect();
    sets.sort_unstable();
    for (c, mask) in sets {
        let kept: Vec<usize> = (0..n)
            .filter(|&i| {
                fast(i)
                    || free
                        .iter()
                        .position(|&f| f == i)
                        .is_some_and(|k| mask >> k & 1 == 0)
            })
            .collect();
        if fits(p, &kept, inst.capacity) {
            return Some(c);
        }
    }
    None
}

fn options(exact: bool, improve: bool) -> SpillOptions {
    SpillOptions {
        exact,
        improve,
        threads: 1,
        ..SpillOptions::default()
    }
}

/// The plan's check across the spill problem's two memories.
fn check_spill(
    problem: &Problem,
    capacity: Size,
    (costs, pins): (Option<&[u64]>, Option<&[Memory]>),
    plan: &MemoryPlan,
) -> Result<MemoriesCheckSummary, CheckFailure> {
    let (costs, pins) = (costs.map(<[u64]>::to_vec), pins.map(<[Memory]>::to_vec));
    let spill = MemoriesProblem::spill(problem.clone(), capacity, costs, pins);
    spill.expect("a valid input").check(plan)
}

/// Whether each buffer is in slow memory.
fn spilled(plan: &MemoryPlan) -> Vec<bool> {
    plan.memory.iter().map(|&m| m == MemoryIdx(1)).collect()
}

/// The first level's effort (the fast memory's), default without levels.
fn stats(report: &SpillReport) -> memplan::memories::LevelStats {
    report.levels.first().map(|l| l.stats).unwrap_or_default()
}

/// The plan's two memories as ordinary problems and plans, fast then slow (these tests'
/// problems have no shares).
fn levels(problem: &Problem, plan: &MemoryPlan) -> [(Problem, Plan); 2] {
    [0, 1].map(|m| {
        let members: Vec<usize> = (0..problem.len())
            .filter(|&i| plan.memory[i] == MemoryIdx(m))
            .collect();
        let buffers = members
            .iter()
            .map(|&i| problem.buffers()[i].clone())
            .collect();
        let sub = Problem::new(buffers).expect("a subset of a valid problem is valid");
        let offsets = members.iter().map(|&i| plan.offsets[i]).collect();
        let plan = Plan::new(&sub, offsets).expect("one offset per buffer, no overflow");
        (sub, plan)
    })
}

fn assert_valid(inst: &Instance, report: &SpillReport) {
    if let Some(plan) = report.plan() {
        if let Err(v) = check_spill(
            &inst.problem,
            inst.capacity,
            (inst.costs.as_deref(), inst.memory.as_deref()),
            plan,
        ) {
            panic!("invalid plan: {v}");
        }
        assert!(plan.heights[0] <= inst.capacity);
        assert!(report.lower_bound <= plan.cost);
    }
}

#[test]
fn exact_mode_equals_brute_force_and_bounds_and_heuristics_bracket_it() {
    let mut src = ByteSource::new(2026);
    let (mut optimal, mut infeasible, mut spilled_some, mut heuristic_above) = (0, 0, 0, 0);
    let (mut baseline_above, mut holes_raised, mut greedy_above) = (0, 0, 0);
    for case in 0..60 {
        let inst = random_instance(&mut src, 10);
        let best = brute_force(&inst);
        let exact = inst.run(&options(true, true));
        assert_valid(&inst, &exact);
        let Some(opt) = best else {
            assert_eq!(exact.outcome, Outcome::Infeasible, "case {case}");
            infeasible += 1;
            continue;
        };
        for baseline in [SpillBaseline::LargestFirst, SpillBaseline::CostPerByte] {
            let o = SpillOptions {
                baseline: Some(baseline),
                ..options(true, true)
            };
            let r = inst.run(&o);
            assert_valid(&inst, &r);
            match (&r.outcome, best) {
                (Outcome::Infeasible, None) => {}
                (_, Some(opt)) => {
                    let c = r.plan().expect("the baseline finds a plan").cost;
                    assert!(
                        c >= opt,
                        "case {case}: baseline {baseline:?} below the optimum"
                    );
                    baseline_above += usize::from(c > opt);
                }
                (o, None) => {
                    panic!("case {case}: baseline {baseline:?}: {o:?}, expected Infeasible")
                }
            }
        }
        let Outcome::Optimal(p) = &exact.outcome else {
            panic!(
                "case {case}: expected Optimal({opt}), got {:?}",
                exact.outcome
            );
        };
        assert_eq!(p.cost, opt, "case {case}: exact mode missed the optimum");
        optimal += 1;
        spilled_some += usize::from(opt > 0);
        let mut root = [0, 0];
        // The last switch: the first-fit insertion starts (off: the cover heuristic
        // alone, which the count below needs to miss the optimum somewhere).
        for (ex, imp, round, chain, lagrangian, holes, greedy) in [
            (false, false, true, true, true, true, true),
            (false, false, true, true, true, false, true),
            (false, true, true, true, false, true, true),
            (false, false, false, false, true, true, true),
            (false, false, false, false, false, false, false),
            (false, false, false, false, false, false, true),
            (true, false, false, true, true, true, false),
        ] {
            let o = SpillOptions {
                rounding_bound: round,
                chain_bound: chain,
                lagrangian,
                holes_bound: holes,
                greedy_starts: greedy,
                // The joint search (small problems) would close what the level leaves.
                joint: ex,
                ..options(ex, imp)
            };
            let r = inst.run(&o);
            assert_valid(&inst, &r);
            assert!(r.lower_bound <= opt, "case {case}: bound above the optimum");
            assert!(
                stats(&r).root_bound <= opt,
                "case {case}: root bound above the optimum"
            );
            let c = r.plan().expect("a plan exists").cost;
            assert!(c >= opt, "case {case}: cost {c} below the optimum {opt}");
            heuristic_above += usize::from(!ex && !imp && !lagrangian && !greedy && c > opt);
            greedy_above += usize::from(!ex && !imp && !lagrangian && greedy && c > opt);
            if !ex && !imp && round && chain && lagrangian {
                root[usize::from(holes)] = stats(&r).root_bound;
            }
            if ex {
                assert_eq!(c, opt, "case {case}: exact mode without rounding");
            }
        }
        assert!(
            root[1] >= root[0],
            "case {case}: the holes lowered the bound"
        );
        holes_raised += usize::from(root[1] > root[0]);
    }
    // The generator must exercise both answers, real spilling, and cases where the
    // heuristic alone misses the optimum (so that the exact search has work to do).
    eprintln!("{optimal} optimal, {infeasible} infeasible, {spilled_some} spill, {heuristic_above} heuristic above, {greedy_above} with the insertion starts");
    assert!(optimal >= 30 && infeasible >= 1 && spilled_some >= 20 && heuristic_above >= 3);
    // The insertion starts close some of what the cover heuristic leaves.
    assert!(greedy_above < heuristic_above);
    // The holes of fixed buffers raise the root bound somewhere, never above the optimum.
    eprintln!("{holes_raised} root bounds raised by the holes");
    assert!(holes_raised >= 1);
    // The baselines are valid, never below the optimum, and above it somewhere.
    eprintln!("{baseline_above} baseline runs above the optimum");
    assert!(baseline_above >= 3);
}

fn spec() -> impl Strategy<Value = (u64, u64, u64, u8, u8)> {
    (0u64..20, 1u64..8, 1u64..64, 0u8..10, 0u8..30)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_plan_passes_the_checker_and_respects_preferences(
        specs in proptest::collection::vec(spec(), 1..40),
        percent in 0u64..120,
        seed in any::<u64>(),
    ) {
        let bufs: Vec<Buffer> = specs.iter().enumerate().map(|(i, &(s, len, size, _, _))| {
            Buffer::new(i.to_string(), s, s + len, size)
        }).collect();
        let problem = Problem::new(bufs).unwrap();
        let capacity = Size(max_load(&problem).0 * percent / 100);
        let costs: Vec<u64> = specs.iter().map(|s| u64::from(s.4)).collect();
        let memory: Vec<Memory> = specs.iter().map(|s| match s.3 {
            0 => Memory::Fast,
            1 => Memory::Slow,
            _ => Memory::Either,
        }).collect();
        let inst = Instance { problem, capacity, costs: Some(costs), memory: Some(memory.clone()) };
        let o = SpillOptions { seed, exact_node_limit: 500, placement_node_limit: 2_000, ..options(true, true) };
        let report = inst.run(&o);
        assert_valid(&inst, &report);
        if let Some(p) = report.plan() {
            for (i, m) in memory.iter().enumerate() {
                prop_assert!(*m != Memory::Fast || !spilled(p)[i]);
                prop_assert!(*m != Memory::Slow || spilled(p)[i]);
            }
            let [(fast, fast_plan), (slow, slow_plan)] = levels(&inst.problem, p);
            prop_assert_eq!(fast.len() + slow.len(), inst.problem.len());
            memplan::check(&fast, &fast_plan, Some(capacity)).unwrap();
            memplan::check(&slow, &slow_plan, None).unwrap();
        } else {
            // Only the forced-fast buffers can make it fail.
            prop_assert!(memory.contains(&Memory::Fast));
        }
    }
}

#[test]
fn the_same_input_options_and_seed_give_the_same_answer_on_any_thread_count() {
    let mut src = ByteSource::new(99);
    for _ in 0..4 {
        let inst = random_instance(&mut src, 40);
        for seed in [1, 2] {
            let o = |threads| SpillOptions {
                seed,
                threads,
                exact_node_limit: 300,
                ..options(true, true)
            };
            let a = inst.run(&o(1));
            let b = inst.run(&o(1));
            let c = inst.run(&o(2));
            assert_eq!(a.outcome, b.outcome);
            assert_eq!(a.outcome, c.outcome, "threads 1 vs 2");
            assert_eq!(a.lower_bound, c.lower_bound);
        }
    }
}

fn three() -> Problem {
    Problem::new(vec![
        Buffer::new("a", 0, 3, 4),
        Buffer::new("b", 0, 2, 4).with_fixed_offset(4),
        Buffer::new("c", 1, 3, 4),
    ])
    .unwrap()
}

#[test]
fn bad_inputs_are_typed_errors() {
    let p = three();
    let run = |costs: Option<&[u64]>, memory: Option<&[Memory]>| {
        plan_spill(&p, costs, memory, &fit(Size(8)), &SpillOptions::default())
    };
    assert_eq!(
        run(Some(&[1, 2]), None).unwrap_err(),
        MemoriesError::Count {
            what: "costs",
            expected: 3,
            found: 2
        }
    );
    assert!(matches!(
        run(None, Some(&[Memory::Either])),
        Err(MemoriesError::Count {
            what: "memory preferences",
            found: 1,
            ..
        })
    ));
    let err = run(None, Some(&[Memory::Either, Memory::Slow, Memory::Either])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "buffer 'b' (#1) has a fixed offset, so it cannot be slow"
    );
    assert_eq!(
        run(Some(&[u64::MAX, 1, 0]), None).unwrap_err(),
        MemoriesError::Overflow("the total traffic")
    );
    // Spilling needs the fast memory's capacity.
    assert_eq!(
        plan_spill(
            &p,
            None,
            None,
            &Request::minimise(),
            &SpillOptions::default()
        )
        .unwrap_err(),
        MemoriesError::NoCapacity
    );
    assert!("fastest".parse::<Memory>().is_err());
    assert_eq!("Slow".parse::<Memory>().unwrap(), Memory::Slow);
}

#[test]
fn edge_capacities_and_empty_problems() {
    let p = three();
    let opts = SpillOptions::default();
    // The fixed buffer ends at 8: under 7 nothing helps.
    let r = plan_spill(&p, None, None, &fit(Size(7)), &opts).unwrap();
    assert_eq!(r.outcome, Outcome::Infeasible);
    // Capacity 8: b is fixed at [4, 8), so a and c, both live with it, share [0, 4): one
    // of them goes (cost = size 4).
    let r = plan_spill(&p, None, None, &fit(Size(8)), &opts).unwrap();
    let Outcome::Optimal(plan) = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert_eq!(plan.cost, 4);
    // Capacity 0, no forced buffer: everything is spilled, optimally.
    let free = Problem::new(vec![Buffer::new("x", 0, 2, 3), Buffer::new("y", 1, 4, 5)]).unwrap();
    let r = plan_spill(&free, None, None, &fit(Size(0)), &opts).unwrap();
    let Outcome::Optimal(plan) = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert_eq!((spilled(plan), plan.cost), (vec![true, true], 8));
    assert_eq!(plan.heights[0], Size(0));
    // An empty problem.
    let empty = Problem::new(Vec::new()).unwrap();
    let r = plan_spill(&empty, None, None, &fit(Size(0)), &opts).unwrap();
    assert_eq!(r.plan().map(|p| p.cost), Some(0));
    assert!(matches!(r.outcome, Outcome::Optimal(_)));
}

/// The one violation a failed [`check_spill`] reports (it stops at the first rule broken).
fn only_violation(r: Result<MemoriesCheckSummary, CheckFailure>) -> Violation {
    let f = r.expect_err("the plan is broken");
    assert_eq!((f.violations.len(), f.more), (1, 0), "{f}");
    assert_eq!(f.to_string(), f.violations[0].to_string());
    f.violations.into_iter().next().unwrap()
}

#[test]
fn the_checker_rejects_broken_plans() {
    let p = three();
    let none: (Option<&[u64]>, Option<&[Memory]>) = (None, None);
    let r = plan_spill(&p, None, None, &fit(Size(8)), &SpillOptions::default()).unwrap();
    let good: MemoryPlan = r.plan().unwrap().clone();
    let summary = check_spill(&p, Size(8), none, &good).unwrap();
    assert_eq!(
        (summary.buffers, summary.heights[0], summary.heights[1]),
        (3, good.heights[0], good.heights[1])
    );
    let kept = (0..3).find(|&i| i != 1 && !spilled(&good)[i]).unwrap();

    let mut wrong_cost = good.clone();
    wrong_cost.cost += 1;
    assert!(matches!(
        only_violation(check_spill(&p, Size(8), none, &wrong_cost)),
        Violation::MemoryCost { .. }
    ));
    let mut fixed_spilled = good.clone();
    fixed_spilled.memory[1] = MemoryIdx(1);
    assert!(matches!(
        only_violation(check_spill(&p, Size(8), none, &fixed_spilled)),
        Violation::NotAllowed { index: 1, .. }
    ));
    let mut overlap = good.clone();
    overlap.offsets[kept] = memplan::Offset(4); // onto the fixed buffer
    overlap.heights[0] = Size(8);
    assert!(matches!(
        only_violation(check_spill(&p, Size(8), none, &overlap)),
        Violation::InMemory { memory, .. } if memory == "fast"
    ));
    let mut all_kept = good.clone();
    all_kept.memory = vec![MemoryIdx(0); 3];
    all_kept.cost = 0;
    assert!(check_spill(&p, Size(8), none, &all_kept).is_err());
    let mut short = good;
    short.memory.pop();
    assert!(matches!(
        only_violation(check_spill(&p, Size(8), none, &short)),
        Violation::MemoriesInput(MemoriesError::PlanShape { .. })
    ));
}

#[test]
fn a_time_limit_of_zero_still_answers_validly() {
    let mut src = ByteSource::new(5);
    for _ in 0..10 {
        let inst = random_instance(&mut src, 30);
        let budget = Budget::new().with_time_limit(Duration::ZERO);
        let r = inst.run_within(budget, &SpillOptions::default());
        assert_valid(&inst, &r);
        if let Some(p) = r.plan() {
            assert!(r.lower_bound <= p.cost);
        }
    }
}

#[test]
fn fuzz_body_smoke() {
    let mut src = ByteSource::new(17);
    let started = Instant::now();
    let mut cases = 0;
    // SPILL_FUZZ_CASES=N runs N cases whatever the time (a longer local run).
    let wanted: Option<usize> = std::env::var("SPILL_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok());
    let (max, min) = wanted.map_or((300, 30), |n| (n, n));
    while cases < max && (cases < min || started.elapsed() < Duration::from_secs(10)) {
        let bytes = src.bytes(512);
        let outcome = std::panic::catch_unwind(|| memplan::memories::fuzz_spill(&bytes));
        assert!(
            outcome.is_ok(),
            "fuzz_spill failed on case {cases}: {bytes:?}"
        );
        cases += 1;
    }
}
