//! Regression tests of issue 27 ("the first hour, again"), library side.

use std::path::{Path, PathBuf};

use memplan::io::{read_problem_csv, ReadOptions};
use memplan::{check, plan, Budget, Options, Outcome, Planner, Request, Size};

fn benchmark(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../benchmarks")
        .join(name)
}

/// §1: when no plan under the capacity is found, the plan returned is the lowest any
/// stage found, the exact search's included (before: the greedy pass's, 1,291,264 on D).
/// Without a clock the run is deterministic: the exact search stops at its node limit,
/// and the minimisation that follows within the same limit lowers the best plan.
#[test]
fn issue_27_unknown_returns_the_exact_searchs_best_plan() {
    let bytes = std::fs::read(benchmark("minimalloc-challenging/D.1048576.csv")).unwrap();
    let problem = read_problem_csv(&bytes, &ReadOptions::default()).unwrap();
    let request = Request::fit(Size(1_000_000)).with_budget(Budget::unlimited());
    let greedy = Options {
        planner: Planner::GreedyPortfolio,
        ..Options::default()
    };
    let Outcome::Unknown {
        best_so_far: Some(greedy_best),
        ..
    } = plan(&problem, &request, &greedy).unwrap().outcome
    else {
        panic!("greedy fits D under 1,000,000?")
    };
    for planner in [Planner::Auto, Planner::Exact] {
        let o = Options {
            planner,
            threads: 1,
            ..Options::default()
        };
        let starved = Request {
            budget: request.budget.clone().with_node_limit(1_000),
            ..request.clone()
        };
        let report = plan(&problem, &starved, &o).unwrap();
        let Outcome::Unknown {
            best_so_far: Some(best),
            ..
        } = &report.outcome
        else {
            panic!(
                "{planner}: expected Unknown with a plan, got {:?}",
                report.outcome
            )
        };
        check(&problem, best, None).unwrap();
        assert!(
            best.height() < greedy_best.height(),
            "{planner}: best {} is greedy's {}",
            best.height().get(),
            greedy_best.height().get()
        );
        assert_eq!(report.planner, Planner::Exact, "{planner}");
        let best_candidate = report
            .candidates
            .iter()
            .filter_map(|c| c.height)
            .min()
            .unwrap();
        assert_eq!(
            best_candidate,
            best.height(),
            "{planner}: the report's candidates"
        );
    }
}
