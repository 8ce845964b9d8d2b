//! The boxing planner: Buchsbaum et al.'s boxing, unboxing and a first-fit squeeze,
//! iterated with bootstrapping, after idealloc (Lamprakos et al., "Futureproof Static
//! Memory Planning").
//!
//! # The model
//!
//! Buffers are jobs: rectangles of a size and a lifetime `[start, end)`. Boxing groups
//! jobs of similar size into *boxes* of a common size, and boxes into bigger boxes, until
//! one size class of boxes is left (Theorem 16, [`boxer`]). Boxes of one size are packed
//! optimally by interval graph colouring, and offsets flow down through the boxes to the
//! buffers ([`unbox`]). Those offsets are sparse, so they only give an *order*: the
//! *compaction*, a first-fit pass in increasing offset, makes the final plan (idealloc's
//! "squeeze", §4: [`squeeze`]; best-fit is an option, [`CompactionFit`]).
//!
//! ```text
//!   buffers ──► box (Thm 16 / Cor 15 / Thm 2 / Lemma 1) ──► unbox (Fig. 6)
//!                                                            │ sparse offsets
//!   best plan ◄── keep the lowest ◄── compaction ◄───────────┘ (stopped once
//!                                                              above the best)
//! ```
//!
//! The plan to beat ([`PlanToBeat`], or the portfolio's incumbent) and the winning
//! iteration's plan are polished by peak repair ([`crate::greedy::repair`], our addition:
//! a local search around the plan's peak; [`BoxingOptions::polish_moves`]).
//!
//! # Invariants and choices
//!
//! - Plans are valid by construction of the compaction alone: boxing only orders buffers.
//! - A gapped buffer is boxed as if live for its whole lifetime (safe: it only makes
//!   boxes more conservative); the compaction honours its gaps. Fixed buffers are not
//!   boxed; the compaction places them first, at their offsets, and fits the others
//!   around them. Alignment is honoured by the compaction.
//! - Inputs whose size ratio is at most 2216.53 get a dummy job spanning all time
//!   (§5.6, ineq. 12); ε is chosen inside the range of ineq. 11 ([`epsilon`]).
//! - Randomness (Theorem 2's critical times) comes from [`Rng`] seeded per iteration and
//!   per size class, so a seed gives one plan whatever the thread count. idealloc's
//!   uncontrolled randomness (§5.10: unstable sorts, heaps, thread timing) is not copied:
//!   every sort and heap here is deterministic and results are merged in a fixed order.
//! - Parallelism (§5.9), on scoped threads only: iterations run side by side; inside an
//!   iteration, Corollary 15's size classes are boxed in parallel (when there are more
//!   threads than running iterations) and the compaction splits into runs of whole time
//!   components on large inputs. Theorem 2's sub-problems are boxed one after the other
//!   (a work stack), which keeps their output order fixed.
//! - Iterations run on up to `threads` scoped threads. An iteration is stopped once it
//!   would end above the best height among the plan to beat and *lower-numbered*
//!   iterations; the winner is the lowest height, ties to the lower iteration, among the
//!   iterations up to the first that reached the target. That set does not depend on
//!   timing, so neither does the plan. Only a time limit or a cancellation does.
//! - The elementary cases (no two buffers overlap; all sizes equal) are solved exactly
//!   and at once (§2.1).

mod boxer;
mod epsilon;
mod jobs;
mod squeeze;
mod unbox;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::analysis::{component_ids, max_load};
use crate::budget::{work, Budget};
use crate::greedy::{self, repair, Fit, Order};
use crate::outcome::{Halt, Verdict};
use crate::rng::Rng;
use crate::types::{BufferIdx, Offset, Problem, Size};
use jobs::{colour_intervals, Arena, Job};

/// Options of the boxing planner ([`crate::Planner::Boxing`]). Its time limit is the
/// request's budget ([`crate::Request`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoxingOptions {
    /// How many box-unbox-compact iterations to run at most. Default 100.
    pub iterations: u32,
    /// The seed of the random critical times. The same seed gives the same plan.
    pub seed: u64,
    /// Stop as soon as a plan's fragmentation (height − max load) is at most this many
    /// bytes. Default 0: stop only at a provably optimal plan.
    pub target_fragmentation: u64,
    /// The plan the iterations must beat, returned when none does (idealloc's
    /// "bootstrapping", Lamprakos et al. §5.5). Default [`PlanToBeat::Greedy`]. In the
    /// portfolio the portfolio's best greedy plan is used whatever this says.
    pub plan_to_beat: PlanToBeat,
    /// Stop an iteration as soon as it would end above the best height so far, since it
    /// can no longer win (idealloc abandons such iterations, Lamprakos et al. §5.5).
    /// Does not change the plan, only the time.
    pub stop_losing_iterations: bool,
    /// Calibrate ε to the value that yields the smallest final size ratio (§5.6); off:
    /// the low end of the legal range.
    pub calibrate_epsilon: bool,
    /// Theorem 2 sub-problems inherit the ends of the free gaps in the rows boxed above
    /// them as critical times, as idealloc's code does (the free spaces of the proof,
    /// §3.3); off: each starts from one fresh random critical time.
    pub inherit_critical_times: bool,
    /// How the compaction picks an address (idealloc's "squeeze", Lamprakos et al. §4).
    /// Default: first-fit, as the paper says.
    pub compaction: CompactionFit,
    /// Join the default portfolio ([`crate::Planner::Auto`]) when greedy leaves
    /// fragmentation.
    pub in_portfolio: bool,
    /// Peak-repair moves (our addition, not idealloc's): each lifts the buffers around
    /// the plan's peak and puts them back in a random order, and is kept only if the
    /// height does not rise. It polishes the plan to beat (its own or the incumbent) before
    /// the iterations, and the winning iteration's plan after them. Each time, two seeded
    /// chains of this many moves run (side by side when there are two threads) and the
    /// lower plan wins. Default 1,000; 0 turns it off.
    pub polish_moves: u32,
}

impl Default for BoxingOptions {
    fn default() -> BoxingOptions {
        BoxingOptions {
            iterations: 100,
            seed: 0,
            target_fragmentation: 0,
            plan_to_beat: PlanToBeat::Greedy,
            stop_losing_iterations: true,
            calibrate_epsilon: true,
            compaction: CompactionFit::FirstFit,
            inherit_critical_times: true,
            in_portfolio: true,
            polish_moves: 1000,
        }
    }
}

/// Where the boxing planner's plan to beat comes from (idealloc's "bootstrapping",
/// Lamprakos et al. §5.5).
///
/// The plan to beat is polished by peak repair before the iterations start, and its
/// height bounds them: an iteration is stopped as soon as it would end above it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PlanToBeat {
    /// No plan to beat: the best iteration wins (the naive plan if none finishes).
    None,
    /// Size-then-lifetime first-fit, as idealloc does (§5.5).
    SizeThenLifetime,
    /// The lowest of the twelve greedy planners (every order × fit of the default
    /// portfolio; ties to the earlier one in portfolio order). The default: on iopddl-S
    /// start-best-fit leaves 10.6 MB of fragmentation where size-then-lifetime first-fit
    /// leaves 43.9 MB, and peak repair lowers the former much further (BENCHMARKS.md).
    #[default]
    Greedy,
}

impl PlanToBeat {
    /// `none`, `size-then-lifetime` or `greedy`.
    pub fn name(self) -> &'static str {
        match self {
            PlanToBeat::None => "none",
            PlanToBeat::SizeThenLifetime => "size-then-lifetime",
            PlanToBeat::Greedy => "greedy",
        }
    }
}

impl std::str::FromStr for PlanToBeat {
    type Err = String;
    fn from_str(s: &str) -> Result<PlanToBeat, String> {
        [
            PlanToBeat::None,
            PlanToBeat::SizeThenLifetime,
            PlanToBeat::Greedy,
        ]
        .into_iter()
        .find(|b| b.name() == s)
        .ok_or_else(|| format!("unknown plan to beat `{s}` (none, size-then-lifetime, greedy)"))
    }
}

/// How the compaction (the first-fit pass that turns an iteration's order into a plan;
/// idealloc's "squeeze", Lamprakos et al. §4) picks each buffer's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompactionFit {
    /// The lowest address that fits, as idealloc's paper says (§4).
    FirstFit,
    /// The smallest gap that fits, as idealloc's code does (worse on iopddl-S and
    /// somas-resnet50 in our runs: see BENCHMARKS.md, boxing section).
    BestFit,
    /// First-fit in even iterations, best-fit in odd ones.
    Alternate,
}

impl CompactionFit {
    /// `first-fit`, `best-fit` or `alternate`.
    pub fn name(self) -> &'static str {
        match self {
            CompactionFit::FirstFit => "first-fit",
            CompactionFit::BestFit => "best-fit",
            CompactionFit::Alternate => "alternate",
        }
    }

    fn for_iteration(self, k: usize) -> Fit {
        match self {
            CompactionFit::FirstFit => Fit::FirstFit,
            CompactionFit::BestFit => Fit::BestFit,
            CompactionFit::Alternate if k & 1 == 0 => Fit::FirstFit,
            CompactionFit::Alternate => Fit::BestFit,
        }
    }
}

/// What a boxing run did, beside its plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RunStats {
    /// Iterations that ran to the end of their compaction.
    pub completed: u32,
    /// Iterations stopped above the best height.
    pub stopped: u32,
    /// The iteration whose plan won, if one beat the incumbent.
    pub winner: Option<u32>,
    /// The height before and after the peak repair (equal when it found nothing).
    pub polished: Option<(Size, Size)>,
}

/// The largest naive height (sum of the sizes, see [`Problem::naive_height`]) boxing
/// iterates on: 2^50 bytes (1 PiB). Found by fuzzing: the dummy job of a problem with
/// sizes near 2^53 overflowed a `u64`.
const MAX_HEIGHT: Size = Size(1 << 50);

/// The height at which boxing stops: the max load plus the fragmentation allowed.
fn target(problem: &Problem, options: &BoxingOptions) -> Size {
    max_load(problem).saturating_add(Size(options.target_fragmentation))
}

/// Runs the boxing planner. `incumbent` is a plan to beat (the portfolio's best greedy
/// plan); without one, the [`PlanToBeat`] of the options makes it.
/// Always returns a plan: the naive one when the budget ran out before any other.
pub(crate) fn run(
    problem: &Problem,
    options: &BoxingOptions,
    threads: usize,
    budget: &Budget,
    incumbent: Option<Vec<Offset>>,
) -> (Vec<Offset>, RunStats) {
    if let Some(offsets) = elementary(problem) {
        return (offsets, RunStats::default());
    }
    let threads = threads.max(1);
    let incumbent = incumbent.or_else(|| match options.plan_to_beat {
        PlanToBeat::None => None,
        PlanToBeat::SizeThenLifetime => greedy::run(
            problem,
            Order::Size,
            Fit::FirstFit,
            threads,
            &budget.first_plan(),
        ),
        PlanToBeat::Greedy => greedy::best_of(
            problem,
            &greedy::portfolio(),
            threads,
            target(problem, options),
            budget,
        ),
    });
    // Polish the plan to beat first: a lower bound makes iterations give up sooner.
    let mut polished = None;
    let incumbent = incumbent.map(|o| {
        let (o, before, after) = polish(problem, options, threads, budget, o, 0);
        polished = Some((before, after));
        o
    });
    let (mut offsets, mut stats) = run_iterations(problem, options, threads, budget, incumbent);
    stats.polished = polished;
    if stats.winner.is_some() {
        let (o, before, after) = polish(problem, options, threads, budget, offsets, 1);
        offsets = o;
        stats.polished = Some((before, after));
    }
    (offsets, stats)
}

/// Under a work limit, the share of the work left that one polish may take: most of
/// it, since on large traces (iopddl-S) the peak repair lowers the plan where more
/// iterations do not.
const POLISH_WORK_SHARE: f64 = 0.9;

/// The peak repair of [`BoxingOptions::polish_moves`] on `offsets`: two seeded chains
/// (always two, so that the plan does not depend on the thread count; side by side when
/// there are two threads), the lower plan winning. Returns the plan and the heights
/// before and after.
fn polish(
    problem: &Problem,
    options: &BoxingOptions,
    threads: usize,
    budget: &Budget,
    offsets: Vec<Offset>,
    round: u64,
) -> (Vec<Offset>, Size, Size) {
    let before = problem.height_of(&offsets);
    const CHAINS: usize = 2;
    // Under a work limit, the moves a share of the work left pays for (a move re-places
    // the buffers around the peak, so it costs more on larger plans).
    let per_move = work::units(problem.len() as u64, work::REPAIR_BUFFERS_PER_UNIT);
    let moves = budget
        .work_left()
        .map_or(options.polish_moves as u64, |left| {
            let share = (left as f64 * POLISH_WORK_SHARE) as u64;
            (options.polish_moves as u64).min(share / (CHAINS as u64 * per_move))
        });
    if moves == 0 || budget.exhausted() {
        return (offsets, before, before);
    }
    let target = target(problem, options);
    let chain = |c: usize| {
        let mut o = offsets.clone();
        let seed = iteration_seed(options.seed ^ 0x706f_6c69_7368 ^ round, c);
        let r = repair::lower_peak(problem, &mut o, moves, seed, target, budget);
        (Size(r.height_after), o)
    };
    let results: Vec<(Size, Vec<Offset>)> = if threads <= 1 {
        (0..CHAINS).map(chain).collect()
    } else {
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..CHAINS).map(|c| s.spawn(move || chain(c))).collect();
            hs.into_iter()
                .map(|h| h.join().expect("the repair does not panic"))
                .collect()
        })
    };
    // Two chains of at most `moves` moves each, charged in full once both ended.
    budget.charge((CHAINS as u64 * moves).saturating_mul(per_move));
    // The lowest height; ties to the lower chain.
    let (after, best) = results
        .into_iter()
        .min_by_key(|&(height, _)| height)
        .expect("one chain at least");
    (best, before, after)
}

/// The box-unbox-compact iterations against `incumbent` (the plan to beat or the
/// portfolio's plan, already polished; `None` when there is none). Not for the
/// elementary cases, which [`run`] solves first.
fn run_iterations(
    problem: &Problem,
    options: &BoxingOptions,
    threads: usize,
    budget: &Budget,
    incumbent: Option<Vec<Offset>>,
) -> (Vec<Offset>, RunStats) {
    let mut stats = RunStats::default();
    let free: Vec<BufferIdx> = problem
        .indexed()
        .filter(|(_, b)| b.fixed_offset.is_none())
        .map(|(i, _)| i)
        .collect();
    let incumbent_height = incumbent
        .as_ref()
        .map_or(Size(u64::MAX), |o| problem.height_of(o));
    let target = target(problem, options);
    // Boxing's arithmetic needs headroom (the dummy job is about 2217 times the smallest
    // size and boxes stack sizes): above MAX_HEIGHT it keeps the incumbent.
    let too_large = problem.naive_height() > MAX_HEIGHT;
    if free.is_empty()
        || incumbent_height <= target
        || options.iterations == 0
        || too_large
        || budget.exhausted()
    {
        let offsets = incumbent.unwrap_or_else(|| greedy::naive(problem));
        return (offsets, stats);
    }

    let (base, eps) = prelude(problem, &free, options);
    let component = component_ids(problem);

    // Each iteration is charged the same (box, unbox and squeeze sweep every free
    // buffer), so the work left says how many may run: the same count on every run.
    let per_iteration = work::units(free.len() as u64, work::BOXING_BUFFERS_PER_UNIT);
    let affordable = budget
        .work_left()
        .map_or(u64::MAX, |left| left / per_iteration);
    let iterations = (options.iterations as u64).min(affordable) as usize;
    if iterations == 0 {
        let offsets = incumbent.unwrap_or_else(|| greedy::naive(problem));
        return (offsets, stats);
    }
    let workers = threads.min(iterations).max(1);
    let inner_threads = (threads / workers).max(1);
    // The heights of the iterations that finished (their bytes; `u64::MAX`: not yet).
    let heights: Vec<AtomicU64> = (0..iterations).map(|_| AtomicU64::new(u64::MAX)).collect();
    let stop_at = AtomicUsize::new(usize::MAX);
    let next = AtomicUsize::new(0);
    let completed = AtomicUsize::new(0);
    let stopped = AtomicUsize::new(0);
    // Each iteration runs on a budget of its own, which an earlier iteration that reaches
    // the target cancels.
    let own: Vec<Budget> = (0..iterations).map(|_| budget.child()).collect();
    // Plans not beaten by a lower-numbered, lower-or-equal one: (iteration, height, offsets).
    let front: Mutex<Vec<(usize, Size, Vec<Offset>)>> = Mutex::new(Vec::new());

    let worker = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= iterations || k > stop_at.load(Ordering::Relaxed) {
            break;
        }
        if budget.exhausted() {
            break;
        }
        let bound = || {
            heights[..k]
                .iter()
                .map(|h| Size(h.load(Ordering::Relaxed)))
                .min()
                .unwrap_or(Size(u64::MAX))
                .min(incumbent_height)
        };
        let iteration = Iteration {
            seed: iteration_seed(options.seed, k),
            fit: options.compaction.for_iteration(k),
            budget: &own[k],
            bound: options
                .stop_losing_iterations
                .then_some(&bound as &(dyn Fn() -> Size + Sync)),
        };
        match iterate(
            problem,
            &base,
            &free,
            &component,
            eps,
            options,
            inner_threads,
            &iteration,
        ) {
            Verdict::Found((offsets, h)) => {
                completed.fetch_add(1, Ordering::Relaxed);
                heights[k].store(h.get(), Ordering::Relaxed);
                if h <= target {
                    stop_at.fetch_min(k, Ordering::Relaxed);
                    own[k + 1..].iter().for_each(Budget::cancel);
                }
                let mut f = front.lock().expect("no panic while holding the lock");
                if !f.iter().any(|&(m, hm, _)| m <= k && hm <= h) {
                    f.retain(|&(m, hm, _)| !(k <= m && h <= hm));
                    f.push((k, h, offsets));
                }
            }
            Verdict::Stopped(Halt::OverBound) => {
                stopped.fetch_add(1, Ordering::Relaxed);
            }
            Verdict::Stopped(_) | Verdict::Infeasible => {}
        }
    };
    crate::workers::run_workers(workers, worker);

    stats.completed = completed.load(Ordering::Relaxed) as u32;
    stats.stopped = stopped.load(Ordering::Relaxed) as u32;
    let last = stop_at.load(Ordering::Relaxed);
    // The iterations that count (up to the first that reached the target): how many
    // the result depends on, whatever ran beside them.
    let counted = iterations.min(last.saturating_add(1)) as u64;
    budget.charge(counted.saturating_mul(per_iteration));
    let winner = front
        .into_inner()
        .expect("workers joined")
        .into_iter()
        .filter(|&(k, h, _)| k <= last && h < incumbent_height)
        .min_by_key(|&(k, h, _)| (h, k));
    match winner {
        Some((k, _, offsets)) => {
            stats.winner = Some(k as u32);
            (offsets, stats)
        }
        None => (incumbent.unwrap_or_else(|| greedy::naive(problem)), stats),
    }
}

/// The prelude of the iterations (idealloc §5.6): a leaf job per free buffer, the dummy
/// job that spans them all (when their sizes call for one), and ε.
fn prelude(problem: &Problem, free: &[BufferIdx], options: &BoxingOptions) -> (Arena, f64) {
    let mut base = Arena::default();
    base.jobs
        .extend(free.iter().map(|&i| Job::leaf(i, problem.buffer(i))));
    let h_min = base
        .jobs
        .iter()
        .map(|j| j.size)
        .min()
        .expect("free buffers");
    let h_max = base
        .jobs
        .iter()
        .map(|j| j.size)
        .max()
        .expect("free buffers");
    if let Some(size) = epsilon::dummy_size(h_min, h_max) {
        let start = base
            .jobs
            .iter()
            .map(|j| j.start)
            .min()
            .expect("free buffers");
        let end = base.jobs.iter().map(|j| j.end).max().expect("free buffers");
        base.jobs.push(Job::dummy(size, start, end));
    }
    let mut sizes: Vec<Size> = base.jobs.iter().map(|j| j.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let eps = epsilon::choose_epsilon(&sizes, options.calibrate_epsilon);
    (base, eps)
}

/// What one iteration runs with, beside the prelude every iteration shares.
struct Iteration<'a> {
    seed: u64,
    /// How the compaction picks addresses.
    fit: Fit,
    budget: &'a Budget,
    /// The height to beat, re-read as the compaction goes (stopping at once above it);
    /// `None` when stopping is off.
    bound: Option<&'a (dyn Fn() -> Size + Sync)>,
}

/// One box-unbox-compact iteration (§3, §4).
#[allow(clippy::too_many_arguments)]
fn iterate(
    problem: &Problem,
    base: &Arena,
    free: &[BufferIdx],
    component: &[u32],
    eps: f64,
    options: &BoxingOptions,
    threads: usize,
    iteration: &Iteration<'_>,
) -> Verdict<(Vec<Offset>, Size)> {
    let mut rng = Rng::new(iteration.seed);
    let mut arena = base.clone();
    let roots: Vec<u32> = (0..arena.jobs.len() as u32).collect();
    let gap_points = options.inherit_critical_times;
    let budget = iteration.budget;
    let top = boxer::box_all(
        &mut arena, roots, eps, &mut rng, threads, gap_points, budget,
    );
    let Some(top) = top.filter(|_| !budget.exhausted()) else {
        return Verdict::Stopped(Halt::Budget);
    };
    let mut sparse = vec![Offset::ZERO; problem.len()];
    unbox::unbox_all(&arena, &top, &mut sparse);
    drop(arena);
    // Grouped by time component first: the same plan (components never conflict), but
    // the index walks stay local in memory and components can go to different threads.
    let mut sequence = free.to_vec();
    crate::sort::by_key(&mut sequence, |&i| {
        let size = problem.buffer(i).size;
        (component[i], sparse[i], std::cmp::Reverse(size), i)
    });
    let squeeze = squeeze::Squeeze {
        fit: iteration.fit,
        budget,
        bound: iteration.bound,
    };
    squeeze::squeeze_components(problem, &sequence, component, threads, &squeeze)
}

/// A well-mixed seed for iteration `k`.
fn iteration_seed(seed: u64, k: usize) -> u64 {
    Rng::new(seed.wrapping_add((k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))).next_u64()
}

/// The elementary cases of §2.1, solved exactly: no two buffers overlap (everything at
/// offset 0), or every buffer has the same size (interval graph colouring: the height is
/// the most buffers live at once times the size, which is the max load). Only taken when
/// no buffer is fixed or gapped and, for equal sizes, every alignment divides the size.
fn elementary(problem: &Problem) -> Option<Vec<Offset>> {
    let bufs = problem.buffers();
    if bufs.is_empty() {
        return Some(Vec::new());
    }
    if bufs
        .iter()
        .any(|b| b.fixed_offset.is_some() || !b.gaps.is_empty())
    {
        return None;
    }
    let arena = Arena {
        jobs: problem.indexed().map(|(i, b)| Job::leaf(i, b)).collect(),
        children: Vec::new(),
    };
    let all: Vec<u32> = (0..bufs.len() as u32).collect();
    if !jobs::any_overlap(&arena, &all) {
        return Some(vec![Offset::ZERO; bufs.len()]);
    }
    let size = bufs[0].size;
    if bufs
        .iter()
        .all(|b| b.size == size && size.get().checked_rem(b.alignment.get()) == Some(0))
    {
        let (rows, _) = colour_intervals(&arena, &all);
        return Some(
            rows.iter()
                .map(|&r| Offset::ZERO + size * u64::from(r))
                .collect(),
        );
    }
    None
}
