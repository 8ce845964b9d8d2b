//! Shares (issue 45): the model, the checker and the planner, through the front door.

mod common;
use common::plan_across;
use memplan::{
    check, check_offsets, plan, Buffer, Offset, Options, Outcome, Problem, ProblemErrorKind,
    Request, Share, ShareKind, Size, Violation,
};

fn offs(v: &[u64]) -> Vec<Offset> {
    v.iter().map(|&o| Offset(o)).collect()
}

/// relu in place of conv, add in place of relu, beside a long-lived buffer.
fn chain() -> Problem {
    Problem::with_shares(
        vec![
            Buffer::new("conv", 0, 3, 8),
            Buffer::new("relu", 2, 5, 8),
            Buffer::new("add", 4, 7, 8),
            Buffer::new("skip", 0, 7, 4),
        ],
        vec![
            Share::in_place("relu", "conv"),
            Share::in_place("add", "relu"),
        ],
    )
    .unwrap()
}

#[test]
fn an_in_place_chain_is_one_storage() {
    let problem = chain();
    let report = plan(&problem, &Request::minimise(), &Options::default()).unwrap();
    let Outcome::Optimal(p) = &report.outcome else {
        panic!("{:?}", report.outcome)
    };
    assert_eq!(p.height(), Size(12));
    assert_eq!(report.max_load, Size(12), "the max load with shares");
    assert_eq!(report.taken_shares, vec![0, 1]);
    assert_eq!(p.offsets()[0], p.offsets()[1]);
    assert_eq!(p.offsets()[1], p.offsets()[2]);
    check(&problem, p, None).unwrap();
    // Without the shares, the same buffers need 8 more bytes.
    let without = plan(
        &problem.without_shares(),
        &Request::minimise(),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(without.outcome.plan().unwrap().height(), Size(20));
    // The ablation: with the optional shares off, the plan is the one without.
    let mut options = Options::default();
    options.shares.optional = false;
    let off = plan(&problem, &Request::minimise(), &options).unwrap();
    assert_eq!(off.outcome.plan().unwrap().height(), Size(20));
    assert!(off.taken_shares.is_empty());
    assert!(matches!(off.outcome, Outcome::Feasible { .. }));
}

#[test]
fn an_input_read_later_is_not_shared() {
    // x is still read at step 3, after y is born at 2.
    let bufs = || vec![Buffer::new("x", 0, 4, 8), Buffer::new("y", 2, 6, 8)];
    let problem = Problem::with_shares(bufs(), vec![Share::in_place("y", "x")]).unwrap();
    let report = plan(&problem, &Request::minimise(), &Options::default()).unwrap();
    assert_eq!(report.outcome.plan().unwrap().height(), Size(16));
    assert!(report.taken_shares.is_empty());
    // Required, it is refused with the reason.
    let e = Problem::with_shares(bufs(), vec![Share::in_place("y", "x").required()]).unwrap_err();
    assert!(matches!(
        e.kind,
        ProblemErrorKind::RequiredShareCannotHold { .. }
    ));
    let msg = e.to_string();
    assert!(
        msg.contains("'y'") && msg.contains("'x'") && msg.contains("read later"),
        "{msg}"
    );
}

#[test]
fn the_checker_names_the_pair() {
    let problem = chain();
    // relu at the wrong offset while conv is live.
    let err = check_offsets(&problem, &offs(&[0, 4, 4, 12]), None).unwrap_err();
    let broken = err
        .violations
        .iter()
        .find_map(|v| match v {
            Violation::ShareBroken {
                buffer,
                target,
                kind,
                reason,
                ..
            } => Some((buffer.id.clone(), target.id.clone(), *kind, reason.clone())),
            _ => None,
        })
        .expect("a broken share");
    assert_eq!(
        (broken.0.as_str(), broken.1.as_str(), broken.2),
        ("relu", "conv", ShareKind::InPlace)
    );
    assert!(broken.3.contains("is at 4"), "{}", broken.3);
    assert!(err.to_string().contains("'relu'") && err.to_string().contains("'conv'"));
    // A buffer with no share over them overlaps as before.
    let err = check_offsets(&problem, &offs(&[0, 0, 0, 4]), None).unwrap_err();
    assert!(err
        .violations
        .iter()
        .all(|v| matches!(v, Violation::Overlap { second, .. } if second.id == "skip" || second.id == "add" || second.id == "relu" || second.id == "conv")));
    // The right offsets pass.
    assert_eq!(
        check_offsets(&problem, &offs(&[4, 4, 4, 0]), None)
            .unwrap()
            .height,
        Size(12)
    );
}

#[test]
fn the_checker_rejects_a_share_over_an_input_read_later() {
    let problem = Problem::with_shares(
        vec![Buffer::new("x", 0, 4, 8), Buffer::new("y", 2, 6, 8)],
        vec![Share::in_place("y", "x")],
    )
    .unwrap();
    let err = check_offsets(&problem, &offs(&[0, 0]), None).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(&err.violations[0], Violation::ShareBroken { reason, .. } if reason.contains("read later")),
        "{msg}"
    );
    assert!(
        msg.contains("'y'") && msg.contains("'x'") && msg.contains("[2, 4)"),
        "{msg}"
    );
    // Born before its target: the lifetimes overlap beyond the boundary.
    let problem = Problem::with_shares(
        vec![Buffer::new("x", 2, 4, 8), Buffer::new("y", 1, 6, 8)],
        vec![Share::in_place("y", "x")],
    )
    .unwrap();
    let err = check_offsets(&problem, &offs(&[0, 0]), None).unwrap_err();
    assert!(
        matches!(&err.violations[0], Violation::ShareBroken { reason, .. } if reason.contains("born at 2")),
        "{err}"
    );
}

#[test]
fn inside_shares_and_required_ones() {
    // A cache update's result inside its cache.
    let problem = Problem::with_shares(
        vec![
            Buffer::new("cache", 0, 10, 16),
            Buffer::new("k", 2, 4, 4),
            Buffer::new("update", 3, 6, 16),
        ],
        vec![Share::inside("update", "cache", 0).required()],
    )
    .unwrap();
    let report = plan(&problem, &Request::minimise(), &Options::default()).unwrap();
    let p = report.outcome.plan().unwrap();
    assert_eq!(p.height(), Size(20));
    assert!(matches!(report.outcome, Outcome::Optimal(_)));
    assert_eq!(p.offsets()[0], p.offsets()[2]);
    // Not taken, the checker says so.
    let err = check_offsets(&problem, &offs(&[0, 16, 32]), None).unwrap_err();
    assert!(err
        .violations
        .iter()
        .any(|v| matches!(v, Violation::ShareNotTaken { buffer, .. } if buffer == "update")));
    // Past the target's end: refused when built.
    let e = Problem::with_shares(
        vec![Buffer::new("c", 0, 9, 8), Buffer::new("u", 2, 4, 4)],
        vec![Share::inside("u", "c", 6)],
    )
    .unwrap_err();
    assert!(
        matches!(e.kind, ProblemErrorKind::ShareOutsideTarget { .. }),
        "{e}"
    );
}

#[test]
fn concat_inside_is_taken_only_where_it_helps() {
    // a and b are concatenated into out at step 4; a is born long before, while a large
    // buffer is live: reserving out from a's birth would raise the peak.
    let bufs = vec![
        Buffer::new("big", 0, 2, 100),
        Buffer::new("a", 1, 5, 8),
        Buffer::new("b", 3, 5, 8),
        Buffer::new("out", 4, 7, 16),
    ];
    let shares = vec![Share::inside("a", "out", 0), Share::inside("b", "out", 8)];
    let problem = Problem::with_shares(bufs, shares).unwrap();
    let report = plan(&problem, &Request::minimise(), &Options::default()).unwrap();
    let p = report.outcome.plan().unwrap();
    check(&problem, p, None).unwrap();
    // b inside out lowers the load at step 4 (32 -> 16 + 8 for a); a inside out would
    // reserve 16 bytes at step 1 beside big (108 -> 116): not taken.
    assert_eq!(report.taken_shares, vec![1]);
    assert_eq!(p.height(), Size(108));
}

#[test]
fn bad_shares_are_refused_with_their_buffer() {
    let bufs = || vec![Buffer::new("a", 0, 2, 8), Buffer::new("b", 1, 3, 8)];
    type Case = (Vec<Share>, fn(&ProblemErrorKind) -> bool);
    let cases: Vec<Case> = vec![
        (vec![Share::in_place("b", "zz")], |k| {
            matches!(k, ProblemErrorKind::ShareUnknownTarget { .. })
        }),
        (vec![Share::in_place("zz", "a")], |k| {
            matches!(k, ProblemErrorKind::ShareUnknownBuffer { .. })
        }),
        (vec![Share::in_place("a", "a")], |k| {
            matches!(k, ProblemErrorKind::ShareWithItself)
        }),
        (
            vec![Share::in_place("b", "a"), Share::in_place("b", "a")],
            |k| matches!(k, ProblemErrorKind::DuplicateShare { .. }),
        ),
    ];
    for (shares, want) in cases {
        let e = Problem::with_shares(bufs(), shares).unwrap_err();
        assert!(want(&e.kind), "{e}");
        assert_eq!(e.kind.field(), "shares");
    }
    let e = Problem::with_shares(
        vec![
            Buffer::new("a", 0, 2, 8),
            Buffer::new("b", 1, 3, 8).with_alignment(4),
        ],
        vec![Share::in_place("b", "a").at(2)],
    )
    .unwrap_err();
    assert!(
        matches!(e.kind, ProblemErrorKind::MisalignedShare { .. }),
        "{e}"
    );
    // Two required shares that cannot both hold: y in place of x, z in place of x too
    // (y and z are both born at step 2 and would overlap with no share between them).
    let e = Problem::with_shares(
        vec![
            Buffer::new("x", 0, 3, 8),
            Buffer::new("y", 2, 5, 8),
            Buffer::new("z", 2, 5, 8),
        ],
        vec![
            Share::in_place("y", "x").required(),
            Share::in_place("z", "x").required(),
        ],
    )
    .unwrap_err();
    assert!(
        matches!(e.kind, ProblemErrorKind::RequiredShareCannotHold { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("no share between them"), "{e}");
}

#[test]
fn a_capacity_below_the_max_load_with_shares_is_infeasible() {
    let problem = chain();
    let report = plan(&problem, &Request::fit(Size(11)), &Options::default()).unwrap();
    assert_eq!(report.outcome, Outcome::Infeasible);
    let report = plan(&problem, &Request::fit(Size(12)), &Options::default()).unwrap();
    assert!(matches!(report.outcome, Outcome::Optimal(_)));
}

#[test]
fn shares_across_memories() {
    use memplan::memories::{check_memories, MemoriesInput, MemoriesOptions, Memory};
    // A TCM of 16 bytes holds the in-place chain (8 bytes) and skip (4) only with shares.
    let problem = chain();
    let memories = vec![Memory::new("tcm").with_capacity(12), Memory::new("dram")];
    let accesses = vec![4, 4, 4, 1];
    let input = MemoriesInput {
        accesses: Some(&accesses),
        ..MemoriesInput::default()
    };
    let report = plan_across(
        &problem,
        &memories,
        &input,
        &Request::minimise(),
        &MemoriesOptions::default(),
    )
    .unwrap();
    let p = report.plan().expect("a plan");
    assert_eq!(
        p.cost, 0,
        "everything fits in the TCM with the chain shared"
    );
    check_memories(&problem, &memories, &input, p).unwrap();
    assert_eq!(
        problem.taken_shares(&p.offsets, |i| p.memory[i]),
        vec![0, 1]
    );
    // Without the shares, the chain alone needs 16 bytes: something goes to DRAM.
    let report = plan_across(
        &problem.without_shares(),
        &memories,
        &input,
        &Request::minimise(),
        &MemoriesOptions::default(),
    )
    .unwrap();
    assert!(report.plan().unwrap().cost > 0);
}

/// A problem with no plan across memories names the buffers behind each storage, not
/// only the storage's first member.
#[test]
fn infeasibility_across_memories_names_every_member() {
    use memplan::memories::{MemoriesInput, MemoriesOptions, Memory, MemorySet};
    use memplan::Time;
    // y takes x's storage (8 bytes); z (4) beside it: 12 bytes at time 1, in a TCM of 10.
    let problem = Problem::with_shares(
        vec![
            Buffer::new("x", 0, 2, 8),
            Buffer::new("y", 1, 3, 8),
            Buffer::new("z", 1, 3, 4),
        ],
        vec![Share::in_place("y", "x").required()],
    )
    .unwrap();
    let memories = vec![Memory::new("tcm").with_capacity(10), Memory::new("dram")];
    let pinned = vec![MemorySet::single(memplan::memories::MemoryIdx(0)); 3];
    let input = MemoriesInput {
        allowed: Some(&pinned),
        ..MemoriesInput::default()
    };
    let report = plan_across(
        &problem,
        &memories,
        &input,
        &Request::minimise(),
        &MemoriesOptions::default(),
    )
    .unwrap();
    assert!(
        matches!(report.outcome, Outcome::Infeasible),
        "{:?}",
        report.outcome
    );
    let why = report.infeasibility.expect("the argument");
    assert_eq!((why.time, why.need), (Some(Time(1)), 12));
    assert_eq!(why.buffers, ["x", "y", "z"]);
}
