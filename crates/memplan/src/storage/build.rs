//! The storages a plan places: the required shares taken, then the optional ones that
//! [`choose`] takes.

use super::choose::choose;
use super::groups::{Groups, Shared, Storages};
use crate::error::ProblemError;
use crate::types::Problem;

/// The storages with the required shares taken (and, when `optional`, the optional
/// ones [`choose`] takes), for `masks` (each buffer's allowed memories, several
/// memories) or none.
pub(crate) fn build(
    problem: &Problem,
    masks: Option<&[u64]>,
    optional: bool,
) -> Result<Storages, ProblemError> {
    let mut groups = Groups::new(Shared::of(problem), masks);
    for k in 0..problem.shares().len() {
        if problem.shares()[k].required {
            let join = groups
                .plan_take(k)
                .expect("Problem::with_shares checked the required shares");
            groups.apply(join);
        }
    }
    if !optional {
        return groups.storages();
    }
    let required = groups.clone();
    choose(problem, &mut groups);
    // A fixed storage that grew into another fixed buffer: the required shares alone.
    groups.storages().or_else(|_| required.storages())
}
