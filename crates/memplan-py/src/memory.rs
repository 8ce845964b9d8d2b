//! ``memplan.Memory``, one memory of a problem across memories, and what the modules
//! that take memories share: the ``memories=`` argument checked, the library's errors as
//! the package's exceptions.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use memplan::memories::{MemoriesError, Memory as CoreMemory};
use memplan::Size;

use crate::convert::to_u64;
use crate::{CheckError, InputError, MemplanError};

/// ``Memory(name, capacity=None, alignment=1, cost=None)``: one memory for
/// ``plan(problem, memories=[...])``. ``capacity`` in bytes (``None``: unbounded),
/// ``alignment`` (every offset in it is a multiple), ``cost`` per byte of traffic
/// (give every memory a cost, or none: then the objective is lexicographic, as much
/// traffic as possible in the first memory, then the second, ...).
#[pyclass(frozen, module = "memplan")]
#[derive(Clone)]
pub struct Memory {
    /// The memory's name.
    #[pyo3(get)]
    name: String,
    /// Its capacity in bytes, or None (unbounded).
    #[pyo3(get)]
    capacity: Option<u64>,
    /// Its alignment.
    #[pyo3(get)]
    alignment: u64,
    /// Its cost per byte of traffic, or None.
    #[pyo3(get)]
    cost: Option<u64>,
}

#[pymethods]
impl Memory {
    #[new]
    #[pyo3(signature = (name, capacity=None, alignment=None, cost=None),
           text_signature = "(name, capacity=None, alignment=1, cost=None)")]
    fn new(
        name: String,
        capacity: Option<&Bound<'_, PyAny>>,
        alignment: Option<&Bound<'_, PyAny>>,
        cost: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Memory> {
        let what = |field: &str| format!("memory '{name}': '{field}'");
        let capacity = capacity
            .filter(|c| !c.is_none())
            .map(|c| to_u64(c, &what("capacity")))
            .transpose()?;
        let alignment = alignment
            .filter(|a| !a.is_none())
            .map_or(Ok(1), |a| to_u64(a, &what("alignment")))?;
        let cost = cost
            .filter(|c| !c.is_none())
            .map(|c| to_u64(c, &what("cost")))
            .transpose()?;
        Ok(Memory {
            name,
            capacity,
            alignment,
            cost,
        })
    }

    fn __repr__(&self) -> String {
        let opt = |v: Option<u64>| v.map_or("None".to_string(), |v| v.to_string());
        format!(
            "Memory({:?}, capacity={}, alignment={}, cost={})",
            self.name,
            opt(self.capacity),
            self.alignment,
            opt(self.cost)
        )
    }
}

impl Memory {
    /// The memory a library value describes.
    pub(crate) fn of(m: &CoreMemory) -> Memory {
        Memory {
            name: m.name.clone(),
            capacity: m.capacity.map(Size::get),
            alignment: m.alignment.get(),
            cost: m.cost,
        }
    }

    fn core(&self) -> CoreMemory {
        CoreMemory {
            name: self.name.clone(),
            capacity: self.capacity.map(Size),
            alignment: Size(self.alignment),
            cost: self.cost,
        }
    }
}

/// The library's errors of several memories as the package's exceptions.
pub(crate) fn memories_error(e: MemoriesError) -> PyErr {
    match e {
        MemoriesError::Plan(e) => MemplanError::new_err(e.to_string()),
        MemoriesError::InvalidPlan(_) => CheckError::new_err(e.to_string()),
        e => InputError::new_err(e.to_string()),
    }
}

/// The memories of a `memories=` argument: a sequence of `memplan.Memory`, checked.
pub(crate) fn core_memories(memories: &Bound<'_, PyAny>) -> PyResult<Vec<CoreMemory>> {
    let wrong = || PyTypeError::new_err("memories must be a sequence of memplan.Memory");
    let memories: Vec<CoreMemory> = (memories.try_iter().map_err(|_| wrong())?)
        .map(|m| Ok(m?.cast::<Memory>().map_err(|_| wrong())?.get().core()))
        .collect::<PyResult<_>>()?;
    memplan::memories::validate_memories(&memories).map_err(memories_error)?;
    Ok(memories)
}
