//! Lower bounds on the height of any plan, beyond the max load, and proofs that a
//! capacity is too small.
//!
//! # The model
//!
//! Buffers `b` have half-open lifetimes (minus their gaps), sizes `s_b`, alignments
//! `a_b`, and some have fixed offsets. A plan gives each free buffer an aligned offset
//! `o_b` so that two buffers live at a common time occupy disjoint address ranges
//! `[o_b, o_b + s_b)`; its height is the highest top. `OPT` is the least height. A *lower
//! bound* is a number `L` with `L ≤ OPT` for every input; a proof that a capacity `C`
//! is infeasible is the same statement as `C < L`. Every bound here comes with a
//! [`Provenance`] that says which argument gave it.
//!
//! # The bounds, cheapest first
//!
//! **Max load and fixed top** (`ω`). At any time the live buffers are stacked in disjoint
//! ranges, so `OPT ≥ load(t)` for every `t`; a fixed buffer's top is in every plan.
//!
//! **Granularity.** Let `g` be the gcd of every size, alignment and fixed offset. Some
//! optimal plan is *compacted* (each buffer as low as the buffers below it allow; see
//! `exact/search.rs`): each offset is 0, a fixed top, or a top rounded up to an
//! alignment, so by induction every offset, top and height is a multiple of `g`. Hence
//! once `C` is proven infeasible, `OPT ≥ next multiple of g above C`. On the challenging
//! suite `g = 1024`: one proof raises the bound by 1 KiB, not 1 byte.
//!
//! **Holes** (fixed buffers). At a time `t`, the fixed buffers live cut `[0, top_t)` into
//! inner holes; above `top_t` the top hole reaches the capacity `C`. A free buffer of
//! size `s` fits only in a hole of length `≥ s`, so for every threshold `s`, with `A_s`
//! the total size of the free buffers live at `t` of size `≥ s` and `I_s` the total
//! length of the inner holes of length `≥ s`: either `A_s ≤ I_s`, or the top hole takes
//! the rest, `C − top_t ≥ max(s, A_s − I_s)`. The least such `C` is a bound. At the
//! smallest threshold it is `load(t)`, so it is never below the loads; it is above them
//! when the fixed buffers leave holes too small for the free ones:
//!
//! ```text
//!   addr                        a fixed buffer F at [2, 4), a free one b of size 3,
//!   7 +-----+                   both live at t. ω = 5, but b fits neither under F
//!     |  b  |                   (hole of 2) nor beside it: OPT = 4 + 3 = 7.
//!   4 +-----+
//!     |  F  |
//!   2 +-----+
//!     |hole |
//!   0 +-----+
//! ```
//!
//! **Decomposition.** Buffers of different time components never live together, so `OPT`
//! is the largest of the components' optima, and plans of the components together are a
//! plan. Each component is bounded and searched on its own (with its own granularity).
//!
//! **Windows** (a relaxation in time). Cutting every lifetime of a component to a window
//! `[t₀, t₁)` only removes conflicts: any plan of the component, restricted to the
//! buffers live in the window, is a plan of the window with the same offsets. So the
//! window's optimum is at most the component's, and a proof on a window is a proof on
//! the problem. A window is smaller and often much easier to search. Windows of `w`
//! consecutive lifetime boundaries are taken every `w/2` boundaries (they overlap, so an
//! obstruction of width `≤ w/2` lies inside one of them):
//!
//! ```text
//!   boundaries  0   1   2   3   4   5   6
//!   w = 4       [===============)
//!                       [===============)      clipped lifetimes: a buffer live on
//!                               [=======...    [1, 6) becomes [2, 4) in the second
//! ```
//!
//! **The exact search as a prover.** [`crate::exact`] is complete: under a node limit it
//! either finds a plan under `C`, proves that none exists, or stops. The prover probes
//! every part (components, then windows) at the bound `L` itself, the smallest capacity
//! not yet proven infeasible: a proof raises `L` to the next multiple of the part's
//! granularity and the same part is probed again; a plan settles the part (it stays
//! settled, since `L` only rises); a stop leaves it for the next round, whose node limit
//! is 4× larger. When every component holds a plan under `L`, their union is a plan of
//! height `L`: `L` is the optimum. In capacity mode every probe is at `C` instead, and one
//! proof ends the run. Probes are deterministic (one thread, node limits); only the
//! budget's clock can cut a run short, and a cut never makes a bound invalid.
//!
//! # Candidates studied and not kept (measured on the challenging suite, `bench.rs`)
//!
//! - *Two critical times never beat the loads*: buffers live at both go at the bottom, in
//!   the same order at both times; those live at one time stack above them. So packing
//!   arguments need at least three times, and on D and J every window of up to 20
//!   lifetime boundaries, and the restriction of D to the times whose load is ≥ 95% of
//!   `ω`, packs at its own max load (found in milliseconds). The obstruction, if there is
//!   one, spans most of the instance.
//! - *Subset sums along one buffer's lifetime* (at each time `t` of `b`'s lifetime the
//!   buffers below `b` sum to a subset sum `σ` of the others live at `t`, with
//!   `σ ≤ o_b ≤ σ + C − load(t)`; the sets of possible `o_b` must intersect): no buffer of
//!   D or J is blocked at `C = ω`.
//! - *Dual feasible functions* (Fekete and Schepers) need a second dimension to act on:
//!   at one time the live buffers are one bin, where a DFF proves nothing beyond the
//!   load, and along an address line the buffers crossing it are time-disjoint, which
//!   gives the average load. With fixed horizontal positions both collapse to `ω`.
//! - *LP relaxations* of the position-indexed or covering formulations: the covering LP
//!   (address lines as time-disjoint sets) is the fractional weighted colouring of an
//!   interval graph, which equals `ω` (perfect graphs); the position-indexed LP is met
//!   at `ω` by spreading each buffer uniformly.
//!
//! - *Small random instances never need more than the max load*: none of 10 million
//!   multisets of up to 7 buffers over 4 time steps with sizes 1–3, and none of a few
//!   thousand random instances of up to 30 buffers. Instances above it come from flat
//!   loads with one filler per step (`tests.rs`, `flat_problem`): about 1 in 1,000 with
//!   at most 8 buffers, a third with 16.
//!
//! # What it proves on `benchmarks/` (`bench.rs`, release, one thread)
//!
//! Every instance whose best known height is its max load (A–C, E–K, iopddl-G,
//! somas-resnet50) is proven optimal: the search finds a plan at `ω` in 0.0–0.7 s.
//! D, J and iopddl-S get no bound above `ω`: the search at `C = ω` visits 9.2 M nodes on
//! D and 31.8 M on J in 600 s without a proof, and windows (the 64 heaviest of 8 and of
//! 32 boundaries) prove nothing in the same budget. (Measured before the port to typed
//! units; the planner's own table, `memplan bench benchmarks --proven`, is BENCHMARKS.md,
//! "What is proven".) So [`crate::plan`] runs the cheap bounds by default and the prover
//! only when asked ([`BoundOptions::prover`]).
//!
//! # In the driver
//!
//! `driver/bound.rs` raises the incumbent's proven bound: the cheap bounds
//! ([`raise_cheaply`]) after the greedy pass when its plan is above the bound (or over
//! the capacity), the prover next when switched on, and the granularity again after the
//! exact search, whose proofs (`exact::minimise`) raise the bound by one byte past each
//! capacity proven infeasible.
//!
//! # The exact search: what the prover needs from it
//!
//! - Soundness: every Infeasible is trusted, fixed obstacles included. (Its section
//!   inference once summed fixed buffers never live together and "proved" a feasible
//!   capacity infeasible; found by this module's fuzz body, fixed in `exact/model.rs`
//!   and pinned by `exact/tests.rs`; the brute-force tests here, fixed buffers
//!   included, now demand the exact optimum.)
//! - A proof at `C` says nothing about `C + g`, so raising a bound by `k` units costs `k`
//!   proofs (galloping only helps once a proof comes cheap). A proof that also returned
//!   its *margin*, the least capacity at which some pruned node would have survived
//!   (every prune is a comparison of a level plus sizes against `C`), would prove every
//!   capacity below the margin at once.
//!
//! Files: `relax.rs` (granularity, components, windows), `holes.rs`, `prover.rs`.

mod holes;
mod prover;
mod relax;

use crate::budget::Budget;
use crate::types::{Offset, Problem, Size, Time};

use prover::{all_components_planned, Goal, NodeLimits, Prover, Slot};
use relax::{components, windows};

/// Which argument proves a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Provenance {
    /// The max load (or, for no buffers, nothing at all).
    MaxLoad,
    /// The top of a fixed buffer.
    FixedTop,
    /// The holes the fixed buffers leave at `time`.
    FixedHoles { time: Time },
    /// The exact search proved capacity `infeasible` on a time component.
    Search { infeasible: Size, nodes: u64 },
    /// The exact search proved capacity `infeasible` on the window `[start, end)`.
    Window {
        start: Time,
        end: Time,
        infeasible: Size,
        nodes: u64,
    },
}

/// The lower bounds [`crate::plan`] reports beyond the max load: each technique of the
/// module doc is a switch, on by default except the prover, which spends time.
///
/// The cheap bounds ([`BoundOptions::granularity`], [`BoundOptions::holes`]) run only
/// when the plan is above the max load (or, fitting a capacity, over it), after the
/// planners; the prover runs before the exact search, on a share of the time left, when
/// [`BoundOptions::prover`] is on and the greedy plan is above the bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundOptions {
    /// Round every proven bound up to the next multiple of the gcd of every size,
    /// alignment and fixed offset: some optimal plan has every height a multiple of it.
    pub granularity: bool,
    /// The holes bound: the free buffers live at a time must fit into the address ranges
    /// the fixed buffers leave open.
    pub holes: bool,
    /// The prover searches each time component on its own (off: the whole problem as
    /// one part).
    pub components: bool,
    /// The prover also searches windows in time (every lifetime clipped to a few
    /// consecutive boundaries: relaxations that are often easier to prove).
    pub windows: bool,
    /// Run the prover inside [`crate::plan`]: the exact search probing the bound itself
    /// on each part, raising it by proofs (and, fitting a capacity, probing the
    /// capacity). Off by default: on every instance under `benchmarks/` it proves nothing
    /// that the exact search does not (BENCHMARKS.md, "What is proven"), and it takes
    /// half of the time left from the planners.
    pub prover: bool,
}

impl Default for BoundOptions {
    fn default() -> BoundOptions {
        BoundOptions {
            granularity: true,
            holes: true,
            components: true,
            windows: true,
            prover: false,
        }
    }
}

impl BoundOptions {
    /// The window widths (in lifetime boundaries) the prover searches when
    /// [`BoundOptions::windows`] is on.
    pub(crate) const WINDOW_WIDTHS: [usize; 2] = [8, 32];

    /// The prover's switches these options select.
    pub(crate) fn prover_options(&self) -> ProverOptions {
        ProverOptions {
            holes: self.holes,
            granularity: self.granularity,
            components: self.components,
            windows: if self.windows {
                Self::WINDOW_WIDTHS.to_vec()
            } else {
                Vec::new()
            },
            ..ProverOptions::default()
        }
    }
}

/// Switches and limits of [`lower_bound_with`] and [`settle_with`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProverOptions {
    /// The holes bound (fixed buffers).
    pub(crate) holes: bool,
    /// Proofs rounded up to the granularity.
    pub(crate) granularity: bool,
    /// The exact search on each part (off: windows alone, if any).
    pub(crate) search: bool,
    /// Parts are the time components (off: the whole problem is one part).
    pub(crate) components: bool,
    /// Window widths (in lifetime boundaries) searched besides the components.
    pub(crate) windows: Vec<usize>,
    /// Node limit per probe in the first round (per preorder).
    pub(crate) first_nodes: u64,
    /// Node limit per probe in the last round.
    pub(crate) last_nodes: u64,
}

impl Default for ProverOptions {
    fn default() -> ProverOptions {
        ProverOptions {
            holes: true,
            granularity: true,
            search: true,
            components: true,
            windows: Vec::new(),
            first_nodes: 1 << 10,
            last_nodes: 1 << 24,
        }
    }
}

/// A proven bound, and a plan at it when the search found one (then it is optimal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Proven {
    pub(crate) bound: Size,
    pub(crate) provenance: Provenance,
    /// Offsets (problem order) of a plan of height `bound`, when one was found.
    pub(crate) plan: Option<Vec<Offset>>,
    /// Search nodes spent.
    pub(crate) nodes: u64,
}

/// The answer of [`settle`]: can the problem fit under a capacity?
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Settled {
    /// Proven: no plan fits; the argument.
    Infeasible(Provenance),
    /// A plan under the capacity (offsets in problem order).
    Fits(Vec<Offset>),
    /// Neither, within the budget.
    Unknown,
}

/// The best proven lower bound on the height of any plan of `problem` within `budget`:
/// at least the max load and the fixed top. See the module doc.
#[cfg(test)]
pub(crate) fn lower_bound(problem: &Problem, budget: &Budget) -> (Size, Provenance) {
    let p = lower_bound_with(problem, budget, &ProverOptions::default());
    (p.bound, p.provenance)
}

/// [`lower_bound`] with explicit options, and the plan at the bound when found.
pub(crate) fn lower_bound_with(
    problem: &Problem,
    budget: &Budget,
    options: &ProverOptions,
) -> Proven {
    let (bound, provenance) = cheap_bound(problem, budget, options);
    let mut prover = Prover::new(Goal::Minimise, bound, provenance, budget);
    let mut slots = slots(problem, options);
    prover.run(&mut slots, limits(options));
    let plan =
        (options.search && all_components_planned(&slots)).then(|| assemble(problem, &slots));
    Proven {
        bound: prover.bound,
        provenance: prover.provenance,
        plan,
        nodes: prover.nodes,
    }
}

/// Settles whether `problem` fits under `capacity` within `budget`.
#[cfg(test)]
pub(crate) fn settle(problem: &Problem, capacity: Size, budget: &Budget) -> Settled {
    settle_with(problem, capacity, budget, &ProverOptions::default())
}

/// True when `problem` is proven not to fit under `capacity` within `budget`.
#[cfg(test)]
pub(crate) fn prove_infeasible(problem: &Problem, capacity: Size, budget: &Budget) -> bool {
    matches!(settle(problem, capacity, budget), Settled::Infeasible(_))
}

/// [`settle`] with explicit options.
pub(crate) fn settle_with(
    problem: &Problem,
    capacity: Size,
    budget: &Budget,
    options: &ProverOptions,
) -> Settled {
    let (bound, provenance) = cheap_bound(problem, budget, options);
    if bound > capacity {
        return Settled::Infeasible(provenance);
    }
    let mut prover = Prover::new(Goal::Capacity(capacity), bound, provenance, budget);
    let mut slots = slots(problem, options);
    prover.run(&mut slots, limits(options));
    if prover.proven_infeasible() {
        Settled::Infeasible(prover.provenance)
    } else if options.search && all_components_planned(&slots) {
        Settled::Fits(assemble(problem, &slots))
    } else {
        Settled::Unknown
    }
}

/// `proven` (a proven bound: the max load, the exact search's) raised by the cheap
/// bounds that `options` switch on: the holes bound, then the granularity (the least
/// multiple of it at or above the bound: an optimal height is one).
pub(crate) fn raise_cheaply(
    problem: &Problem,
    proven: Size,
    options: &BoundOptions,
    budget: &Budget,
) -> Size {
    let mut bound = proven;
    if options.holes {
        if let Some((h, _)) = holes::holes_bound(problem, budget) {
            bound = bound.max(h);
        }
    }
    if options.granularity && bound > Size::ZERO {
        bound = relax::next_multiple(bound - Size(1), relax::granularity(problem));
    }
    bound
}

/// The max load, the fixed top and the holes bound.
fn cheap_bound(problem: &Problem, budget: &Budget, options: &ProverOptions) -> (Size, Provenance) {
    let load = crate::analysis::max_load(problem);
    let top = crate::analysis::fixed_top(problem);
    let mut best = if top > load {
        (top, Provenance::FixedTop)
    } else {
        (load, Provenance::MaxLoad)
    };
    if options.holes {
        if let Some((h, time)) = holes::holes_bound(problem, budget) {
            if h > best.0 {
                best = (h, Provenance::FixedHoles { time });
            }
        }
    }
    best
}

fn limits(options: &ProverOptions) -> NodeLimits {
    NodeLimits {
        first: options.first_nodes,
        last: options.last_nodes.max(options.first_nodes),
    }
}

/// The components, then the windows of each asked width (components first: when they
/// all fit under the bound, the windows are not needed), at most
/// [`relax::MAX_WINDOWS`] of each width.
fn slots(problem: &Problem, options: &ProverOptions) -> Vec<Slot> {
    if !options.search && options.windows.is_empty() {
        return Vec::new();
    }
    let comps = if options.components {
        components(problem)
    } else {
        vec![relax::whole(problem)]
    };

    // Windows of the heaviest components only: a lighter one's windows would have to
    // beat its own max load by the difference to matter.
    let heaviest = comps.first().map_or(Size::ZERO, |c| c.floor);
    let mut wins = Vec::new();
    for &w in &options.windows {
        for c in comps.iter().filter(|c| c.floor == heaviest) {
            wins.extend(windows(c, w));
        }
    }
    let comps = comps.into_iter().filter(|_| options.search);
    comps
        .chain(wins)
        .map(|mut part| {
            if !options.granularity {
                part.granularity = Size(1);
            }
            Slot::new(part)
        })
        .collect()
}

/// The components' plans as one plan of `problem` (every component has one).
fn assemble(problem: &Problem, slots: &[Slot]) -> Vec<Offset> {
    let mut out = vec![Offset(0); problem.len()];
    for s in slots {
        if let (relax::PartKind::Component, Some(plan)) = (s.part.kind, &s.plan) {
            for (&i, &o) in s.part.members.iter().zip(plan) {
                out[i] = o;
            }
        }
    }
    out
}

#[cfg(all(test, feature = "csv"))]
mod bench;
#[cfg(test)]
mod tests;
