//! The library's door, for the four-door test (`crates/memplan-py/tests/test_four_doors.py`):
//! plans a CSV problem with `Request::minimise()` and `Options::default()` (or with the
//! planner named by the second argument) and prints one offset per line, then `optimal` or `feasible`.
//!
//! ```text
//! cargo run --release -p memplan --example plan_csv -- FILE.csv [PLANNER]
//! ```

use memplan::io::{read_problem_csv, ReadOptions};
use memplan::{plan, Options, Outcome, Request};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: plan_csv FILE.csv [PLANNER]")?;
    let mut options = Options::default();
    if let Some(planner) = args.next() {
        options.planner = planner.parse()?;
    }
    let problem = read_problem_csv(&std::fs::read(&path)?, &ReadOptions::default())?;
    let report = plan(&problem, &Request::minimise(), &options)?;
    let (plan, status) = match &report.outcome {
        Outcome::Optimal(p) => (p, "optimal"),
        Outcome::Feasible { plan, .. } => (plan, "feasible"),
        other => return Err(format!("{path}: no plan: {other:?}").into()),
    };
    let mut out = String::new();
    for o in plan.offsets() {
        out += &format!("{}\n", o.get());
    }
    println!("{out}{status}");
    Ok(())
}
