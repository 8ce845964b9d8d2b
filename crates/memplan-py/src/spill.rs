//! `memplan.plan_spill` and `memplan.SpillPlan`: spill, the two-memory form of several
//! memories (`memplan::memories::plan_spill`), for Python.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use memplan::memories::{
    check_memories, spill_request, MemoriesError, MemoriesOptions, MemoryIdx, SpillError,
    SpillInput, SpillMemory,
};
use memplan::{Outcome, Size};

use crate::convert::{py_id, py_ids};
use crate::{CheckError, InfeasibleError, InputError, MemplanError, NoPlanFoundError, Problem};

/// A two-level plan returned by ``plan_spill``, indexed like the problem's buffers:
/// ``spilled`` (True: in slow memory), ``memory`` (``"fast"`` or ``"slow"``), ``offsets``
/// (each buffer's offset in its own level), ``ids``; and the figures ``cost`` (the total
/// cost of the spilled buffers), ``lower_bound`` (no valid plan costs less), ``gap``
/// (``cost - lower_bound``), ``optimal`` (the gap is 0), ``fast_capacity``,
/// ``fast_height`` (at most the capacity), ``slow_height`` and ``elapsed`` (seconds).
/// ``to_dict()`` gives ``{id: (memory, offset)}``.
#[pyclass(frozen, module = "memplan")]
pub struct SpillPlan {
    /// True for the buffers in slow memory.
    #[pyo3(get)]
    spilled: Vec<bool>,
    /// Each buffer's offset in its own level.
    #[pyo3(get)]
    offsets: Vec<u64>,
    ids: Vec<String>,
    int_ids: bool,
    /// The total cost of the spilled buffers.
    #[pyo3(get)]
    cost: u64,
    /// A proven lower bound on the cost of any valid plan.
    #[pyo3(get)]
    lower_bound: u64,
    /// The fast memory's size.
    #[pyo3(get)]
    fast_capacity: u64,
    /// The highest address used in fast memory.
    #[pyo3(get)]
    fast_height: u64,
    /// The highest address used in slow memory.
    #[pyo3(get)]
    slow_height: u64,
    /// Seconds spent planning.
    #[pyo3(get)]
    elapsed: f64,
}

#[pymethods]
impl SpillPlan {
    /// ``"fast"`` or ``"slow"`` per buffer.
    #[getter]
    fn memory(&self) -> Vec<&'static str> {
        self.spilled
            .iter()
            .map(|&s| if s { "slow" } else { "fast" })
            .collect()
    }

    /// ``cost - lower_bound``.
    #[getter]
    fn gap(&self) -> u64 {
        self.cost.saturating_sub(self.lower_bound)
    }

    /// True when the cost equals the proven lower bound.
    #[getter]
    fn optimal(&self) -> bool {
        self.cost == self.lower_bound
    }

    /// The buffers' ids, in the same order (ints when given as ints).
    #[getter]
    fn ids(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        py_ids(py, &self.ids, self.int_ids)
    }

    /// ``{id: (memory, offset)}``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for ((id, &o), &s) in self.ids.iter().zip(&self.offsets).zip(&self.spilled) {
            let level = if s { "slow" } else { "fast" };
            d.set_item(py_id(py, id, self.int_ids)?, (level, o))?;
        }
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.offsets.len()
    }

    fn __repr__(&self) -> String {
        let spilled = self.spilled.iter().filter(|&&s| s).count();
        format!(
            "SpillPlan(cost={}, lower_bound={}, optimal={}, spilled={spilled} of {}, fast_height={}, slow_height={})",
            self.cost,
            self.lower_bound,
            if self.optimal() { "True" } else { "False" },
            self.spilled.len(),
            self.fast_height,
            self.slow_height
        )
    }
}

fn spill_error(e: SpillError) -> PyErr {
    match e {
        SpillError::Memories(MemoriesError::Plan(e)) => MemplanError::new_err(e.to_string()),
        SpillError::Memories(MemoriesError::Overflow(_) | MemoriesError::PlanShape { .. }) => {
            InputError::new_err(e.to_string())
        }
        // Any other error of the planner across memories: its plan failed the check.
        SpillError::Memories(_) => CheckError::new_err(e.to_string()),
        e => InputError::new_err(e.to_string()),
    }
}

/// ``plan_spill(problem, capacity, costs=None, memory=None, time_limit=None,
/// work_limit=None, threads=0, seed=0, verify=True) -> SpillPlan``: two memory levels.
///
/// Chooses the buffers to *spill* to slow memory so that the others fit under
/// ``capacity`` bytes of fast memory, at the least total cost, and plans both levels
/// (the spilled buffers get offsets in a slow arena of their own). ``costs`` is the price
/// of spilling each buffer (default: its size); ``memory`` says where each must live:
/// ``"fast"``, ``"slow"`` or ``"either"`` (or ``None``: the planner's choice, the
/// default). Buffers with a fixed offset always stay fast. Both lists are indexed like
/// the problem's buffers; the problem's own capacity is ignored.
///
/// ``time_limit`` and ``work_limit`` (default: ``DEFAULT_WORK_LIMIT`` work units, the
/// same result on every run; ``time_limit=math.inf`` alone: no limit, node limits still
/// bound the work), ``threads`` (0: one per core; the result does not depend on it), ``seed`` (the improvement phase's random choices) and
/// ``verify`` (check both levels with the independent checker before returning) are as
/// in ``plan``. The result is the best plan found with a proven lower bound on its cost;
/// ``optimal`` when they meet. The GIL is released while planning.
///
/// Raises ``InputError`` for costs or memory of the wrong length, an unknown memory name,
/// or a fixed buffer asked to be slow; ``InfeasibleError`` when the buffers that must
/// stay fast do not fit under the capacity (proven); ``NoPlanFoundError`` when they could
/// not be placed in time; ``ValueError`` for a bad time limit.
///
/// >>> import memplan
/// >>> p = memplan.Problem([("a", 0, 3, 4), ("b", 0, 2, 4), ("c", 1, 3, 4)])
/// >>> s = memplan.plan_spill(p, 8, costs=[9, 3, 5])
/// >>> s.memory, s.cost, s.optimal
/// (['fast', 'slow', 'fast'], 3, True)
#[pyfunction]
#[pyo3(signature = (problem, capacity, costs=None, memory=None, time_limit=None, work_limit=None, threads=0, seed=0, verify=true),
       text_signature = "(problem, capacity, costs=None, memory=None, time_limit=None, work_limit=None, threads=0, seed=0, verify=True)")]
#[allow(clippy::too_many_arguments)]
pub fn plan_spill(
    py: Python<'_>,
    problem: &Problem,
    capacity: u64,
    costs: Option<Vec<u64>>,
    memory: Option<Vec<Option<String>>>,
    time_limit: Option<f64>,
    work_limit: Option<&Bound<'_, PyAny>>,
    threads: usize,
    seed: u64,
    verify: bool,
) -> PyResult<SpillPlan> {
    let request = memplan::Request {
        goal: memplan::Goal::Fit(Size(capacity)),
        budget: crate::budget(time_limit, work_limit)?,
    };
    let memory: Option<Vec<SpillMemory>> = memory
        .map(|m| {
            m.iter()
                .enumerate()
                .map(|(i, s)| {
                    s.as_deref()
                        .unwrap_or("")
                        .parse::<SpillMemory>()
                        .map_err(|e| InputError::new_err(format!("memory[{i}]: {e}")))
                })
                .collect::<PyResult<Vec<_>>>()
        })
        .transpose()?;
    let input = SpillInput {
        costs: costs.as_deref(),
        memory: memory.as_deref(),
    };
    let options = MemoriesOptions {
        threads,
        seed,
        verify,
        ..MemoriesOptions::default()
    };
    let target = &problem.inner;
    let report = py
        .detach(|| memplan::memories::plan_spill(target, &input, &request, &options))
        .map_err(spill_error)?;
    let plan = match &report.outcome {
        Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => p,
        Outcome::Infeasible => {
            return Err(InfeasibleError::new_err(format!(
                "the buffers that must stay fast (fixed offsets, memory 'fast') do not fit under {capacity}"
            )))
        }
        Outcome::Unknown { lower_bound, .. } => {
            return Err(NoPlanFoundError::new_err(format!(
                "no two-level plan found under {capacity} in time (proven cost ≥ {lower_bound})"
            )))
        }
    };
    if verify {
        let (memories, allowed) =
            spill_request(target, Size(capacity), &input).map_err(spill_error)?;
        py.detach(|| check_memories(target, &memories, &input.memories_input(&allowed), plan))
            .map_err(|v| CheckError::new_err(v.to_string()))?;
    }
    Ok(SpillPlan {
        spilled: plan.memory.iter().map(|&m| m == MemoryIdx(1)).collect(),
        offsets: plan.offsets.iter().map(|o| o.get()).collect(),
        ids: target.buffers().iter().map(|b| b.id.clone()).collect(),
        int_ids: problem.int_ids,
        cost: plan.cost,
        lower_bound: report.lower_bound,
        fast_capacity: capacity,
        fast_height: plan.heights[0].get(),
        slow_height: plan.heights[1].get(),
        elapsed: report.elapsed.as_secs_f64(),
    })
}
