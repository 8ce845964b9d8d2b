//! Several memories: which memory each buffer lives in, and where, at the least cost,
//! with a proven lower bound on that cost (feature `memories`, on by default).
//!
//! # The model
//!
//! Given a [`Problem`], a list of [`Memory`]s (name, capacity or unbounded, alignment,
//! optional cost per byte) and per buffer a [`MemorySet`] of allowed memories (default
//! all; one memory is a pin; a fixed offset pins an address in the buffer's single
//! memory, or in the first memory when its set is all of them) and a traffic (`size ×
//! accesses`, accesses default 1), find for every buffer a memory in its set and an
//! offset in that memory such that each memory's buffers form a valid plan
//! ([`crate::check`]) under its capacity, with offsets that are multiples of the
//! memory's alignment. The objective:
//!
//! - with costs on every memory: the least `Σ traffic × cost(memory)`;
//! - without costs: lexicographic, as much traffic as possible in the first memory,
//!   then in the second, and so on. The plan's scalar `cost` is then the traffic
//!   *outside the first memory*, and the bound and `Optimal` are about that figure.
//!
//! ```text
//!   memories: tcm (8 bytes), ocram (4 bytes), dram (unbounded)
//!   time               0   1   2   3
//!   a  size 4          [===========)      allowed: all
//!   b  size 4          [=======)          allowed: ocram|dram
//!   c  size 4              [=======)      allowed: all
//!   d  size 4          [===========)      allowed: all
//!
//!   level tcm:   keep a, c (d or c must leave at time 1; the cheapest choice)
//!   level ocram: b, then d does not fit beside b at time 0-2: d leaves
//!   level dram:  d
//! ```
//!
//! # How: one level at a time
//!
//! First, each buffer's allowed set loses the bounded memories it is larger than (no
//! plan puts it there; unless that leaves nothing, or it has a fixed offset). Without
//! this, a fractional cover counts part of a too-large buffer as held, which on
//! ExecuTorch's models left the bound's ceiling on the first memory's traffic up to twice
//! what any plan reaches. The memories are taken in order (list order, or by increasing
//! cost when costs are given). Each bounded memory is one *level*: the buffers still unplaced that may use
//! it either stay (and are placed under its capacity) or leave for the memories after
//! it, at a cost per buffer of `traffic` (lexicographic) or `traffic × (the cheapest
//! later allowed cost − this memory's cost)`. A buffer with no later memory must stay.
//! That is the two-memory problem, solved by this folder's machinery:
//!
//! - the **lower bound** (`bound.rs`): at every time `t`, the buffers leaving must
//!   cover at least `load(t) − C` bytes; the cheapest fractional cover bounds the cost,
//!   an integer-rounding argument strengthens it, times that share no buffer add up, and
//!   the holes that fixed buffers leave under `C` raise each time's need;
//! - the **heuristic** (`heuristic.rs`): leave by cost per byte-time at the overloaded
//!   times, bring back the most expensive while the load fits, place the kept buffers
//!   with [`crate::plan`], and repair a placement that overflows;
//! - the **Lagrangian relaxation** (`cover.rs`, [`MemoriesOptions::lagrangian`]) of the
//!   covering problem: a bound as strong as the linear relaxation and a cheap cover;
//! - the **improvement** (`improve.rs`, [`MemoriesOptions::improve`]): insertions,
//!   swaps and seeded re-planning;
//! - the **insertion starts** (`level.rs`, [`MemoriesOptions::greedy_starts`]): every
//!   free buffer placed by first fit alone, largest first, most traffic first and most
//!   traffic per room, the cheapest kept when it beats the improved solution;
//! - the **exact search** (`exact.rs`, [`MemoriesOptions::exact`]): branch and bound per
//!   time component, the kept set's feasibility decided by memplan's exact search
//!   (MiniMalloc, Moffitt, ASPLOS 2023), which proves infeasibility too.
//!
//! An unbounded memory keeps every buffer that may use it, planned by memplan's planner
//! (minimise). With two memories, the second unbounded, this is the spill problem, and
//! `plan_spill` (`spill.rs`, feature `spill`) is its thin form.
//!
//! What is proven: the first level's bound plus every buffer's cheapest allowed cost is
//! a lower bound on the cost of any plan, so `Optimal` (cost = bound) is a proof. With
//! costs, a second bound sees every bounded memory (`sweep.rs`, `pooled_bound`): the
//! cost telescopes into `Σ traffic × c0` plus, per `j`, `(c_{j+1} − c_j)` times the
//! traffic outside the `j + 1` cheapest memories, whose buffers must cover the load above
//! their pooled capacity; the larger of the two bounds is reported. The later levels are
//! each solved the same way, given the earlier levels' choice: their figures (in
//! [`MemoriesReport::levels`]) are bounds *given that choice*, not over all plans.
//!
//! Before the levels, the **pooled-capacity proof** (`pooled.rs`,
//! [`MemoriesOptions::pooled_proof`]): when, at some time, the buffers that may only use
//! a set of bounded memories are larger than those memories together, no plan exists
//! (`Infeasible`, the [`Infeasibility`] naming the time, the buffers and the memories).
//! When a later bounded level cannot hold the buffers the earlier ones left to it, a
//! one-pass fallback (`fill.rs`: largest buffer first, into the first memory in order
//! where it fits; and with the bounded memories slowest first) gives the plan
//! ([`MemoriesReport::fallback`]). On problems with few buffers that have a choice, and
//! on problems of at most 64 buffers when nothing else found a plan, the **joint search**
//! (`joint.rs`, [`MemoriesOptions::joint`]) decides every buffer's memory at once by
//! branch and bound: when it finishes, its plan is optimal for every memory in turn
//! (lexicographically), or no plan exists (`Infeasible`, by exhaustion). Otherwise a
//! failure is `Infeasible` only when the buffers that had to stay in a memory can go
//! nowhere else (pinned to it, or larger than their other memories), and `Unknown` (no
//! plan) else.
//!
//! **Each memory's bound** (`ceiling.rs`, [`MemoriesReport::traffic_bounds`]): a proven
//! ceiling on each memory's traffic (without costs, over the plans whose earlier memories
//! serve the plan's traffic), from that memory's level over every buffer that may use
//! it, the first level's bound, or the joint search's proof; its gap is the ceiling less
//! the traffic ([`MemoriesReport::memory_gaps`]).
//!
//! After the plan, the **least heights** (`lower.rs`, [`MemoriesOptions::least_heights`]):
//! each bounded memory's buffers re-planned by memplan's planner at their least height,
//! with the shares between two of them, kept where lower. A level only places under the
//! capacity; a memory that is a runtime arena costs its height. Offsets only: the
//! memories, the cost and the bounds stay.

//! The library prints nothing and starts no global thread pool. Without a time limit the
//! result depends only on the input and the options (the seed included), whatever the
//! thread count; every search is bounded by node limits.

mod baseline;
mod bound;
mod ceiling;
mod cover;
mod exact;
// Problem files with their memories (the CSV and JSON readers' extra fields).
#[cfg(any(feature = "csv", feature = "json"))]
mod file;
mod fill;
#[cfg(feature = "fuzzing")]
pub(crate) mod fuzz;
mod heuristic;
mod improve;
mod joint;
mod level;
mod load;
mod lower;
mod memories_problem;
mod model;
mod place;
mod pooled;
mod problem;
#[cfg(feature = "shares")]
mod relax;
#[cfg(feature = "shares")]
mod shares;
#[cfg(feature = "spill")]
mod spill;
mod sweep;

use std::time::Duration;

pub use crate::checker::{check_memories, MemoriesCheckSummary};
use crate::memory_types::allowed_of;
#[cfg(feature = "spill")]
pub use crate::memory_types::SpillMemory;
pub use crate::memory_types::{
    validate_memories, MemoriesError, MemoriesInput, Memory, MemoryIdx, MemoryPlan, MemorySet,
    MAX_MEMORIES,
};
#[cfg(feature = "csv")]
pub use file::read_memory_plan_csv;
#[cfg(feature = "json")]
pub use file::read_memory_plan_json;
#[cfg(any(feature = "csv", feature = "json"))]
pub use file::{MemoriesOf, ProblemFile};
#[cfg(feature = "fuzzing")]
pub use fuzz::{fuzz_memories, fuzz_spill};
pub use memories_problem::MemoriesProblem;
#[cfg(feature = "spill")]
pub use spill::plan_spill;

use crate::error::Escaped;
use crate::outcome::Outcome;
use crate::request::Request;
use crate::types::{Problem, Size, Time};

/// Options of [`MemoriesProblem::plan`] (and of `plan_spill`, its two-memory form). Every
/// technique is a switch, on by default; turning one off never makes a
/// result invalid, only weaker or slower.
#[derive(Clone, Debug)]
pub struct MemoriesOptions {
    /// Threads for memplan's planner on the kept buffers (0: one per core). The result
    /// does not depend on it. Threads are scoped to the call.
    pub threads: usize,
    /// Seed of the improvement phase's random choices.
    pub seed: u64,
    /// The improvement phase after the heuristic.
    pub improve: bool,
    /// Re-planning rounds of the improvement phase (each runs memplan's planner once).
    pub improve_rounds: u32,
    /// The exact branch and bound on time components with at most
    /// [`MemoriesOptions::exact_max_buffers`] buffers to decide.
    pub exact: bool,
    /// Largest number of undecided buffers in a time component for the exact search.
    pub exact_max_buffers: usize,
    /// Branch-and-bound nodes per time component before it gives up (and reports the
    /// best bound of the open nodes); at most the request budget's node limit, and
    /// under a time limit at most 1,000 per second of the level's time.
    pub exact_node_limit: u64,
    /// Nodes of memplan's exact search per placement of a kept set; beyond it a kept set
    /// is "unknown" (treated as not fitting, and its bound kept open). At most the
    /// request budget's node limit, and under a time limit at most 1,000 per second of
    /// the level's time (a short limit is better spent on many cheap placements). Under
    /// a budget with no work or time limit, also the node limit of the least heights'
    /// searches ([`MemoriesOptions::least_heights`]).
    pub placement_node_limit: u64,
    /// Before the levels, take from each buffer's allowed set the bounded memories it
    /// is larger than (see the module docs): stronger bounds, smaller levels.
    pub size_presolve: bool,
    /// After the heuristic, starts built by first-fit insertion in three orders (largest
    /// first, most traffic first, most traffic per room; see `level.rs`), each followed
    /// by the local search; the cheapest is kept.
    pub greedy_starts: bool,
    /// The Lagrangian relaxation of the covering problem (see `cover.rs`): a bound as
    /// strong as the linear programme's, and a cheap cover placed beside the heuristic's.
    pub lagrangian: bool,
    /// Integer rounding of the fractional cover (see `bound.rs`).
    pub rounding_bound: bool,
    /// Sum the covers of times that share no buffer (see `bound.rs`).
    pub chain_bound: bool,
    /// Count only the space the fixed buffers leave usable under the capacity (see
    /// `bound.rs`): the holes bound of minimise mode, inside the level bound.
    pub holes_bound: bool,
    /// Before anything else, the pooled-capacity proof (`pooled.rs`): at some time, the
    /// buffers that may only use a set of bounded memories are larger than those
    /// memories together. `Infeasible` at once, naming the time, buffers and memories.
    pub pooled_proof: bool,
    /// After the levels, on problems with at most [`MemoriesOptions::joint_max_buffers`]
    /// buffers that have a choice of memory, the joint search over every assignment
    /// (`joint.rs`): a plan whenever one exists, each memory optimal, or a proof. When
    /// the levels and the fallback found no plan, it also runs on larger problems of at
    /// most 64 buffers, as a search for any plan within its node limit.
    pub joint: bool,
    /// The most buffers with a choice for the joint search (at most 64).
    pub joint_max_buffers: usize,
    /// Nodes of the joint search before it gives up (its result then proves nothing).
    pub joint_node_limit: u64,
    /// The fallback also tries the bounded memories slowest first (see `sweep.rs`,
    /// `fallback_plan`), which fills the fast memories last.
    pub fill_slowest_first: bool,
    /// After the plan, each bounded memory's buffers re-planned by memplan's planner at
    /// their least height (with the shares between two of them), kept where lower
    /// (`lower.rs`): a level only places its buffers under the capacity. Offsets only:
    /// the memories, the cost and the bounds stay.
    pub least_heights: bool,
    /// Run a naive strategy in place of the level search, for comparison (see
    /// [`Baseline`]); the techniques above are then unused. `None` by default.
    pub baseline: Option<Baseline>,
    /// Run [`check_memories`] on the result and fail with
    /// [`MemoriesError::InvalidPlan`] if it disagrees. Cheap; on by default.
    pub verify: bool,
}

impl Default for MemoriesOptions {
    fn default() -> MemoriesOptions {
        MemoriesOptions {
            threads: 1,
            seed: 0,
            improve: true,
            improve_rounds: 16,
            exact: true,
            exact_max_buffers: 400,
            exact_node_limit: 20_000,
            placement_node_limit: 20_000,
            size_presolve: true,
            greedy_starts: true,
            lagrangian: true,
            rounding_bound: true,
            chain_bound: true,
            holes_bound: true,
            pooled_proof: true,
            joint: true,
            joint_max_buffers: 12,
            joint_node_limit: 20_000,
            fill_slowest_first: true,
            least_heights: true,
            baseline: None,
            verify: true,
        }
    }
}

/// A naive strategy for a level, the first a compiler would write: move buffers out in
/// a fixed order wherever the load exceeds the capacity, plan the rest, and move out
/// what the plan puts above the capacity. Nothing comes back. Kept for benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Baseline {
    /// The largest live buffer first (ties: input order).
    LargestFirst,
    /// The lowest cost per byte first (ties: input order); with the default costs (the
    /// sizes), input order.
    CostPerByte,
}

/// Effort and intermediate results of one level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelStats {
    /// The bound before any search: the cover bound of the whole level.
    pub root_bound: u64,
    /// Cost after the heuristic, before improvement and exact search.
    pub heuristic_cost: Option<u64>,
    /// Cost after the improvement phase.
    pub improved_cost: Option<u64>,
    /// Calls of memplan's planner on kept sets.
    pub placements: u64,
    /// Branch-and-bound nodes, over all time components.
    pub branch_nodes: u64,
    /// Time components searched exactly.
    pub exact_components: usize,
    /// Of [`LevelStats::exact_components`], those whose search finished.
    pub exact_closed: usize,
}

/// One bounded memory's level, as solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelReport {
    /// The memory.
    pub memory: MemoryIdx,
    /// The buffers that could use it when its level was solved.
    pub buffers: usize,
    /// The level's cost: what the buffers leaving it cost (see the module docs).
    pub cost: u64,
    /// A proven lower bound on that cost, given the earlier levels' choice.
    pub bound: u64,
    /// Effort.
    pub stats: LevelStats,
}

/// Why no plan exists. Three proofs: the buffers that can only go in a set of bounded
/// memories (pinned, or larger than their other memories) need more bytes at one time
/// than those memories hold together (the pooled-capacity argument, `pooled.rs`; one
/// memory for a pin); the buffers that can only go in one memory have no placement under
/// its capacity (memplan's exact search); or the joint search tried every assignment
/// (`joint.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Infeasibility {
    /// The first memory of [`Infeasibility::memories`].
    pub memory: String,
    /// The memories of the argument, in the memories' order (every bounded memory for
    /// the joint search).
    pub memories: Vec<String>,
    /// Their capacities together.
    pub capacity: Size,
    /// The time at which the buffers' load exceeds the capacity, when it does
    /// (otherwise they fit by load, but an exact search proved that no plan does).
    pub time: Option<Time>,
    /// Bytes the buffers need at that time (their max load otherwise; 0 for the joint
    /// search).
    pub need: u64,
    /// The buffers' ids (at `time`, when there is one; for the joint search, those
    /// that may use a bounded memory only). With shares, every member of a storage is
    /// named, and `need` counts a storage once.
    pub buffers: Vec<String>,
    /// True when the joint search proved it, trying every assignment.
    pub exhaustive: bool,
}

impl std::fmt::Display for Infeasibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: Vec<String> = self
            .buffers
            .iter()
            .take(8)
            .map(|b| format!("'{}'", Escaped(b)))
            .collect();
        let more = self.buffers.len().saturating_sub(shown.len());
        let list = if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        };
        let names: Vec<String> = self
            .memories
            .iter()
            .map(|m| format!("'{}'", Escaped(m)))
            .collect();
        let (place, capacity) = if names.len() > 1 {
            (
                format!("memories {}", names.join(", ")),
                format!("their capacities total {}", self.capacity),
            )
        } else {
            (
                format!("memory '{}'", Escaped(&self.memory)),
                format!("its capacity is {}", self.capacity),
            )
        };
        match self.time {
            _ if self.exhaustive => write!(
                f,
                "no assignment of the buffers to their allowed memories fits under the capacities of {place} (proven by exhaustive search over every assignment)"
            ),
            Some(t) => write!(
                f,
                "at time {t}, the buffers that can only go in {place} ({list}) need {} bytes, {capacity}",
                self.need
            ),
            None => write!(
                f,
                "the buffers that can only go in {place} ({list}) have no placement under {} {} (proven by exact search)",
                if names.len() > 1 { "their capacities" } else { "its capacity" },
                self.capacity
            ),
        }
    }
}

/// What [`MemoriesProblem::plan`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoriesReport {
    /// The result. A plan passes [`check_memories`]; `Infeasible` comes with
    /// [`MemoriesReport::infeasibility`]; `Unknown` has no plan (`best_so_far` is `None`).
    pub outcome: Outcome<MemoryPlan, u64>,
    /// A proven lower bound on the cost of any valid plan.
    pub lower_bound: u64,
    /// Why no plan exists, for `Infeasible`.
    pub infeasibility: Option<Infeasibility>,
    /// For `Unknown`: the memory whose level failed.
    pub failed_memory: Option<MemoryIdx>,
    /// The bounded memories' levels, in the order solved.
    pub levels: Vec<LevelReport>,
    /// True when a level failed and the plan (if any) comes from the one-pass fallback:
    /// largest buffer first, into the first memory with room (`fill.rs`).
    pub fallback: bool,
    /// With a plan, per memory (indexed like the memories), a proven ceiling on the
    /// traffic it can serve: without costs, in the lexicographic sense (no plan whose
    /// earlier memories serve the plan's traffic serves more in it); see `ceiling.rs`.
    /// The memory's gap is the ceiling less its traffic ([`MemoriesReport::memory_gaps`]).
    /// Empty without a plan.
    pub traffic_bounds: Vec<u64>,
    /// Wall time spent.
    pub elapsed: Duration,
    /// The work charged, in work units ([`crate::Report::work`]).
    pub work: u64,
    /// Which limit stopped the call, if one did ([`crate::Report::stopped_by`]).
    pub stopped_by: Option<crate::budget::Stop>,
    /// With optional shares, per memory, the height of the plan without them (the
    /// required shares alone), planned beside the plan with them (`shares.rs`): what
    /// the memory would need without the optional shares. Empty otherwise.
    pub unshared_heights: Vec<Size>,
}

impl MemoriesReport {
    /// The plan, if any.
    pub fn plan(&self) -> Option<&MemoryPlan> {
        self.outcome.plan()
    }

    /// Cost of the plan minus the lower bound, when there is a plan.
    pub fn gap(&self) -> Option<u64> {
        self.plan().map(|p| p.cost.saturating_sub(self.lower_bound))
    }

    /// Per memory, its ceiling ([`MemoriesReport::traffic_bounds`]) less the traffic the
    /// plan serves there: 0 everywhere when every memory is proven optimal. Empty without
    /// a plan.
    pub fn memory_gaps(&self) -> Vec<u64> {
        match self.plan() {
            Some(p) => self
                .traffic_bounds
                .iter()
                .zip(&p.traffic)
                .map(|(b, t)| b.saturating_sub(*t))
                .collect(),
            None => Vec::new(),
        }
    }

    /// The effort summed over the levels.
    pub fn total_stats(&self) -> LevelStats {
        self.levels.iter().fold(LevelStats::default(), |a, l| {
            let s = &l.stats;
            LevelStats {
                root_bound: a.root_bound.saturating_add(s.root_bound),
                heuristic_cost: a.heuristic_cost.or(s.heuristic_cost),
                improved_cost: a.improved_cost.or(s.improved_cost),
                placements: a.placements + s.placements,
                branch_nodes: a.branch_nodes + s.branch_nodes,
                exact_components: a.exact_components + s.exact_components,
                exact_closed: a.exact_closed + s.exact_closed,
            }
        })
    }
}

/// [`MemoriesProblem::pooled_infeasibility`] on the loose parts.
pub(crate) fn pooled_infeasibility(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
) -> Result<Option<Infeasibility>, MemoriesError> {
    validate_memories(memories)?;
    let allowed = problem::narrowed(problem, memories, allowed_of(problem, memories, input)?);
    Ok(pooled::proof(problem, memories, &allowed))
}

/// Plans `problem` across `memories` (see the [module docs](self) for the model),
/// within the request's budget: what [`MemoriesProblem::plan`] runs, on the loose parts
/// of the problem (a buffer pinned to a memory too small for it is an error here).
pub(crate) fn plan_memories(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    request: &Request,
    options: &MemoriesOptions,
) -> Result<MemoriesReport, MemoriesError> {
    let call = Stage::new(request);
    #[cfg(feature = "shares")]
    if !problem.shares().is_empty() {
        return shares::run(problem, memories, input, &call, options);
    }
    let mut report = sweep::run(problem, memories, input, request, options)?;
    call.charged(report.work);
    least_heights(problem, memories, input, &mut report, &call, options)?;
    Ok(report)
}

/// The call of [`plan_memories`]: its request and start, and the work charged so far,
/// so that a stage after the sweeps runs on what is left of the budget
/// ([`crate::Budget::resume`]), not on a budget of its own.
pub(crate) struct Stage<'r> {
    request: &'r Request,
    started: std::time::Instant,
    spent: std::cell::Cell<u64>,
}

impl<'r> Stage<'r> {
    fn new(request: &'r Request) -> Stage<'r> {
        Stage {
            request,
            started: std::time::Instant::now(),
            spent: std::cell::Cell::new(0),
        }
    }

    /// Counts `work` units as charged by the call.
    pub(crate) fn charged(&self, work: u64) {
        self.spent.set(self.spent.get().saturating_add(work));
    }

    /// What is left of the call's budget.
    fn rest(&self) -> crate::Budget {
        self.request.budget.resume(self.started, self.spent.get())
    }
}

/// The least-heights stage on the report's plan ([`MemoriesOptions::least_heights`],
/// `lower.rs`), checked again when it moved anything.
fn least_heights(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    report: &mut MemoriesReport,
    call: &Stage<'_>,
    options: &MemoriesOptions,
) -> Result<(), MemoriesError> {
    if !options.least_heights || options.baseline.is_some() {
        return Ok(());
    }
    let started = std::time::Instant::now();
    let plan = match &mut report.outcome {
        Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => p,
        Outcome::Unknown {
            best_so_far: Some(p),
            ..
        } => p,
        _ => return Ok(()),
    };
    let before = plan.heights.clone();
    let lowered = lower::run(problem, memories, plan, &call.rest(), options)?;
    call.charged(lowered);
    report.work = report.work.saturating_add(lowered);
    if options.verify && plan.heights != before {
        check_memories(problem, memories, input, plan)
            .map_err(|f| MemoriesError::InvalidPlan(f.to_string()))?;
    }
    report.elapsed += started.elapsed();
    Ok(())
}
