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
mod memories;
mod spill;
mod tflite;

use convert::{
    buffer_from, convention, csv_options, id_from, input_error, py_id, py_ids, read_file,
    to_half_open,
};

use memplan::{Buffer, Offset, Options, Outcome, Planner, Size};

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

/// A validated set of buffers with an optional capacity.
///
/// ``Problem(buffers, capacity=None, lifetimes="half-open")``: each buffer is a dict
/// (``id``, ``start``, ``end``, ``size``, and optional ``alignment``, ``fixed_offset`` and
/// ``gaps`` as ``[(start, end)]``) or a tuple ``(id, start, end, size[, alignment])``. Ids
/// are strs or ints, given back as they were given. Lifetimes are half-open ``[start,
/// end)`` unless ``lifetimes="inclusive"`` (``[first, last]``, as ExecuTorch writes them).
/// Raises ``InputError`` naming the rule a buffer breaks (size 0, ``start >= end``, a
/// duplicate id, colliding fixed buffers, ...).
///
/// Other constructors: ``from_arrays`` (columns, e.g. numpy arrays), ``from_csv``,
/// ``from_csv_text``, ``from_json``, ``from_json_text``.
#[pyclass(frozen, module = "memplan")]
#[derive(Clone)]
pub struct Problem {
    inner: memplan::Problem,
    /// The capacity to fit under (given, or read from a JSON file), the default goal of
    /// ``plan`` and ``check``: the library's problem has none (it is a goal, not part of
    /// the problem).
    capacity: Option<u64>,
    /// Every id was given as an int: ids are handed back as ints.
    int_ids: bool,
}

impl Problem {
    fn validated(bufs: Vec<Buffer>, capacity: Option<u64>, int_ids: bool) -> PyResult<Problem> {
        let inner = memplan::Problem::new(bufs).map_err(input_error)?;
        Ok(Problem {
            inner,
            capacity,
            int_ids,
        })
    }

    fn from_json_bytes(
        bytes: &[u8],
        capacity: Option<u64>,
        lifetimes: Option<&str>,
    ) -> PyResult<Result<Problem, memplan::ReadError>> {
        let options = memplan::io::ReadOptions {
            lifetimes: convention(lifetimes)?,
            default_alignment: None,
        };
        Ok(
            memplan::io::read_problem_json(bytes, &options).map(|(inner, own)| Problem {
                inner,
                capacity: capacity.or(own.map(Size::get)),
                int_ids: false,
            }),
        )
    }
}

#[pymethods]
impl Problem {
    #[new]
    #[pyo3(signature = (buffers, capacity=None, lifetimes=None))]
    fn new(
        buffers: &Bound<'_, PyAny>,
        capacity: Option<u64>,
        lifetimes: Option<&str>,
    ) -> PyResult<Problem> {
        let lifetimes = convention(lifetimes)?;
        let mut bufs = Vec::new();
        let mut all_int = true;
        for (k, item) in buffers.try_iter()?.enumerate() {
            let (b, int_id) = buffer_from(&item?, k)?;
            all_int &= int_id;
            bufs.push(b);
        }
        let int_ids = all_int && !bufs.is_empty();
        Problem::validated(to_half_open(bufs, lifetimes)?, capacity, int_ids)
    }

    /// ``Problem.from_arrays(starts, ends, sizes, alignments=None, ids=None,
    /// capacity=None, lifetimes="half-open")``: a problem from columns, one entry per
    /// buffer. Each column is an integer array with the buffer protocol (numpy arrays of
    /// any integer type, ``array.array``; numpy is not needed) or a sequence of ints.
    /// ``ids`` defaults to ``0, 1, 2, ...`` (ints); ``alignments`` to 1. Raises
    /// ``ValueError`` for columns of different lengths or a negative value, ``TypeError``
    /// for a non-integer column, and ``InputError`` for a buffer that breaks a rule.
    #[staticmethod]
    #[pyo3(signature = (starts, ends, sizes, alignments=None, ids=None, capacity=None, lifetimes=None))]
    #[allow(clippy::too_many_arguments)]
    fn from_arrays(
        py: Python<'_>,
        starts: &Bound<'_, PyAny>,
        ends: &Bound<'_, PyAny>,
        sizes: &Bound<'_, PyAny>,
        alignments: Option<&Bound<'_, PyAny>>,
        ids: Option<&Bound<'_, PyAny>>,
        capacity: Option<u64>,
        lifetimes: Option<&str>,
    ) -> PyResult<Problem> {
        let lifetimes = convention(lifetimes)?;
        let starts = arrays::column(starts, "starts")?;
        let n = starts.len();
        let same_length = |v: Vec<u64>, name: &str| -> PyResult<Vec<u64>> {
            if v.len() != n {
                return Err(PyValueError::new_err(format!(
                    "{name} has {} entries where starts has {n}",
                    v.len()
                )));
            }
            Ok(v)
        };
        let ends = same_length(arrays::column(ends, "ends")?, "ends")?;
        let sizes = same_length(arrays::column(sizes, "sizes")?, "sizes")?;
        let alignments = alignments
            .map(|a| same_length(arrays::column(a, "alignments")?, "alignments"))
            .transpose()?;
        let (ids, int_ids) = match ids {
            None => ((0..n).map(|k| k.to_string()).collect::<Vec<_>>(), true),
            Some(obj) => match arrays::column(obj, "ids") {
                Ok(v) => (
                    same_length(v, "ids")?.iter().map(u64::to_string).collect(),
                    true,
                ),
                Err(_) => {
                    let mut out = Vec::with_capacity(n);
                    let mut all_int = true;
                    for (k, item) in obj.try_iter()?.enumerate() {
                        let (id, int_id) = id_from(&item?, k)?;
                        all_int &= int_id;
                        out.push(id);
                    }
                    if out.len() != n {
                        return Err(PyValueError::new_err(format!(
                            "ids has {} entries where starts has {n}",
                            out.len()
                        )));
                    }
                    (out, all_int && n > 0)
                }
            },
        };
        let bufs = py.detach(|| {
            let mut bufs = Vec::with_capacity(n);
            for (k, id) in ids.into_iter().enumerate() {
                let mut b = Buffer::new(id, starts[k], ends[k], sizes[k]);
                if let Some(a) = &alignments {
                    b.alignment = Size(a[k]);
                }
                bufs.push(b);
            }
            bufs
        });
        let bufs = to_half_open(bufs, lifetimes)?;
        let inner = py
            .detach(|| memplan::Problem::new(bufs))
            .map_err(input_error)?;
        Ok(Problem {
            inner,
            capacity,
            int_ids,
        })
    }

    /// ``Problem.from_csv(path, capacity=None, lifetimes=None)``: reads a CSV file in
    /// google/minimalloc's format (docs/formats.md, "CSV"). ``lifetimes`` forces
    /// ``"half-open"`` or ``"inclusive"``; by default an ``end`` column is inclusive and
    /// an ``upper`` column half-open. Raises ``OSError`` or ``InputError`` naming the
    /// file, line and column.
    #[staticmethod]
    #[pyo3(signature = (path, capacity=None, lifetimes=None))]
    fn from_csv(path: &str, capacity: Option<u64>, lifetimes: Option<&str>) -> PyResult<Problem> {
        let bytes = read_file(path)?;
        let inner = memplan::io::read_problem_csv(&bytes, &csv_options(lifetimes)?)
            .map_err(|e| InputError::new_err(format!("{path}: {e}")))?;
        Ok(Problem {
            inner,
            capacity,
            int_ids: false,
        })
    }

    /// ``Problem.from_csv_text(text, capacity=None, lifetimes=None)``: as ``from_csv``,
    /// from a string.
    #[staticmethod]
    #[pyo3(signature = (text, capacity=None, lifetimes=None))]
    fn from_csv_text(
        text: &str,
        capacity: Option<u64>,
        lifetimes: Option<&str>,
    ) -> PyResult<Problem> {
        let inner = memplan::io::read_problem_csv(text.as_bytes(), &csv_options(lifetimes)?)
            .map_err(input_error)?;
        Ok(Problem {
            inner,
            capacity,
            int_ids: false,
        })
    }

    /// ``Problem.from_json(path, capacity=None, lifetimes=None)``: reads a JSON file,
    /// ``{"capacity": ..., "buffers": [{"id", "start", "end", "size", ...}, ...]}``.
    /// Lifetimes and gaps are half-open unless ``lifetimes="inclusive"``.
    #[staticmethod]
    #[pyo3(signature = (path, capacity=None, lifetimes=None))]
    fn from_json(path: &str, capacity: Option<u64>, lifetimes: Option<&str>) -> PyResult<Problem> {
        let bytes = read_file(path)?;
        Problem::from_json_bytes(&bytes, capacity, lifetimes)?
            .map_err(|e| InputError::new_err(format!("{path}: {e}")))
    }

    /// ``Problem.from_json_text(text, capacity=None, lifetimes=None)``: as
    /// ``from_json``, from a string.
    #[staticmethod]
    #[pyo3(signature = (text, capacity=None, lifetimes=None))]
    fn from_json_text(
        text: &str,
        capacity: Option<u64>,
        lifetimes: Option<&str>,
    ) -> PyResult<Problem> {
        Problem::from_json_bytes(text.as_bytes(), capacity, lifetimes)?.map_err(input_error)
    }

    /// The problem as JSON text (half-open lifetimes).
    fn to_json(&self) -> PyResult<String> {
        let mut out = Vec::new();
        memplan::io::write_problem_json(&self.inner, self.capacity.map(Size), &mut out)
            .map_err(input_error)?;
        String::from_utf8(out).map_err(input_error)
    }

    /// The problem as CSV text (half-open lifetimes, an ``upper`` column).
    fn to_csv(&self) -> PyResult<String> {
        let mut out = Vec::new();
        memplan::io::write_problem_csv(&self.inner, &mut out).map_err(input_error)?;
        String::from_utf8(out).map_err(input_error)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The buffers' ids, in order (ints when they were given as ints).
    #[getter]
    fn ids(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.inner
            .buffers()
            .iter()
            .map(|b| py_id(py, &b.id, self.int_ids))
            .collect()
    }

    /// The buffers as dicts (``id``, ``start``, ``end``, ``size``, ``alignment``,
    /// ``fixed_offset``, ``gaps``), in order; lifetimes half-open.
    #[getter]
    fn buffers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for b in self.inner.buffers() {
            let d = PyDict::new(py);
            d.set_item("id", py_id(py, &b.id, self.int_ids)?)?;
            d.set_item("start", b.lifetime.start.get())?;
            d.set_item("end", b.lifetime.end.get())?;
            d.set_item("size", b.size.get())?;
            d.set_item("alignment", b.alignment.get())?;
            d.set_item("fixed_offset", b.fixed_offset.map(Offset::get))?;
            let gaps: Vec<(u64, u64)> = b
                .gaps
                .iter()
                .map(|g| (g.start.get(), g.end.get()))
                .collect();
            d.set_item("gaps", gaps)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// The capacity, or None.
    #[getter]
    fn capacity(&self) -> Option<u64> {
        self.capacity
    }

    /// The largest total size live at one time: no plan is lower.
    fn max_load(&self, py: Python<'_>) -> u64 {
        let inner = &self.inner;
        py.detach(|| memplan::max_load(inner).get())
    }

    /// The same buffers with another capacity (None: minimise the height).
    #[pyo3(signature = (capacity=None))]
    fn with_capacity(&self, capacity: Option<u64>) -> Problem {
        Problem {
            inner: self.inner.clone(),
            capacity,
            int_ids: self.int_ids,
        }
    }

    fn __repr__(&self) -> String {
        match self.capacity {
            Some(c) => format!("Problem({} buffers, capacity={c})", self.inner.len()),
            None => format!("Problem({} buffers)", self.inner.len()),
        }
    }
}

/// A plan returned by ``plan``: ``offsets`` (one per buffer, indexed like the problem's
/// buffers), ``ids``, ``height`` (the peak address), ``max_load``, ``lower_bound`` (the
/// best proven bound on the height), ``optimal`` (the height equals the bound),
/// ``planner`` (whose plan it is) and ``elapsed`` (seconds). ``to_dict()`` gives
/// ``{id: offset}``.
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

/// ``plan(problem, planner="auto", capacity=None, time_limit=1.0, seed=None,
/// threads=0, verify=True) -> Plan``: gives every buffer an offset.
///
/// Minimises the height, or, with a ``capacity`` (or the problem's own), finds a plan
/// that fits under it. The defaults are the library's and the command line's: the same
/// problem gives the same plan through every door. ``planner`` is one of
/// ``planners()``: ``"auto"`` runs every greedy planner and then, within ``time_limit``,
/// the exact search and boxing (and TelaMalloc in capacity mode); ``"greedy"`` runs the
/// greedy planners alone (milliseconds on most models; with no time limit the result
/// depends on the input alone); another name
/// runs that planner alone.
///
/// ``time_limit`` is in seconds, default ``DEFAULT_TIME_LIMIT`` (1.0), and covers the
/// whole call; the first plan (start-best-fit, O(n log n)) always finishes.
/// ``None`` or ``float("inf")`` sets no limit: ``"auto"`` then runs until its plan is
/// proven optimal, which may take long on a hard instance. ``seed`` goes to the
/// randomised planners (boxing), ``threads=0`` means one per core, and ``verify`` runs
/// the independent checker on the plan before returning it. The GIL is released while
/// planning.
///
/// Raises ``InfeasibleError`` when no plan can fit under the capacity (proven),
/// ``NoPlanFoundError`` when none was found in time (its ``best`` attribute holds the
/// lowest plan found, over the capacity, or ``None``), and ``ValueError`` for an unknown
/// planner or a bad time limit (negative or NaN).
///
/// With ``memories`` (a sequence of ``Memory``), plans across several memories and
/// returns a ``MemoryPlan``: ``allowed`` gives each buffer's memories (a sequence indexed
/// like the buffers, or a mapping by id; each entry a name, a sequence of names, or
/// ``None`` for all; one name pins the buffer), ``accesses`` each buffer's access count
/// (same forms; default 1). ``planner`` must then be ``"auto"`` and ``capacity`` None
/// (the memories carry theirs). Raises ``InputError`` for an unknown memory, duplicate
/// names, an empty allowed set, a pinned buffer larger than its memory, ...;
/// ``InfeasibleError`` when the buffers pinned to a memory cannot fit in it (the message
/// names the time, the buffers and the capacity); ``NoPlanFoundError`` when no plan was
/// found.
#[pyfunction]
#[pyo3(signature = (problem, planner="auto", capacity=None, time_limit=Some(default_time_limit()), seed=None, threads=0, verify=true, memories=None, allowed=None, accesses=None),
       text_signature = "(problem, planner='auto', capacity=None, time_limit=1.0, seed=None, threads=0, verify=True, memories=None, allowed=None, accesses=None)")]
#[allow(clippy::too_many_arguments)]
fn plan(
    py: Python<'_>,
    problem: &Problem,
    planner: &str,
    capacity: Option<u64>,
    time_limit: Option<f64>,
    seed: Option<u64>,
    threads: usize,
    verify: bool,
    memories: Option<&Bound<'_, PyAny>>,
    allowed: Option<&Bound<'_, PyAny>>,
    accesses: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if let Some(memories) = memories.filter(|m| !m.is_none()) {
        if planner != "auto" || capacity.is_some() {
            return Err(PyValueError::new_err(
                "with memories, planner must be \"auto\" and capacity None (each memory has its own)",
            ));
        }
        let p = memories::plan_with_memories(
            py,
            problem,
            memories,
            allowed,
            accesses,
            budget(time_limit)?,
            seed,
            threads,
            verify,
        )?;
        return Ok(Py::new(py, p)?.into_any());
    }
    if allowed.is_some_and(|a| !a.is_none()) || accesses.is_some_and(|a| !a.is_none()) {
        return Err(PyValueError::new_err("allowed and accesses need memories"));
    }
    plan_one(
        py, problem, planner, capacity, time_limit, seed, threads, verify,
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
    time_limit: Option<f64>,
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
        budget: budget(time_limit)?,
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

/// The budget of a call with `time_limit` seconds (`None`: no limit), as every door
/// makes it: the library's default budget with that limit.
pub(crate) fn budget(time_limit: Option<f64>) -> PyResult<memplan::Budget> {
    let limit = match time_limit.map(memplan::TimeLimit::from_secs) {
        Some(Err(e)) => return Err(PyValueError::new_err(format!("time_limit {e}"))),
        Some(Ok(limit)) => limit,
        None => memplan::TimeLimit::NONE,
    };
    Ok(memplan::Budget::new().with_time_limit(limit))
}

/// The library's default time limit in seconds ([`memplan::Budget::DEFAULT_TIME_LIMIT`]).
pub(crate) fn default_time_limit() -> f64 {
    memplan::Budget::DEFAULT_TIME_LIMIT.as_secs_f64()
}

/// ``check(problem, plan, capacity=None) -> int``: runs the independent checker, which
/// shares no code with the planners. ``plan`` is a ``Plan``, a list of offsets (indexed
/// like the problem's buffers) or a dict ``{id: offset}``. Returns the height; raises
/// ``CheckError`` naming the buffers, times and addresses of the violation (overlap,
/// alignment, fixed offset, capacity).
#[pyfunction]
#[pyo3(signature = (problem, plan, capacity=None))]
fn check(
    py: Python<'_>,
    problem: &Problem,
    plan: &Bound<'_, PyAny>,
    capacity: Option<u64>,
) -> PyResult<u64> {
    let target = &problem.inner;
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
            "plan must be a memplan.Plan, a list of offsets, or a dict {id: offset}",
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
    let offsets: Vec<u64> = match plan.cast::<Plan>() {
        Ok(p) => p.get().offsets.clone(),
        Err(_) => plan.extract::<Vec<u64>>().map_err(|_| {
            PyTypeError::new_err("plan must be a memplan.Plan or a list of offsets")
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
    m.add_class::<spill::SpillPlan>()?;
    m.add_class::<memories::Memory>()?;
    m.add_class::<memories::MemoryPlan>()?;
    m.add_function(wrap_pyfunction!(spill::plan_spill, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(planners, m)?)?;
    m.add_function(wrap_pyfunction!(share, m)?)?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(tflite::_plan_tflite, m)?)?;
    let py = m.py();
    m.add("MemplanError", py.get_type::<MemplanError>())?;
    m.add("InputError", InputError::type_object(py))?;
    m.add("InfeasibleError", py.get_type::<InfeasibleError>())?;
    m.add("NoPlanFoundError", py.get_type::<NoPlanFoundError>())?;
    m.add("CheckError", py.get_type::<CheckError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_TIME_LIMIT", default_time_limit())?;
    Ok(())
}
