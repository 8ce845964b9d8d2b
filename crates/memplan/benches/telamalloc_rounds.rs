//! Each round of TelaMalloc's restart cycle alone, with a step limit, on CSV problems:
//!
//! ```text
//! cargo bench -p memplan --bench telamalloc_rounds -- CAPACITY FILE.csv... [--steps N]
//! ```
//!
//! One line per file: for each configuration, at the capacity and at the max load, `F`
//! (found), `X` (exhausted), `I` (infeasible) or `-` (step limit), the steps taken and
//! the milliseconds. Exit status 2 on bad arguments or input. Cargo runs benches from
//! `crates/memplan`: give absolute paths.

use memplan::io::{read_problem_csv, ReadOptions};
use memplan::testing::telamalloc_rounds_alone;

fn main() {
    if let Err(e) = run() {
        eprintln!("telamalloc_rounds: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut steps = 400_000u64;
    let mut rest = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        if a == "--steps" {
            let v = it.next().ok_or("--steps needs a number")?;
            steps = v
                .parse()
                .map_err(|_| format!("--steps: not a number: {v}"))?;
        } else {
            rest.push(a);
        }
    }
    let Some((cap, files)) = rest.split_first() else {
        return Err("usage: CAPACITY FILE.csv... [--steps N]".into());
    };
    let cap: u64 = cap
        .parse()
        .map_err(|_| format!("CAPACITY: not a number: {cap}"))?;
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| format!("{f}: {e}"))?;
        let p =
            read_problem_csv(&bytes, &ReadOptions::default()).map_err(|e| format!("{f}: {e}"))?;
        let mut line = f.rsplit('/').next().unwrap_or(f).to_string();
        for r in telamalloc_rounds_alone(&p, cap, steps) {
            line += &format!(
                " | {} @ {}: {} {} {} ms",
                r.name,
                r.capacity,
                r.end,
                r.steps,
                r.elapsed.as_millis()
            );
        }
        println!("{line}");
    }
    Ok(())
}
