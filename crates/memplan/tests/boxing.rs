//! The boxing planner: every plan passes the independent checker, on random instances
//! that exercise the dummy-job path (size ratio at most 2216.53), equal sizes, no
//! overlap, alignment, fixed buffers and gaps; a seed gives one plan whatever the thread
//! count; the options that must not change the plan do not.

use memplan::testing::{generate_model_like, GenOptions};
use memplan::{
    check, max_load, plan, BoxingOptions, Budget, Buffer, CompactionFit, Options, Outcome, Plan,
    PlanToBeat, Planner, Problem, Request,
};
use proptest::prelude::*;

fn boxing(iterations: u32, seed: u64, threads: usize) -> Options {
    Options {
        planner: Planner::Boxing,
        threads,
        boxing: BoxingOptions {
            iterations,
            seed,
            ..BoxingOptions::default()
        },
        ..Options::default()
    }
}

/// Minimise with no clock: the plan depends on the input and the options alone.
fn unlimited() -> Request {
    Request::minimise().with_budget(Budget::unlimited())
}

const PLANS_TO_BEAT: [PlanToBeat; 3] = [
    PlanToBeat::None,
    PlanToBeat::SizeThenLifetime,
    PlanToBeat::Greedy,
];

fn run(problem: &Problem, options: &Options) -> Plan {
    run_within(problem, options, None)
}

/// [`run`] with a node limit on each search (the exact search's, in the default planner).
fn run_within(problem: &Problem, options: &Options, nodes: Option<u64>) -> Plan {
    let request = Request {
        budget: unlimited().budget.with_node_limit(nodes),
        ..unlimited()
    };
    let report = plan(problem, &request, options).expect("boxing plans");
    let p = report
        .outcome
        .plan()
        .expect("minimise mode has a plan")
        .clone();
    check(problem, &p, None).expect("the plan passes the checker");
    assert!(p.height() >= report.max_load);
    p
}

#[derive(Clone, Debug)]
struct Spec {
    start: u64,
    len: u64,
    size: u64,
    align: u64,
    gap: bool,
    fixed: bool,
}

fn spec(max_size: u64) -> impl Strategy<Value = Spec> {
    (
        0u64..60,
        1u64..25,
        1..=max_size,
        prop_oneof![4 => Just(1u64), 1 => Just(8u64), 1 => Just(64u64)],
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.05),
    )
        .prop_map(|(start, len, size, align, gap, fixed)| Spec {
            start,
            len,
            size,
            align,
            gap,
            fixed,
        })
}

/// Builds a valid problem; fixed buffers that would collide are left free.
fn build(specs: &[Spec]) -> Problem {
    let mut bufs = Vec::new();
    let mut fixed_top = 0u64;
    for (i, s) in specs.iter().enumerate() {
        let mut b =
            Buffer::new(format!("b{i}"), s.start, s.start + s.len, s.size).with_alignment(s.align);
        if s.gap && s.len >= 3 {
            b = b.with_gap(s.start + 1, s.start + 2);
        }
        if s.fixed {
            // Stack fixed buffers so that no two collide.
            let o = fixed_top.div_ceil(s.align) * s.align;
            fixed_top = o + s.size;
            b = b.with_fixed_offset(o);
        }
        bufs.push(b);
    }
    Problem::new(bufs).expect("valid by construction")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Small size ratios: the dummy job is added (h_max / h_min <= 2216.53).
    #[test]
    fn valid_with_the_dummy_job(specs in prop::collection::vec(spec(40), 1..60), seed in 0u64..1000) {
        let p = build(&specs);
        // Without a plan to beat the plan is boxing's own.
        let mut o = boxing(4, seed, 1);
        o.boxing.plan_to_beat = PlanToBeat::None;
        run(&p, &o);
    }

    /// Wide size ratios: no dummy job, several rounds of Theorem 16.
    #[test]
    fn valid_with_wide_sizes(specs in prop::collection::vec(spec(1 << 24), 1..80), seed in 0u64..1000) {
        let p = build(&specs);
        let mut o = boxing(4, seed, 2);
        o.boxing.plan_to_beat = PlanToBeat::None;
        run(&p, &o);
    }

    /// Plans above 4 GiB: the squeeze's wide path.
    #[test]
    fn valid_above_four_gib(specs in prop::collection::vec(spec(1 << 40), 2..50), seed in 0u64..1000) {
        let p = build(&specs);
        let mut o = boxing(3, seed, 2);
        o.boxing.plan_to_beat = PlanToBeat::None;
        run(&p, &o);
    }

    /// All sizes equal: interval graph colouring is optimal.
    #[test]
    fn equal_sizes_are_optimal(spans in prop::collection::vec((0u64..50, 1u64..20), 1..60), size in 1u64..100) {
        let bufs = spans.iter().enumerate()
            .map(|(i, &(s, l))| Buffer::new(format!("b{i}"), s, s + l, size))
            .collect();
        let p = Problem::new(bufs).unwrap();
        let report = plan(&p, &unlimited(), &boxing(3, 0, 1)).unwrap();
        let Outcome::Optimal(plan) = &report.outcome else { panic!("not optimal: {:?}", report.outcome) };
        check(&p, plan, None).unwrap();
    }

    /// No two buffers overlap: everything at offset 0, optimal.
    #[test]
    fn no_overlap_is_optimal(sizes in prop::collection::vec(1u64..1000, 1..40)) {
        let bufs = sizes.iter().enumerate()
            .map(|(i, &s)| Buffer::new(format!("b{i}"), 2 * i as u64, 2 * i as u64 + 2, s))
            .collect();
        let p = Problem::new(bufs).unwrap();
        let report = plan(&p, &unlimited(), &boxing(3, 0, 1)).unwrap();
        let Outcome::Optimal(plan) = &report.outcome else { panic!("not optimal") };
        prop_assert_eq!(plan.height(), max_load(&p));
    }

    /// Stopping losing iterations early and the thread count change the time, not the plan.
    #[test]
    fn same_plan_whatever_threads_and_stopping(specs in prop::collection::vec(spec(5000), 1..60), seed in 0u64..1000, to_beat in 0usize..3) {
        let p = build(&specs);
        let mut reference = None;
        for threads in [1, 2, 3] {
            for stop in [true, false] {
                let mut o = boxing(6, seed, threads);
                o.boxing.stop_losing_iterations = stop;
                o.boxing.plan_to_beat = PLANS_TO_BEAT[to_beat];
                let got = run(&p, &o);
                match &reference {
                    None => reference = Some(got),
                    Some(r) => prop_assert_eq!(r, &got),
                }
            }
        }
    }

    /// Every combination of the boolean options gives a valid plan.
    #[test]
    fn every_option_combination_is_valid(specs in prop::collection::vec(spec(1 << 16), 1..40), mask in 0u32..256) {
        let p = build(&specs);
        let mut o = boxing(3, 7, 2);
        o.boxing.plan_to_beat = PLANS_TO_BEAT[(mask as usize & 1) + (mask as usize >> 7 & 1)];
        o.boxing.stop_losing_iterations = mask & 2 != 0;
        o.boxing.calibrate_epsilon = mask & 4 != 0;
        o.boxing.compaction = [CompactionFit::FirstFit, CompactionFit::BestFit, CompactionFit::Alternate][(mask as usize >> 3) % 4 % 3];
        o.boxing.in_portfolio = mask & 32 != 0;
        o.boxing.inherit_critical_times = mask & 64 != 0;
        o.boxing.polish_moves = if mask & 128 != 0 { 50 } else { 0 };
        run(&p, &o);
        // The default planner with boxing in its refinement; no clock, so the exact
        // search gets a node limit.
        o.planner = Planner::Auto;
        run_within(&p, &o, Some(2_000));
    }
}

/// Boxing never does worse than its plan to beat: size-then-lifetime first-fit, or every
/// greedy planner.
#[test]
fn never_worse_than_its_plan_to_beat() {
    for seed in 0..4 {
        let p = generate_model_like(&GenOptions {
            buffers: 3000,
            seed,
        });
        let greedy = |name: &str| {
            run(
                &p,
                &Options {
                    planner: name.parse().unwrap(),
                    ..Options::default()
                },
            )
            .height()
        };
        let mut o = boxing(3, seed, 2);
        o.boxing.plan_to_beat = PlanToBeat::SizeThenLifetime;
        assert!(run(&p, &o).height() <= greedy("size-first-fit"));
        o.boxing.plan_to_beat = PlanToBeat::Greedy;
        let boxed = run(&p, &o).height();
        for order in ["size", "area", "lifetime", "start", "contention", "breadth"] {
            for fit in ["first-fit", "best-fit"] {
                assert!(boxed <= greedy(&format!("{order}-{fit}")), "{order}-{fit}");
            }
        }
    }
}

/// The peak repair never raises the height of the plan it is given, and keeps it valid
/// (`run` checks every plan).
#[test]
fn polish_never_raises_the_height() {
    for seed in 0..4 {
        let p = generate_model_like(&GenOptions {
            buffers: 2000,
            seed,
        });
        let mut o = boxing(4, seed, 2);
        o.boxing.polish_moves = 0;
        let plain = run(&p, &o);
        o.boxing.polish_moves = 300;
        let polished = run(&p, &o);
        assert!(polished.height() <= plain.height());
    }
}

/// A target fragmentation as large as the plan to beat's stops at once with that plan, and
/// different seeds are allowed to differ but each is reproducible.
#[test]
fn target_and_seeds() {
    let p = generate_model_like(&GenOptions {
        buffers: 2000,
        seed: 9,
    });
    let mut o = boxing(5, 1, 2);
    o.boxing.target_fragmentation = u64::MAX / 4;
    o.boxing.plan_to_beat = PlanToBeat::SizeThenLifetime;
    let first = run(&p, &o);
    let slff = run(
        &p,
        &Options {
            planner: "size-first-fit".parse().unwrap(),
            ..Options::default()
        },
    );
    assert_eq!(first, slff);
    for seed in [3, 4] {
        assert_eq!(run(&p, &boxing(3, seed, 1)), run(&p, &boxing(3, seed, 2)));
    }
}

/// The planner's name round-trips and is listed.
#[test]
fn boxing_is_a_named_planner() {
    assert_eq!("boxing".parse::<Planner>().unwrap(), Planner::Boxing);
    assert!(Planner::all().contains(&Planner::Boxing));
}
