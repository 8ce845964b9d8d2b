//! The multi-memory planner through the public API (issue 36): three memories with
//! allowed sets and pins, against brute force on small instances, every combination of
//! switches, determinism, typed input errors, the checker, and the fuzz body.

mod common;
use common::plan_across;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use memplan::fuzzing::ByteSource;
use memplan::memories::{
    check_memories, MemoriesError, MemoriesInput, MemoriesOptions, MemoriesReport, Memory,
    MemoryIdx, MemorySet,
};
use memplan::{
    max_load, plan, Budget, Buffer, Options, Outcome, Planner, Problem, Request, Share, Size,
    Violation,
};

/// A random instance: buffers, memories, allowed sets and accesses.
struct Instance {
    problem: Problem,
    memories: Vec<Memory>,
    allowed: Option<Vec<MemorySet>>,
    accesses: Option<Vec<u64>>,
}

impl Instance {
    fn input(&self) -> MemoriesInput<'_> {
        MemoriesInput {
            allowed: self.allowed.as_deref(),
            accesses: self.accesses.as_deref(),
            traffic: None,
        }
    }

    fn run(&self, options: &MemoriesOptions) -> Result<MemoriesReport, MemoriesError> {
        let request = Request::minimise().with_budget(Budget::unlimited());
        plan_across(
            &self.problem,
            &self.memories,
            &self.input(),
            &request,
            options,
        )
    }
}

/// Up to `max_n` buffers over 10 steps, sizes up to 16, some alignment; `k` memories,
/// bounded at 20–80 % of the max load but the last (unbounded half of the time);
/// alignments; costs on all or none; random allowed sets and pins; accesses.
fn random_instance(src: &mut ByteSource, max_n: u64, k: usize) -> Instance {
    let mut r = |m: u64| src.next_u64() % m;
    let n = 1 + r(max_n) as usize;
    let mut bufs = Vec::new();
    for i in 0..n {
        let start = r(10);
        let end = start + 1 + r(5);
        let mut b = Buffer::new(format!("b{i}"), start, end, 1 + r(16));
        if r(5) == 0 {
            b = b.with_alignment(1 << r(3));
        }
        bufs.push(b);
    }
    let problem = Problem::new(bufs).expect("valid");
    let load = max_load(&problem).get();
    let priced = r(2) == 0;
    let last_unbounded = r(2) == 0;
    let memories: Vec<Memory> = (0..k)
        .map(|m| {
            let mut mem = Memory::new(format!("m{m}")).with_alignment(1 << r(2));
            if m + 1 < k || !last_unbounded {
                mem = mem.with_capacity(load * (20 + r(61)) / 100);
            }
            if priced {
                mem = mem.with_cost(r(10));
            }
            mem
        })
        .collect();
    let allowed = (r(2) == 0).then(|| {
        (0..n)
            .map(|_| match r(6) {
                0 => MemorySet::single(MemoryIdx(r(k as u64) as u32)),
                1 => MemorySet(1 + r((1 << k) - 1)),
                _ => MemorySet::all(k),
            })
            .collect()
    });
    let accesses = (r(2) == 0).then(|| (0..n).map(|_| r(6)).collect());
    Instance {
        problem,
        memories,
        allowed,
        accesses,
    }
}

/// Does this set of buffers fit in memory `m` (alignment included)? The exact planner
/// without limits, memoised by the set.
fn fits(inst: &Instance, m: usize, mask: u32, memo: &mut HashMap<(usize, u32), bool>) -> bool {
    if let Some(&f) = memo.get(&(m, mask)) {
        return f;
    }
    let memory = &inst.memories[m];
    let bufs: Vec<Buffer> = (0..inst.problem.len())
        .filter(|&i| mask >> i & 1 == 1)
        .map(|i| {
            let b = inst.problem.buffers()[i].clone();
            let (a, c) = (b.alignment.get(), memory.alignment.get());
            let lcm = a / gcd(a, c) * c;
            b.with_alignment(lcm)
        })
        .collect();
    let fits = match memory.capacity {
        None => true,
        Some(c) => {
            let sub = Problem::new(bufs).expect("subset");
            let options = Options {
                planner: Planner::Exact,
                threads: 1,
                ..Options::default()
            };
            let request = Request::fit(c).with_budget(Budget::unlimited());
            match plan(&sub, &request, &options).expect("plans").outcome {
                Outcome::Optimal(_) | Outcome::Feasible { .. } => true,
                Outcome::Infeasible => false,
                Outcome::Unknown { .. } => panic!("the exact search without limits: Unknown"),
            }
        }
    };
    memo.insert((m, mask), fits);
    fits
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The least cost over every assignment of buffers to allowed memories whose every
/// memory's set fits; `None` when none does. The cost: `Σ traffic × cost`, or without
/// costs the traffic outside the first memory.
fn brute_force(inst: &Instance) -> Option<u64> {
    let n = inst.problem.len();
    let k = inst.memories.len();
    let traffic = |i: usize| {
        inst.problem.buffers()[i].size.get() * inst.accesses.as_ref().map_or(1, |a| a[i])
    };
    let unit = |m: usize| inst.memories[m].cost.unwrap_or(u64::from(m > 0));
    let allowed = |i: usize| inst.allowed.as_ref().map_or(MemorySet::all(k), |a| a[i]);
    let mut memo = HashMap::new();
    let mut best: Option<u64> = None;
    let total = (k as u64).pow(n as u32);
    for code in 0..total {
        let mut c = code;
        let mut masks = vec![0u32; k];
        let mut cost = 0;
        let mut ok = true;
        for i in 0..n {
            let m = (c % k as u64) as usize;
            c /= k as u64;
            if !allowed(i).contains(MemoryIdx(m as u32)) {
                ok = false;
                break;
            }
            masks[m] |= 1 << i;
            cost += traffic(i) * unit(m);
        }
        if !ok || best.is_some_and(|b| b <= cost) {
            continue;
        }
        if (0..k).all(|m| fits(inst, m, masks[m], &mut memo)) {
            best = Some(cost);
        }
    }
    best
}

fn assert_valid(inst: &Instance, report: &MemoriesReport) {
    if let Some(plan) = report.plan() {
        if let Err(v) = check_memories(&inst.problem, &inst.memories, &inst.input(), plan) {
            panic!("invalid plan: {v}");
        }
        assert!(report.lower_bound <= plan.cost);
    }
}

#[test]
fn three_memories_with_allowed_sets_and_pins() {
    let problem = Problem::new(vec![
        Buffer::new("a", 0, 3, 4),
        Buffer::new("b", 0, 2, 4),
        Buffer::new("c", 1, 3, 4),
        Buffer::new("d", 0, 3, 4),
        Buffer::new("e", 2, 4, 8),
        Buffer::new("f", 0, 4, 2).with_fixed_offset(0),
    ])
    .unwrap();
    let memories = [
        Memory::new("tcm").with_capacity(10),
        Memory::new("ocram").with_capacity(8).with_alignment(4),
        Memory::new("dram"),
    ];
    let all = MemorySet::all(3);
    let allowed = [
        all,
        MemorySet::of([MemoryIdx(1), MemoryIdx(2)]),
        all,
        MemorySet::single(MemoryIdx(0)),
        MemorySet::single(MemoryIdx(2)),
        all, // fixed: the first memory
    ];
    let accesses = [5, 1, 1, 2, 1, 1];
    let input = MemoriesInput {
        allowed: Some(&allowed),
        accesses: Some(&accesses),
        traffic: None,
    };
    let request = Request::minimise().with_budget(Budget::unlimited());
    let report = plan_across(
        &problem,
        &memories,
        &input,
        &request,
        &MemoriesOptions::default(),
    )
    .unwrap();
    let plan = report.plan().expect("a plan");
    check_memories(&problem, &memories, &input, plan).unwrap();
    let m = |i: usize| plan.memory[i].0;
    assert_eq!((m(3), m(4), m(5)), (0, 2, 0), "pins");
    assert_ne!(m(1), 0, "b may not use tcm");
    // tcm: f (2 bytes, fixed at 0), d (pinned) and a (traffic 20) fit in 10 bytes.
    assert_eq!(m(0), 0);
    assert_eq!(plan.offsets[5].get(), 0);
    for i in 0..6 {
        if m(i) == 1 {
            assert_eq!(plan.offsets[i].get() % 4, 0, "ocram's alignment");
        }
    }
    // The traffic outside tcm: b, c and e, 4 + 4 + 8 = 16, the least possible.
    assert_eq!(plan.cost, 16);
    assert!(matches!(report.outcome, Outcome::Optimal(_)));
    // With costs, the objective is Σ traffic × cost, and optimal here too.
    let priced = [
        Memory::new("tcm").with_capacity(10).with_cost(1),
        Memory::new("ocram")
            .with_capacity(8)
            .with_alignment(4)
            .with_cost(3),
        Memory::new("dram").with_cost(10),
    ];
    let report = plan_across(
        &problem,
        &priced,
        &input,
        &request,
        &MemoriesOptions::default(),
    )
    .unwrap();
    let p = report.plan().expect("a plan");
    check_memories(&problem, &priced, &input, p).unwrap();
    let traffic: Vec<u64> = (0..6)
        .map(|i| problem.buffers()[i].size.get() * accesses[i])
        .collect();
    let cost: u64 = (0..6)
        .map(|i| traffic[i] * priced[p.memory[i].index()].cost.unwrap())
        .sum();
    assert_eq!(p.cost, cost);
    // b and c go to ocram (both fit: 4 + 4 bytes over [0, 3)), e stays pinned in dram.
    assert_eq!((p.memory[1].0, p.memory[2].0), (1, 1));
}

#[test]
fn the_planner_is_bracketed_by_its_bound_and_brute_force() {
    let mut src = ByteSource::new(36);
    let mut optimal = 0;
    // MEMORIES_BRUTE_CASES=N runs N cases (a longer local run).
    let cases: usize = std::env::var("MEMORIES_BRUTE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    for case in 0..cases {
        let k = 2 + case % 2;
        let inst = random_instance(&mut src, 5, k);
        let report = match inst.run(&MemoriesOptions::default()) {
            Ok(r) => r,
            Err(MemoriesError::TooLarge { .. } | MemoriesError::EmptyAllowed { .. }) => continue,
            Err(e) => panic!("case {case}: {e}"),
        };
        assert_valid(&inst, &report);
        let best = brute_force(&inst);
        match (&report.outcome, best) {
            (Outcome::Optimal(p), Some(b)) => {
                assert_eq!(p.cost, b, "case {case}: optimal but not the least cost");
                optimal += 1;
            }
            (Outcome::Feasible { plan, lower_bound }, Some(b)) => {
                assert!(*lower_bound <= b && b <= plan.cost, "case {case}");
            }
            (Outcome::Infeasible, b) => assert_eq!(b, None, "case {case}: Infeasible"),
            (Outcome::Unknown { lower_bound, .. }, b) => {
                assert!(b.is_none_or(|b| *lower_bound <= b), "case {case}")
            }
            (o, None) => panic!("case {case}: a plan {o:?} where none exists"),
        }
        if k == 2 {
            // Two memories: the first level is the whole problem, solved exactly.
            if let (Some(b), Some(p)) = (best, report.plan()) {
                let closed = report
                    .levels
                    .iter()
                    .all(|l| l.stats.exact_components == l.stats.exact_closed);
                if closed && inst.memories[1].capacity.is_none() {
                    assert_eq!(p.cost, b, "case {case}: two memories, closed, not optimal");
                }
            }
        }
    }
    assert!(optimal > 30, "only {optimal} optimal");
}

#[test]
fn every_combination_of_switches_gives_valid_plans_that_agree_with_the_bounds() {
    let mut src = ByteSource::new(7);
    for case in 0..8 {
        let inst = random_instance(&mut src, 7, 3);
        let mut costs = Vec::new();
        let mut bounds = Vec::new();
        let mut proofs = Vec::new();
        for mask in 0..2048u32 {
            let options = MemoriesOptions {
                lagrangian: mask & 1 != 0,
                improve: mask & 2 != 0,
                exact: mask & 4 != 0,
                rounding_bound: mask & 8 != 0,
                chain_bound: mask & 16 != 0,
                holes_bound: mask & 32 != 0,
                size_presolve: mask & 64 != 0,
                greedy_starts: mask & 128 != 0,
                pooled_proof: mask & 256 != 0,
                joint: mask & 512 != 0,
                fill_slowest_first: mask & 1024 != 0,
                ..MemoriesOptions::default()
            };
            let Ok(report) = inst.run(&options) else {
                break;
            };
            assert_valid(&inst, &report);
            bounds.push(report.lower_bound);
            if let Some(p) = report.plan() {
                costs.push(p.cost);
            }
            proofs.push(report.outcome == Outcome::Infeasible);
        }
        if let (Some(lb), Some(c)) = (bounds.iter().max(), costs.iter().min()) {
            assert!(lb <= c, "case {case}: a bound {lb} above a cost {c}");
        }
        // A proof of infeasibility under one combination, a plan under none.
        assert!(
            !proofs.contains(&true) || costs.is_empty(),
            "case {case}: a plan and a proof that none exists"
        );
    }
}

#[test]
fn the_same_input_gives_the_same_plan_on_any_thread_count() {
    let mut src = ByteSource::new(11);
    for _ in 0..10 {
        let inst = random_instance(&mut src, 30, 3);
        let run = |threads| {
            inst.run(&MemoriesOptions {
                threads,
                ..MemoriesOptions::default()
            })
            .map(|r| (r.outcome, r.lower_bound))
        };
        assert_eq!(run(1), run(2));
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    let problem = Problem::new(vec![
        Buffer::new("a", 0, 3, 4),
        Buffer::new("b", 0, 2, 64).with_fixed_offset(0),
    ])
    .unwrap();
    let two = [Memory::new("tcm").with_capacity(8), Memory::new("dram")];
    let request = Request::minimise().with_budget(Budget::unlimited());
    let run = |mems: &[Memory], input: &MemoriesInput<'_>| {
        plan_across(&problem, mems, input, &request, &MemoriesOptions::default()).err()
    };
    let none = MemoriesInput::default();
    assert!(matches!(run(&[], &none), Some(MemoriesError::NoMemories)));
    let dup = [Memory::new("tcm"), Memory::new("tcm")];
    assert!(matches!(
        run(&dup, &none),
        Some(MemoriesError::DuplicateMemory(_))
    ));
    let partial = [Memory::new("tcm").with_cost(1), Memory::new("dram")];
    assert!(matches!(
        run(&partial, &none),
        Some(MemoriesError::PartialCosts(_))
    ));
    // b is fixed, so in tcm, where its 64 bytes do not fit.
    assert!(matches!(
        run(&two, &none),
        Some(MemoriesError::TooLarge { index: 1, .. })
    ));
    let empty = [MemorySet::all(2), MemorySet::EMPTY];
    let input = MemoriesInput {
        allowed: Some(&empty),
        ..MemoriesInput::default()
    };
    assert!(matches!(
        run(&two, &input),
        Some(MemoriesError::EmptyAllowed { index: 1, .. })
    ));
    let several = [
        MemorySet::all(2),
        MemorySet::of([MemoryIdx(0), MemoryIdx(2)]),
    ];
    let three = [
        Memory::new("tcm").with_capacity(8),
        Memory::new("x"),
        Memory::new("dram"),
    ];
    let input = MemoriesInput {
        allowed: Some(&several),
        ..MemoriesInput::default()
    };
    assert!(matches!(
        run(&three, &input),
        Some(MemoriesError::FixedInSeveral { index: 1, .. })
    ));
    let short = [1u64];
    let input = MemoriesInput {
        accesses: Some(&short),
        ..MemoriesInput::default()
    };
    assert!(matches!(
        run(&two, &input),
        Some(MemoriesError::Count { .. })
    ));
}

#[test]
fn the_checker_names_the_buffer_for_each_broken_rule() {
    let problem = Problem::new(vec![
        Buffer::new("a", 0, 3, 4),
        Buffer::new("b", 0, 2, 4),
        Buffer::new("c", 1, 3, 4),
    ])
    .unwrap();
    let memories = [
        Memory::new("tcm").with_capacity(8),
        Memory::new("ocram").with_capacity(8).with_alignment(4),
        Memory::new("dram"),
    ];
    let allowed = [
        MemorySet::all(3),
        MemorySet::single(MemoryIdx(2)),
        MemorySet::of([MemoryIdx(0), MemoryIdx(1)]),
    ];
    let input = MemoriesInput {
        allowed: Some(&allowed),
        ..MemoriesInput::default()
    };
    let request = Request::minimise().with_budget(Budget::unlimited());
    let report = plan_across(
        &problem,
        &memories,
        &input,
        &request,
        &MemoriesOptions::default(),
    )
    .unwrap();
    let good = report.plan().unwrap().clone();
    check_memories(&problem, &memories, &input, &good).unwrap();
    let first = |plan: &memplan::memories::MemoryPlan| {
        check_memories(&problem, &memories, &input, plan)
            .unwrap_err()
            .violations
            .remove(0)
    };
    // b is pinned to dram.
    let mut p = good.clone();
    p.memory[1] = MemoryIdx(0);
    assert!(matches!(first(&p), Violation::NotAllowed { index: 1, .. }));
    // c may not use dram.
    let mut p = good.clone();
    p.memory[2] = MemoryIdx(2);
    assert!(matches!(first(&p), Violation::NotAllowed { index: 2, .. }));
    // Above tcm's capacity.
    let mut p = good.clone();
    p.memory[0] = MemoryIdx(0);
    p.offsets[0] = memplan::Offset(8);
    let v = first(&p);
    assert!(matches!(v, Violation::InMemory { .. }), "{v}");
    assert!(v.to_string().contains("'a'"), "{v}");
    // Misaligned in ocram.
    let mut p = good.clone();
    p.memory[0] = MemoryIdx(1);
    p.offsets[0] = memplan::Offset(2);
    assert!(matches!(
        first(&p),
        Violation::MemoryMisaligned { index: 0, .. }
    ));
    // An address past 2^64 in dram names the buffer.
    let mut p = good.clone();
    p.memory[1] = MemoryIdx(2);
    p.offsets[1] = memplan::Offset(u64::MAX - 1);
    let v = first(&p);
    assert!(matches!(v, Violation::InMemory { .. }), "{v}");
    assert!(
        v.to_string().contains("buffer 'b'") && v.to_string().contains("overflows"),
        "{v}"
    );
    // A false cost.
    let mut p = good;
    p.cost += 1;
    assert!(matches!(first(&p), Violation::MemoryCost { .. }));
}

#[test]
fn two_memories_are_spill() {
    // The spill form and the two-memory form give the same plan and bound.
    let mut src = ByteSource::new(3);
    for _ in 0..20 {
        let inst = random_instance(&mut src, 20, 2);
        let Some(capacity) = inst.memories[0].capacity else {
            continue;
        };
        let two = [
            Memory::new("fast").with_capacity(capacity.get()),
            Memory::new("slow"),
        ];
        let request = Request::minimise().with_budget(Budget::unlimited());
        let a = plan_across(
            &inst.problem,
            &two,
            &MemoriesInput::default(),
            &request,
            &MemoriesOptions::default(),
        )
        .unwrap();
        let s = memplan::memories::plan_spill(
            &inst.problem,
            None,
            None,
            &Request::fit(capacity).with_budget(Budget::unlimited()),
            &MemoriesOptions::default(),
        )
        .unwrap();
        assert_eq!(a.lower_bound, s.lower_bound);
        assert_eq!(a.plan().map(|p| p.cost), s.plan().map(|p| p.cost));
        assert_eq!(
            a.plan().map(|p| p.offsets.clone()),
            s.plan().map(|p| p.offsets.clone())
        );
    }
}

#[test]
fn a_time_limit_of_zero_still_answers_validly() {
    let mut src = ByteSource::new(5);
    for _ in 0..20 {
        let inst = random_instance(&mut src, 40, 3);
        let request =
            Request::minimise().with_budget(Budget::new().with_time_limit(Duration::ZERO));
        if let Ok(r) = plan_across(
            &inst.problem,
            &inst.memories,
            &inst.input(),
            &request,
            &MemoriesOptions::default(),
        ) {
            assert_valid(&inst, &r);
        }
    }
}

#[test]
fn fuzz_body_smoke() {
    let mut src = ByteSource::new(23);
    let started = Instant::now();
    let mut cases = 0;
    let wanted: Option<usize> = std::env::var("MEMORIES_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok());
    let (max, min) = wanted.map_or((300, 30), |n| (n, n));
    while cases < max && (cases < min || started.elapsed() < Duration::from_secs(10)) {
        let bytes = src.bytes(512);
        let outcome = std::panic::catch_unwind(|| memplan::memories::fuzz_memories(&bytes));
        assert!(
            outcome.is_ok(),
            "fuzz_memories failed on case {cases}: {bytes:?}"
        );
        cases += 1;
    }
}

/// Without costs the last memory serves what the earlier ones leave: its gap is 0, so a
/// plan whose first memory is at its bound has every memory optimal (the unbounded DRAM
/// once reported the TCM's traffic as its gap).
#[test]
fn the_last_memory_without_costs_has_no_gap() {
    let csv = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/shares/decoder.csv"
    ))
    .unwrap();
    let with = memplan::io::read_problem_csv(&csv, &memplan::io::ReadOptions::default()).unwrap();
    for problem in [with.without_shares(), with] {
        for tcm in [300_000u64, 700_000, 1_400_000] {
            let memories = vec![Memory::new("tcm").with_capacity(tcm), Memory::new("dram")];
            let report = plan_across(
                &problem,
                &memories,
                &MemoriesInput::default(),
                &Request::minimise(),
                &MemoriesOptions::default(),
            )
            .unwrap();
            let gaps = report.memory_gaps();
            assert_eq!(gaps.len(), 2);
            assert_eq!(gaps[1], 0, "tcm {tcm}: {gaps:?}");
            let plan = report.plan().unwrap();
            assert!(report.traffic_bounds[0] >= plan.traffic[0]);
        }
    }
}

#[test]
fn the_least_heights_lower_the_bounded_memories_and_move_no_buffer() {
    // The last memory roomy (twice the max load), as an ExecuTorch bank is: its level
    // only places under the capacity, and the re-plan at the least height lowers it.
    let mut src = ByteSource::new(52);
    let mut lowered = 0;
    for case in 0..40 {
        let mut inst = random_instance(&mut src, 24, 3);
        let load = max_load(&inst.problem).get();
        inst.memories[2].capacity = Some(Size(2 * load.max(1)));
        let off = MemoriesOptions {
            least_heights: false,
            ..MemoriesOptions::default()
        };
        let (Ok(a), Ok(b)) = (inst.run(&off), inst.run(&MemoriesOptions::default())) else {
            continue;
        };
        assert_valid(&inst, &b);
        assert_eq!(a.lower_bound, b.lower_bound, "case {case}");
        assert_eq!(a.traffic_bounds, b.traffic_bounds, "case {case}");
        match (a.plan(), b.plan()) {
            (Some(p), Some(q)) => {
                assert_eq!(p.memory, q.memory, "case {case}: a buffer moved");
                assert_eq!((p.cost, &p.traffic), (q.cost, &q.traffic), "case {case}");
                for m in 0..3 {
                    assert!(q.heights[m] <= p.heights[m], "case {case}: memory {m} grew");
                }
                lowered += usize::from(q.heights != p.heights);
            }
            (None, None) => {}
            _ => panic!("case {case}: a plan with the least heights and not without, or back"),
        }
    }
    assert!(
        lowered >= 5,
        "the least heights lowered only {lowered} plans"
    );
}

#[test]
fn the_unshared_heights_are_the_heights_of_the_plan_without_the_optional_shares() {
    // What a door reports as the bytes the shares save per memory: the same call's plan
    // without them is the plan of the problem without them.
    let mut src = ByteSource::new(45);
    let mut compared = 0;
    for case in 0..30 {
        let inst = random_instance(&mut src, 16, 3);
        let bufs = inst.problem.buffers().to_vec();
        if bufs.len() < 2 {
            continue;
        }
        let shares = (0..bufs.len() / 2)
            .map(|k| Share::in_place(bufs[2 * k + 1].id.clone(), bufs[2 * k].id.clone()))
            .collect();
        let Ok(shared) = Problem::with_shares(bufs, shares) else {
            continue;
        };
        let request = Request::minimise().with_budget(Budget::unlimited());
        let options = MemoriesOptions::default();
        let with = plan_across(&shared, &inst.memories, &inst.input(), &request, &options);
        let (Ok(with), Ok(without)) = (with, inst.run(&options)) else {
            continue;
        };
        if let (Some(p), Some(q)) = (with.plan(), without.plan()) {
            assert_eq!(with.unshared_heights, q.heights, "case {case}");
            assert!(p.cost <= q.cost, "case {case}: the shares cost more");
            compared += 1;
        }
        assert!(without.unshared_heights.is_empty());
    }
    assert!(compared >= 15, "only {compared} compared");
}

/// Issue 52: the least-heights stage (`lower.rs`) runs on what is left of the call's work
/// limit, not on a limit of its own. Across two memories, with the limit spent by the
/// levels, the stage adds at most one greedy pass over the fast memory's buffers (the
/// first plan always finishes, a quarter of a unit a buffer); a stage that restarted the
/// budget spent the whole limit again.
#[test]
fn issue_52_a_work_limit_holds_across_the_least_heights_stage() {
    let problem = memplan::testing::generate_model_like(&memplan::testing::GenOptions {
        buffers: 3000,
        seed: 11,
    });
    let load = max_load(&problem).get();
    let memories = [
        Memory::new("fast").with_capacity(load * 3 / 4),
        Memory::new("slow"),
    ];
    let n = problem.len() as u64;
    for limit in [200, 2_000, 20_000] {
        let request = Request::minimise().with_budget(Budget::new().with_work_limit(limit));
        let run = |least_heights| {
            let options = MemoriesOptions {
                least_heights,
                ..MemoriesOptions::default()
            };
            plan_across(
                &problem,
                &memories,
                &MemoriesInput::default(),
                &request,
                &options,
            )
            .unwrap()
        };
        let (with, without) = (run(true), run(false));
        assert!(with.plan().is_some(), "limit {limit}: no plan");
        assert!(
            with.work <= limit.max(without.work) + n / 2,
            "limit {limit}: {} work units with the stage, {} without",
            with.work,
            without.work
        );
    }
}
