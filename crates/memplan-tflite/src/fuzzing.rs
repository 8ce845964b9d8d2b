//! The body of the `tflite_read` fuzz target (feature `fuzzing`), also run by the tests.

use crate::{analyze, check_offsets, plan_model, PlanOptions};

/// Reads any bytes as a model; when they read, plans them (greedy, replacing any plan;
/// in place when the file's length is odd) and checks what was written: it reads back,
/// carries the plan, and the plan passes the checker against the written model's own
/// lifetimes (and in-place pairs, when planned in place); in place, the head is never
/// above the plan without sharing. Panics only on a bug.
pub fn read_and_plan(data: &[u8]) {
    if analyze(data).is_err() {
        return;
    }
    let in_place = data.len() % 2 == 1;
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
        in_place,
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
        .clone()
        .expect("a written model carries its plan");
    assert_eq!(offsets, planned.offsets);
    if in_place {
        again
            .check_offsets(&offsets, true)
            .expect("a written plan passes the checker with its in-place pairs");
        let report = planned
            .in_place
            .expect("an in-place plan reports its shares");
        if let Some(without) = report.height_without {
            assert!(planned.height <= without, "in place is never larger");
        }
    } else {
        check_offsets(&again.tensors, &offsets).expect("a written plan passes the checker");
    }
}
