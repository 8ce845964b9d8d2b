//! The body of the `tflite_read` fuzz target (feature `fuzzing`), also run by the tests.

use crate::{analyze, check_offsets, plan_model, PlanOptions};

/// Reads any bytes as a model; when they read, plans them (greedy, replacing any plan)
/// and checks what was written: it reads back, carries the plan, and the plan passes the
/// checker against the written model's own lifetimes. Panics only on a bug.
pub fn read_and_plan(data: &[u8]) {
    if analyze(data).is_err() {
        return;
    }
    let options = PlanOptions {
        plan: memplan::Options {
            planner: memplan::Planner::GreedyPortfolio,
            threads: 1,
            time_limit: None,
            ..memplan::Options::default()
        },
        capacity: None,
        replace_existing: true,
    };
    let Ok(planned) = plan_model(data, &options) else {
        return;
    };
    let again = analyze(&planned.bytes).expect("a written model reads back");
    let (_, offsets) = again
        .existing_plan
        .expect("a written model carries its plan");
    assert_eq!(offsets, planned.offsets);
    check_offsets(&again.tensors, &offsets).expect("a written plan passes the checker");
}
