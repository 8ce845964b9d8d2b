//! The peak repair that polishes boxing's plans, on a given plan:
//!
//! ```text
//! cargo bench -p memplan --bench polish -- PROBLEM.csv PLAN.csv [MOVES] [SEED]
//! ```
//!
//! `PLAN.csv` is a plan of `PROBLEM.csv` as `memplan plan -o` writes it. Prints the
//! fragmentation (height − max load) before and after, the moves tried and kept, and the
//! wall time. Exit status 2 on bad arguments or input. Cargo runs benches from
//! `crates/memplan`: give absolute paths.

use std::collections::HashMap;
use std::time::Instant;

use memplan::io::{read_placements_csv, read_problem_csv, ReadOptions};
use memplan::testing::polish;
use memplan::{check_offsets, max_load, Offset};

fn main() {
    if let Err(e) = run() {
        eprintln!("polish: {e}");
        std::process::exit(2);
    }
}

fn number(args: &[String], i: usize, default: u64, name: &str) -> Result<u64, String> {
    args.get(i).map_or(Ok(default), |v| {
        v.parse().map_err(|_| format!("{name}: not a number: {v}"))
    })
}

fn run() -> Result<(), String> {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let [problem, plan, ..] = args.as_slice() else {
        return Err("usage: PROBLEM.csv PLAN.csv [MOVES] [SEED]".into());
    };
    let moves = number(&args, 2, 1000, "MOVES")?;
    let seed = number(&args, 3, 1, "SEED")?;
    let read = |f: &String| std::fs::read(f).map_err(|e| format!("{f}: {e}"));
    let p = read_problem_csv(&read(problem)?, &ReadOptions::default())
        .map_err(|e| format!("{problem}: {e}"))?;
    let placed = read_placements_csv(&read(plan)?).map_err(|e| format!("{plan}: {e}"))?;
    let by_id: HashMap<&str, Offset> = placed.iter().map(|(id, o)| (id.as_str(), *o)).collect();
    let offsets: Vec<Offset> = p
        .buffers()
        .iter()
        .map(|b| by_id.get(b.id.as_str()).copied().ok_or(&b.id))
        .collect::<Result<_, _>>()
        .map_err(|id| format!("{plan}: no offset for buffer {id}"))?;
    check_offsets(&p, &offsets, None).map_err(|e| format!("{plan}: {e}"))?;
    let mut offsets: Vec<u64> = offsets.iter().map(|o| o.0).collect();
    let ml = max_load(&p).0;
    let t = Instant::now();
    let s = polish(&p, &mut offsets, moves, seed, ml);
    println!(
        "fragmentation {} -> {} ({} moves, {} kept) in {:?}",
        s.height_before - ml,
        s.height_after - ml,
        s.moves,
        s.kept,
        t.elapsed()
    );
    Ok(())
}
