//! `memplan tiles INPUT.json` (tile-aware planning) and `memplan check-tiles`.

use memplan::tiles::{plan_tiles, read_tiled_json, TileOptions, TileOrder};
use memplan::Options;

use crate::exit::{self, Failure};
use crate::flags::commands::{CheckTilesArgs, TilesArgs};
use crate::shared::files::{display_path, read_bytes, write_to};
use crate::shared::numbers::{millis, percent, thousands};

/// A tiled problem's read error as a one-line failure naming the file.
fn read_failure(path: &str, e: memplan::ReadError) -> Failure {
    Failure::new(exit::INPUT, format!("{}: {e}", display_path(path)))
}

pub fn tiles(args: TilesArgs) -> Result<(), Failure> {
    let order = match args.order.as_str() {
        "auto" => None,
        s => Some(s.parse::<TileOrder>().map_err(|_| {
            Failure::usage(format!(
                "unknown order '{s}': expected auto, size, lifetime or peers"
            ))
        })?),
    };
    let bytes = read_bytes(&args.input)?;
    let problem = read_tiled_json(&bytes).map_err(|e| read_failure(&args.input, e))?;
    let started = std::time::Instant::now();
    let options = TileOptions {
        order,
        jump_past_all_collisions: !args.no_jump_past_all,
        whole_tensor_fallback: !args.no_whole_tensor_fallback,
        verify: !args.no_check,
    };
    let report = plan_tiles(&problem, &memplan::Request::minimise(), &options)
        .map_err(|e| Failure::new(exit::CHECK, e.to_string()))?;
    let elapsed = started.elapsed();
    // Minimising: there is always a plan.
    let plan = report.outcome.best().expect("a plan");
    write_to(&args.output, |w| {
        writeln!(w, "id,offset")?;
        for (t, o) in problem.tensors().iter().zip(&plan.offsets) {
            writeln!(w, "{},{o}", t.id)?;
        }
        Ok(())
    })?;
    let peak = plan.peak.get();
    let tiles: usize = problem.tensors().iter().map(|t| t.tiles.len()).sum();
    let mut line = format!(
        "memplan: {} tensors, {} tiles; tile-aware peak {}; order {}; {}",
        thousands(problem.len() as u64),
        thousands(tiles as u64),
        thousands(peak),
        report.order.name(),
        millis(elapsed)
    );
    if report.candidates.len() > 1 {
        let all: Vec<String> = report
            .candidates
            .iter()
            .map(|(o, p)| format!("{} {}", o.name(), thousands(p.get())))
            .collect();
        line += &format!(" ({})", all.join(", "));
    }
    if report.whole_tensor_fallback {
        line += "; kept the whole-tensor plan (lower than every tile-aware order)";
    }
    if args.compare {
        let whole = problem.whole_tensors();
        let r = memplan::plan(&whole, &memplan::Request::minimise(), &Options::default())
            .map_err(|e| Failure::new(exit::CHECK, e.to_string()))?;
        let h = r.outcome.plan().map_or(0, |p| p.height().get());
        let ml = r.max_load.get();
        let shared = memplan::shared_objects::plan_shared_objects(
            &whole,
            &memplan::Request::minimise(),
            &memplan::shared_objects::SharedOptions::default(),
        )
        .map_err(|e| Failure::new(exit::CHECK, e.to_string()))?;
        let so = shared.outcome.best().map_or(0, |a| a.total().get());
        line += &format!(
            "; whole-tensor height {} (max load {}); tile-aware saves {} ({}); whole-tensor shared objects {} ({} saved)",
            thousands(h),
            thousands(ml),
            thousands(h.saturating_sub(peak)),
            percent(h.saturating_sub(peak), h),
            thousands(so),
            percent(so.saturating_sub(peak), so)
        );
    }
    eprintln!("{line}");
    Ok(())
}

/// `memplan check-tiles INPUT.json PLAN.csv`: the chunk-level checker.
pub fn check_tiles(args: CheckTilesArgs) -> Result<(), Failure> {
    let bytes = read_bytes(&args.input)?;
    let problem = read_tiled_json(&bytes).map_err(|e| read_failure(&args.input, e))?;
    let text = String::from_utf8(read_bytes(&args.plan)?)
        .map_err(|_| Failure::new(exit::INPUT, format!("{}: not utf-8", args.plan)))?;
    let mut by_id = std::collections::HashMap::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let Some((id, off)) = line.rsplit_once(',') else {
            return Err(Failure::new(
                exit::INPUT,
                format!("{}: line {}: expected 'id,offset'", args.plan, n + 1),
            ));
        };
        let off: u64 = off.trim().parse().map_err(|_| {
            Failure::new(
                exit::INPUT,
                format!("{}: line {}: bad offset '{off}'", args.plan, n + 1),
            )
        })?;
        by_id.insert(id.to_string(), off);
    }
    let mut offsets = Vec::with_capacity(problem.len());
    for t in problem.tensors() {
        let Some(&o) = by_id.get(&t.id) else {
            return Err(Failure::new(
                exit::INPUT,
                format!("{}: tensor '{}' has no offset", args.plan, t.id),
            ));
        };
        offsets.push(memplan::Offset(o));
    }
    match memplan::tiles::check_tiles(&problem, &offsets) {
        Ok(s) => {
            println!(
                "ok: {} tensors; {} live items; peak {}",
                thousands(problem.len() as u64),
                thousands(s.items.unwrap_or_default() as u64),
                thousands(s.height.get())
            );
            Ok(())
        }
        Err(f) => Err(Failure::invalid(&args.plan, "plan", &f.violations, f.more)),
    }
}
