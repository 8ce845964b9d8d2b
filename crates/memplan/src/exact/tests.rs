//! Ablation and completeness tests of the exact search against a brute-force reference.
//!
//! The reference tries every aligned offset of every buffer in input order (no canonical
//! form, no inference), so it shares no reasoning with the search. Instances are small
//! (n ≤ 8) and random, with alignment, fixed offsets and gaps mixed in, and capacities at
//! and just above the max load so that both answers occur.

use super::*;
use crate::analysis::max_load;
use crate::rng::Rng;
use crate::{check_offsets, Buffer, Offset, Problem};

/// The lowest capacity from `lb` on under which some plan fits, by brute force.
fn brute_force_minimum(p: &Problem, lb: Size) -> Size {
    (lb.get()..)
        .map(Size)
        .find(|&c| brute_force_fits(p, c))
        .expect("some height fits")
}

fn model(p: &Problem) -> Model {
    Model::new(p, &Budget::unlimited()).expect("not aborted")
}

/// Features of the random instances.
#[derive(Clone, Copy)]
struct Mix {
    align: bool,
    fixed: bool,
    gaps: bool,
}

impl Mix {
    /// Alignment, fixed offsets and gaps together.
    const EVERYTHING: Mix = Mix {
        align: true,
        fixed: true,
        gaps: true,
    };
}

fn random_problem(rng: &mut Rng, n: usize, mix: Mix) -> Problem {
    let mut bufs: Vec<Buffer> = Vec::new();
    for i in 0..n {
        let start = rng.range(0, 4);
        let len = rng.range(1, 4);
        let mut b = Buffer::new(format!("b{i}"), start, start + len, rng.range(1, 5));
        if mix.align && rng.chance(30) {
            b = b.with_alignment(2);
        }
        if mix.gaps && len >= 3 && rng.chance(30) {
            b = b.with_gap(start + 1, start + 2);
        }
        if mix.fixed && rng.chance(20) {
            let off = Offset::ZERO + b.alignment * rng.range(0, 3);
            let mut cand = b.clone();
            cand.fixed_offset = Some(off);
            let clash = bufs.iter().any(|o| {
                o.fixed_offset.is_some_and(|f| {
                    o.live_together(&cand) && f < off + cand.size && off < f + o.size
                })
            });
            if !clash {
                b = cand;
            }
        }
        bufs.push(b);
    }
    Problem::new(bufs).expect("valid by construction")
}

/// True when some plan has height ≤ `cap`: every aligned offset, in input order.
fn brute_force_fits(p: &Problem, cap: Size) -> bool {
    fn go(p: &Problem, cap: Size, i: usize, offs: &mut Vec<Offset>) -> bool {
        let bufs = p.buffers();
        if i == bufs.len() {
            return true;
        }
        let b = &bufs[i];
        let z = b.size;
        if z > cap {
            return false;
        }
        let choices: Vec<Offset> = match b.fixed_offset {
            Some(o) => vec![o],
            None => (0..=(cap - z).get())
                .step_by(b.alignment.get() as usize)
                .map(Offset)
                .collect(),
        };
        for o in choices {
            if o + z > cap {
                continue;
            }
            let clash = (0..i).any(|j| {
                let c = &bufs[j];
                c.live_together(b) && offs[j] < o + z && o < offs[j] + c.size
            });
            if clash {
                continue;
            }
            offs.push(o);
            if go(p, cap, i + 1, offs) {
                return true;
            }
            offs.pop();
        }
        false
    }
    go(p, cap, 0, &mut Vec::new())
}

fn all_switches() -> Vec<ExactOptions> {
    (0..256u32)
        .map(|m| ExactOptions {
            canonical: m & 1 != 0,
            section_inference: m & 2 != 0,
            monotonic_floor: m & 4 != 0,
            unallocated_floor: m & 8 != 0,
            dominance: m & 16 != 0,
            decomposition: m & 32 != 0,
            static_preordering: m & 64 != 0,
            tighten: m & 128 != 0,
            ..ExactOptions::default()
        })
        .collect()
}

fn assert_valid(p: &Problem, offs: &[Offset], cap: Size) {
    let s = check_offsets(p, offs, None).expect("the checker accepts every plan");
    assert!(s.height <= cap, "height {} above capacity {cap}", s.height);
}

fn agree_with_brute_force(seed: u64, instances: usize, mix: Mix, need_beyond: bool) {
    let mut rng = Rng::new(seed);
    let combos = all_switches();
    let (mut feasible, mut infeasible, mut beyond_max_load) = (0, 0, 0);
    for i in 0..instances {
        // Every size from 2 to 8 in turn.
        let n = 2 + i % 7;
        let p = random_problem(&mut rng, n, mix);
        let m = model(&p);
        let lb = max_load(&p);
        let best = brute_force_minimum(&p, lb);
        // Just below the minimum (a proof the max load alone cannot give when
        // `best > lb`), and at it.
        for cap in [best - Size(1), best] {
            let expected = cap >= best;
            if expected {
                feasible += 1;
            } else {
                infeasible += 1;
                if cap >= lb {
                    beyond_max_load += 1;
                }
            }
            for opt in &combos {
                // No lower bound given: the search itself must prove infeasibility. With
                // `tighten`, the max load is given, so that searches under it run too.
                let bound = if opt.tighten { lb } else { Size::ZERO };
                let (v, _) = solve_capacity(&m, &p, cap, bound, opt, &Budget::unlimited(), 1);
                match v {
                    Verdict::Found(offs) => {
                        assert!(expected, "{opt:?} found a plan under {cap} for {p:?}");
                        assert_valid(&p, &offs, cap);
                    }
                    Verdict::Infeasible => {
                        assert!(!expected, "{opt:?} missed the plan under {cap} for {p:?}")
                    }
                    Verdict::Stopped(_) => panic!("no limit was set"),
                }
            }
        }
    }
    // The instances exercise both answers, and proofs beyond the max load.
    assert!(feasible > 0 && infeasible > 0, "{feasible} / {infeasible}");
    assert!(
        !need_beyond || beyond_max_load > 0,
        "no proof beyond the max load"
    );
}

#[test]
fn every_switch_combination_agrees_with_brute_force() {
    let plain = Mix {
        align: false,
        fixed: false,
        gaps: false,
    };
    // Interval instances this small almost never fragment: their infeasible cases are
    // just below the max load, proved by the search (no bound is passed in).
    agree_with_brute_force(1, 14, plain, false);
}

#[test]
fn canonical_search_stays_complete_with_alignment() {
    let mix = Mix {
        align: true,
        fixed: false,
        gaps: false,
    };
    agree_with_brute_force(2, 14, mix, false);
}

#[test]
fn canonical_search_stays_complete_with_fixed_offsets() {
    let mix = Mix {
        align: false,
        fixed: true,
        gaps: false,
    };
    agree_with_brute_force(3, 14, mix, true);
}

#[test]
fn canonical_search_stays_complete_with_gaps() {
    let mix = Mix {
        align: false,
        fixed: false,
        gaps: true,
    };
    agree_with_brute_force(4, 21, mix, false);
}

#[test]
fn canonical_search_stays_complete_with_everything_mixed() {
    let mix = Mix::EVERYTHING;
    agree_with_brute_force(5, 21, mix, true);
}

#[test]
fn minimise_reaches_the_brute_force_minimum() {
    let mut rng = Rng::new(6);
    let mix = Mix::EVERYTHING;
    for _ in 0..60 {
        let n = rng.range(2, 8) as usize;
        let p = random_problem(&mut rng, n, mix);
        let m = model(&p);
        let lb = max_load(&p);
        let best = brute_force_minimum(&p, lb);
        let naive: Vec<Offset> = crate::greedy::naive(&p);
        let nodes = Budget::unlimited().with_node_limit(1 << 20);
        let r = minimise(&m, &p, naive, lb, &ExactOptions::default(), &nodes, 1);
        assert_eq!(r.height, best, "{p:?}");
        assert_eq!(r.lower_bound, best, "the minimum is proven");
        assert_valid(&p, &r.offsets, best);
    }
}

#[test]
fn paper_example_fits_at_max_load_only() {
    // The running example of the paper (Figure 2): capacity 12 fits, 11 does not.
    let p = Problem::new(vec![
        Buffer::new("b1", 0, 3, 4),
        Buffer::new("b2", 3, 9, 4),
        Buffer::new("b3", 0, 9, 4),
        Buffer::new("b4", 9, 21, 4),
        Buffer::new("b5", 0, 21, 4),
    ])
    .expect("valid");
    let m = model(&p);
    assert_eq!(m.sections.len(), 3);
    let opt = ExactOptions::default();
    let solve = |cap, bound| {
        solve_capacity(
            &m,
            &p,
            Size(cap),
            Size(bound),
            &opt,
            &Budget::unlimited(),
            1,
        )
        .0
    };
    let Verdict::Found(offs) = solve(12, 12) else {
        panic!("expected a plan")
    };
    assert_valid(&p, &offs, Size(12));
    assert_eq!(solve(11, 0), Verdict::Infeasible);
}

/// A staircase that greedy orders get wrong is still searched; a node limit of one node
/// per run stops the search with Unknown, and the node count respects the limit.
#[test]
fn node_limit_gives_unknown_and_is_respected() {
    let mut rng = Rng::new(7);
    let mut tried = 0;
    for _ in 0..200 {
        let p = random_problem(
            &mut rng,
            8,
            Mix {
                align: false,
                fixed: false,
                gaps: false,
            },
        );
        let m = model(&p);
        let lb = max_load(&p);
        let unlimited = ExactOptions {
            decomposition: false,
            ..ExactOptions::default()
        };
        let (v, s) = solve_capacity(&m, &p, lb, lb, &unlimited, &Budget::unlimited(), 1);
        if matches!(v, Verdict::Stopped(_)) || s.nodes <= 8 {
            continue;
        }
        tried += 1;
        let three = Budget::unlimited().with_node_limit(3);
        let (v, s) = solve_capacity(&m, &p, lb, lb, &unlimited, &three, 1);
        assert_eq!(v, Verdict::Stopped(Halt::Limit));
        // Each preorder may overshoot its limit by the one node that notices it.
        assert!(
            s.nodes <= 4 * unlimited.preorders.len() as u64,
            "{} nodes",
            s.nodes
        );
    }
    assert!(tried > 0, "some instance needs more than 8 nodes");
}

#[test]
fn plan_does_not_depend_on_the_thread_count() {
    let mut rng = Rng::new(8);
    for _ in 0..40 {
        let p = random_problem(&mut rng, 8, Mix::EVERYTHING);
        let m = model(&p);
        let lb = max_load(&p);
        let opt = ExactOptions::default();
        let cap = lb + Size(1);
        let one = solve_capacity(&m, &p, cap, lb, &opt, &Budget::unlimited(), 1).0;
        let two = solve_capacity(&m, &p, cap, lb, &opt, &Budget::unlimited(), 2).0;
        assert_eq!(one, two);
    }
}

/// `tighten`: when no plan fits under the max load, the search under it proves so, and
/// that proof must not be taken for an answer under the asked capacity; when one does, it
/// is found and fits. Both thread counts, on instances that fragment.
#[test]
fn tightened_searches_never_answer_for_the_asked_capacity() {
    let mut rng = Rng::new(11);
    let mix = Mix::EVERYTHING;
    let opt = ExactOptions::default();
    assert!(opt.tighten, "on by default");
    let (mut fragmented, mut tight) = (0, 0);
    for i in 0..300 {
        let p = random_problem(&mut rng, 3 + i % 6, mix);
        let m = model(&p);
        let lb = max_load(&p);
        let best = brute_force_minimum(&p, lb);
        if best > lb {
            fragmented += 1;
        }
        for cap in [best, best + Size(2)] {
            if lb.max(m.fixed_top) < cap {
                tight += 1;
            }
            for threads in [1, 2] {
                let (v, _) = solve_capacity(&m, &p, cap, lb, &opt, &Budget::unlimited(), threads);
                let Verdict::Found(offs) = v else {
                    panic!("no plan under {cap} (best {best}, max load {lb}) for {p:?}: {v:?}")
                };
                assert_valid(&p, &offs, cap);
            }
        }
    }
    assert!(
        fragmented > 10,
        "{fragmented} instances whose max load is infeasible"
    );
    assert!(tight > 100, "{tight} searches with a tightened run");
}

/// Two fixed buffers at overlapping addresses, live at different times of one section of
/// a free buffer, take those addresses once: section inference used to add both up and
/// answer Infeasible (with 0 nodes) at 111,054, where a plan of that height exists
/// (found by the lower-bounds fuzz body).
#[test]
fn fixed_buffers_never_live_together_are_counted_once_per_address() {
    let p = Problem::new(vec![
        Buffer::new("a", 37944, 51762, 4096)
            .with_alignment(2)
            .with_fixed_offset(106958),
        Buffer::new("b", 37944, 67591, 106958).with_alignment(2),
        Buffer::new("c", 63464, 67591, 2)
            .with_alignment(2)
            .with_fixed_offset(106960),
    ])
    .unwrap();
    let m = model(&p);
    let cap = Size(111_054);
    let opt = ExactOptions::default();
    let (v, _) = solve_capacity(&m, &p, cap, cap, &opt, &Budget::unlimited(), 1);
    let Verdict::Found(offsets) = v else {
        panic!("a plan of height 111,054 exists, got {v:?}")
    };
    check_offsets(&p, &offsets, Some(cap)).expect("valid");
    assert_eq!(brute_force_minimum(&p, Size(0)), cap);
}

/// The listed-out member index ([`Model::flat`], what small models use) and the walk of
/// the segment tree (what large ones use) give the same search: the same answer, nodes
/// and steps under every switch combination, with gaps, alignment and fixed buffers.
#[test]
fn listed_members_and_the_tree_walk_search_alike() {
    let mut rng = Rng::new(12);
    let mix = Mix::EVERYTHING;
    let combos = all_switches();
    for i in 0..12 {
        let p = random_problem(&mut rng, 4 + i % 9, mix);
        let listed = model(&p);
        assert!(listed.flat.is_some(), "a small model lists its members");
        let walked = Model {
            flat: None,
            ..listed.clone()
        };
        let lb = max_load(&p);
        for cap in [lb, lb + Size(2)] {
            for opt in combos.iter().step_by(5) {
                let bound = if opt.tighten { lb } else { Size::ZERO };
                let solve =
                    |m: &Model| solve_capacity(m, &p, cap, bound, opt, &Budget::unlimited(), 1);
                assert_eq!(
                    solve(&listed),
                    solve(&walked),
                    "{opt:?} under {cap} for {p:?}"
                );
            }
        }
    }
}
