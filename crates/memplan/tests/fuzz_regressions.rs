//! Inputs on which fuzzing (the smoke test or `cargo fuzz`) once found a crash or a
//! wrong answer, shrunk by hand. Every planner runs on each, and every outcome goes
//! through the same consistency check as the fuzz targets (checker included).

use memplan::fuzzing::targets::assert_report_consistent;
use memplan::{plan, Budget, Buffer, Goal, Options, Planner, Problem, Request, Size};

/// `problem`, planned for its capacity (minimised without one).
fn every_planner_is_consistent_on((problem, capacity): &(Problem, Option<Size>)) {
    let request = Request {
        goal: Goal::from_capacity(*capacity),
        budget: Budget::unlimited().with_node_limit(2_000),
    };
    for planner in Planner::all() {
        for threads in [1, 2] {
            let mut options = Options {
                planner,
                threads,
                verify: false,
                ..Options::default()
            };
            options.boxing.iterations = 3;
            let report =
                plan(problem, &request, &options).unwrap_or_else(|e| panic!("{planner}: {e}"));
            assert_report_consistent(problem, *capacity, &report);
        }
    }
}

fn problem(buffers: Vec<Buffer>, capacity: Option<u64>) -> (Problem, Option<Size>) {
    (Problem::new(buffers).unwrap(), capacity.map(Size))
}

/// A buffer whose gaps cover its whole lifetime is live at no time: breadth order never
/// listed it, the exact model gave it no section, TelaMalloc's phases missed it and its
/// size (absent from the max load) went under the probed capacity.
#[test]
fn buffers_gapped_over_their_whole_lifetime() {
    every_planner_is_consistent_on(&problem(
        vec![
            Buffer::new("a", 0, 4, 8).with_gap(0, 4),
            Buffer::new("b", 0, 4, 8),
        ],
        None,
    ));
    every_planner_is_consistent_on(&problem(
        vec![
            Buffer::new("1", 1, 3, 2)
                .with_alignment(4_194_304)
                .with_gap(1, 2)
                .with_gap(2, 3),
            Buffer::new("7", 0, 2, 11).with_alignment(33_554_432),
            Buffer::new("8", 1, 2, 74).with_alignment(64),
        ],
        None,
    ));
    every_planner_is_consistent_on(&problem(
        vec![Buffer::new("0", 56, 59, 2)
            .with_gap(56, 57)
            .with_gap(57, 59)],
        None,
    ));
    every_planner_is_consistent_on(&problem(
        vec![Buffer::new("4", 3, 5, 7_454_876_936)
            .with_alignment(536_870_912)
            .with_gap(3, 5)],
        None,
    ));
    every_planner_is_consistent_on(&problem(
        vec![
            Buffer::new("3", 15, 16, 35_460_827_290_557_936).with_fixed_offset(0),
            Buffer::new("4", 2, 5, 9_491_583_049_249)
                .with_fixed_offset(0)
                .with_gap(4, 5),
            Buffer::new("6", 7, 9, 27_586_672_099_070).with_gap(7, 9),
        ],
        Some(36_170_043_836_369_094),
    ));
    // Capacity below the never-live buffer's size but above the max load.
    every_planner_is_consistent_on(&problem(
        vec![
            Buffer::new("a", 0, 4, 100).with_gap(0, 4),
            Buffer::new("b", 0, 4, 8),
        ],
        Some(50),
    ));
}

/// Sizes near 2^53: boxing's dummy job (about 2217 times the smallest size) overflowed.
#[test]
fn boxing_with_huge_sizes() {
    every_planner_is_consistent_on(&problem(
        vec![
            Buffer::new(
                "15",
                205_803_560_161,
                278_348_735_588,
                2_243_719_482_366_944,
            )
            .with_alignment(1_048_576)
            .with_gap(237_636_170_947, 255_785_288_720),
            Buffer::new(
                "18",
                180_091_866_821,
                219_843_014_390,
                8_028_053_949_505_288,
            )
            .with_alignment(8192)
            .with_gap(216_343_402_905, 219_027_933_946)
            .with_gap(219_253_777_095, 219_284_481_505),
        ],
        Some(12_428_932_804_980_364),
    ));
}

/// TelaMalloc answered `Unknown` with a greedy plan that fits the capacity (huge
/// alignments made its own search give up).
#[test]
fn telamalloc_never_calls_a_fitting_plan_unknown() {
    every_planner_is_consistent_on(&problem(
        vec![
            Buffer::new("0", 2_486_234_468, 3_070_133_988, 191).with_alignment(262_144),
            Buffer::new("2", 9_135_469_078, 10_329_530_140, 44),
            Buffer::new("3", 21_242_416_261, 21_537_717_409, 1569),
            Buffer::new("4", 2_867_712_711, 3_974_025_415, 5).with_alignment(1 << 51),
            Buffer::new("5", 13_495_777_602, 16_121_206_071, 25),
            Buffer::new("6", 19_254_474_955, 21_450_610_886, 3803).with_alignment(1 << 57),
            Buffer::new("7", 7_217_483_146, 10_425_330_570, 32_446_050_832_102),
        ],
        Some(9_497_036_191_121_659),
    ));
}

/// Issue 37, found by `cargo fuzz run plan_auto` in its first seconds: on the empty input
/// (an empty problem) at a work limit of 0, the first plan's pass charges its one unit,
/// which the body's bound on the work (the limit plus one pass of n buffers) did not
/// allow for. The body now allows the first pass and the cheap bounds, at least a unit
/// each; this runs it on the empty input and on one-buffer problems.
#[test]
fn issue_37_a_work_limit_of_zero_on_tiny_problems() {
    memplan::fuzzing::targets::plan_auto(&[]);
    memplan::fuzzing::targets::plan_auto(&[0; 64]);
    for n in [0usize, 1, 2] {
        let buffers = (0..n)
            .map(|i| Buffer::new(format!("b{i}"), 0, 2, 8))
            .collect();
        let p = Problem::new(buffers).unwrap();
        let request = Request::minimise().with_budget(Budget::new().with_work_limit(0));
        let report = plan(&p, &request, &Options::default()).unwrap();
        assert_report_consistent(&p, None, &report);
        assert!(
            report.work <= 2 + n as u64 / 2,
            "{n} buffers: {}",
            report.work
        );
    }
}
