//! `memplan.tflite.plan_model`: the TFLite Micro door (`memplan_tflite`), returning a
//! `Plan` whose ids are the tensors' names, and the planned model's bytes.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use memplan::{Options, Planner};
use memplan_tflite::{PlanOptions, ScratchOptions, ScratchRequest, TfliteError};

use crate::{CheckError, InfeasibleError, InputError, MemplanError, NoPlanFoundError, Plan};

/// The library's error as the package's exception, naming the model.
fn py_error(name: &str, e: TfliteError) -> PyErr {
    let hint = if matches!(e, TfliteError::HasPlan { .. }) {
        "; force=True replaces it"
    } else {
        ""
    };
    let message = format!("{name}: {e}{hint}");
    match e {
        TfliteError::NoFit { proven: true, .. } => InfeasibleError::new_err(message),
        TfliteError::NoFit { proven: false, .. } => NoPlanFoundError::new_err(message),
        TfliteError::Check(_) => CheckError::new_err(message),
        TfliteError::Plan(_) | TfliteError::Internal(_) => MemplanError::new_err(message),
        _ => InputError::new_err(message),
    }
}

/// ``_plan_tflite(model, name, ...) -> (Plan, bytes, subgraphs)``: see
/// ``memplan.tflite.plan_model``, which reads the file (``name`` names the model in
/// messages) and writes the planned bytes.
#[pyfunction]
#[pyo3(signature = (model, name, planner, time_limit, capacity, force, threads, reference_scratch, scratch, work_limit=None, in_place=false))]
#[allow(clippy::too_many_arguments)]
pub fn _plan_tflite<'py>(
    py: Python<'py>,
    model: &[u8],
    name: &str,
    planner: &str,
    time_limit: Option<f64>,
    capacity: Option<u64>,
    force: bool,
    threads: usize,
    reference_scratch: bool,
    scratch: Vec<(usize, usize, u64)>,
    work_limit: Option<&Bound<'_, PyAny>>,
    in_place: bool,
) -> PyResult<(Plan, Bound<'py, PyBytes>, usize)> {
    let planner: Planner = planner
        .parse()
        .map_err(|e: memplan::PlanError| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let request = memplan::Request {
        goal: memplan::Goal::from_capacity(capacity.map(memplan::Size)),
        budget: crate::budget(time_limit, work_limit)?,
    };
    let options = PlanOptions {
        request,
        plan: Options {
            planner,
            threads,
            ..Options::default()
        },
        replace_existing: force,
        in_place,
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
        .detach(|| memplan_tflite::plan_model(model, &options))
        .map_err(|e| py_error(name, e))?;
    let a = &planned.analysis;
    let plan = match &planned.report.outcome {
        memplan::Outcome::Optimal(p) | memplan::Outcome::Feasible { plan: p, .. } => p,
        _ => unreachable!("plan_model returns only a model with a plan"),
    };
    let lower_bound = planned.report.lower_bound.get();
    let result = Plan::new(
        plan.offsets().iter().map(|o| o.get()).collect(),
        a.problem.buffers().iter().map(|b| b.id.clone()).collect(),
        planned.height,
        planned.report.max_load.get(),
        lower_bound,
        planned.optimal,
        planned.report.planner.name(),
        planned.report.elapsed.as_secs_f64(),
        (planned.report.work, planned.report.stopped_by),
    );
    Ok((result, PyBytes::new(py, &planned.bytes), a.subgraphs))
}

/// ``_multi_subgraph_note() -> str``: the TFLM version a model of several subgraphs
/// needs, as the CLI says it.
#[pyfunction]
pub fn _multi_subgraph_note() -> String {
    memplan_tflite::multi_subgraph_note()
}
