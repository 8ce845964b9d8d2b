//! `memplan.Problem`: a validated set of buffers with an optional capacity, built from
//! Python objects, columns or files.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use std::sync::Arc;

use memplan::memories::MemoriesProblem;
use memplan::memories::{MemoriesOf, ProblemFile};
use memplan::{Buffer, Offset, Size};

use crate::arrays;
use crate::convert::{
    buffer_from, convention, csv_options, id_from, input_error, py_id, read_file, share_from,
    to_half_open,
};
use crate::InputError;

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
    pub(crate) inner: memplan::Problem,
    /// The capacity to fit under (given, or read from a JSON file), the default goal of
    /// ``plan`` and ``check``: the library's problem has none (it is a goal, not part of
    /// the problem).
    pub(crate) capacity: Option<u64>,
    /// Every id was given as an int: ids are handed back as ints.
    pub(crate) int_ids: bool,
    /// The problem across memories it was read with (``from_file``): ``plan`` then
    /// plans across them.
    pub(crate) memories: Option<Arc<MemoriesProblem>>,
}

impl Problem {
    /// The problem of `inner` (one memory).
    fn of(inner: memplan::Problem, capacity: Option<u64>, int_ids: bool) -> Problem {
        Problem {
            inner,
            capacity,
            int_ids,
            memories: None,
        }
    }

    fn validated(
        bufs: Vec<Buffer>,
        shares: Vec<memplan::Share>,
        capacity: Option<u64>,
        int_ids: bool,
    ) -> PyResult<Problem> {
        let inner = memplan::Problem::with_shares(bufs, shares).map_err(input_error)?;
        Ok(Problem::of(inner, capacity, int_ids))
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
        Ok(memplan::io::read_problem_json(bytes, &options)
            .map(|(inner, own)| Problem::of(inner, capacity.or(own.map(Size::get)), false)))
    }
}

#[pymethods]
impl Problem {
    #[new]
    #[pyo3(signature = (buffers, capacity=None, lifetimes=None, shares=None))]
    fn new(
        buffers: &Bound<'_, PyAny>,
        capacity: Option<u64>,
        lifetimes: Option<&str>,
        shares: Option<&Bound<'_, PyAny>>,
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
        let shares = match shares.filter(|s| !s.is_none()) {
            Some(list) => list
                .try_iter()?
                .enumerate()
                .map(|(k, item)| share_from(&item?, k))
                .collect::<PyResult<Vec<_>>>()?,
            None => Vec::new(),
        };
        Problem::validated(to_half_open(bufs, lifetimes)?, shares, capacity, int_ids)
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
        Ok(Problem::of(inner, capacity, int_ids))
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
        Ok(Problem::of(inner, capacity, false))
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
        Ok(Problem::of(inner, capacity, false))
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

    /// ``Problem.from_file(path, memories=None, spill=None, lifetimes=None)``: reads a
    /// problem file (CSV or JSON, by the name's ``.json`` or ``.csv``, else by the
    /// content) with its data of several memories, as the command line reads it: the
    /// ``memories`` (allowed names, ``|``-separated), ``accesses``, ``cost`` and
    /// ``memory`` columns or fields (docs/memories.md). The memories: ``memories`` (a
    /// sequence of ``Memory``) when given; else, with ``spill`` (the fast memory's
    /// capacity), spill's ``fast`` then ``slow`` (the file's ``cost`` and ``memory`` are
    /// spill's); else the JSON file's own ``memories`` section. The problem carries them:
    /// ``plan(problem)`` plans across them and returns a ``MemoryPlan``. With none of
    /// them, it is the problem of ``from_csv`` or ``from_json``. Raises
    /// ``FileNotFoundError`` (or another ``OSError``) naming the file, ``InputError``
    /// naming the file, the line and the column or field, and ``ValueError`` for both
    /// ``memories`` and ``spill``.
    #[staticmethod]
    #[pyo3(signature = (path, memories=None, spill=None, lifetimes=None))]
    fn from_file(
        path: &str,
        memories: Option<&Bound<'_, PyAny>>,
        spill: Option<u64>,
        lifetimes: Option<&str>,
    ) -> PyResult<Problem> {
        let given = memories.filter(|m| !m.is_none());
        if given.is_some() && spill.is_some() {
            return Err(PyValueError::new_err(
                "give memories or spill (spill=C is memories fast:C, slow), not both",
            ));
        }
        let given = given.map(crate::memory::core_memories).transpose()?;
        let bytes = read_file(path)?;
        let lower = path.to_ascii_lowercase();
        let json = lower.ends_with(".json")
            || (!lower.ends_with(".csv") && bytes.trim_ascii_start().starts_with(b"{"));
        let options = csv_options(lifetimes)?;
        let named = |e: memplan::ReadError| InputError::new_err(format!("{path}: {e}"));
        let file = match json {
            true => ProblemFile::read_json(&bytes, &options),
            false => ProblemFile::read_csv(&bytes, &options),
        }
        .map_err(named)?;
        let of = match (given, spill) {
            (Some(m), _) => MemoriesOf::Given(m),
            (None, Some(capacity)) => MemoriesOf::Spill(Size(capacity)),
            (None, None) if file.has_memories() => MemoriesOf::File,
            (None, None) => {
                let (inner, capacity) = file.into_problem();
                return Ok(Problem::of(inner, capacity.map(Size::get), false));
            }
        };
        let across = file.into_memories(of).map_err(named)?;
        let inner = across.problem().clone();
        Ok(Problem {
            memories: Some(Arc::new(across)),
            ..Problem::of(inner, None, false)
        })
    }

    /// The memories the problem was read with (``from_file``), or None.
    #[getter]
    fn memories(&self) -> Option<Vec<crate::memory::Memory>> {
        let across = self.memories.as_ref()?;
        Some(
            across
                .memories()
                .iter()
                .map(crate::memory::Memory::of)
                .collect(),
        )
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

    /// The declared shares as tuples ``(buffer, target, kind, offset, required)``, in
    /// order (kind ``"in_place"`` or ``"inside"``).
    #[getter]
    fn shares<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for s in self.inner.shares() {
            let t = (
                py_id(py, &s.buffer, self.int_ids)?,
                py_id(py, &s.target, self.int_ids)?,
                s.kind.name(),
                s.offset.get(),
                s.required,
            );
            list.append(t)?;
        }
        Ok(list)
    }

    /// The capacity, or None.
    #[getter]
    fn capacity(&self) -> Option<u64> {
        self.capacity
    }

    /// The largest total size live at one time: no plan is lower. With shares, the
    /// buffers that may share storage at a time count once (the largest of them).
    fn max_load(&self, py: Python<'_>) -> u64 {
        let inner = &self.inner;
        py.detach(|| memplan::max_load(inner).get())
    }

    /// The same buffers with another capacity (None: minimise the height).
    #[pyo3(signature = (capacity=None))]
    fn with_capacity(&self, capacity: Option<u64>) -> Problem {
        Problem {
            capacity,
            ..self.clone()
        }
    }

    fn __repr__(&self) -> String {
        let n = self.inner.len();
        match (&self.memories, self.capacity) {
            (Some(m), _) => {
                let names: Vec<String> = m
                    .memories()
                    .iter()
                    .map(|m| format!("'{}'", m.name))
                    .collect();
                format!("Problem({n} buffers, memories=[{}])", names.join(", "))
            }
            (None, Some(c)) => format!("Problem({n} buffers, capacity={c})"),
            (None, None) => format!("Problem({n} buffers)"),
        }
    }
}
