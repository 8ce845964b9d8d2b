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
        request: memplan::Request::minimise().with_budget(memplan::Budget::unlimited()),
        plan: memplan::Options {
            planner: memplan::Planner::GreedyPortfolio,
            threads: 1,
            ..memplan::Options::default()
        },
        replace_existing: true,
        // A scratch request on the first operator too, when there is one.
        scratch: crate::ScratchOptions {
            reference_kernels: true,
            extra: vec![crate::ScratchRequest {
                subgraph: 0,
                operator: 0,
                bytes: 24,
            }],
        },
    };
    let planned = match plan_model(data, &options) {
        Ok(p) => p,
        // No operator 0: plan without the extra request.
        Err(crate::TfliteError::Invalid { at, .. }) if at.starts_with("scratch request") => {
            let options = PlanOptions {
                scratch: crate::ScratchOptions::default(),
                ..options
            };
            match plan_model(data, &options) {
                Ok(p) => p,
                Err(_) => return,
            }
        }
        Err(_) => return,
    };
    let again = analyze(&planned.bytes).expect("a written model reads back");
    let (_, offsets) = again
        .existing_plan
        .expect("a written model carries its plan");
    assert_eq!(offsets, planned.offsets);
    check_offsets(&again.tensors, &offsets).expect("a written plan passes the checker");
}
