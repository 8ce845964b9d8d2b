//! Unit tests of the search that need its counters.

use super::*;
use crate::checker::check_with_capacity;
use crate::generate::Rng;
use crate::types::Buffer;

fn never() -> bool {
    false
}

#[test]
fn microbenchmarks_need_no_backtracking() {
    for kind in [MicrobenchKind::NonOverlapping, MicrobenchKind::FullOverlap] {
        for n in [1, 10, 300] {
            let p = generate_microbenchmark(kind, n, 3);
            let cap = p.capacity().unwrap();
            let (end, stats) = search(&p, cap.0, &TelamallocOptions::default(), &never);
            let SearchEnd::Found(off) = end else {
                panic!("{} {n}: no plan", kind.name())
            };
            let off: Vec<Offset> = off.into_iter().map(Offset).collect();
            check_with_capacity(&p, &off, Some(cap)).expect("valid");
            assert_eq!(stats.steps, n as u64, "{} {n}", kind.name());
            assert_eq!(stats.minor_backtracks + stats.major_backtracks, 0);
        }
    }
}

fn random_problem(rng: &mut Rng, n: usize) -> Problem {
    let bufs: Vec<Buffer> = (0..n)
        .map(|i| {
            let s = rng.range(0, 12);
            Buffer::new(
                format!("{i}"),
                s,
                s + 1 + rng.range(0, 8),
                1 + rng.range(0, 6),
            )
        })
        .collect();
    Problem::new(bufs, None).unwrap()
}

/// Every combination of the switches: plans found are valid; a generous capacity is
/// always met; `Found` never contradicts a proof of infeasibility (max load).
#[test]
fn all_technique_combinations_agree() {
    let mut rng = Rng::new(11);
    let problems: Vec<Problem> = (0..8).map(|k| random_problem(&mut rng, 4 + k)).collect();
    for mask in 0u32..256 {
        let o = TelamallocOptions {
            step_limit: 20_000,
            heuristics: mask & 1 != 0,
            lowest_position: mask & 2 != 0,
            phases: mask & 4 != 0,
            backjump: mask & 8 != 0,
            prepend_candidates: mask & 16 != 0,
            subtree_limit: mask & 32 != 0,
            subtree_backtracks: 10,
            section_inference: mask & 64 != 0,
            row_order: mask & 128 != 0,
            dominance: mask % 5 != 0,
            per_heuristic: 1 + (mask as usize % 3),
            ..TelamallocOptions::default()
        };
        for p in &problems {
            let load = max_load(p).0;
            let naive = p.naive_height().0;
            for cap in [naive, load + (naive - load) / 2, load] {
                let (end, _) = search(p, cap, &o, &never);
                match end {
                    SearchEnd::Found(off) => {
                        let off: Vec<Offset> = off.into_iter().map(Offset).collect();
                        check_with_capacity(p, &off, Some(Size(cap)))
                            .unwrap_or_else(|f| panic!("mask {mask}: {f}"));
                    }
                    _ => assert!(
                        cap < naive,
                        "mask {mask}: nothing found at the naive height"
                    ),
                }
            }
        }
    }
}
