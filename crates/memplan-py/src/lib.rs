//! Python bindings: `memplan.Problem`, `memplan.plan`, `memplan.check`, `memplan.Plan`.
//!
//! Thin over the library: conversions in, one library call, conversions out. Library
//! errors become Python exceptions carrying the library's message; planning runs with the
//! GIL released (`Python::detach`), so other Python threads keep running.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use memplan::io::{CsvOptions, LifetimeConvention};
use memplan::{Buffer, Offset, Options, Outcome, Planner, Size};

create_exception!(
    _memplan,
    MemplanError,
    PyException,
    "Base class of memplan's errors."
);
create_exception!(
    _memplan,
    InputError,
    MemplanError,
    "A problem or plan that cannot be read, or breaks a rule (the message says which)."
);
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
#[pyclass(frozen, module = "memplan")]
#[derive(Clone)]
pub struct Problem {
    inner: memplan::Problem,
}

fn input_error(e: impl std::fmt::Display) -> PyErr {
    InputError::new_err(e.to_string())
}

/// A field of a buffer dict; `None` when absent or `None`.
fn field<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(d.get_item(key)?.filter(|v| !v.is_none()))
}

fn get_u64(d: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<u64>> {
    field(d, key)?
        .map(|v| {
            v.extract::<u64>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "buffer field '{key}' must be a non-negative int below 2**64"
                ))
            })
        })
        .transpose()
}

/// A buffer from a dict (`id`, `start`, `end`, `size`, and optional `alignment`,
/// `fixed_offset`, `gaps`) or a tuple `(id, start, end, size[, alignment])`.
fn buffer_from(obj: &Bound<'_, PyAny>, k: usize) -> PyResult<Buffer> {
    if let Ok(d) = obj.cast::<PyDict>() {
        const KNOWN: [&str; 7] = [
            "id",
            "start",
            "end",
            "size",
            "alignment",
            "fixed_offset",
            "gaps",
        ];
        for key in d.keys() {
            let key: String = key.extract()?;
            if !KNOWN.contains(&key.as_str()) {
                return Err(PyValueError::new_err(format!(
                    "buffer #{k}: unknown field '{key}' (expected {})",
                    KNOWN.join(", ")
                )));
            }
        }
        let need = |key: &str| -> PyResult<u64> {
            get_u64(d, key)?
                .ok_or_else(|| PyValueError::new_err(format!("buffer #{k}: missing '{key}'")))
        };
        let id: String = field(d, "id")?
            .ok_or_else(|| PyValueError::new_err(format!("buffer #{k}: missing 'id'")))?
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("buffer #{k}: 'id' must be a str")))?;
        let mut b = Buffer::new(id, need("start")?, need("end")?, need("size")?);
        if let Some(a) = get_u64(d, "alignment")? {
            b.alignment = Size(a);
        }
        b.fixed_offset = get_u64(d, "fixed_offset")?.map(Offset);
        if let Some(gaps) = field(d, "gaps")? {
            let gaps: Vec<(u64, u64)> = gaps.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "buffer #{k}: 'gaps' must be a list of (start, end) pairs"
                ))
            })?;
            b.gaps = gaps
                .into_iter()
                .map(|(s, e)| memplan::Lifetime::new(s, e))
                .collect();
        }
        return Ok(b);
    }
    if let Ok(t) = obj.extract::<(String, u64, u64, u64)>() {
        return Ok(Buffer::new(t.0, t.1, t.2, t.3));
    }
    if let Ok(t) = obj.extract::<(String, u64, u64, u64, u64)>() {
        return Ok(Buffer::new(t.0, t.1, t.2, t.3).with_alignment(t.4));
    }
    Err(PyTypeError::new_err(format!(
        "buffer #{k}: expected a dict with id, start, end, size or a tuple (id, start, end, size[, alignment]) of non-negative ints, got {}",
        obj.repr()?
    )))
}

fn csv_options(capacity: Option<u64>, lifetimes: Option<&str>) -> PyResult<CsvOptions> {
    let lifetimes = match lifetimes {
        None => None,
        Some("half-open") => Some(LifetimeConvention::HalfOpen),
        Some("inclusive") => Some(LifetimeConvention::Inclusive),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "lifetimes must be 'half-open' or 'inclusive', got '{other}'"
            )))
        }
    };
    Ok(CsvOptions {
        lifetimes,
        capacity: capacity.map(Size),
    })
}

fn read_file(path: &str) -> PyResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{path}: {e}")))
}

#[pymethods]
impl Problem {
    /// `Problem(buffers, capacity=None)`: each buffer a dict (`id`, `start`, `end`,
    /// `size`, optional `alignment`, `fixed_offset`, `gaps` as `[(start, end)]`) or a
    /// tuple `(id, start, end, size[, alignment])`. Lifetimes are half-open.
    #[new]
    #[pyo3(signature = (buffers, capacity=None))]
    fn new(buffers: &Bound<'_, PyAny>, capacity: Option<u64>) -> PyResult<Problem> {
        let mut bufs = Vec::new();
        for (k, item) in buffers.try_iter()?.enumerate() {
            bufs.push(buffer_from(&item?, k)?);
        }
        let inner = memplan::Problem::new(bufs, capacity.map(Size)).map_err(input_error)?;
        Ok(Problem { inner })
    }

    /// Reads a CSV file in google/minimalloc's format (see the README).
    #[staticmethod]
    #[pyo3(signature = (path, capacity=None, lifetimes=None))]
    fn from_csv(path: &str, capacity: Option<u64>, lifetimes: Option<&str>) -> PyResult<Problem> {
        let bytes = read_file(path)?;
        let inner = memplan::io::read_problem_csv(&bytes, &csv_options(capacity, lifetimes)?)
            .map_err(|e| InputError::new_err(format!("{path}: {e}")))?;
        Ok(Problem { inner })
    }

    /// Reads CSV text.
    #[staticmethod]
    #[pyo3(signature = (text, capacity=None, lifetimes=None))]
    fn from_csv_text(
        text: &str,
        capacity: Option<u64>,
        lifetimes: Option<&str>,
    ) -> PyResult<Problem> {
        let inner =
            memplan::io::read_problem_csv(text.as_bytes(), &csv_options(capacity, lifetimes)?)
                .map_err(input_error)?;
        Ok(Problem { inner })
    }

    /// Reads a JSON file (`{"capacity": .., "buffers": [{"id", "start", "end", "size"}, ..]}`).
    #[staticmethod]
    #[pyo3(signature = (path, capacity=None))]
    fn from_json(path: &str, capacity: Option<u64>) -> PyResult<Problem> {
        let bytes = read_file(path)?;
        let inner = memplan::io::read_problem_json(&bytes, capacity.map(Size))
            .map_err(|e| InputError::new_err(format!("{path}: {e}")))?;
        Ok(Problem { inner })
    }

    /// Reads JSON text.
    #[staticmethod]
    #[pyo3(signature = (text, capacity=None))]
    fn from_json_text(text: &str, capacity: Option<u64>) -> PyResult<Problem> {
        let inner = memplan::io::read_problem_json(text.as_bytes(), capacity.map(Size))
            .map_err(input_error)?;
        Ok(Problem { inner })
    }

    /// The problem as JSON text.
    fn to_json(&self) -> PyResult<String> {
        let mut out = Vec::new();
        memplan::io::write_problem_json(&self.inner, &mut out).map_err(input_error)?;
        String::from_utf8(out).map_err(input_error)
    }

    /// The problem as CSV text (half-open lifetimes).
    fn to_csv(&self) -> PyResult<String> {
        let mut out = Vec::new();
        memplan::io::write_problem_csv(&self.inner, &mut out).map_err(input_error)?;
        String::from_utf8(out).map_err(input_error)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The buffers' ids, in order.
    #[getter]
    fn ids(&self) -> Vec<String> {
        self.inner.buffers().iter().map(|b| b.id.clone()).collect()
    }

    /// The buffers as dicts, in order.
    #[getter]
    fn buffers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for b in self.inner.buffers() {
            let d = PyDict::new(py);
            d.set_item("id", &b.id)?;
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
        self.inner.capacity().map(Size::get)
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
            inner: self.inner.clone().with_capacity(capacity.map(Size)),
        }
    }

    fn __repr__(&self) -> String {
        match self.inner.capacity() {
            Some(c) => format!("Problem({} buffers, capacity={c})", self.inner.len()),
            None => format!("Problem({} buffers)", self.inner.len()),
        }
    }
}

/// A plan: one offset per buffer (indexed like the problem's buffers) and its figures.
#[pyclass(frozen, module = "memplan")]
pub struct Plan {
    /// The offsets, indexed like the problem's buffers.
    #[pyo3(get)]
    offsets: Vec<u64>,
    /// The buffers' ids, in the same order.
    #[pyo3(get)]
    ids: Vec<String>,
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

#[pymethods]
impl Plan {
    /// `{id: offset}`.
    fn to_dict(&self) -> std::collections::HashMap<String, u64> {
        self.ids
            .iter()
            .cloned()
            .zip(self.offsets.iter().copied())
            .collect()
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

/// Plans a problem. See `memplan.pyi` for the parameters.
#[pyfunction]
#[pyo3(signature = (problem, planner="auto", capacity=None, time_limit=None, seed=None, threads=0, verify=true))]
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
) -> PyResult<Plan> {
    let planner: Planner = planner
        .parse()
        .map_err(|e: memplan::PlanError| PyValueError::new_err(e.to_string()))?;
    let time_limit = match time_limit.map(memplan::TimeLimit::from_secs) {
        Some(Err(e)) => return Err(PyValueError::new_err(format!("time_limit {e}"))),
        Some(Ok(limit)) => limit.duration(),
        None => None,
    };
    let target = &*with_capacity(&problem.inner, capacity);
    let mut options = Options {
        planner,
        threads,
        time_limit,
        cancel: None,
        verify,
        ..Options::default()
    };
    // The seed of the randomised planners (boxing); the greedy ones are deterministic.
    if let Some(seed) = seed {
        options.boxing.seed = seed;
    }
    let report = py
        .detach(|| memplan::plan(target, &options))
        .map_err(|e| MemplanError::new_err(e.to_string()))?;
    let max_load = report.max_load.get();
    let (p, lower_bound, optimal) = match report.outcome {
        Outcome::Optimal(p) => (p, max_load, true),
        Outcome::Feasible { plan, lower_bound } => (plan, lower_bound.get(), false),
        Outcome::Infeasible => {
            return Err(InfeasibleError::new_err(format!(
                "no plan fits under {}: the max load is {max_load}",
                target.capacity().map_or(0, Size::get)
            )))
        }
        Outcome::Unknown { best_so_far, .. } => {
            return Err(NoPlanFoundError::new_err(format!(
                "no plan found under {}: the best has height {} (max load {max_load})",
                target.capacity().map_or(0, Size::get),
                best_so_far.map_or(0, |p| p.height().get())
            )))
        }
    };
    Ok(Plan {
        height: p.height().get(),
        offsets: p.into_offsets().into_iter().map(Offset::get).collect(),
        ids: target.buffers().iter().map(|b| b.id.clone()).collect(),
        max_load,
        lower_bound,
        optimal,
        planner: report.planner.name(),
        elapsed: report.elapsed.as_secs_f64(),
    })
}

/// `problem`, or a copy of it with `capacity` in place of its own when one is given.
fn with_capacity(
    problem: &memplan::Problem,
    capacity: Option<u64>,
) -> std::borrow::Cow<'_, memplan::Problem> {
    match capacity {
        Some(c) => std::borrow::Cow::Owned(problem.clone().with_capacity(Some(Size(c)))),
        None => std::borrow::Cow::Borrowed(problem),
    }
}

/// Checks a plan (a `Plan`, a list of offsets, or a dict `{id: offset}`) with the
/// independent checker. Returns the height; raises `CheckError` naming the violation.
#[pyfunction]
#[pyo3(signature = (problem, plan, capacity=None))]
fn check(
    py: Python<'_>,
    problem: &Problem,
    plan: &Bound<'_, PyAny>,
    capacity: Option<u64>,
) -> PyResult<u64> {
    let target = &*with_capacity(&problem.inner, capacity);
    let result = if let Ok(p) = plan.cast::<Plan>() {
        let offsets: Vec<Offset> = p.get().offsets.iter().map(|&o| Offset(o)).collect();
        py.detach(|| memplan::check_offsets(target, &offsets))
    } else if let Ok(d) = plan.cast::<PyDict>() {
        let mut placements = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            placements.push((k.extract::<String>()?, Offset(v.extract::<u64>()?)));
        }
        py.detach(|| memplan::check_placements(target, &placements))
    } else if plan.cast::<PyTuple>().is_ok() || plan.cast::<PyList>().is_ok() {
        let offsets: Vec<Offset> = plan
            .extract::<Vec<u64>>()?
            .into_iter()
            .map(Offset)
            .collect();
        py.detach(|| memplan::check_offsets(target, &offsets))
    } else {
        return Err(PyTypeError::new_err(
            "plan must be a memplan.Plan, a list of offsets, or a dict {id: offset}",
        ));
    };
    result
        .map(|s| s.height.get())
        .map_err(|f| CheckError::new_err(f.to_string()))
}

/// Shared objects (TFLite §4): assigns every buffer to one shared object; an object is as
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
        .detach(|| memplan::shared_objects::plan_shared_objects(&problem.inner, &options))
        .map_err(|e| MemplanError::new_err(e.to_string()))?;
    let out = PyDict::new(py);
    out.set_item("objects", report.assignment.object_of().to_vec())?;
    let sizes: Vec<u64> = report
        .assignment
        .object_sizes()
        .iter()
        .map(|s| s.get())
        .collect();
    out.set_item("object_sizes", sizes)?;
    out.set_item("total", report.assignment.total().get())?;
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
        let valid = memplan::check_offsets(inner, &as_offsets).is_ok();
        let picture = memplan_render::Picture {
            width,
            height,
            name,
            valid,
        };
        memplan_render::draw(inner, &offsets, &picture)
    }))
}

/// The names `plan(planner=...)` accepts.
#[pyfunction]
fn planners() -> Vec<String> {
    Planner::all().iter().map(Planner::name).collect()
}

#[pymodule]
fn _memplan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Problem>()?;
    m.add_class::<Plan>()?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(planners, m)?)?;
    m.add_function(wrap_pyfunction!(share, m)?)?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    let py = m.py();
    m.add("MemplanError", py.get_type::<MemplanError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("InfeasibleError", py.get_type::<InfeasibleError>())?;
    m.add("NoPlanFoundError", py.get_type::<NoPlanFoundError>())?;
    m.add("CheckError", py.get_type::<CheckError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
