//! Python bindings: `memplan.Problem`, `memplan.plan`, `memplan.check`, `memplan.Plan`.
//!
//! Thin over the library: conversions in, one library call, conversions out. Library
//! errors become Python exceptions carrying the library's message; planning runs with the
//! GIL released (`Python::detach`), so other Python threads keep running.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

mod arrays;
mod convert;
mod inplace;
mod memories;
mod memory;
mod problem;
mod tflite;

pub use problem::Problem;

use convert::{id_from, py_id, py_ids};

use memplan::{Offset, Options, Outcome, Planner, Size};

create_exception!(
    _memplan,
    MemplanError,
    PyException,
    "Base class of memplan's errors."
);
/// ``InputError``: a problem or plan that cannot be read, or breaks a rule. It derives
/// from both ``MemplanError`` and ``ValueError`` (issue 27: a negative size is a bad
/// value, and ``except ValueError`` should catch it), which `create_exception!` cannot
/// express: the class is made once, by Python's ``type()``, with both bases.
pub(crate) struct InputError;

static INPUT_ERROR: pyo3::sync::PyOnceLock<Py<pyo3::types::PyType>> = pyo3::sync::PyOnceLock::new();

impl InputError {
    /// The class, `_memplan.InputError(MemplanError, ValueError)`.
    pub(crate) fn type_object(py: Python<'_>) -> &Bound<'_, pyo3::types::PyType> {
        INPUT_ERROR
            .get_or_init(py, || {
                let bases = (
                    py.get_type::<MemplanError>(),
                    py.get_type::<pyo3::exceptions::PyValueError>(),
                );
                let namespace = PyDict::new(py);
                let doc = "A problem or plan that cannot be read, or breaks a rule (the \
                           message says which). A ValueError and a MemplanError.";
                let set = |k: &str, v: &str| namespace.set_item(k, v);
                set("__doc__", doc)
                    .and_then(|_| set("__module__", "_memplan"))
                    .expect("a new dict takes str items");
                py.get_type::<pyo3::types::PyType>()
                    .call1(("InputError", bases, namespace))
                    .and_then(|t| Ok(t.cast_into::<pyo3::types::PyType>()?.unbind()))
                    .expect("type() makes the InputError class")
            })
            .bind(py)
    }

    /// The error with its message, as `create_exception!`'s `new_err`.
    pub(crate) fn new_err<A>(args: A) -> PyErr
    where
        A: pyo3::PyErrArguments + Send + Sync + 'static,
    {
        Python::attach(|py| PyErr::from_type(InputError::type_object(py).clone(), args))
    }
}
create_exception!(
    _memplan,
    InfeasibleError,
    MemplanError,
    "Proven: no plan fits under the capacity."
);
create_exception!(
    _memplan,
    NoPlanFoundError,
    MemplanError,
    "No plan under the capacity was found, and none was proven impossible."
);
create_exception!(
    _memplan,
    CheckError,
    MemplanError,
    "The independent checker rejects a plan."
);

/// A plan returned by ``plan``: ``offsets`` (one per buffer, indexed like the problem's
/// buffers), ``ids``, ``height`` (the peak address), ``max_load``, ``lower_bound`` (the
/// best proven bound on the height), ``optimal`` (the height equals the bound),
/// ``planner`` (whose plan it is), ``elapsed`` (seconds), ``work`` (the work units
/// spent) and ``stopped_by`` (``"work"``, ``"clock"`` or ``"cancel"`` when a limit
/// stopped the call, else ``None``; a plan the clock stopped may differ from run to
/// run). ``taken_shares``: the shares the plan takes (indices into the problem's
/// ``shares``). ``to_dict()`` gives ``{id: offset}``.
#[pyclass(frozen, module = "memplan")]
pub struct Plan {
    /// The offsets, indexed like the problem's buffers.
    #[pyo3(get)]
    offsets: Vec<u64>,
    /// The buffers' ids, in the same order.
    ids: Vec<String>,
    /// The problem's ids were ints.
    int_ids: bool,
    /// The peak address, `max(offset + size)`.
    #[pyo3(get)]
    height: u64,
    /// The problem's max load.
    #[pyo3(get)]
    max_load: u64,
    /// The best proven lower bound on the height.
    #[pyo3(get)]
    lower_bound: u64,
    /// True when the height equals the lower bound.
    #[pyo3(get)]
    optimal: bool,
    /// The planner whose plan this is.
    #[pyo3(get)]
    planner: String,
    /// Seconds spent planning.
    #[pyo3(get)]
    elapsed: f64,
    /// Work units spent planning.
    #[pyo3(get)]
    work: u64,
    /// Which limit stopped the call: "work", "clock", "cancel", or None.
    #[pyo3(get)]
    stopped_by: Option<&'static str>,
    /// The shares the plan takes, as indices into the problem's ``shares``.
    #[pyo3(get)]
    taken_shares: Vec<usize>,
}

impl Plan {
    /// A plan with string ids.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        offsets: Vec<u64>,
        ids: Vec<String>,
        height: u64,
        max_load: u64,
        lower_bound: u64,
        optimal: bool,
        planner: String,
        elapsed: f64,
        spent: (u64, Option<memplan::budget::Stop>),
    ) -> Plan {
        Plan {
            offsets,
            ids,
            int_ids: false,
            height,
            max_load,
            lower_bound,
            optimal,
            planner,
            elapsed,
            work: spent.0,
            stopped_by: spent.1.map(memplan::budget::Stop::name),
            taken_shares: Vec::new(),
        }
    }
}

#[pymethods]
impl Plan {
    /// The buffers' ids, in the same order as ``offsets`` (ints when given as ints).
    #[getter]
    fn ids(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        py_ids(py, &self.ids, self.int_ids)
    }

    /// ``{id: offset}``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (id, &o) in self.ids.iter().zip(&self.offsets) {
            d.set_item(py_id(py, id, self.int_ids)?, o)?;
        }
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.offsets.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Plan(height={}, max_load={}, lower_bound={}, optimal={}, planner='{}', {} offsets)",
            self.height,
            self.max_load,
            self.lower_bound,
            if self.optimal { "True" } else { "False" },
            self.planner,
            self.offsets.len()
        )
    }
}

/// ``plan(problem, planner="auto", capacity=None, time_limit=None, work_limit=None,
/// seed=None, threads=0, verify=True) -> Plan``: gives every buffer an offset.
///
/// Minimises the height, or, with a ``capacity`` (or the problem's own), finds a plan
/// that fits under it. The defaults are the library's and the command line's: the same
/// problem gives the same plan through every door. ``planner`` is one of
/// ``planners()``: ``"auto"`` runs every greedy planner and then, within the budget,
/// the exact search and boxing; ``"greedy"`` runs the greedy planners alone
/// (milliseconds on most models); another name runs that planner alone.
///
/// The budget: by default ``DEFAULT_WORK_LIMIT`` work units, about a second on two
/// cores, and the same plan on every run, whatever the machine's load or ``threads``.
/// ``work_limit`` (an int >= 0, or ``math.inf``) sets another work limit.
/// ``time_limit`` (seconds) sets a wall-clock limit instead, covering the whole call
/// (with ``work_limit`` too: whichever ends first); a plan the clock stopped may differ
/// from run to run (``stopped_by == "clock"``). ``time_limit=math.inf`` alone sets no
/// limit: ``"auto"`` then runs until its plan is proven optimal, which may take long.
/// The first plan (start-best-fit, O(n log n)) always finishes. ``seed`` goes to the
/// randomised planners (boxing), ``threads=0`` means one per core, and ``verify`` runs
/// the independent checker on the plan before returning it. The GIL is released while
/// planning.
///
/// Raises ``InfeasibleError`` when no plan can fit under the capacity (proven),
/// ``NoPlanFoundError`` when none was found in time (its ``best`` attribute holds the
/// lowest plan found, over the capacity, or ``None``), and ``ValueError`` for an unknown
/// planner or a bad limit (a negative or NaN time limit, a work limit that is not a
/// whole number >= 0).
///
/// With ``memories`` (a sequence of ``Memory``), plans across several memories and
/// returns a ``MemoryPlan``: ``allowed`` gives each buffer's memories (a sequence indexed
/// like the buffers, or a mapping by id; each entry a name, a sequence of names, or
/// ``None`` for all; one name pins the buffer), ``accesses`` each buffer's access count
/// (same forms; default 1). A problem read with its memories (``Problem.from_file``)
/// is planned across them, with none of these three arguments. ``planner`` must then be
/// ``"auto"`` and ``capacity`` None (the memories carry theirs). Raises ``InputError``
/// for an unknown memory, duplicate names, an empty allowed set, ...;
/// ``InfeasibleError`` when no plan exists (proven, a pinned buffer larger than its
/// memory included; the message names the time, the buffers and the memories they
/// overfill together); ``NoPlanFoundError`` when no plan was found.
#[pyfunction]
#[pyo3(signature = (problem, planner="auto", capacity=None, time_limit=None, work_limit=None, seed=None, threads=0, verify=true, memories=None, allowed=None, accesses=None),
       text_signature = "(problem, planner='auto', capacity=None, time_limit=None, work_limit=None, seed=None, threads=0, verify=True, memories=None, allowed=None, accesses=None)")]
#[allow(clippy::too_many_arguments)]
fn plan(
    py: Python<'_>,
    problem: &Problem,
    planner: &str,
    capacity: Option<u64>,
    time_limit: Option<f64>,
    work_limit: Option<&Bound<'_, PyAny>>,
    seed: Option<u64>,
    threads: usize,
    verify: bool,
    memories: Option<&Bound<'_, PyAny>>,
    allowed: Option<&Bound<'_, PyAny>>,
    accesses: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let budget = budget(time_limit, work_limit)?;
    let given = |a: Option<&Bound<'_, PyAny>>| a.is_some_and(|a| !a.is_none());
    let across = match (&problem.memories, memories.filter(|m| !m.is_none())) {
        (Some(_), _) if given(memories) || given(allowed) || given(accesses) => {
            return Err(PyValueError::new_err(
                "the problem has its memories (Problem.from_file): give no memories, allowed or accesses",
            ))
        }
        (Some(own), _) => Some(own.clone()),
        (None, Some(m)) => Some(std::sync::Arc::new(memories::memories_problem(
            problem, m, allowed, accesses,
        )?)),
        (None, None) if given(allowed) || given(accesses) => {
            return Err(PyValueError::new_err("allowed and accesses need memories"))
        }
        (None, None) => None,
    };
    if let Some(across) = across {
        if planner != "auto" || capacity.is_some() {
            return Err(PyValueError::new_err(
                "with memories, planner must be \"auto\" and capacity None (each memory has its own)",
            ));
        }
        let settings = (seed.unwrap_or(0), threads, verify);
        let p = memories::plan_across(py, across, problem.int_ids, budget, settings)?;
        return Ok(Py::new(py, p)?.into_any());
    }
    plan_one(
        py, problem, planner, capacity, budget, seed, threads, verify,
    )
    .and_then(|p| Ok(Py::new(py, p)?.into_any()))
}

/// `plan` without memories.
#[allow(clippy::too_many_arguments)]
fn plan_one(
    py: Python<'_>,
    problem: &Problem,
    planner: &str,
    capacity: Option<u64>,
    budget: memplan::Budget,
    seed: Option<u64>,
    threads: usize,
    verify: bool,
) -> PyResult<Plan> {
    let planner: Planner = planner
        .parse()
        .map_err(|e: memplan::PlanError| PyValueError::new_err(e.to_string()))?;
    let capacity = capacity.or(problem.capacity).map(Size);
    let request = memplan::Request {
        goal: memplan::Goal::from_capacity(capacity),
        budget,
    };
    let target = &problem.inner;
    let mut options = Options {
        planner,
        threads,
        verify,
        ..Options::default()
    };
    // The seed of the randomised planners (boxing); the greedy ones are deterministic.
    if let Some(seed) = seed {
        options.boxing.seed = seed;
    }
    let report = py
        .detach(|| memplan::plan(target, &request, &options))
        .map_err(|e| MemplanError::new_err(e.to_string()))?;
    let max_load = report.max_load.get();
    // The one bound of every door (issues 27, 30): the max load or the fixed buffers' top,
    // raised by the cheap bounds and every proof (Report::lower_bound).
    let lower_bound = report.lower_bound.get();
    let capacity = capacity.map_or(0, Size::get);
    let to_plan = |p: memplan::Plan, optimal: bool| Plan {
        height: p.height().get(),
        offsets: p.into_offsets().into_iter().map(Offset::get).collect(),
        ids: target.buffers().iter().map(|b| b.id.clone()).collect(),
        int_ids: problem.int_ids,
        max_load,
        lower_bound,
        optimal,
        planner: report.planner.name(),
        elapsed: report.elapsed.as_secs_f64(),
        work: report.work,
        stopped_by: report.stopped_by.map(memplan::budget::Stop::name),
        taken_shares: report.taken_shares.clone(),
    };
    match report.outcome {
        Outcome::Optimal(p) => Ok(to_plan(p, true)),
        Outcome::Feasible { plan, .. } => Ok(to_plan(plan, false)),
        Outcome::Infeasible if max_load > capacity => Err(InfeasibleError::new_err(format!(
            "no plan fits under {capacity}: the max load is {max_load}"
        ))),
        // Proven above the max load: by the lower bounds (fixed buffers' holes, the
        // granularity) or by a search.
        Outcome::Infeasible => Err(InfeasibleError::new_err(format!(
            "no plan fits under {capacity}: every plan is at least {lower_bound} high \
             (proven; the max load is {max_load})"
        ))),
        Outcome::Unknown { best_so_far, .. } => {
            let height = best_so_far.as_ref().map_or(0, |p| p.height().get());
            let err = NoPlanFoundError::new_err(format!(
                "no plan found under {capacity}: the best has height {height} (max load {max_load})"
            ));
            // The lowest plan found, over the capacity, for the caller to use or show
            // (issue 27): `err.best`, or None when no plan was made.
            let best = best_so_far.map(|p| to_plan(p, false));
            err.value(py).setattr("best", best)?;
            Err(err)
        }
    }
}

/// The budget of a call, as every door makes it: the library's default (a work limit)
/// unless `time_limit` (seconds; `inf`: none) or `work_limit` (work units, an int >= 0;
/// `inf`: none) is given. A time limit alone replaces the default work limit; both:
/// whichever ends first.
pub(crate) fn budget(
    time_limit: Option<f64>,
    work_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<memplan::Budget> {
    let mut budget = memplan::Budget::new();
    if let Some(seconds) = time_limit {
        let limit = memplan::budget::TimeLimit::from_secs(seconds)
            .map_err(|e| InputError::new_err(format!("time_limit {e}")))?;
        budget = budget.with_time_limit(limit);
    }
    if let Some(w) = work_limit {
        budget = budget.with_work_limit(work_units(w)?);
    }
    Ok(budget)
}

/// A work limit from Python: an int >= 0 (not a bool), or `math.inf` for none.
fn work_units(w: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    let bad = || {
        InputError::new_err(format!(
            "work_limit must be a whole number of work units >= 0 (or math.inf), got {}",
            w.repr().map_or_else(|_| "?".to_string(), |r| r.to_string())
        ))
    };
    if w.is_instance_of::<pyo3::types::PyBool>() {
        return Err(bad());
    }
    if let Ok(f) = w.cast::<pyo3::types::PyFloat>() {
        return if f.value() == f64::INFINITY {
            Ok(None)
        } else {
            Err(bad())
        };
    }
    w.extract::<u64>().map(Some).map_err(|_| bad())
}

/// ``check(problem, plan, capacity=None) -> int``: runs the independent checker, which
/// shares no code with the planners. ``plan`` is a ``Plan``, a list of offsets (indexed
/// like the problem's buffers) or a dict ``{id: offset}``. Returns the height; raises
/// ``CheckError`` naming the buffers, times and addresses of the violation (overlap,
/// alignment, fixed offset, capacity). A ``MemoryPlan`` is checked across its memories
/// (allowed sets, pins, alignments, each memory under its capacity) and the cost is
/// returned.
#[pyfunction]
#[pyo3(signature = (problem, plan, capacity=None))]
fn check(
    py: Python<'_>,
    problem: &Problem,
    plan: &Bound<'_, PyAny>,
    capacity: Option<u64>,
) -> PyResult<u64> {
    let target = &problem.inner;
    if let Ok(p) = plan.cast::<memories::MemoryPlan>() {
        if capacity.is_some() {
            return Err(PyValueError::new_err(
                "a MemoryPlan is checked against its own memories' capacities: give no capacity",
            ));
        }
        return p.get().check(py, &problem.inner);
    }
    let capacity = capacity.or(problem.capacity).map(Size);
    let result = if let Ok(p) = plan.cast::<Plan>() {
        let offsets: Vec<Offset> = p.get().offsets.iter().map(|&o| Offset(o)).collect();
        py.detach(|| memplan::check_offsets(target, &offsets, capacity))
    } else if let Ok(d) = plan.cast::<PyDict>() {
        let mut placements = Vec::with_capacity(d.len());
        for (k, (id, v)) in d.iter().enumerate() {
            placements.push((id_from(&id, k)?.0, Offset(v.extract::<u64>()?)));
        }
        py.detach(|| memplan::check_placements(target, &placements, capacity))
    } else if plan.cast::<PyTuple>().is_ok() || plan.cast::<PyList>().is_ok() {
        let offsets: Vec<Offset> = plan
            .extract::<Vec<u64>>()?
            .into_iter()
            .map(Offset)
            .collect();
        py.detach(|| memplan::check_offsets(target, &offsets, capacity))
    } else {
        return Err(PyTypeError::new_err(
            "plan must be a memplan.Plan, a memplan.MemoryPlan, a list of offsets, or a dict {id: offset}",
        ));
    };
    result
        .map(|s| s.height.get())
        .map_err(|f| CheckError::new_err(f.to_string()))
}

/// ``share(problem, strategy="auto") -> dict``: shared objects (TFLite §4).
///
/// Assigns every buffer to one shared object; an object is as
/// large as the largest buffer it holds, and buffers of one object are never live
/// together. Returns a dict: `objects` (the object of each buffer, in buffer order),
/// `object_sizes`, `total`, `lower_bound` (the sum of positional maxima), `naive` and
/// `strategy`. The assignment passed the library's shared-object checker.
#[pyfunction]
#[pyo3(signature = (problem, strategy="auto"))]
fn share<'py>(py: Python<'py>, problem: &Problem, strategy: &str) -> PyResult<Bound<'py, PyDict>> {
    let strategy = match strategy {
        "auto" => None,
        s => Some(
            s.parse::<memplan::shared_objects::SharedStrategy>()
                .map_err(|_| {
                    PyValueError::new_err(format!(
                "unknown strategy '{s}': expected auto, size-improved, size, breadth or naive"
            ))
                })?,
        ),
    };
    let options = memplan::shared_objects::SharedOptions {
        strategy,
        ..memplan::shared_objects::SharedOptions::default()
    };
    let report = py
        .detach(|| {
            let request = memplan::Request::minimise();
            memplan::shared_objects::plan_shared_objects(&problem.inner, &request, &options)
        })
        .map_err(|e| MemplanError::new_err(e.to_string()))?;
    // Minimising: there is always an assignment.
    let assignment = report
        .outcome
        .best()
        .ok_or_else(|| MemplanError::new_err("no assignment"))?;
    let out = PyDict::new(py);
    out.set_item("objects", assignment.object_of().to_vec())?;
    let sizes: Vec<u64> = assignment.object_sizes().iter().map(|s| s.get()).collect();
    out.set_item("object_sizes", sizes)?;
    out.set_item("total", assignment.total().get())?;
    out.set_item("lower_bound", report.lower_bound.get())?;
    out.set_item("naive", report.naive.get())?;
    out.set_item("strategy", report.strategy.name())?;
    Ok(out)
}

/// Draws a plan as an SVG picture (the same drawing as `memplan render`): time on x,
/// addresses on y, one rectangle per buffer with a tooltip, the load line, and the
/// capacity when the problem has one. `plan` is a `Plan` or a list of offsets indexed
/// like the problem's buffers. The plan is checked first; an invalid plan is still drawn,
/// with a warning in the heading. Returns the SVG text.
#[pyfunction]
#[pyo3(signature = (problem, plan, name="plan", width=1200, height=800))]
fn render(
    py: Python<'_>,
    problem: &Problem,
    plan: &Bound<'_, PyAny>,
    name: &str,
    width: u32,
    height: u32,
) -> PyResult<String> {
    if width < 200 || height < 150 {
        return Err(PyValueError::new_err(
            "width must be >= 200 and height >= 150",
        ));
    }
    if let Ok(p) = plan.cast::<memories::MemoryPlan>() {
        return p.get().render(py, &problem.inner, name, width, height);
    }
    let offsets: Vec<u64> = match plan.cast::<Plan>() {
        Ok(p) => p.get().offsets.clone(),
        Err(_) => plan.extract::<Vec<u64>>().map_err(|_| {
            PyTypeError::new_err(
                "plan must be a memplan.Plan, a memplan.MemoryPlan or a list of offsets",
            )
        })?,
    };
    let inner = &problem.inner;
    if offsets.len() != inner.len() {
        return Err(PyValueError::new_err(format!(
            "the plan has {} offsets for {} buffers",
            offsets.len(),
            inner.len()
        )));
    }
    Ok(py.detach(|| {
        let as_offsets: Vec<Offset> = offsets.iter().map(|&o| Offset(o)).collect();
        let valid = memplan::check_offsets(inner, &as_offsets, None).is_ok();
        let picture = memplan_render::Picture::new(width, height, name, valid);
        memplan_render::draw(inner, &offsets, &picture)
    }))
}

/// ``planners() -> list[str]``: the names ``plan(planner=...)`` accepts.
#[pyfunction]
fn planners() -> Vec<String> {
    Planner::all().iter().map(Planner::name).collect()
}

#[pymodule]
fn _memplan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Problem>()?;
    m.add_class::<Plan>()?;
    m.add_class::<memory::Memory>()?;
    m.add_class::<memories::MemoryPlan>()?;
    m.add_function(wrap_pyfunction!(memories::plan_spill, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(planners, m)?)?;
    m.add_function(wrap_pyfunction!(share, m)?)?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(tflite::_plan_tflite, m)?)?;
    m.add_function(wrap_pyfunction!(tflite::_multi_subgraph_note, m)?)?;
    m.add_function(wrap_pyfunction!(inplace::_in_place_breach, m)?)?;
    let py = m.py();
    m.add("MemplanError", py.get_type::<MemplanError>())?;
    m.add("InputError", InputError::type_object(py))?;
    m.add("InfeasibleError", py.get_type::<InfeasibleError>())?;
    m.add("NoPlanFoundError", py.get_type::<NoPlanFoundError>())?;
    m.add("CheckError", py.get_type::<CheckError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_WORK_LIMIT", memplan::Budget::DEFAULT_WORK_LIMIT)?;
    Ok(())
}
