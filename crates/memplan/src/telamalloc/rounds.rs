//! The restart cycle of capacity mode: searches in rounds, within one step limit for all
//! of them, on one or more threads with the same answer.
//!
//! # Independent parts
//!
//! First (`independent_parts`), the buffers are split at the times no buffer crosses
//! (TelaMalloc §5.3 splits there before grouping phases; MiniMalloc §7). No buffer of
//! one part is live with a buffer of another, so the problem has a plan exactly when
//! every part has one, and a proof for a part is a proof for the whole:
//!
//! ```text
//!   [ a ][  b  ]         [ d ]   [  e  ]
//!      [   c   ]                 [ f ][ g ]
//!   ------------ part 1 --|- 2 -|--- part 3 --> time
//! ```
//!
//! The parts run one after the other, in time order, each with its own cycle, and share
//! the step limit. A buffer alone in its part goes at its fixed offset or at 0 (one
//! step); small parts run on one thread. A part's tighter rounds never go under the
//! whole problem's max load: a plan there is optimal already.
//!
//! # The schedule
//!
//! Attempt `k` runs slot `k mod count` of a fixed cycle of slots (a capacity, a rank
//! order and a kind of round) with a step budget that doubles after every full cycle:
//!
//! ```text
//!   cycle 0                           cycle 1
//!   load: as pa s3 s4 s0 │ cap: as pa s3 s4 s0 │ load: as pa s3 ... (budgets × 2)
//!   k =    0  1  2  3  4 │      5  6  7  8  9  │       10 11 12 ...
//! ```
//!
//! - `restarts`: each round takes one order as the canonical order's rank (contention
//!   then lifetime, contention then area, longest lifetime: MiniMalloc §7's three static
//!   orders, with our contention for its section total). Budgets start at `4n`, at least
//!   1,000 steps; systematic rounds get [`SYSTEMATIC_WEIGHT`] times that. So an unlucky
//!   early decision costs a bounded number of steps.
//! - `tighten`: the cycle goes through the max load before `capacity`. A plan under the
//!   max load is optimal and fits under `capacity` too, and there propagation is much
//!   stronger: every section must end up exactly full.
//! - `widen`: when every slot has run out of candidates, the cycle starts again with
//!   twice the candidates per heuristic (and twice the cap).
//! - When the configuration is complete ([`TelamallocOptions::is_complete`](super::TelamallocOptions::is_complete)), running
//!   out of candidates proves that no plan exists under that slot's capacity.
//!
//! # Threads, and why the answer does not depend on them
//!
//! The answer is defined by running the attempts one after the other: the first that
//! ends the search (a plan, or a proof) decides it. With more threads, attempts run
//! ahead speculatively, each with the parameters the committed state gives when it
//! starts, and their results are *committed in attempt order*. A result whose
//! parameters turn out to differ from what the sequential run would have used at that
//! point (a slot exhausted meanwhile, a widening, a step limit running out) is thrown
//! away and the attempt re-run. Attempts after one that found a plan are cut short; if
//! the plan stands, they never commit. Attempts run at most a cycle ahead of the next to
//! commit, and none is launched past the deadline while an earlier one runs. Only the
//! time limit and cancellation depend on timing, as everywhere.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use super::components::components;
use super::engine::{SearchEnd, SearchStats, EXHAUSTED};
use super::options::Config;
use super::search_ranked;
use crate::analysis::max_load;
use crate::budget::Budget;
use crate::outcome::{Halt, Verdict};
use crate::types::{Buffer, Offset, Problem, Size};

/// How many times the others' step budget a systematic round gets. They are complete
/// (running out proves infeasibility), their steps are the cheapest, and per round,
/// alone, at 105% of the best known height they were the only rounds to solve B, C, E,
/// F, G and K of the challenging suite within 400,000 steps (measured on 4dc3b4f; that
/// round-by-round table is in git, BENCHMARKS.md §4 gives the rounds together today).
const SYSTEMATIC_WEIGHT: u64 = 4;

/// How long the first thread runs attempts alone before the others join in.
const HEAD_START: Duration = Duration::from_millis(10);

/// The widest candidate lists `widen` goes to, per heuristic.
const MAX_WIDTH: usize = 64;

/// The kinds of round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Round {
    /// The options as given.
    AsGiven,
    /// The paper's §5.4 search: the options as given, without canonical sequences.
    Paper,
    /// Chronological backtracking with complete decision points.
    Systematic,
}

/// The options of a systematic round: chronological backtracking with complete decision
/// points (no phases, backjumps, prepends or subtree limits) in MiniMalloc's node order,
/// no heuristic picks, the admissible buffers by (position, rank). Measured on E and G
/// at 100%, rank 3: 55,229 and 1,867 steps, where the picks first took over 3,000,000
/// without a plan.
pub(super) fn systematic(options: &Config) -> Config {
    let mut o = options.clone();
    o.per_heuristic = 0;
    o.phases = false;
    o.backjump = false;
    o.prepend_candidates = false;
    o.subtree_limit = false;
    o.complete_candidates = true;
    o
}

/// One attempt's parameters: which slot, and what the committed state gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Attempt {
    slot: usize,
    step_limit: u64,
    per_heuristic: usize,
    max_candidates: usize,
}

/// What the attempts committed so far leave behind.
struct State {
    /// Steps left of the whole step limit.
    left: u64,
    /// Slots that ran out of candidates (or whose capacity was proven infeasible).
    exhausted: Vec<bool>,
    per_heuristic: usize,
    max_candidates: usize,
    /// The next attempt to commit.
    next: u64,
}

/// A finished (or skipped) attempt waiting for its turn to commit.
struct Done {
    /// `None`: skipped, its slot being exhausted when it was launched.
    attempt: Option<Attempt>,
    end: SearchEnd,
    steps: u64,
    /// Cut short because an earlier attempt found a plan or the search ended: its result
    /// stands for nothing.
    cut: bool,
}

/// The fixed part of the cycle.
struct Schedule<'a> {
    problem: &'a Problem,
    capacity: Size,
    options: &'a Config,
    slots: Vec<(Size, usize, Round)>,
    /// Two modes: §5.4 rounds and systematic ones share the budget.
    mixed: bool,
    chronological: Config,
    complete: bool,
    base: u64,
}

impl Schedule<'_> {
    /// Attempt `k` as the committed `state` would run it; `None` when its slot is
    /// exhausted (the sequential run skips it).
    fn attempt(&self, k: u64, state: &State) -> Option<Attempt> {
        let count = self.slots.len() as u64;
        let slot = (k % count) as usize;
        if state.exhausted[slot] {
            return None;
        }
        let budget = if self.options.restarts {
            let weight = if self.slots[slot].2 == Round::Systematic {
                SYSTEMATIC_WEIGHT
            } else {
                1
            };
            self.base.saturating_mul(weight << (k / count).min(40))
        } else {
            u64::MAX
        };
        Some(Attempt {
            slot,
            step_limit: state.left.min(budget),
            per_heuristic: state.per_heuristic,
            max_candidates: state.max_candidates,
        })
    }

    /// Runs one attempt.
    fn run(&self, a: &Attempt, stop: &dyn Fn() -> bool) -> (SearchEnd, SearchStats) {
        let (cap, rank_by, kind) = self.slots[a.slot];
        let mut round = self.options.clone();
        round.step_limit = a.step_limit;
        round.per_heuristic = a.per_heuristic;
        round.max_candidates = a.max_candidates;
        let options = match kind {
            // The §5.4 round is the paper's search: lowest valid positions in any order.
            Round::Paper => {
                round.canonical = false;
                round
            }
            // Beside systematic rounds, the §5.4 round keeps the whole problem: a
            // component's failure blames nothing, which blunts backjumping (measured: I
            // at 105% went from solved in 0.15 s to unsolved).
            Round::AsGiven if self.mixed => {
                round.dynamic_decomposition = false;
                round
            }
            Round::AsGiven => round,
            Round::Systematic => Config {
                step_limit: a.step_limit,
                ..self.chronological.clone()
            },
        };
        search_ranked(self.problem, cap, rank_by, &options, stop)
    }

    /// Commits attempt `a`'s result: `Some` when it ends the search.
    fn commit(
        &self,
        state: &mut State,
        a: &Attempt,
        end: SearchEnd,
        steps: u64,
        stop: &dyn Fn() -> bool,
    ) -> Option<SearchEnd> {
        let (cap, _, kind) = self.slots[a.slot];
        let as_asked = kind != Round::Systematic;
        state.left = state.left.saturating_sub(steps);
        let more = state.left > 0 && !stop();
        let proves = self.complete || (!as_asked && self.chronological.is_complete(self.problem));
        match end {
            Verdict::Stopped(Halt::Exhausted) | Verdict::Infeasible
                if cap == self.capacity && proves =>
            {
                Some(Verdict::Infeasible)
            }
            Verdict::Infeasible if cap == self.capacity => Some(Verdict::Infeasible),
            Verdict::Stopped(Halt::Exhausted) | Verdict::Infeasible if more => {
                // A proof for this capacity: drop every slot under it.
                if proves || matches!(end, Verdict::Infeasible) {
                    for (e, &(c, _, _)) in state.exhausted.iter_mut().zip(&self.slots) {
                        if c == cap {
                            *e = true;
                        }
                    }
                }
                state.exhausted[a.slot] = true;
                if state.exhausted.iter().all(|&e| e) {
                    let wider = state.per_heuristic.max(1) * 2;
                    if !self.options.widen || wider > MAX_WIDTH {
                        return Some(EXHAUSTED);
                    }
                    state.per_heuristic = wider;
                    state.max_candidates = state.max_candidates.max(1) * 2;
                    state.exhausted.fill(false);
                }
                None
            }
            Verdict::Infeasible => Some(EXHAUSTED),
            Verdict::Stopped(h) if h != Halt::Exhausted && more && self.options.restarts => None,
            end => Some(end),
        }
    }
}

/// Parts of at most this many buffers run their cycle on one thread: their first attempt
/// almost always ends the search, and then a helper thread would cost more than it saves.
const ONE_THREAD_PART: usize = 64;

/// Searches under `capacity` (the module doc), on up to `threads` threads. With
/// `independent_parts`, the independent parts of the problem one after the other, in
/// time order, within the one step limit.
pub(super) fn search_rounds(
    problem: &Problem,
    capacity: Size,
    options: &Config,
    budget: &Budget,
    threads: usize,
) -> SearchEnd {
    let stop = &|| budget.exhausted();
    let parts = if options.independent_parts {
        components(problem, problem.indices())
    } else {
        Vec::new()
    };
    if parts.len() <= 1 {
        return cycle(problem, capacity, Size::ZERO, options, stop, threads).0;
    }
    let whole_load = max_load(problem);
    let mut offsets = vec![Offset::ZERO; problem.len()];
    let mut left = options.step_limit;
    for part in parts {
        if left == 0 {
            return Verdict::Stopped(Halt::Limit);
        }
        if stop() {
            return Verdict::Stopped(Halt::Budget);
        }
        if let [i] = part[..] {
            // Alone in its time: at its fixed offset, or at 0 (one placement tried).
            let b = problem.buffer(i);
            let at = b.fixed_offset.unwrap_or(Offset::ZERO);
            if at.saturating_add(b.size) > capacity {
                return Verdict::Infeasible;
            }
            offsets[i] = at;
            left -= 1;
            continue;
        }
        let own: Vec<Buffer> = part.iter().map(|&i| problem.buffer(i).clone()).collect();
        let Ok(sub) = Problem::new(own) else {
            return EXHAUSTED; // unreachable: a subset of a valid problem
        };
        let sub_options = Config {
            step_limit: left,
            ..options.clone()
        };
        let threads = if part.len() <= ONE_THREAD_PART {
            1
        } else {
            threads
        };
        let (end, steps) = cycle(&sub, capacity, whole_load, &sub_options, stop, threads);
        left = left.saturating_sub(steps);
        match end {
            Verdict::Found(found) => {
                for (&i, o) in part.iter().zip(found) {
                    offsets[i] = o;
                }
            }
            // A part without a plan leaves the whole without one; a proof for the part
            // is a proof for the whole.
            end => return end,
        }
    }
    Verdict::Found(offsets)
}

/// The restart cycle under `capacity` (the module doc), on up to `threads` threads, with
/// tighter rounds at the max load or at `floor` when that is higher: how it ended and
/// the steps it took.
fn cycle(
    problem: &Problem,
    capacity: Size,
    floor: Size,
    options: &Config,
    stop: &(dyn Fn() -> bool + Sync),
    threads: usize,
) -> (SearchEnd, u64) {
    // The rotation: the two contention orders, then the longest lifetime (§5.1).
    let rotation: &[usize] = if options.heuristics && options.restarts {
        &[3, 4, 0]
    } else {
        &[0]
    };
    let mut caps = vec![capacity];
    // A part never needs to go under the whole problem's max load (`floor`): that is
    // already optimal for the whole, and lower is only harder.
    let load = max_load(problem).max(floor);
    if options.restarts && options.tighten && load < capacity {
        caps = vec![load, capacity];
    }
    // With restarts, every other round backtracks chronologically with complete
    // decision points (no phases, backjumps, prepends or subtree limits), so the §5.4
    // rounds and the systematic ones share the budget.
    let smart = options.phases || options.backjump || options.subtree_limit;
    let mixed = options.restarts && smart;
    // Per capacity: the options as given (canonical sequences with the §5.4 search,
    // ranked by longest lifetime) and the paper's own §5.4 round (lowest valid positions
    // in any order; the rank only matters for canonical sequences, so it is not rotated
    // there), then a systematic round per order.
    let mut slots: Vec<(Size, usize, Round)> = Vec::new();
    for &c in &caps {
        if mixed {
            if options.canonical {
                slots.push((c, 0, Round::AsGiven));
            }
            slots.push((c, rotation[0], Round::Paper));
        }
        for &r in rotation {
            let kind = if mixed {
                Round::Systematic
            } else {
                Round::AsGiven
            };
            slots.push((c, r, kind));
        }
    }
    let schedule = Schedule {
        problem,
        capacity,
        options,
        mixed,
        chronological: systematic(options),
        complete: options.is_complete(problem),
        base: (4 * problem.len() as u64).max(1_000),
        slots,
    };
    let state = State {
        left: options.step_limit,
        exhausted: vec![false; schedule.slots.len()],
        per_heuristic: options.per_heuristic,
        max_candidates: options.max_candidates,
        next: 0,
    };
    // Without restarts there is one endless round: nothing to run ahead.
    let threads = if options.restarts { threads.max(1) } else { 1 };
    let (end, left) = run_in_order(&schedule, state, stop, threads);
    (end, options.step_limit.saturating_sub(left))
}

/// The flag that ends every worker, and a way to wait that it cuts short: a search that
/// ends within the helpers' head start (most do) does not wait for them to wake up.
#[derive(Default)]
struct Finished {
    flag: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Finished {
    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
        // Taken after the store: a napper either sees the flag or is already waiting.
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.wake.notify_all();
    }

    /// Waits for at most `d`, or until [`Finished::set`].
    fn nap(&self, d: Duration) {
        let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        if !self.is_set() {
            drop(self.wake.wait_timeout(guard, d));
        }
    }
}

/// The committed state of [`run_in_order`], shared by its workers under a lock.
struct Shared {
    state: State,
    /// Finished attempts waiting for the earlier ones to commit.
    waiting: BTreeMap<u64, Done>,
    /// How the search ended, once it has.
    outcome: Option<SearchEnd>,
}

/// Runs attempt `k` as launched (`None`: its slot was exhausted then). It is cut short
/// when `cut()` says an earlier attempt found a plan; a plan it finds lowers `found_at`.
fn run_attempt(
    schedule: &Schedule<'_>,
    k: u64,
    attempt: Option<Attempt>,
    stop: &(dyn Fn() -> bool + Sync),
    cut: &dyn Fn() -> bool,
    found_at: &AtomicU64,
) -> Done {
    match attempt {
        None => Done {
            attempt: None,
            end: Verdict::Stopped(Halt::Budget),
            steps: 0,
            cut: false,
        },
        // A round's setup (candidates, sections) is O(n log n) and more: none
        // starts past the deadline.
        Some(a) if stop() => Done {
            attempt: Some(a),
            end: Verdict::Stopped(Halt::Budget),
            steps: 0,
            cut: false,
        },
        Some(a) => {
            let (end, stats) = schedule.run(&a, &|| stop() || cut());
            if matches!(end, Verdict::Found(_)) {
                found_at.fetch_min(k, Ordering::Relaxed);
            }
            let stopped = matches!(end, Verdict::Stopped(h) if h != Halt::Exhausted);
            let cut = stopped && cut();
            Done {
                attempt: Some(a),
                end,
                steps: stats.steps,
                cut,
            }
        }
    }
}

/// Commits the waiting attempts in order, from the next one, as the sequential run would
/// (re-running one launched with other parameters or cut short). True when the search
/// has ended (its outcome is then set).
fn commit_waiting(
    schedule: &Schedule<'_>,
    s: &mut Shared,
    committed: &AtomicU64,
    found_at: &AtomicU64,
    stop: &(dyn Fn() -> bool + Sync),
) -> bool {
    while let Some(done) = s.waiting.remove(&s.state.next) {
        let k = s.state.next;
        s.state.next += 1;
        committed.store(s.state.next, Ordering::Relaxed);
        let Some(expected) = schedule.attempt(k, &s.state) else {
            continue; // skipped by the sequential run too
        };
        let (end, steps) = if done.attempt.as_ref() == Some(&expected) && !done.cut {
            (done.end, done.steps)
        } else if stop() {
            (Verdict::Stopped(Halt::Budget), 0)
        } else {
            // Launched with other parameters, or cut short: run it as the sequential
            // run would (rare: a slot exhausted, a widening, the step limit running
            // out).
            let (end, stats) = schedule.run(&expected, stop);
            (end, stats.steps)
        };
        if found_at.load(Ordering::Relaxed) == k && !matches!(end, Verdict::Found(_)) {
            // The plan that cut later attempts short does not stand.
            found_at.store(u64::MAX, Ordering::Relaxed);
        }
        if let Some(end) = schedule.commit(&mut s.state, &expected, end, steps, stop) {
            s.outcome = Some(end);
            return true;
        }
    }
    false
}

/// Runs the attempts on `threads` threads, committing them in order (the module doc):
/// how the search ended and the steps left of the limit.
fn run_in_order(
    schedule: &Schedule<'_>,
    state: State,
    stop: &(dyn Fn() -> bool + Sync),
    threads: usize,
) -> (SearchEnd, u64) {
    let shared = Mutex::new(Shared {
        state,
        waiting: BTreeMap::new(),
        outcome: None,
    });
    let launched = AtomicU64::new(0);
    // A copy of `state.next`, read without the lock.
    let committed = AtomicU64::new(0);
    // How far attempts may run ahead of the next to commit: a cycle, or two per thread.
    let ahead = (2 * threads).max(schedule.slots.len()) as u64;
    let workers = AtomicU64::new(0);
    let started = Instant::now();
    // The earliest attempt known to have found a plan: later ones are cut short.
    let found_at = AtomicU64::new(u64::MAX);
    let finished = Finished::default();
    let attempts = || loop {
        if finished.is_set() {
            break;
        }
        // Run at most `ahead` attempts ahead of the next to commit, and none past the
        // deadline once one is running (it will end the search as `Stopped`).
        let next = committed.load(Ordering::Relaxed);
        let launching = launched.load(Ordering::Relaxed);
        if launching >= next + ahead || (launching > next && stop()) {
            finished.nap(Duration::from_millis(1));
            continue;
        }
        let k = launched.fetch_add(1, Ordering::Relaxed);
        let attempt = {
            let s = shared.lock().expect("no panic while locked");
            schedule.attempt(k, &s.state)
        };
        let cut = || found_at.load(Ordering::Relaxed) < k || finished.is_set();
        let done = run_attempt(schedule, k, attempt, stop, &cut, &found_at);
        let mut s = shared.lock().expect("no panic while locked");
        if s.outcome.is_some() {
            break;
        }
        s.waiting.insert(k, done);
        if commit_waiting(schedule, &mut s, &committed, &found_at, stop) {
            finished.set();
        }
    };
    let worker = || {
        // A panicking worker stops the others (its attempt would never commit); the
        // scope then re-raises the panic.
        struct OnPanic<'a>(&'a Finished);
        impl Drop for OnPanic<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.set();
                }
            }
        }
        let _guard = OnPanic(&finished);
        // Most searches end in their first attempt within milliseconds: the helpers
        // start after a head start, so that those do not pay for speculation.
        if workers.fetch_add(1, Ordering::Relaxed) > 0 {
            while let Some(left) = HEAD_START.checked_sub(started.elapsed()) {
                if finished.is_set() {
                    break;
                }
                finished.nap(left);
            }
        }
        attempts()
    };
    crate::workers::run_workers(threads, worker);
    let shared = shared.into_inner().expect("workers joined");
    let end = shared
        .outcome
        .expect("the workers stop only once the search has ended");
    (end, shared.state.left)
}
