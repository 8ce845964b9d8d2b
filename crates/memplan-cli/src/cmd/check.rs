//! `memplan check PROBLEM PLAN`: the independent checker on a plan file, one memory,
//! two (a spill plan: a `memory` column of `fast` and `slow`, the output of
//! `plan --spill`) or several.

use memplan::{check_placements, Offset, Problem, Size};

use crate::exit::{self, Failure};
use crate::flags::commands::CheckArgs;
use crate::flags::input::Format;
use crate::shared::files::{display_path, read_bytes};
use crate::shared::formats::{self, load_problem};
use crate::shared::memories::{
    has_section, memory_figures, memory_plan, read_memories_data, read_plan_memory_names,
};
use crate::shared::numbers::{count, percent, thousands};
use crate::shared::spill::{
    check_spill_plan, fast_capacity, read_plan_levels, read_spill_data, spill_plan, SLOW,
};
use memplan::memories::check_memories;

pub fn check(args: CheckArgs) -> Result<(), Failure> {
    if (args.memories.is_some() || has_section(&args.problem))
        && check_memories_plan(&args)?.is_some()
    {
        return Ok(());
    }
    let formats::Loaded {
        bytes: problem_bytes,
        format,
        problem,
        capacity,
    } = load_problem(&args.problem, &args.input_args, args.capacity.map(Size))?;
    let bytes = read_bytes(&args.plan)?;
    let placements = formats::read_placements(&args.plan, &bytes)?;
    if let Some(levels) = read_plan_levels(&args.plan, &bytes)? {
        let problem_file = (format, problem_bytes.as_slice());
        return check_two_levels(&args, problem_file, &problem, &placements, &levels);
    }
    match check_placements(&problem, &placements, capacity) {
        Ok(summary) => {
            let (max_load, bound) = (
                memplan::max_load(&problem).get(),
                memplan::lower_bound(&problem).get(),
            );
            let h = summary.height.get();
            println!(
                "ok: {}; height {}; max load {}; fragmentation {} ({})",
                count(summary.buffers as u64, "buffer"),
                thousands(h),
                thousands(max_load),
                thousands(h - bound),
                percent(h - bound, bound)
            );
            Ok(())
        }
        Err(failure) => Err(Failure::invalid(
            display_path(&args.plan),
            "plan",
            &failure.violations,
            failure.more,
        )),
    }
}

/// `check` of a spill plan: matches the plan's rows to the buffers by id, then
/// `check_memories` across the two memories (fast buffers under the capacity, slow ones
/// among themselves, the problem's `memory` preferences), in spill's words.
fn check_two_levels(
    args: &CheckArgs,
    (format, problem_bytes): (Format, &[u8]),
    problem: &Problem,
    placements: &[(String, Offset)],
    levels: &[bool],
) -> Result<(), Failure> {
    let plan_file = display_path(&args.plan);
    let capacity = fast_capacity(args.capacity, plan_file)?;
    let data = read_spill_data(&args.problem, problem_bytes, format, problem)?;
    let plan = spill_plan(problem, &data, placements, levels)
        .map_err(|wrong| Failure::invalid(plan_file, "plan", &wrong, 0))?;
    let n = problem.len();
    if let Err(violations) = check_spill_plan(problem, capacity, &data.input(), &plan) {
        return Err(Failure::invalid(
            plan_file,
            "two-level plan",
            &violations,
            0,
        ));
    }
    let slow = plan.memory.iter().filter(|&&m| m == SLOW).count();
    println!(
        "ok: {}; fast: {}, height {} under capacity {}; slow: {}, height {}; cost {}",
        count(n as u64, "buffer"),
        count((n - slow) as u64, "buffer"),
        thousands(plan.heights[0].get()),
        thousands(capacity),
        count(slow as u64, "buffer"),
        thousands(plan.heights[1].get()),
        thousands(plan.cost)
    );
    Ok(())
}

/// `check` of a plan across memories: matches the plan's rows to the buffers by id,
/// then `check_memories` (allowed sets, pins, alignments, each memory under its
/// capacity). `None` when the problem has no memories.
fn check_memories_plan(args: &CheckArgs) -> Result<Option<()>, Failure> {
    let formats::Loaded {
        bytes: problem_bytes,
        format,
        problem,
        ..
    } = formats::load_problem(&args.problem, &args.input_args, None)?;
    let Some(data) = read_memories_data(
        &args.problem,
        &problem_bytes,
        format,
        &problem,
        args.memories.as_deref(),
    )?
    else {
        return Ok(None);
    };
    let plan_file = display_path(&args.plan);
    let bytes = read_bytes(&args.plan)?;
    let placements = formats::read_placements(&args.plan, &bytes)?;
    let names = read_plan_memory_names(&args.plan, &bytes)?.ok_or_else(|| {
        Failure::new(
            exit::CHECK,
            format!("{plan_file}: the plan has no memory column"),
        )
    })?;
    let plan = memory_plan(&problem, &data, &placements, &names)
        .map_err(|wrong| Failure::invalid(plan_file, "plan", &wrong, 0))?;
    let summary = check_memories(&problem, &data.memories, &data.input(), &plan)
        .map_err(|f| Failure::invalid(plan_file, "plan", &f.violations, f.more))?;
    println!(
        "ok: {}; {}; cost {}",
        count(summary.buffers as u64, "buffer"),
        memory_figures(&data, &plan).join("; "),
        thousands(summary.cost)
    );
    Ok(Some(()))
}
