//! The storages a plan places: the required shares taken, then the optional ones that
//! [`choose`] takes.

use super::choose::choose;
use crate::error::{ProblemError, ProblemErrorKind};
use crate::types::joins::{Groups, Shared};
use crate::types::{Offset, Problem};

/// The storages with the required shares taken (and, when `optional`, the optional
/// ones [`choose`] takes), for `masks` (each buffer's allowed memories, several
/// memories) or none.
pub(crate) fn build(
    problem: &Problem,
    masks: Option<&[u64]>,
    optional: bool,
) -> Result<Storages, ProblemError> {
    let shared = Shared {
        buffers: problem.buffers(),
        shares: problem.shares(),
        ends: problem.all_share_ends(),
    };
    let mut groups = Groups::new(shared, masks);
    for k in 0..problem.shares().len() {
        if problem.shares()[k].required {
            // Problem::with_shares checked the required shares; with memories, the
            // caller checked that each storage has a memory in common.
            let join = groups.plan_take(k).map_err(|reason| {
                let (b, _) = problem.share_ends(k);
                ProblemError {
                    index: b.index(),
                    id: problem.shares()[k].buffer.clone(),
                    kind: ProblemErrorKind::RequiredShareCannotHold {
                        target: problem.shares()[k].target.clone(),
                        reason,
                    },
                }
            })?;
            groups.apply(join);
        }
    }
    if !optional {
        return Storages::of(&groups);
    }
    let required = groups.clone();
    choose(problem, &mut groups);
    // A fixed storage that grew into another fixed buffer: the required shares alone.
    Storages::of(&groups).or_else(|_| Storages::of(&required))
}

/// A problem of storages and the way back to the buffers.
#[derive(Clone, Debug)]
pub(crate) struct Storages {
    /// One buffer per storage, without shares.
    pub(crate) problem: Problem,
    /// Each buffer's storage, an index into `problem`.
    pub(crate) storage_of: Vec<u32>,
    /// Each buffer's offset inside its storage.
    pub(crate) rel: Vec<u64>,
}

impl Storages {
    /// The storages of `groups` as a problem without shares, and how to expand its plans.
    fn of(groups: &Groups) -> Result<Storages, ProblemError> {
        let (storages, storage_of) = groups.storage_buffers();
        Ok(Storages {
            problem: Problem::new(storages)?,
            storage_of,
            rel: groups.rels().to_vec(),
        })
    }

    /// The buffers' offsets from the storages'.
    pub(crate) fn expand(&self, storage_offsets: &[Offset]) -> Vec<Offset> {
        self.storage_of
            .iter()
            .zip(&self.rel)
            .map(|(&s, &r)| Offset(storage_offsets[s as usize].0 + r))
            .collect()
    }
}
