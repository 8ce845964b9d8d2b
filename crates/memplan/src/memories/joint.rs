//! The joint search: every buffer's memory at once, by branch and bound, on problems with
//! at most [`super::MemoriesOptions::joint_max_buffers`] buffers that have a choice.
//!
//! The levels decide one memory at a time, and a choice that is best for an early memory
//! can leave a later bounded one overfull (four buffers, `m1` of 120 bytes and `m2` of
//! 170: the most traffic in `m1` leaves 188 bytes for `m2`). The joint search decides
//! the buffers one by one, each into one of its allowed memories (the first in the
//! objective's order first), and keeps every memory's set placed:
//!
//! ```text
//!   node: each memory's set so far has a plan under its capacity
//!   ├─ buffer x into memory m (in order): m's set + x
//!   │    a load above the capacity → no child (proven)
//!   │    x in a free window of m's plan → child
//!   │    else memplan's exact search on m's set + x under the capacity:
//!   │      plan → child; Infeasible → no child; Unknown (node limit) → open
//!   └─ cut when the cost so far plus each undecided buffer's cheapest allowed cost is
//!      no better than the incumbent's
//! ```
//!
//! Costs are vectors compared lexicographically: with costs on every memory, one entry,
//! `Σ traffic × cost`; without, entry `j` is the traffic outside the first `j + 1`
//! memories, so the least vector keeps the most traffic in the first memory, then in the
//! second, and so on. A set that does not fit has no superset that fits, so a pruned
//! child hides nothing; a bound cut hides nothing better than the incumbent. When the
//! search ends without an open subtree, its incumbent is optimal for every memory (or no
//! plan exists: a proof by exhaustion). Placements are memoised by memory and set.
//! Deterministic: node limits, no clock.

use std::collections::HashMap;
use std::rc::Rc;

use crate::budget::Budget;
use crate::memory_types::{MemoriesError, MemoryIdx, MemorySet};
use crate::options::{Options, Planner};
use crate::outcome::Outcome;
use crate::types::{BufferIdx, Offset, Problem, Size};

use super::problem::{level_problem, Model};
use super::{Infeasibility, MemoriesOptions};

/// The problem as the joint search sees it.
pub(crate) struct JointInput<'a> {
    /// Per bounded memory, the problem with every buffer aligned for it (the lcm of
    /// the two alignments); `None` for an unbounded memory.
    pub(crate) aligned: Vec<Option<(Problem, Size)>>,
    /// The original problem (lifetimes, sizes, fixed offsets).
    pub(crate) problem: &'a Problem,
    pub(crate) allowed: &'a [MemorySet],
    /// Per buffer and memory, the cost vector's entries of putting it there.
    pub(crate) contrib: Vec<Vec<Vec<u64>>>,
    /// The memories in the objective's order (cheapest first).
    pub(crate) order: &'a [MemoryIdx],
}

/// What the joint search gives.
pub(crate) struct JointResult {
    /// The best assignment found that beats the seed (or any, without one), with the
    /// offsets of the bounded memories' buffers (unbounded ones: zero, to be planned).
    pub(crate) best: Option<(Vec<MemoryIdx>, Vec<Offset>)>,
    /// True when the search finished: nothing better than the result (the seed or
    /// `best`) exists, and without either no plan exists.
    pub(crate) closed: bool,
}

#[derive(Clone)]
enum Fit {
    Yes(Rc<Vec<Offset>>),
    No,
    Unknown,
}

struct Search<'s, 'a> {
    input: &'s JointInput<'a>,
    budget: &'s Budget,
    threads: usize,
    placement_node_limit: u64,
    node_limit: u64,
    /// Buffers in decision order.
    order: Vec<BufferIdx>,
    /// `suffix[d]`: the cheapest cost vector of `order[d..]`.
    suffix: Vec<Vec<u64>>,
    masks: Vec<u64>,
    /// The offsets of each memory's current set.
    offsets: Vec<Rc<Vec<Offset>>>,
    memory: Vec<MemoryIdx>,
    cost: Vec<u64>,
    incumbent: Option<Vec<u64>>,
    best: Option<(Vec<MemoryIdx>, Vec<Offset>)>,
    memo: HashMap<(usize, u64), Fit>,
    open: bool,
    nodes: u64,
}

fn add(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.saturating_add(*y);
    }
}

fn sub(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x -= *y;
    }
}

/// The joint search (`joint.rs`) when it is on and the problem small enough (at most
/// [`MemoriesOptions::joint_max_buffers`] buffers with a choice; or, when nothing else
/// found a plan, at most 64 buffers: then it searches for any plan, within its node
/// limit), seeded with `found`'s cost; `None` when it does not run.
pub(super) fn run(
    model: &Model<'_>,
    found: &Option<(Vec<MemoryIdx>, Vec<Offset>)>,
    call: &Budget,
    options: &MemoriesOptions,
) -> Result<Option<JointResult>, MemoriesError> {
    let (problem, memories) = (model.problem, model.memories);
    let choices = model.allowed.iter().filter(|a| a.len() > 1).count();
    let small = choices <= options.joint_max_buffers.min(64);
    if !options.joint
        || options.baseline.is_some()
        || problem.len() > 64
        || (!small && found.is_some())
    {
        return Ok(None);
    }
    let k = memories.len();
    let mut position = vec![0usize; k];
    for (p, m) in model.order.iter().enumerate() {
        position[m.index()] = p;
    }
    let dims = if model.priced {
        1
    } else {
        k.saturating_sub(1).max(1)
    };
    let contrib: Vec<Vec<Vec<u64>>> = (0..problem.len())
        .map(|i| {
            (0..k)
                .map(|m| {
                    if model.priced {
                        vec![model.traffic[i] * model.unit_cost[m]]
                    } else {
                        (0..dims)
                            .map(|j| if position[m] > j { model.traffic[i] } else { 0 })
                            .collect()
                    }
                })
                .collect()
        })
        .collect();
    let all: Vec<BufferIdx> = problem.indices().collect();
    let aligned = memories
        .iter()
        .map(|mem| match mem.capacity {
            Some(c) => level_problem(problem, &all, mem).map(|p| Some((p, c))),
            None => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    let seed = found.as_ref().map(|(memory, _)| {
        let mut cost = vec![0u64; dims];
        for (i, m) in memory.iter().enumerate() {
            for (c, x) in cost.iter_mut().zip(&contrib[i][m.index()]) {
                *c += x;
            }
        }
        cost
    });
    let input = JointInput {
        aligned,
        problem,
        allowed: &model.allowed,
        contrib,
        order: &model.order,
    };
    Ok(Some(search(
        &input,
        seed,
        call,
        options.threads,
        options.joint_node_limit,
        options.placement_node_limit,
    )))
}

/// The joint search's proof: every assignment tried.
pub(super) fn exhaustive(model: &Model<'_>) -> Infeasibility {
    let memories = model.memories;
    let bounded = MemorySet::of(
        (0..memories.len() as u32)
            .map(MemoryIdx)
            .filter(|m| memories[m.index()].capacity.is_some()),
    );
    let names: Vec<String> = bounded
        .iter()
        .map(|m| memories[m.index()].name.clone())
        .collect();
    let capacity = bounded
        .iter()
        .filter_map(|m| memories[m.index()].capacity)
        .map(Size::get)
        .fold(0u64, u64::saturating_add);
    Infeasibility {
        memory: names.first().cloned().unwrap_or_default(),
        memories: names,
        capacity: Size(capacity),
        time: None,
        need: 0,
        buffers: model
            .problem
            .buffers()
            .iter()
            .enumerate()
            .filter(|&(i, _)| model.allowed[i].0 & !bounded.0 == 0)
            .map(|(_, b)| b.id.clone())
            .collect(),
        exhaustive: true,
    }
}

/// Searches every assignment of `input` (at most 64 buffers), better than `seed` (a
/// cost vector) when given, within `node_limit` nodes and `budget`.
pub(crate) fn search(
    input: &JointInput<'_>,
    seed: Option<Vec<u64>>,
    budget: &Budget,
    threads: usize,
    node_limit: u64,
    placement_node_limit: u64,
) -> JointResult {
    let n = input.problem.len();
    debug_assert!(n <= 64);
    let k = input.aligned.len();
    let first = |i: usize| {
        *input
            .order
            .iter()
            .find(|&&m| input.allowed[i].contains(m))
            .expect("a non-empty allowed set")
    };
    let bufs = input.problem.buffers();
    let mut order: Vec<BufferIdx> = input.problem.indices().collect();
    // Pinned first (they decide nothing), then the most cost at stake, the largest.
    order.sort_by_key(|&i| {
        let stake: u64 = input.allowed[i.index()]
            .iter()
            .map(|m| input.contrib[i.index()][m.index()].iter().sum::<u64>())
            .max()
            .unwrap_or(0);
        let choice = input.allowed[i.index()].len() > 1;
        (
            choice,
            std::cmp::Reverse(stake),
            std::cmp::Reverse(bufs[i.index()].size),
            i,
        )
    });
    let dims = input.contrib.first().map_or(1, |c| c[0].len());
    let mut suffix = vec![vec![0u64; dims]; n + 1];
    for d in (0..n).rev() {
        let i = order[d].index();
        suffix[d] = suffix[d + 1].clone();
        add(&mut suffix[d], &input.contrib[i][first(i).index()]);
    }
    let mut s = Search {
        input,
        budget,
        threads,
        placement_node_limit,
        node_limit,
        order,
        suffix,
        masks: vec![0; k],
        offsets: (0..k).map(|_| Rc::new(vec![Offset::ZERO; n])).collect(),
        memory: vec![MemoryIdx(0); n],
        cost: vec![0; dims],
        incumbent: seed,
        best: None,
        memo: HashMap::new(),
        open: false,
        nodes: 0,
    };
    s.dfs(0);
    JointResult {
        best: s.best,
        closed: !s.open,
    }
}

impl Search<'_, '_> {
    fn dfs(&mut self, d: usize) {
        let mut lb = self.cost.clone();
        add(&mut lb, &self.suffix[d]);
        if self.incumbent.as_ref().is_some_and(|c| lb >= *c) {
            return;
        }
        if self.nodes >= self.node_limit || self.budget.exhausted() {
            self.open = true;
            return;
        }
        self.nodes += 1;
        self.budget.charge(crate::budget::work::units(
            self.input.problem.len() as u64,
            crate::budget::work::SETUP_BUFFERS_PER_UNIT,
        ));
        let Some(&x) = self.order.get(d) else {
            self.incumbent = Some(self.cost.clone());
            let mut offsets = vec![Offset::ZERO; self.memory.len()];
            for (i, o) in offsets.iter_mut().enumerate() {
                *o = self.offsets[self.memory[i].index()][i];
            }
            self.best = Some((self.memory.clone(), offsets));
            return;
        };
        let input = self.input;
        for &m in input.order {
            if !input.allowed[x.index()].contains(m) {
                continue;
            }
            let mask = self.masks[m.index()] | 1u64 << x.index();
            let fit = self.fits(m.index(), mask, x);
            let Fit::Yes(offsets) = fit else {
                if matches!(fit, Fit::Unknown) {
                    self.open = true;
                }
                continue;
            };
            let saved = std::mem::replace(&mut self.offsets[m.index()], offsets);
            self.masks[m.index()] = mask;
            self.memory[x.index()] = m;
            let c = &input.contrib[x.index()][m.index()];
            add(&mut self.cost, c);
            self.dfs(d + 1);
            sub(&mut self.cost, c);
            self.masks[m.index()] = mask & !(1u64 << x.index());
            self.offsets[m.index()] = saved;
        }
    }

    /// Whether memory `m`'s set `mask` (its current set plus `x`) has a plan.
    fn fits(&mut self, m: usize, mask: u64, x: BufferIdx) -> Fit {
        let Some((aligned, capacity)) = &self.input.aligned[m] else {
            return Fit::Yes(self.offsets[m].clone());
        };
        if let Some(f) = self.memo.get(&(m, mask)) {
            return f.clone();
        }
        let members: Vec<usize> = (0..aligned.len()).filter(|&i| mask >> i & 1 == 1).collect();
        let bufs = aligned.buffers();
        let fit = if !fits_by_load(aligned, &members, capacity.get()) {
            Fit::No
        } else if let Some(o) = window(aligned, &members, &self.offsets[m], x, capacity.get()) {
            let mut offsets = (*self.offsets[m]).clone();
            offsets[x.index()] = o;
            Fit::Yes(Rc::new(offsets))
        } else {
            let sub =
                Problem::new(members.iter().map(|&i| bufs[i].clone()).collect()).expect("a subset");
            let options = Options {
                planner: Planner::Exact,
                threads: self.threads,
                verify: false,
                ..Options::default()
            };
            let budget = self
                .budget
                .child()
                .with_finish_first_plan(false)
                .with_node_limit(self.budget.nodes_at_most(self.placement_node_limit));
            match crate::driver::run_within(&sub, Some(*capacity), &options, &budget) {
                Ok(r) => match &r.outcome {
                    Outcome::Optimal(p) | Outcome::Feasible { plan: p, .. } => {
                        let mut offsets = vec![Offset::ZERO; aligned.len()];
                        for (&i, &o) in members.iter().zip(p.offsets()) {
                            offsets[i] = o;
                        }
                        Fit::Yes(Rc::new(offsets))
                    }
                    Outcome::Infeasible => Fit::No,
                    Outcome::Unknown { .. } => Fit::Unknown,
                },
                Err(_) => Fit::Unknown,
            }
        };
        self.memo.insert((m, mask), fit.clone());
        fit
    }
}

/// True when the load of `members` stays at most `capacity` at every time.
fn fits_by_load(problem: &Problem, members: &[usize], capacity: u64) -> bool {
    let bufs = problem.buffers();
    members.iter().all(|&i| {
        bufs[i].live_segments().all(|seg| {
            let t = seg.start;
            let load: u64 = members
                .iter()
                .filter(|&&j| bufs[j].live_segments().any(|s| s.start <= t && t < s.end))
                .map(|&j| bufs[j].size.get())
                .sum();
            load <= capacity
        })
    })
}

/// The lowest offset for `x` (aligned; its own when fixed) beside the other `members`
/// at `offsets`, ending under `capacity`.
fn window(
    problem: &Problem,
    members: &[usize],
    offsets: &[Offset],
    x: BufferIdx,
    capacity: u64,
) -> Option<Offset> {
    let bufs = problem.buffers();
    let b = &bufs[x.index()];
    let mut busy: Vec<(u64, u64)> = members
        .iter()
        .filter(|&&j| j != x.index() && b.live_together(&bufs[j]))
        .map(|&j| (offsets[j].get(), offsets[j].get() + bufs[j].size.get()))
        .collect();
    busy.sort_unstable();
    let size = b.size.get();
    let at = match b.fixed_offset {
        Some(f) => {
            let f = f.get();
            busy.iter()
                .all(|&(lo, hi)| f + size <= lo || hi <= f)
                .then_some(f)?
        }
        None => {
            let align = b.alignment.get().max(1);
            let mut at = 0u64;
            for &(lo, hi) in &busy {
                if at.checked_add(size)? <= lo {
                    break;
                }
                at = at.max(hi.checked_next_multiple_of(align)?);
            }
            at
        }
    };
    (at.checked_add(size)? <= capacity).then_some(Offset(at))
}
