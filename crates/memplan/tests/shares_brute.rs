//! Shares on small random problems (issue 45): the checker against a pairwise reference,
//! and the planner against brute force (every offset tried), under every combination of
//! the share switches.

use memplan::{
    check_offsets, plan, Buffer, Offset, Options, Outcome, Problem, Request, Share, ShareKind,
    ShareOptions, Size,
};

/// xorshift, seeded: the same cases on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}

/// A small problem with shares of both kinds, some whose rules hold and some not, some
/// required. `None` when the required shares contradict each other.
fn random_problem(rng: &mut Rng, n: usize, max_size: u64) -> Option<Problem> {
    let mut bufs: Vec<Buffer> = Vec::new();
    for i in 0..n {
        let s = rng.below(6);
        let e = s + 1 + rng.below(4);
        let mut b = Buffer::new(format!("b{i}"), s, e, 1 + rng.below(max_size));
        if rng.below(5) == 0 {
            b = b.with_alignment(2);
        }
        bufs.push(b);
    }
    let mut shares = Vec::new();
    for i in 0..n {
        if rng.below(3) == 0 {
            continue;
        }
        let j = rng.below(n as u64) as usize;
        if j == i {
            continue;
        }
        let (b, t) = (&bufs[i], &bufs[j]);
        let mut share = if rng.below(3) == 0 && b.size <= t.size {
            let room = t.size.get() - b.size.get();
            let off = rng.below(room + 1) / b.alignment.get() * b.alignment.get();
            Share::inside(&b.id, &t.id, off)
        } else {
            // Make the in-place rule hold most of the time: t ends where b begins.
            if rng.below(4) != 0 && t.lifetime.start <= b.lifetime.start {
                let end = b.lifetime.start.get() + 1;
                bufs[j].lifetime.end = memplan::Time(end.max(bufs[j].lifetime.start.get() + 1));
            }
            Share::in_place(&bufs[i].id, &bufs[j].id)
        };
        if rng.below(6) == 0 {
            share = share.required();
        }
        shares.push(share);
    }
    Problem::with_shares(bufs, shares).ok()
}

/// The O(n²) reference: every pair, with the share rules written out again.
fn reference_valid(problem: &Problem, offsets: &[Offset]) -> bool {
    let bufs = problem.buffers();
    let end = |i: usize| offsets[i].get() + bufs[i].size.get();
    if (0..bufs.len()).any(|i| !offsets[i].get().is_multiple_of(bufs[i].alignment.get())) {
        return false;
    }
    for (k, s) in problem.shares().iter().enumerate() {
        let (b, t) = problem.share_ends(k);
        if s.required && offsets[b.index()].get() != offsets[t.index()].get() + s.offset.get() {
            return false;
        }
    }
    for i in 0..bufs.len() {
        for j in i + 1..bufs.len() {
            let time = bufs[i].lifetime.overlaps(&bufs[j].lifetime);
            let addr = offsets[i].get() < end(j) && offsets[j].get() < end(i);
            if !(time && addr) {
                continue;
            }
            let allowed = problem.shares().iter().enumerate().any(|(k, s)| {
                let (b, t) = problem.share_ends(k);
                let (b, t) = (b.index(), t.index());
                if !((b == i && t == j) || (b == j && t == i)) {
                    return false;
                }
                let (lb, lt) = (bufs[b].lifetime, bufs[t].lifetime);
                let at = offsets[b].get() == offsets[t].get() + s.offset.get();
                let rule = match s.kind {
                    ShareKind::InPlace => {
                        lt.start <= lb.start && lt.end.get() <= lb.start.get() + 1
                    }
                    ShareKind::Inside => s.offset.get() + bufs[b].size.get() <= bufs[t].size.get(),
                };
                at && rule
            });
            if !allowed {
                return false;
            }
        }
    }
    true
}

#[test]
fn the_checker_agrees_with_the_pairwise_reference() {
    let mut rng = Rng(0x5eed_5a4e);
    let (mut valid, mut invalid) = (0, 0);
    let mut cases = 0;
    while cases < 4000 {
        let n = 2 + rng.below(5) as usize;
        let Some(problem) = random_problem(&mut rng, n, 6) else {
            continue;
        };
        cases += 1;
        // Offsets near the shares' relations, so that both verdicts happen.
        let mut offsets: Vec<Offset> = (0..n).map(|_| Offset(rng.below(10))).collect();
        for k in 0..problem.shares().len() {
            if rng.below(2) == 0 {
                let (b, t) = problem.share_ends(k);
                offsets[b.index()] =
                    Offset(offsets[t.index()].get() + problem.shares()[k].offset.get());
            }
        }
        let want = reference_valid(&problem, &offsets);
        let got = check_offsets(&problem, &offsets, None);
        assert_eq!(
            got.is_ok(),
            want,
            "offsets {offsets:?} for {problem:?}: {got:?}"
        );
        if want {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    assert!(
        valid > 500 && invalid > 500,
        "{valid} valid, {invalid} invalid"
    );
}

/// The lowest height of any valid plan, every offset below it tried.
fn brute_force(problem: &Problem) -> u64 {
    let bufs = problem.buffers();
    let total: u64 = bufs
        .iter()
        .map(|b| b.size.get() + b.alignment.get() - 1)
        .sum();
    for h in 0..=total {
        let mut offsets = vec![Offset(0); bufs.len()];
        if search(problem, h, 0, &mut offsets) {
            return h;
        }
    }
    unreachable!("the naive plan is valid");
}

fn search(problem: &Problem, h: u64, i: usize, offsets: &mut Vec<Offset>) -> bool {
    let bufs = problem.buffers();
    if i == bufs.len() {
        return reference_valid(problem, offsets);
    }
    let size = bufs[i].size.get();
    if size > h {
        return false;
    }
    for o in (0..=h - size).step_by(bufs[i].alignment.get() as usize) {
        offsets[i] = Offset(o);
        if search(problem, h, i + 1, offsets) {
            return true;
        }
    }
    false
}

#[test]
fn the_planner_against_brute_force_under_every_switch() {
    let mut rng = Rng(0x00b0_0fce);
    let switches = [(true, true), (true, false), (false, true), (false, false)];
    let (mut cases, mut at_optimum, mut below_unshared) = (0, 0, 0);
    while cases < 300 {
        let n = 2 + rng.below(3) as usize;
        let Some(problem) = random_problem(&mut rng, n, 4) else {
            continue;
        };
        if problem.shares().is_empty() {
            continue;
        }
        cases += 1;
        let optimum = brute_force(&problem);
        let unshared = brute_force(&problem.without_shares());
        if problem.shares().iter().all(|s| !s.required) {
            assert!(
                optimum <= unshared,
                "optional shares never raise the optimum"
            );
        }
        let mut heights = Vec::new();
        for (optional, fallback) in switches {
            let options = Options {
                shares: ShareOptions { optional, fallback },
                ..Options::default()
            };
            let report = plan(&problem, &Request::minimise(), &options).unwrap();
            let p = report.outcome.plan().expect("minimise always plans");
            check_offsets(&problem, p.offsets(), None).unwrap();
            let h = p.height().get();
            assert!(h >= optimum, "below the brute-force optimum: {problem:?}");
            assert!(
                report.lower_bound.get() <= optimum,
                "a bound above the optimum ({} > {optimum}): {problem:?}",
                report.lower_bound
            );
            if matches!(report.outcome, Outcome::Optimal(_)) {
                assert_eq!(h, optimum, "a false optimal: {problem:?}");
            }
            if fallback || !optional {
                // With the fallback, never above memplan's plan without the optional
                // shares.
                let required_only = Problem::with_shares(
                    problem.buffers().to_vec(),
                    problem
                        .shares()
                        .iter()
                        .filter(|s| s.required)
                        .cloned()
                        .collect(),
                )
                .unwrap();
                let without = plan(&required_only, &Request::minimise(), &Options::default())
                    .unwrap()
                    .outcome
                    .plan()
                    .unwrap()
                    .height()
                    .get();
                assert!(h <= without, "{h} > {without}: {problem:?}");
            }
            heights.push(h);
        }
        if heights[0] == optimum {
            at_optimum += 1;
        }
        if heights[0] < unshared {
            below_unshared += 1;
        }
    }
    // The storages are conservative (a storage reserves its full size over its whole
    // span), so the optimum is not always reached; most of the time it is.
    assert!(
        at_optimum * 10 >= cases * 9,
        "{at_optimum} of {cases} at the optimum"
    );
    assert!(
        below_unshared * 5 >= cases,
        "shares lowered only {below_unshared} of {cases}"
    );
}

#[test]
fn every_door_of_the_library_gives_the_same_plan() {
    // CSV and JSON round trips keep the shares, and plan to the same offsets.
    let mut rng = Rng(77);
    let mut done = 0;
    while done < 50 {
        let Some(problem) = random_problem(&mut rng, 5, 6) else {
            continue;
        };
        done += 1;
        let mut csv = Vec::new();
        memplan::io::write_problem_csv(&problem, &mut csv).unwrap();
        let from_csv =
            memplan::io::read_problem_csv(&csv, &memplan::io::ReadOptions::default()).unwrap();
        let mut json = Vec::new();
        memplan::io::write_problem_json(&problem, None, &mut json).unwrap();
        let (from_json, _) =
            memplan::io::read_problem_json(&json, &memplan::io::ReadOptions::default()).unwrap();
        assert_eq!(from_csv, problem, "{}", String::from_utf8_lossy(&csv));
        assert_eq!(from_json, problem, "{}", String::from_utf8_lossy(&json));
        let request = Request::minimise();
        let a = plan(&problem, &request, &Options::default()).unwrap();
        let b = plan(&from_csv, &request, &Options::default()).unwrap();
        assert_eq!(a.outcome, b.outcome);
        assert_eq!(a.taken_shares, b.taken_shares);
    }
}

#[test]
fn bad_share_cells_name_the_line_and_column() {
    let csv = b"id,lower,upper,size,shares\na,0,2,8,\nb,1,3,8,in_place:a\nc,2,4,8,sideways:b\n";
    let e = memplan::io::read_problem_csv(csv, &memplan::io::ReadOptions::default()).unwrap_err();
    assert_eq!((e.line, e.column.as_deref()), (4, Some("shares")), "{e}");
    assert!(e.to_string().contains("sideways:b"), "{e}");
    let csv = b"id,lower,upper,size,shares\na,0,2,8,\nb,1,3,8,in_place:zz\n";
    let e = memplan::io::read_problem_csv(csv, &memplan::io::ReadOptions::default()).unwrap_err();
    assert_eq!((e.line, e.column.as_deref()), (3, Some("shares")), "{e}");
    assert!(e.to_string().contains("'zz'"), "{e}");
    let json = br#"{"buffers": [{"id": "a", "start": 0, "end": 2, "size": 8},
        {"id": "b", "start": 1, "end": 3, "size": 8, "shares": [{"target": "a", "offset": "x"}]}]}"#;
    let e = memplan::io::read_problem_json(json, &memplan::io::ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("buffers[1].shares[0].offset"), "{e}");
    // A capacity between the max load with shares and without.
    let csv = b"id,lower,upper,size,shares\na,0,2,8,\nb,1,3,8,in_place:a@0!\n";
    let p = memplan::io::read_problem_csv(csv, &memplan::io::ReadOptions::default()).unwrap();
    assert!(p.shares()[0].required);
    let r = plan(&p, &Request::fit(Size(8)), &Options::default()).unwrap();
    assert!(matches!(r.outcome, Outcome::Optimal(_)));
}
