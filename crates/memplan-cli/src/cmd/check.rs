//! `memplan check PROBLEM PLAN`: the independent checker on a plan file, in one memory
//! or across several: the memories of `--memories`, of the problem's `memories`
//! section, or of spill (a plan with a `memory` column and `--capacity`: `fast` under
//! it, then `slow`, as `plan --spill` writes).

use memplan::check_placements;

use crate::exit::Failure;
use crate::flags::commands::CheckArgs;
use crate::shared::files::{display_path, read_bytes};
use crate::shared::formats;
use crate::shared::memories::{against, memory_figures, read_memory_plan, Against};
use crate::shared::numbers::{count, fragmentation, thousands};

pub fn check(args: CheckArgs) -> Result<(), Failure> {
    let (_, _, file) = formats::load_file(&args.problem, &args.input_args)?;
    let bytes = read_bytes(&args.plan)?;
    let plan_file = display_path(&args.plan);
    let plan = (args.plan.as_str(), bytes.as_slice());
    let file = match against(
        &args.problem,
        file,
        plan,
        args.memories.as_deref(),
        args.capacity,
    )? {
        Against::One(file) => file,
        Against::Memories(problem) => {
            let plan = read_memory_plan(&args.plan, &bytes, &problem)?;
            let summary = problem
                .check(&plan)
                .map_err(|f| Failure::invalid(plan_file, "plan", &f.violations, f.more))?;
            println!(
                "ok: {}; {}; cost {}",
                count(summary.buffers as u64, "buffer"),
                memory_figures(&problem, &plan).join("; "),
                thousands(summary.cost)
            );
            return Ok(());
        }
    };
    let (problem, own) = file.into_problem();
    let capacity = args.capacity.map(memplan::Size).or(own);
    let placements = formats::read_placements(&args.plan, &bytes).map_err(|mut f| {
        if f.message.contains("missing column 'offset'") {
            f.message += &format!(
                " (the order is `memplan check PROBLEM PLAN`: is {plan_file} the problem?)"
            );
        }
        f
    })?;
    match check_placements(&problem, &placements, capacity) {
        Ok(summary) => {
            let (max_load, bound) = (
                memplan::max_load(&problem).get(),
                memplan::lower_bound(&problem).get(),
            );
            let h = summary.height.get();
            println!(
                "ok: {}; height {}; max load {}; {}",
                count(summary.buffers as u64, "buffer"),
                thousands(h),
                thousands(max_load),
                fragmentation(h, max_load, bound)
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
