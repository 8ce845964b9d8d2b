//! `memplan.Memory`, `memplan.MemoryPlan` and planning across memories for Python. Each
//! form (`plan(problem, memories=[...])`, a `Problem.from_file` that carries its
//! memories, and `plan_spill`, spill's short form) makes one
//! `memplan::memories::MemoriesProblem`, and [`plan_across`] plans it with one call.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping, PyString};

use memplan::memories::{
    check_memories, MemoriesError, MemoriesInput, MemoriesOptions, MemoriesProblem,
    Memory as CoreMemory, MemoryIdx, MemorySet, SpillMemory,
};
use memplan::{Outcome, Size};

use crate::convert::{py_id, py_ids, to_u64};
use crate::memory::{core_memories, memories_error};
use crate::{CheckError, InfeasibleError, InputError, NoPlanFoundError, Problem};

/// A plan across memories, returned by ``plan(problem, memories=[...])`` and indexed
/// like the problem's buffers: ``memory`` (each buffer's memory name), ``memory_index``
/// (its position in ``memories``), ``offsets`` (in each buffer's own memory), ``ids``;
/// per memory (dicts keyed by name, in the memories' order) ``heights``, ``traffic``
/// and ``capacities``; and ``cost`` (``Σ traffic × cost`` with costs, else the traffic
/// outside the first memory), ``lower_bound`` (no valid plan costs less), ``gap``,
/// ``optimal`` (the gap is 0), ``traffic_bounds`` (per memory, a proven ceiling on its
/// traffic; without costs, given the earlier memories' traffic), ``memory_gaps`` (per
/// memory, the ceiling less the traffic: all 0 when every memory is proven optimal),
/// ``memories`` (the names), ``fallback`` (the plan comes from
/// the one-pass fallback), ``elapsed`` (seconds), ``work`` (work units) and
/// ``stopped_by`` (as ``Plan.stopped_by``).
/// ``to_dict()`` gives ``{id: (memory, offset)}``.
#[pyclass(frozen, module = "memplan")]
pub struct MemoryPlan {
    /// What the plan was asked: the memories and the per-buffer data, for ``check`` and
    /// ``render``.
    asked: Arc<MemoriesProblem>,
    /// Each buffer's memory, as its position in ``memories``.
    #[pyo3(get)]
    memory_index: Vec<u32>,
    /// Each buffer's offset in its own memory.
    #[pyo3(get)]
    offsets: Vec<u64>,
    ids: Vec<String>,
    int_ids: bool,
    height_list: Vec<u64>,
    unshared_height_list: Vec<u64>,
    traffic_list: Vec<u64>,
    bound_list: Vec<u64>,
    /// The plan's cost.
    #[pyo3(get)]
    cost: u64,
    /// A proven lower bound on the cost of any valid plan.
    #[pyo3(get)]
    lower_bound: u64,
    /// Seconds spent planning.
    #[pyo3(get)]
    elapsed: f64,
    /// Work units spent planning.
    #[pyo3(get)]
    work: u64,
    /// Which limit stopped the call: "work", "clock", "cancel", or None.
    #[pyo3(get)]
    stopped_by: Option<&'static str>,
    /// True when the plan comes from the one-pass fallback (a later bounded memory could
    /// not hold what the earlier ones left it).
    #[pyo3(get)]
    fallback: bool,
    /// The shares the plan takes, as indices into the problem's ``shares``.
    #[pyo3(get)]
    taken_shares: Vec<usize>,
}

#[pymethods]
impl MemoryPlan {
    /// Each buffer's memory name.
    #[getter]
    fn memory(&self) -> Vec<String> {
        let names = self.asked.memories();
        let name = |m: &u32| names[*m as usize].name.clone();
        self.memory_index.iter().map(name).collect()
    }

    /// The memories' names, in the order given.
    #[getter]
    fn memories(&self) -> Vec<String> {
        self.asked
            .memories()
            .iter()
            .map(|m| m.name.clone())
            .collect()
    }

    /// ``{memory: height}``.
    #[getter]
    fn heights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.per_memory(py, &self.height_list)
    }

    /// ``{memory: height}`` of the plan without the optional shares (the required ones
    /// alone), planned beside this one: what each memory needs without them. ``None``
    /// when the problem has no optional share.
    #[getter]
    fn unshared_heights<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        if self.unshared_height_list.is_empty() {
            return Ok(None);
        }
        self.per_memory(py, &self.unshared_height_list).map(Some)
    }

    /// ``{memory: traffic}``.
    #[getter]
    fn traffic<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.per_memory(py, &self.traffic_list)
    }

    /// ``{memory: ceiling}``: a proven ceiling on each memory's traffic (without costs,
    /// over the plans whose earlier memories serve this plan's traffic).
    #[getter]
    fn traffic_bounds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.per_memory(py, &self.bound_list)
    }

    /// ``{memory: gap}``: each memory's ceiling less its traffic.
    #[getter]
    fn memory_gaps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let gaps: Vec<u64> = self
            .bound_list
            .iter()
            .zip(&self.traffic_list)
            .map(|(b, t)| b.saturating_sub(*t))
            .collect();
        self.per_memory(py, &gaps)
    }

    /// ``{memory: capacity or None}``.
    #[getter]
    fn capacities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for m in self.asked.memories() {
            d.set_item(&m.name, m.capacity.map(Size::get))?;
        }
        Ok(d)
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
        let names = self.memory();
        for ((id, &o), name) in self.ids.iter().zip(&self.offsets).zip(names) {
            d.set_item(py_id(py, id, self.int_ids)?, (name, o))?;
        }
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.offsets.len()
    }

    fn __repr__(&self) -> String {
        let heights: Vec<String> = (self.asked.memories().iter())
            .zip(&self.height_list)
            .map(|(m, h)| format!("{}={h}", m.name))
            .collect();
        format!(
            "MemoryPlan(cost={}, lower_bound={}, optimal={}, heights=[{}], {} buffers)",
            self.cost,
            self.lower_bound,
            if self.optimal() { "True" } else { "False" },
            heights.join(", "),
            self.offsets.len()
        )
    }
}

impl MemoryPlan {
    /// The library's plan, with the figures this one claims.
    fn core_plan(&self) -> memplan::memories::MemoryPlan {
        memplan::memories::MemoryPlan {
            memory: self.memory_index.iter().map(|&m| MemoryIdx(m)).collect(),
            offsets: self.offsets.iter().map(|&o| memplan::Offset(o)).collect(),
            heights: self.height_list.iter().map(|&h| Size(h)).collect(),
            traffic: self.traffic_list.clone(),
            cost: self.cost,
        }
    }

    /// ``check(problem, memory_plan)``: the independent checker across the plan's
    /// memories (allowed sets, pins, alignments, each memory under its capacity, the
    /// figures); the plan's cost, or ``CheckError`` naming the buffer at fault.
    pub(crate) fn check(&self, py: Python<'_>, problem: &memplan::Problem) -> PyResult<u64> {
        let plan = self.core_plan();
        let (memories, input) = (self.asked.memories(), self.asked.input());
        py.detach(|| check_memories(problem, memories, &input, &plan))
            .map(|s| s.cost)
            .map_err(|v| CheckError::new_err(v.to_string()))
    }

    /// ``render(problem, memory_plan)``: one panel per memory that holds a buffer, on
    /// one time axis (as ``memplan render --memories``).
    pub(crate) fn render(
        &self,
        py: Python<'_>,
        problem: &memplan::Problem,
        name: &str,
        width: u32,
        height: u32,
    ) -> PyResult<String> {
        let plan = self.core_plan();
        if plan.memory.len() != problem.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "the plan has {} buffers, the problem {}",
                plan.memory.len(),
                problem.len()
            )));
        }
        let (memories, input) = (self.asked.memories(), self.asked.input());
        Ok(py.detach(|| {
            let valid = check_memories(problem, memories, &input, &plan).is_ok();
            let bufs = problem.buffers();
            let first = bufs.iter().map(|b| b.lifetime.start.get()).min();
            let last = bufs.iter().map(|b| b.lifetime.end.get()).max();
            let span = (first.unwrap_or(0), last.unwrap_or(1));
            let mut panels = Vec::new();
            for (m, memory) in memories.iter().enumerate() {
                let members: Vec<usize> = (0..problem.len())
                    .filter(|&i| plan.memory[i].index() == m)
                    .collect();
                if members.is_empty() {
                    continue;
                }
                let sub = memplan::Problem::new(members.iter().map(|&i| bufs[i].clone()).collect())
                    .expect("a subset of a valid problem");
                let offsets: Vec<u64> = members.iter().map(|&i| self.offsets[i]).collect();
                let title = match memory.capacity {
                    Some(c) => format!("{name}: memory {} (capacity {} B)", memory.name, c.get()),
                    None => format!("{name}: memory {} (unbounded)", memory.name),
                };
                panels.push((sub, offsets, title, memory.capacity.map(Size::get)));
            }
            let pictures: Vec<memplan_render::Picture<'_>> = panels
                .iter()
                .enumerate()
                .map(|(k, (_, _, title, capacity))| {
                    let h = if k == 0 {
                        height
                    } else {
                        (height / 2).max(150)
                    };
                    let mut p = memplan_render::Picture::new(width, h, title, valid);
                    p.span = Some(span);
                    p.capacity = *capacity;
                    p
                })
                .collect();
            let refs: Vec<(&memplan::Problem, &[u64], &memplan_render::Picture<'_>)> = panels
                .iter()
                .zip(&pictures)
                .map(|((sub, offsets, _, _), p)| (sub, offsets.as_slice(), p))
                .collect();
            memplan_render::draw_stacked(&refs)
        }))
    }

    fn per_memory<'py>(&self, py: Python<'py>, values: &[u64]) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (m, v) in self.asked.memories().iter().zip(values) {
            d.set_item(&m.name, *v)?;
        }
        Ok(d)
    }
}

/// A per-buffer argument: a sequence indexed like the buffers, or a mapping by id
/// (buffers it does not name get `None`).
fn per_buffer<'py>(
    arg: &Bound<'py, PyAny>,
    what: &str,
    ids: &[String],
) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
    let n = ids.len();
    if let Ok(map) = arg.cast::<PyMapping>() {
        let mut out: Vec<Option<Bound<'py, PyAny>>> = vec![None; n];
        for item in map.items()?.iter() {
            let (key, value): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
            let id = crate::convert::id_from(&key, 0)
                .map_err(|_| PyTypeError::new_err(format!("{what}: keys must be buffer ids")))?
                .0;
            let k = ids.iter().position(|x| *x == id).ok_or_else(|| {
                InputError::new_err(format!("{what}: no buffer has the id {}", key))
            })?;
            out[k] = Some(value).filter(|v| !v.is_none());
        }
        return Ok(out);
    }
    if arg.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a sequence or a mapping by buffer id"
        )));
    }
    let items: Vec<Bound<'py, PyAny>> = arg
        .try_iter()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a sequence or a mapping")))?
        .collect::<PyResult<_>>()?;
    if items.len() != n {
        return Err(InputError::new_err(format!(
            "{what}: {} given for {n} buffer(s)",
            items.len()
        )));
    }
    Ok(items
        .into_iter()
        .map(|v| Some(v).filter(|v| !v.is_none()))
        .collect())
}

/// An allowed set: a memory name, or a sequence of names.
fn allowed_set(v: &Bound<'_, PyAny>, memories: &[CoreMemory], id: &str) -> PyResult<MemorySet> {
    let names: Vec<String> = if let Ok(s) = v.extract::<String>() {
        vec![s]
    } else {
        v.extract::<Vec<String>>().map_err(|_| {
            PyTypeError::new_err(format!(
                "allowed['{id}'] must be a memory name or a sequence of names"
            ))
        })?
    };
    if names.is_empty() {
        return Err(InputError::new_err(format!(
            "allowed['{id}']: the set of memories is empty"
        )));
    }
    let mut set = MemorySet::EMPTY;
    for name in names {
        let Some(m) = memories.iter().position(|m| m.name == name) else {
            let unknown = MemoriesError::UnknownMemory(name);
            return Err(InputError::new_err(format!("allowed['{id}']: {unknown}")));
        };
        set = MemorySet(set.0 | MemorySet::single(MemoryIdx(m as u32)).0);
    }
    Ok(set)
}

/// The problem across `memories` of `plan(problem, memories=..., allowed=..., accesses=...)`.
pub(crate) fn memories_problem(
    problem: &Problem,
    memories: &Bound<'_, PyAny>,
    allowed: Option<&Bound<'_, PyAny>>,
    accesses: Option<&Bound<'_, PyAny>>,
) -> PyResult<MemoriesProblem> {
    let memories = core_memories(memories)?;
    let target = &problem.inner;
    let ids: Vec<String> = target.buffers().iter().map(|b| b.id.clone()).collect();
    let all = MemorySet::all(memories.len());
    let allowed: Option<Vec<MemorySet>> = allowed
        .filter(|a| !a.is_none())
        .map(|a| {
            per_buffer(a, "allowed", &ids)?
                .iter()
                .zip(&ids)
                .map(|(v, id)| {
                    v.as_ref()
                        .map_or(Ok(all), |v| allowed_set(v, &memories, id))
                })
                .collect::<PyResult<Vec<_>>>()
        })
        .transpose()?;
    let accesses: Option<Vec<u64>> = accesses
        .filter(|a| !a.is_none())
        .map(|a| {
            per_buffer(a, "accesses", &ids)?
                .iter()
                .zip(&ids)
                .map(|(v, id)| {
                    v.as_ref()
                        .map_or(Ok(1), |v| to_u64(v, &format!("accesses['{id}']")))
                })
                .collect::<PyResult<Vec<_>>>()
        })
        .transpose()?;
    let input = MemoriesInput {
        allowed: allowed.as_deref(),
        accesses: accesses.as_deref(),
        traffic: None,
    };
    MemoriesProblem::new(target.clone(), memories, &input).map_err(memories_error)
}

/// Plans `asked` (the one library call of every form), checks the plan when `verify`,
/// and presents it; the outcomes without a plan are the package's exceptions.
pub(crate) fn plan_across(
    py: Python<'_>,
    asked: Arc<MemoriesProblem>,
    int_ids: bool,
    budget: memplan::Budget,
    (seed, threads, verify): (u64, usize, bool),
) -> PyResult<MemoryPlan> {
    let options = MemoriesOptions {
        threads,
        seed,
        verify,
        ..MemoriesOptions::default()
    };
    let request = memplan::Request {
        goal: memplan::Goal::Minimise,
        budget,
    };
    let report = py
        .detach(|| asked.plan(&request, &options))
        .map_err(memories_error)?;
    let plan = match &report.outcome {
        Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => p,
        Outcome::Infeasible => {
            let why = report
                .infeasibility
                .as_ref()
                .map_or_else(|| "no plan exists".to_string(), ToString::to_string);
            return Err(InfeasibleError::new_err(format!("no plan: {why}")));
        }
        Outcome::Unknown { lower_bound, .. } => {
            let at = report
                .failed_memory
                .map(|m| asked.memories()[m.index()].name.clone())
                .unwrap_or_default();
            return Err(NoPlanFoundError::new_err(format!(
                "no plan found in time: memory '{at}' could not hold the buffers that must or were left to use it (proven cost ≥ {lower_bound})"
            )));
        }
    };
    if verify {
        py.detach(|| asked.check(plan))
            .map_err(|v| CheckError::new_err(v.to_string()))?;
    }
    let target = asked.problem();
    Ok(MemoryPlan {
        memory_index: plan.memory.iter().map(|m: &MemoryIdx| m.0).collect(),
        offsets: plan.offsets.iter().map(|o| o.get()).collect(),
        ids: target.buffers().iter().map(|b| b.id.clone()).collect(),
        int_ids,
        height_list: plan.heights.iter().map(|h| h.get()).collect(),
        unshared_height_list: report.unshared_heights.iter().map(|h| h.get()).collect(),
        traffic_list: plan.traffic.clone(),
        bound_list: report.traffic_bounds.clone(),
        cost: plan.cost,
        lower_bound: report.lower_bound,
        elapsed: report.elapsed.as_secs_f64(),
        work: report.work,
        stopped_by: report.stopped_by.map(memplan::budget::Stop::name),
        fallback: report.fallback,
        taken_shares: target.taken_shares(&plan.offsets, |i| plan.memory[i].0),
        asked,
    })
}

/// ``plan_spill(problem, capacity, costs=None, memory=None, time_limit=None,
/// work_limit=None, threads=0, seed=0, verify=True) -> MemoryPlan``: spill, the short form
/// of ``plan`` with two memories, ``fast`` (``capacity`` bytes) then ``slow``
/// (unbounded).
///
/// The buffers that do not fit in fast memory go to slow memory, at the least total
/// cost, and both memories are planned. ``costs`` is each buffer's cost in slow memory
/// (default: its size; the plan's ``cost`` is the sum over its slow buffers);
/// ``memory`` says where each must live: ``"fast"``, ``"slow"`` or ``"either"`` (or
/// ``None``, the default: the planner's choice). Buffers with a fixed offset stay fast.
/// Both lists are indexed like the problem's buffers; the problem's own capacity is
/// ignored. The budget, ``threads``, ``seed`` and ``verify`` are as in ``plan``; the
/// result is a ``MemoryPlan`` as ``plan(problem, memories=...)`` gives (its
/// ``memory`` is ``"fast"`` or ``"slow"`` per buffer). The GIL is released while
/// planning.
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
) -> PyResult<MemoryPlan> {
    let budget = crate::budget(time_limit, work_limit)?;
    let pins: Option<Vec<SpillMemory>> = memory
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
    let asked = MemoriesProblem::spill(problem.inner.clone(), Size(capacity), costs, pins)
        .map_err(memories_error)?;
    let settings = (seed, threads, verify);
    plan_across(py, Arc::new(asked), problem.int_ids, budget, settings)
}
