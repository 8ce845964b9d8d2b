//! Helpers shared by the integration tests (a folder, so cargo builds no test of its own).

/// `MemoriesProblem::plan` on the loose parts the tests build, with a buffer pinned to a
/// memory too small for it as the error `MemoriesProblem::allowed` gives.
pub fn plan_across(
    problem: &memplan::Problem,
    memories: &[memplan::memories::Memory],
    input: &memplan::memories::MemoriesInput<'_>,
    request: &memplan::Request,
    options: &memplan::memories::MemoriesOptions,
) -> Result<memplan::memories::MemoriesReport, memplan::memories::MemoriesError> {
    use memplan::memories::MemoriesProblem;
    let across = MemoriesProblem::new(problem.clone(), memories.to_vec(), input)?;
    across.allowed()?;
    across.plan(request, options)
}
