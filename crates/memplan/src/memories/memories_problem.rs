//! [`MemoriesProblem`]: a problem across memories as one value.

use crate::checker::{check_memories, CheckFailure, MemoriesCheckSummary};
#[cfg(feature = "spill")]
use crate::memory_types::SpillMemory;
use crate::memory_types::{
    allowed_of, traffic_of, validate_memories, MemoriesError, MemoriesInput, Memory, MemoryIdx,
    MemoryPlan, MemorySet,
};
use crate::outcome::Outcome;
use crate::request::Request;
use crate::types::{Offset, Problem, Size};

use super::{plan_memories, Infeasibility, MemoriesOptions, MemoriesReport};

/// A problem across memories as one value: the buffers (with their shares), the
/// memories, and each buffer's allowed memories and traffic. One memory is its case with
/// a single memory; spill ([`MemoriesProblem::spill`], feature `spill`) is its case of two,
/// `fast` under a capacity then an unbounded `slow`.
///
/// ```text
///   MemoriesProblem
///   ├── problem     the buffers and their shares          (crate::Problem)
///   ├── memories    tcm:8, ocram:4, dram (unbounded)      (fastest first)
///   └── per buffer  allowed set (default: all)            (MemorySet)
///                   accesses (traffic = size × accesses)  or traffic given directly
/// ```
///
/// The value is checked when it is made ([`MemoriesProblem::new`]): the memories (unique,
/// non-empty names; costs on all or none), the per-buffer data's lengths, no empty set, a
/// fixed offset in one memory and aligned to it, the traffic within 64 bits. What only a
/// plan can answer (does a pinned buffer fit its memory?) is the planner's: it is
/// [`Outcome::Infeasible`] there, naming the buffer. `memplan::io` reads one from a file,
/// and every door plans it with [`MemoriesProblem::plan`] and checks a plan with
/// [`MemoriesProblem::check`].
#[derive(Clone, Debug)]
pub struct MemoriesProblem {
    problem: Problem,
    memories: Vec<Memory>,
    allowed: Option<Vec<MemorySet>>,
    accesses: Option<Vec<u64>>,
    traffic: Option<Vec<u64>>,
}

impl MemoriesProblem {
    /// The problem across `memories` (fastest first) with the per-buffer data of
    /// `input`, checked (see [`MemoriesProblem`]).
    pub fn new(
        problem: Problem,
        memories: Vec<Memory>,
        input: &MemoriesInput<'_>,
    ) -> Result<MemoriesProblem, MemoriesError> {
        validate_memories(&memories)?;
        match allowed_of(&problem, &memories, input) {
            // A pinned buffer larger than its memory is a question for the planner.
            Ok(_) | Err(MemoriesError::TooLarge { .. }) => {}
            Err(e) => return Err(e),
        }
        traffic_of(&problem, input)?;
        Ok(MemoriesProblem {
            problem,
            memories,
            allowed: input.allowed.map(<[MemorySet]>::to_vec),
            accesses: input.accesses.map(<[u64]>::to_vec),
            traffic: input.traffic.map(<[u64]>::to_vec),
        })
    }

    /// Spill: the two-memory problem of `problem` under `capacity` bytes of fast memory.
    /// Memory 0, `fast`, has the capacity; memory 1, `slow`, is unbounded. Each buffer's
    /// cost (`costs`, default its size) is its traffic, so that a plan's cost is the cost
    /// of its slow buffers, and its [`SpillMemory`] (`pins`, default either) its allowed
    /// set; a buffer with a fixed offset is fast.
    ///
    /// ```text
    ///   C = 8 bytes of fast memory
    ///   time               0   1   2   3
    ///   a  size 4  cost 9  [===========)
    ///   b  size 4  cost 3  [=======)
    ///   c  size 4  cost 5      [=======)
    ///   need = load − C    0   4   0
    /// ```
    ///
    /// At time 1, 4 bytes must leave; b's are the cheapest (3/4 per byte), so every plan
    /// costs at least 3, and spilling b costs 3: optimal.
    ///
    /// ```
    /// use memplan::memories::{MemoriesOptions, MemoriesProblem, MemoryIdx};
    /// use memplan::{Buffer, Outcome, Problem, Request, Size};
    ///
    /// let problem = Problem::new(vec![
    ///     Buffer::new("a", 0, 3, 4),
    ///     Buffer::new("b", 0, 2, 4),
    ///     Buffer::new("c", 1, 3, 4),
    /// ])?;
    /// let spill = MemoriesProblem::spill(problem, Size(8), Some(vec![9, 3, 5]), None)?;
    /// let report = spill.plan(&Request::minimise(), &MemoriesOptions::default())?;
    /// let Outcome::Optimal(plan) = &report.outcome else { panic!("{:?}", report.outcome) };
    /// assert_eq!(plan.memory, [MemoryIdx(0), MemoryIdx(1), MemoryIdx(0)]); // b is spilled
    /// assert_eq!(plan.cost, 3);
    /// spill.check(plan)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "spill")]
    pub fn spill(
        problem: Problem,
        capacity: Size,
        costs: Option<Vec<u64>>,
        pins: Option<Vec<SpillMemory>>,
    ) -> Result<MemoriesProblem, MemoriesError> {
        let allowed = spill_allowed(&problem, costs.as_deref(), pins.as_deref())?;
        let input = MemoriesInput {
            allowed: Some(&allowed),
            accesses: None,
            traffic: costs.as_deref(),
        };
        MemoriesProblem::new(problem, spill_memories(capacity), &input)
    }

    /// The buffers and their shares.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The memories, fastest first.
    pub fn memories(&self) -> &[Memory] {
        &self.memories
    }

    /// The per-buffer data, as slices.
    pub fn input(&self) -> MemoriesInput<'_> {
        MemoriesInput {
            allowed: self.allowed.as_deref(),
            accesses: self.accesses.as_deref(),
            traffic: self.traffic.as_deref(),
        }
    }

    /// Each buffer's allowed set, with a fixed buffer's set of all memories as the first
    /// memory; `TooLarge` when a buffer can only go in a memory too small for it.
    pub fn allowed(&self) -> Result<Vec<MemorySet>, MemoriesError> {
        allowed_of(&self.problem, &self.memories, &self.input())
    }

    /// Each buffer's traffic: given, `size × accesses`, or its size.
    pub fn traffic(&self) -> Vec<u64> {
        traffic_of(&self.problem, &self.input()).expect("checked when made")
    }

    /// Plans the problem within the request's budget (its goal is not used: the
    /// capacities are the memories'; see the [module docs](super) for the model); a
    /// buffer that can only go in a memory it is larger than makes the outcome
    /// [`Outcome::Infeasible`], its [`Infeasibility`] naming the buffer.
    ///
    /// ```
    /// use memplan::memories::{MemoriesInput, MemoriesOptions, MemoriesProblem, Memory, MemoryIdx, MemorySet};
    /// use memplan::{Buffer, Problem, Request};
    ///
    /// let problem = Problem::new(vec![
    ///     Buffer::new("a", 0, 3, 4),
    ///     Buffer::new("b", 0, 2, 4),
    ///     Buffer::new("c", 1, 3, 4),
    /// ])?;
    /// let memories = vec![
    ///     Memory::new("tcm").with_capacity(8),
    ///     Memory::new("ocram").with_capacity(4),
    ///     Memory::new("dram"),
    /// ];
    /// let allowed = [MemorySet::all(3), MemorySet::single(MemoryIdx(2)), MemorySet::all(3)];
    /// let input = MemoriesInput { allowed: Some(&allowed), ..MemoriesInput::default() };
    /// let across = MemoriesProblem::new(problem, memories, &input)?;
    /// let report = across.plan(&Request::minimise(), &MemoriesOptions::default())?;
    /// let plan = report.plan().expect("a plan");
    /// assert_eq!(plan.memory, [MemoryIdx(0), MemoryIdx(2), MemoryIdx(0)]); // b is pinned to dram
    /// assert_eq!(plan.cost, 4); // 4 bytes outside tcm
    /// across.check(plan)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn plan(
        &self,
        request: &Request,
        options: &MemoriesOptions,
    ) -> Result<MemoriesReport, MemoriesError> {
        plan_reporting_pins(
            &self.problem,
            &self.memories,
            &self.input(),
            request,
            options,
        )
    }

    /// The pooled-capacity proof alone (`pooled.rs`): `Some` when, at some time, the
    /// buffers that may only use a set of bounded memories (after the size presolve) are
    /// larger than those memories together, so that no plan exists.
    /// [`MemoriesProblem::plan`] runs it first ([`MemoriesOptions::pooled_proof`]).
    pub fn pooled_infeasibility(&self) -> Result<Option<Infeasibility>, MemoriesError> {
        super::pooled_infeasibility(&self.problem, &self.memories, &self.input())
    }

    /// Checks a plan with the independent checker ([`check_memories`]).
    pub fn check(&self, plan: &MemoryPlan) -> Result<MemoriesCheckSummary, CheckFailure> {
        check_memories(&self.problem, &self.memories, &self.input(), plan)
    }

    /// A plan of this problem from each buffer's memory and offset (indexed like the
    /// buffers), with each memory's height and traffic and the plan's cost computed, for
    /// [`MemoriesProblem::check`] to judge. `None` when the lengths differ or a memory
    /// index is out of range.
    pub fn plan_of(&self, memory: Vec<MemoryIdx>, offsets: Vec<Offset>) -> Option<MemoryPlan> {
        let n = self.problem.len();
        let k = self.memories.len();
        if memory.len() != n || offsets.len() != n || memory.iter().any(|m| m.index() >= k) {
            return None;
        }
        let traffic_each = self.traffic();
        let priced = self.memories.iter().all(|m| m.cost.is_some());
        let mut heights = vec![Size(0); k];
        let mut traffic = vec![0u64; k];
        let mut cost = 0u64;
        for (i, b) in self.problem.buffers().iter().enumerate() {
            let m = memory[i].index();
            let end = Size(offsets[i].get().saturating_add(b.size.get()));
            heights[m] = heights[m].max(end);
            traffic[m] = traffic[m].saturating_add(traffic_each[i]);
            let unit = match priced {
                true => self.memories[m].cost.unwrap_or(0),
                false => u64::from(m > 0),
            };
            cost = cost.saturating_add(traffic_each[i].saturating_mul(unit));
        }
        Some(MemoryPlan {
            memory,
            offsets,
            heights,
            traffic,
            cost,
        })
    }
}

/// `plan_memories`, with a buffer that can only go in a memory too small for it
/// reported as [`Outcome::Infeasible`] (an [`Infeasibility`] naming it), not as an error.
pub(super) fn plan_reporting_pins(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    request: &Request,
    options: &MemoriesOptions,
) -> Result<MemoriesReport, MemoriesError> {
    let started = std::time::Instant::now();
    match plan_memories(problem, memories, input, request, options) {
        Err(MemoriesError::TooLarge {
            index,
            id,
            need,
            memory,
            capacity,
        }) => Ok(MemoriesReport {
            outcome: Outcome::Infeasible,
            lower_bound: 0,
            infeasibility: Some(Infeasibility {
                memories: vec![memory.clone()],
                memory,
                capacity,
                time: Some(problem.buffers()[index].lifetime.start),
                need,
                buffers: vec![id],
                exhaustive: false,
            }),
            failed_memory: None,
            levels: Vec::new(),
            fallback: false,
            traffic_bounds: Vec::new(),
            unshared_heights: Vec::new(),
            elapsed: started.elapsed(),
            work: 0,
            stopped_by: None,
        }),
        other => other,
    }
}

/// Spill's two memories: `fast` under `capacity`, then an unbounded `slow`.
#[cfg(feature = "spill")]
pub(super) fn spill_memories(capacity: Size) -> Vec<Memory> {
    vec![
        Memory::new("fast").with_capacity(capacity.get()),
        Memory::new("slow"),
    ]
}

/// Each buffer's allowed set among `fast` (memory 0) and `slow` (memory 1), from its
/// preference (`pins`, default either): a fixed buffer is fast, and asking it to be slow
/// is an error. Checks the lengths of `costs` (spill's traffic figures, named as the
/// caller gave them) and `pins`.
#[cfg(feature = "spill")]
pub(super) fn spill_allowed(
    problem: &Problem,
    costs: Option<&[u64]>,
    pins: Option<&[SpillMemory]>,
) -> Result<Vec<MemorySet>, MemoriesError> {
    let n = problem.len();
    let count = |what, found: Option<usize>| match found {
        Some(found) if found != n => Err(MemoriesError::Count {
            what,
            expected: n,
            found,
        }),
        _ => Ok(()),
    };
    count("costs", costs.map(<[u64]>::len))?;
    count("memory preferences", pins.map(<[SpillMemory]>::len))?;
    let (fast, slow) = (MemoryIdx(0), MemoryIdx(1));
    let mut allowed = Vec::with_capacity(n);
    for (i, b) in problem.indexed() {
        let wanted = pins.map_or(SpillMemory::Either, |p| p[i.index()]);
        allowed.push(match (b.fixed_offset.is_some(), wanted) {
            (true, SpillMemory::Slow) => {
                let (index, id) = (i.index(), b.id.clone());
                return Err(MemoriesError::FixedInSlow { index, id });
            }
            (true, _) | (false, SpillMemory::Fast) => MemorySet::single(fast),
            (false, SpillMemory::Slow) => MemorySet::single(slow),
            (false, SpillMemory::Either) => MemorySet::of([fast, slow]),
        });
    }
    Ok(allowed)
}
