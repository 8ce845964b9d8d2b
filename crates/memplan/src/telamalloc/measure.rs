//! Measurement, not a check: each configuration of the restart cycle run alone with a
//! step limit, for `benches/telamalloc_rounds.rs` (through [`crate::testing`]).

use std::time::{Duration, Instant};

use super::options::Config;
use super::{rounds, search_ranked};
use crate::analysis::max_load;
use crate::outcome::{Halt, Verdict};
use crate::types::{Problem, Size};

/// How one configuration ended at one capacity.
#[derive(Clone, Debug)]
pub struct RoundRun {
    /// The configuration: `as-given`, `paper`, or `systematic R` (heuristic `R` sets
    /// the canonical order).
    pub name: &'static str,
    /// The capacity searched: the one given, or the max load.
    pub capacity: u64,
    /// `F` found a plan, `X` exhausted its candidates, `I` proved infeasible, `-` hit
    /// the step limit.
    pub end: char,
    /// Search steps taken.
    pub steps: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// Each round of the restart cycle alone (the paper's search, the search as given
/// without decomposition, the systematic rounds under three orders), each limited to
/// `step_limit` steps, at `capacity` and at the max load of `problem`.
pub fn rounds_alone(problem: &Problem, capacity: u64, step_limit: u64) -> Vec<RoundRun> {
    let options = Config {
        step_limit,
        ..Config::default()
    };
    let systematic = rounds::systematic(&options);
    let mut as_given = options.clone();
    as_given.dynamic_decomposition = false;
    let mut paper = options.clone();
    paper.canonical = false;
    let configs = [
        ("as-given", &as_given, 0),
        ("paper", &paper, 3),
        ("systematic 3", &systematic, 3),
        ("systematic 4", &systematic, 4),
        ("systematic 0", &systematic, 0),
    ];
    let mut out = Vec::new();
    for at in [Size(capacity), max_load(problem)] {
        for &(name, o, rank) in &configs {
            let t = Instant::now();
            let (end, stats) = search_ranked(problem, at, rank, o, &|| false);
            out.push(RoundRun {
                name,
                capacity: at.get(),
                end: match end {
                    Verdict::Found(_) => 'F',
                    Verdict::Stopped(Halt::Exhausted) => 'X',
                    Verdict::Infeasible => 'I',
                    Verdict::Stopped(_) => '-',
                },
                steps: stats.steps,
                elapsed: t.elapsed(),
            });
        }
    }
    out
}
