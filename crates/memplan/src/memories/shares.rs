//! Several memories with [`crate::Share`]s: the storages of the shares taken are planned
//! across the memories as buffers of their own, and the plan expanded to the buffers.
//!
//! A storage may go where all its members may (the intersection of their allowed sets:
//! a share between buffers with no memory in common is not taken), and its traffic is
//! theirs summed, so the cost of a storages' plan is the cost of its expansion. The
//! optional shares taken are those that lower or keep the load (`storage/choose.rs`);
//! the storages of the required shares alone are planned too (with the same request:
//! the storages' proof of optimality does not hold for the buffers) and the cheaper
//! plan kept, ties to the first. Each candidate gets the least heights (`lower.rs`):
//! the first with every share, the second with the required ones alone, whose heights the
//! report keeps ([`super::MemoriesReport::unshared_heights`]: what each memory needs
//! without the optional shares); a second that wins is lowered again with every share.
//! A first candidate with a storage too large for every memory its members may use
//! leaves the second to decide. The report's bound, ceilings and any proof that no plan
//! exists are the relaxation's (`relax.rs`), which hold whichever shares a plan takes.

use super::{relax, sweep, MemoriesOptions, MemoriesReport, Stage};
use crate::memory_types::{
    allowed_of, traffic_of, validate_memories, MemoriesError, MemoriesInput, Memory, MemoryPlan,
    MemorySet,
};
use crate::outcome::Outcome;
use crate::request::Request;
use crate::storage::{self, Storages};
use crate::types::{Problem, Time};

fn plan_storages(
    problem: &Problem,
    memories: &[Memory],
    masks: &[u64],
    traffic: &[u64],
    optional: bool,
    request: &Request,
    options: &MemoriesOptions,
) -> Result<(Storages, MemoriesReport), MemoriesError> {
    let storages = storage::build(problem, Some(masks), optional)
        .map_err(|e| MemoriesError::InvalidPlan(format!("the storages of the shares: {e}")))?;
    let count = storages.problem.len();
    let mut sets = vec![MemorySet(u64::MAX); count];
    let mut traffics = vec![0u64; count];
    for (i, &s) in storages.storage_of.iter().enumerate() {
        sets[s as usize].0 &= masks[i];
        traffics[s as usize] = traffics[s as usize]
            .checked_add(traffic[i])
            .ok_or(MemoriesError::Overflow("the total traffic"))?;
    }
    let input = MemoriesInput {
        allowed: Some(&sets),
        accesses: None,
        traffic: Some(&traffics),
    };
    // The expansion is checked below, against the buffers and their shares.
    let inner = MemoriesOptions {
        verify: false,
        ..options.clone()
    };
    let report = sweep::run(&storages.problem, memories, &input, request, &inner)?;
    Ok((storages, report))
}

/// [`super::plan_memories`] for a problem with shares.
pub(super) fn run(
    problem: &Problem,
    memories: &[Memory],
    input: &MemoriesInput<'_>,
    call: &Stage<'_>,
    options: &MemoriesOptions,
) -> Result<MemoriesReport, MemoriesError> {
    let request = call.request;
    validate_memories(memories)?;
    let masks: Vec<u64> = allowed_of(problem, memories, input)?
        .into_iter()
        .map(|s| s.0)
        .collect();
    let traffic = traffic_of(problem, input)?;
    required_together(problem, &masks)?;
    let go = |optional| {
        plan_storages(
            problem, memories, &masks, &traffic, optional, request, options,
        )
    };
    let optional = problem.shares().iter().any(|s| !s.required);
    let mut report = match go(optional) {
        Ok((storages, report)) => {
            call.charged(report.work);
            let mut report = expanded(problem, &storages, report);
            super::least_heights(problem, memories, input, &mut report, call, options)?;
            Some(report)
        }
        // A storage of optional shares larger than every memory its members may all use
        // (a buffer pinned to a small memory inside one that cannot go there): no plan
        // takes those shares, and the required shares' plan below decides.
        Err(MemoriesError::TooLarge { .. }) if optional => None,
        Err(e) => return Err(e),
    };
    // The storages' proof does not hold for the buffers (a storage holds its largest
    // member over its whole span), so even an `Optimal` plan of the storages with the
    // optional shares may cost more than the required shares' plan: the KV decoder of
    // crates/memplan-py/scripts/kv_decoder.py under a fast memory of 256 KB spilled
    // 9,399,360 B with its shares and 9,309,248 B without (issue 52).
    if optional {
        let (s2, r2) = go(false)?;
        call.charged(r2.work);
        let mut r2 = expanded(problem, &s2, r2);
        let required = Problem::with_shares(
            problem.buffers().to_vec(),
            problem
                .shares()
                .iter()
                .filter(|s| s.required)
                .cloned()
                .collect(),
        )
        .map_err(|e| MemoriesError::InvalidPlan(format!("the required shares: {e}")))?;
        super::least_heights(&required, memories, input, &mut r2, call, options)?;
        let heights = r2.plan().map(|p| p.heights.clone()).unwrap_or_default();
        let cost = |r: &MemoriesReport| r.plan().map(|p| p.cost);
        let better = match (cost(&r2), report.as_ref().and_then(cost)) {
            (Some(a), Some(b)) => a < b,
            (Some(_), None) => true,
            _ => report.is_none(),
        };
        if better {
            super::least_heights(problem, memories, input, &mut r2, call, options)?;
            report = Some(r2);
        }
        if let Some(report) = report.as_mut() {
            report.unshared_heights = heights;
        }
    }
    let mut report = report.expect("the required shares' plan stands in for a failed first");
    let plan = report.plan();
    relax::bound(problem, memories, (&masks, &traffic), plan, call, options)?.apply(&mut report);
    if options.verify {
        if let Some(p) = report.outcome.plan() {
            crate::checker::check_memories(problem, memories, input, p)
                .map_err(|f| MemoriesError::InvalidPlan(f.to_string()))?;
        }
    }
    Ok(report)
}

/// Every storage of the required shares has a memory all its buffers may use: joined
/// one share at a time (as the storages are), the first share that leaves its storage
/// with none is the error.
fn required_together(problem: &Problem, masks: &[u64]) -> Result<(), MemoriesError> {
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut parent: Vec<usize> = (0..problem.len()).collect();
    let mut mask = masks.to_vec();
    for (k, share) in problem.shares().iter().enumerate() {
        if !share.required {
            continue;
        }
        let (b, t) = problem.share_ends(k);
        let (rb, rt) = (root(&mut parent, b.index()), root(&mut parent, t.index()));
        if rb == rt {
            continue;
        }
        if mask[rb] & mask[rt] == 0 {
            return Err(MemoriesError::RequiredShareApart {
                index: b.index(),
                id: share.buffer.clone(),
                target: share.target.clone(),
            });
        }
        mask[rt] &= mask[rb];
        parent[rb] = rt;
    }
    Ok(())
}

/// The storages' report as the buffers' (each storage's plan expanded to its members).
fn expanded(problem: &Problem, storages: &Storages, mut report: MemoriesReport) -> MemoriesReport {
    report.outcome = match report.outcome {
        Outcome::Optimal(p) => Outcome::Optimal(expand(storages, p)),
        Outcome::Feasible { plan, lower_bound } => Outcome::Feasible {
            plan: expand(storages, plan),
            lower_bound,
        },
        Outcome::Unknown {
            best_so_far,
            lower_bound,
        } => Outcome::Unknown {
            best_so_far: best_so_far.map(|p| expand(storages, p)),
            lower_bound,
        },
        Outcome::Infeasible => Outcome::Infeasible,
    };
    // The storages carry their first member's id: name every member the argument counts.
    if let Some(why) = report.infeasibility.as_mut() {
        why.buffers = members_named(problem, storages, &why.buffers, why.time);
    }
    report
}

fn expand(storages: &Storages, p: MemoryPlan) -> MemoryPlan {
    MemoryPlan {
        memory: storages
            .storage_of
            .iter()
            .map(|&s| p.memory[s as usize])
            .collect(),
        offsets: storages.expand(&p.offsets),
        heights: p.heights,
        traffic: p.traffic,
        cost: p.cost,
    }
}

/// The buffers behind the storages named `ids`, in that order: each storage's members
/// (live at `time`, when there is one), in index order.
fn members_named(
    problem: &Problem,
    storages: &Storages,
    ids: &[String],
    time: Option<Time>,
) -> Vec<String> {
    let live = |b: &crate::types::Buffer| {
        time.is_none_or(|t| b.live_segments().any(|l| l.start <= t && t < l.end))
    };
    let mut out = Vec::new();
    for id in ids {
        let Some(s) = storages.problem.buffers().iter().position(|b| &b.id == id) else {
            out.push(id.clone());
            continue;
        };
        out.extend(
            problem
                .buffers()
                .iter()
                .zip(&storages.storage_of)
                .filter(|&(b, &of)| of as usize == s && live(b))
                .map(|(b, _)| b.id.clone()),
        );
    }
    out
}
