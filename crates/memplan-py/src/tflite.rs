//! `memplan.tflite.plan_model`: the TFLite Micro door (`memplan_tflite`), returning a
//! `Plan` whose ids are the tensors' names.

use pyo3::prelude::*;

use memplan::{Options, Planner};
use memplan_tflite::{PlanOptions, ScratchOptions, ScratchRequest, TfliteError};

use crate::{CheckError, InfeasibleError, InputError, MemplanError, NoPlanFoundError, Plan};

/// The library's error as the package's exception, naming the file.
fn py_error(path: &str, e: TfliteError) -> PyErr {
    let message = format!("{path}: {e}");
    match e {
        TfliteError::NoFit { proven: true, .. } => InfeasibleError::new_err(message),
        TfliteError::NoFit { proven: false, .. } => NoPlanFoundError::new_err(message),
        TfliteError::Check(_) => CheckError::new_err(message),
        TfliteError::Plan(_) | TfliteError::Internal(_) => MemplanError::new_err(message),
        _ => InputError::new_err(message),
    }
}

/// ``_plan_tflite(src, dst, ...)``: see ``memplan.tflite.plan_model``.
#[pyfunction]
#[pyo3(signature = (src, dst, planner, time_limit, capacity, force, threads, reference_scratch, scratch, work_limit=None))]
#[allow(clippy::too_many_arguments)]
pub fn _plan_tflite(
    py: Python<'_>,
    src: std::path::PathBuf,
    dst: Option<std::path::PathBuf>,
    planner: &str,
    time_limit: Option<f64>,
    capacity: Option<u64>,
    force: bool,
    threads: usize,
    reference_scratch: bool,
    scratch: Vec<(usize, usize, u64)>,
    work_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Plan> {
    let planner: Planner = planner
        .parse()
        .map_err(|e: memplan::PlanError| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let request = memplan::Request {
        goal: memplan::Goal::from_capacity(capacity.map(memplan::Size)),
        budget: crate::budget(time_limit, work_limit)?,
    };
    let path = src.display().to_string();
    let bytes = std::fs::read(&src).map_err(|e| InputError::new_err(format!("{path}: {e}")))?;
    let options = PlanOptions {
        request,
        plan: Options {
            planner,
            threads,
            ..Options::default()
        },
        replace_existing: force,
        scratch: ScratchOptions {
            reference_kernels: reference_scratch,
            extra: scratch
                .into_iter()
                .map(|(subgraph, operator, bytes)| ScratchRequest {
                    subgraph,
                    operator,
                    bytes,
                })
                .collect(),
        },
    };
    let planned = py
        .detach(|| memplan_tflite::plan_model(&bytes, &options))
        .map_err(|e| py_error(&path, e))?;
    if let Some(dst) = dst {
        std::fs::write(&dst, &planned.bytes)
            .map_err(|e| MemplanError::new_err(format!("{}: {e}", dst.display())))?;
    }
    let a = &planned.analysis;
    let plan = match &planned.report.outcome {
        memplan::Outcome::Optimal(p) | memplan::Outcome::Feasible { plan: p, .. } => p,
        _ => unreachable!("plan_model returns only a model with a plan"),
    };
    let lower_bound = planned.report.lower_bound.get();
    Ok(Plan::new(
        plan.offsets().iter().map(|o| o.get()).collect(),
        a.problem.buffers().iter().map(|b| b.id.clone()).collect(),
        planned.height,
        planned.report.max_load.get(),
        lower_bound,
        planned.optimal,
        planned.report.planner.name(),
        planned.report.elapsed.as_secs_f64(),
        (planned.report.work, planned.report.stopped_by),
    ))
}
