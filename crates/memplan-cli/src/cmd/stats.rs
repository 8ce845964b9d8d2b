//! `memplan stats PROBLEM`: what can be known about a problem before planning.

use crate::exit::{self, Failure};
use crate::flags::commands::StatsArgs;
use crate::shared::files::write_to;
use crate::shared::formats::load_file;
use crate::shared::memories::{into_memories, memories_of};
use crate::shared::numbers::thousands;

pub fn stats(args: StatsArgs) -> Result<(), Failure> {
    let (_, _, file) = load_file(&args.input, &args.input_args)?;
    let (problem, memories) = match memories_of(args.memories.as_deref(), None, &file)? {
        Some(of) => {
            let across = into_memories(&args.input, file, of)?;
            (across.problem().clone(), Some(across))
        }
        None => (file.into_problem().0, None),
    };
    let a = memplan::analyze(&problem);
    let bufs = problem.buffers();
    let total: u64 = bufs.iter().map(|b| b.size.get()).sum();
    let start = bufs
        .iter()
        .map(|b| b.lifetime.start.get())
        .min()
        .unwrap_or(0);
    let end = bufs.iter().map(|b| b.lifetime.end.get()).max().unwrap_or(0);
    let sizes = (
        bufs.iter().map(|b| b.size.get()).min().unwrap_or(0),
        bufs.iter().map(|b| b.size.get()).max().unwrap_or(0),
    );
    let mut out = String::new();
    out += &format!("buffers            {}\n", thousands(problem.len() as u64));
    out += &format!("time span          [{start}, {end})\n");
    out += &format!(
        "sizes              {} .. {}\n",
        thousands(sizes.0),
        thousands(sizes.1)
    );
    out += &format!(
        "total size         {} (the naive plan's height)\n",
        thousands(total)
    );
    out += &format!(
        "max load           {} at time {}\n",
        thousands(a.max_load.get()),
        a.peak_time
    );
    let shares = problem.shares();
    if !shares.is_empty() {
        let inside = shares
            .iter()
            .filter(|s| s.kind == memplan::ShareKind::Inside)
            .count();
        let required = shares.iter().filter(|s| s.required).count();
        out += &format!(
            "shares             {} ({} in place, {} inside; {} required)\n",
            thousands(shares.len() as u64),
            thousands((shares.len() - inside) as u64),
            thousands(inside as u64),
            thousands(required as u64)
        );
        out += &format!(
            "max load, shared   {} (the buffers that may share count once: no plan is lower)\n",
            thousands(memplan::max_load(&problem).get())
        );
    }
    out += &format!("max live buffers   {}\n", thousands(a.max_live as u64));
    out += &format!("overlapping pairs  {}\n", thousands(a.overlapping_pairs));
    out += &format!(
        "time components    {}\n",
        thousands(a.components.len() as u64)
    );
    out += &format!(
        "fixed buffers      {}\n",
        bufs.iter().filter(|b| b.fixed_offset.is_some()).count()
    );
    out += &format!(
        "aligned buffers    {}\n",
        bufs.iter().filter(|b| b.alignment.get() > 1).count()
    );
    out += &format!(
        "buffers with gaps  {}\n",
        bufs.iter().filter(|b| !b.gaps.is_empty()).count()
    );
    if let Some(across) = &memories {
        out += &memories_stats(across)?;
    }
    if args.profile {
        out += "time,load\n";
        for s in &a.load_profile {
            out += &format!("{},{}\n", s.time, s.load);
        }
    }
    write_to("-", |w| w.write_all(out.as_bytes()))
}

/// With memories: per memory, what may use it (buffers, pins, traffic), and the
/// pooled-capacity verdict (`MemoriesProblem::pooled_infeasibility`).
fn memories_stats(across: &memplan::memories::MemoriesProblem) -> Result<String, Failure> {
    use memplan::memories::{MemoryIdx, MemorySet};
    let (problem, memories) = (across.problem(), across.memories());
    let fail = |e: memplan::memories::MemoriesError| Failure::new(exit::INPUT, e.to_string());
    let allowed = across.allowed().map_err(fail)?;
    let traffic = across.traffic();
    let mut out = String::new();
    for (m, memory) in memories.iter().enumerate() {
        let m = MemoryIdx(m as u32);
        let may: Vec<usize> = (0..problem.len())
            .filter(|&i| allowed[i].contains(m))
            .collect();
        let pinned = may
            .iter()
            .filter(|&&i| allowed[i] == MemorySet::single(m))
            .count();
        let cap = memory
            .capacity
            .map_or("unbounded".to_string(), |c| thousands(c.get()));
        out += &format!(
            "memory {:<11} capacity {cap}; {} may use it ({pinned} pinned), traffic up to {}\n",
            memory.name,
            thousands(may.len() as u64),
            thousands(may.iter().map(|&i| traffic[i]).sum())
        );
    }
    out += &match across.pooled_infeasibility().map_err(fail)? {
        Some(why) => format!("pooled capacity    no plan exists: {why}\n"),
        None => {
            "pooled capacity    no set of memories is overfull at any time by its buffers alone\n"
                .to_string()
        }
    };
    Ok(out)
}
