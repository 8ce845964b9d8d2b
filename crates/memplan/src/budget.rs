//! Budgets: when a planner must stop.
//!
//! The model: a [`Budget`] is a *work limit* (a number of [work units](#work), the
//! default), a *time limit* or deadline (an [`Instant`]), both, or neither, plus a
//! [`CancelToken`], a node limit (the most nodes one search may expand), and one
//! property, whether the *first plan* may finish past the deadline. It is the one limit
//! type from the doors to the families: a caller builds one ([`Budget::new`],
//! [`Budget::with_work_limit`], [`Budget::with_time_limit`], [`Budget::with_cancel`]) and
//! puts it in a [`crate::Request`]; the call *starts* it (a time limit becomes a
//! deadline, a work limit a meter) and hands it, or budgets derived from it
//! (`child`, `share`, `until`, `strict`), to every stage. Every family (greedy,
//! exact, boxing, TelaMalloc, memories) takes a `&Budget`, polls `exhausted` now
//! and then and charges the work it did; none keeps its own notion of "stop", and none
//! turns a budget back into a duration. Whichever limit runs out first stops the call,
//! and the report says which ([`Stop`]).
//!
//! # Work
//!
//! Work is the deterministic measure of effort. A *work unit* is about one node of the
//! exact search on the challenging suite (a few to a few tens of microseconds of one
//! core); every family charges its own steps in those units (the private `work` module): the exact
//! search and the prover their nodes, TelaMalloc its placements tried, greedy and
//! boxing their placements and iterations, scaled to the same cost. The invariant that
//! makes a work limit reproducible: **work is charged only at points where the call is
//! sequential, and only amounts that depend on the input and the options alone** (a
//! parallel search charges, when it returns, what its single-threaded run would have
//! needed to reach the same answer). So the meter reads the same at every decision
//! point, whatever the thread count or the machine's load, and so does the plan: a
//! work limit without a time limit makes the result depend on the input and the options
//! alone. A time limit is the one documented exception.
//!
//! ```text
//!   call's meter  (limit W)  ── greedy pass ── bounds ── refinement ─────────────┐
//!                                 charged       charged   share of W left: child │
//!   a child meter (share f of what is left)   charges add up to every ancestor ──┘
//! ```
//!
//! Tokens form a tree. [`CancelToken::child`] makes a token that is cancelled when it or
//! any of its ancestors is, and cancelling a child leaves its parent alone:
//!
//! ```text
//!   the user's token ──┬── the call's budget ──┬── racer 1     cancel(user) stops all
//!                      │                       └── racer 2     cancel(racer 1) stops it alone
//! ```
//!
//! [`CancelToken::is_cancelled`] walks the chain of parents (a few relaxed atomic loads),
//! so no thread watches one token to forward it to another. Invariants: a cancelled
//! token stays cancelled; a budget is never exhausted before its deadline or its work
//! limit unless some token on its chain was cancelled.
//!
//! [`TimeLimit`] is the one parser of a time limit in seconds (`inf` for none), shared by
//! the command line, Python and C.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A handle that stops a running [`crate::plan`] from another thread. Cloning shares the
/// flag; [`CancelToken::child`] makes a token that also stops when this one does.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<TokenNode>);

#[derive(Debug, Default)]
struct TokenNode {
    cancelled: AtomicBool,
    parent: Option<CancelToken>,
}

impl CancelToken {
    /// A fresh, un-cancelled token.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// A new token that is cancelled when this one is (or when it is itself); cancelling
    /// it does not cancel this one.
    pub fn child(&self) -> CancelToken {
        CancelToken(Arc::new(TokenNode {
            cancelled: AtomicBool::new(false),
            parent: Some(self.clone()),
        }))
    }

    /// Asks every planner holding this token, or a child of it, to stop and return what
    /// it has.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::Relaxed);
    }

    /// True once [`CancelToken::cancel`] was called on this token or on an ancestor.
    pub fn is_cancelled(&self) -> bool {
        let mut node = &self.0;
        loop {
            if node.cancelled.load(Ordering::Relaxed) {
                return true;
            }
            match &node.parent {
                Some(p) => node = &p.0,
                None => return false,
            }
        }
    }
}

/// The time a stage's setup (a greedy order, the exact model, boxing's first pass) takes
/// per buffer, at most: 1 s per million buffers (RELIABILITY.md §5).
pub(crate) const SETUP_NANOS_PER_BUFFER: u64 = 1_000;

/// The charges of each family, in work units (see the module doc, [Work](self#work)).
/// Measured on the challenging suite (BENCHMARKS.md §13) so that a unit costs about
/// the same whichever family spends it.
pub(crate) mod work {
    /// Steps of the exact search (or of the prover's searches) per unit: a step is a
    /// node or a candidate scanned at one.
    pub(crate) const EXACT_STEPS_PER_UNIT: u64 = 4096;
    /// Buffers placed by a greedy planner per unit (on the dense iopddl-S, a pass of
    /// one greedy planner costs about a quarter of a node per buffer).
    pub(crate) const GREEDY_BUFFERS_PER_UNIT: u64 = 4;
    /// Buffers per unit of a stage's setup (the exact search's model; a greedy order).
    pub(crate) const SETUP_BUFFERS_PER_UNIT: u64 = 16;
    /// Buffers per unit of one evaluation of the memories' lower bound (a cover at every
    /// time, with its rounding and chains: measured on D, half a unit per buffer).
    #[cfg(feature = "memories")]
    pub(crate) const BOUND_BUFFERS_PER_UNIT: u64 = 2;
    /// Neighbours examined by the memories' insertion and swap moves per unit (one
    /// neighbour at one candidate address).
    #[cfg(feature = "memories")]
    pub(crate) const WINDOW_STEPS_PER_UNIT: u64 = 4096;
    /// Buffers swept by a cheap bound per unit.
    pub(crate) const SWEEP_BUFFERS_PER_UNIT: u64 = 64;
    /// Placements tried by TelaMalloc per unit.
    pub(crate) const TELAMALLOC_STEPS_PER_UNIT: u64 = 8;
    /// Buffers per unit of one boxing iteration (box, unbox, squeeze: several sorts and
    /// sweeps of every free buffer).
    pub(crate) const BOXING_BUFFERS_PER_UNIT: u64 = 4;
    /// Buffers of the plan per unit of one move of the peak repair (a move re-places the
    /// buffers around the peak: tens of nodes' worth on large plans).
    pub(crate) const REPAIR_BUFFERS_PER_UNIT: u64 = 128;

    /// `items` at `per_unit` items a unit, rounded up, and at least one unit: every
    /// step costs something, however small.
    pub(crate) fn units(items: u64, per_unit: u64) -> u64 {
        items.div_ceil(per_unit.max(1)).max(1)
    }
}

/// Which limit stopped a call ([`crate::Report::stopped_by`]): `None` there when the call
/// ended on its own (a proof, or every stage finished within its limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stop {
    /// The work limit ran out: the result is still reproducible.
    Work,
    /// The time limit (or deadline) passed: the result may differ from run to run.
    Clock,
    /// The cancel token was cancelled.
    Cancel,
}

impl Stop {
    /// `work`, `clock` or `cancel`: the name the command line and Python report.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Work => "work",
            Stop::Clock => "clock",
            Stop::Cancel => "cancel",
        }
    }
}

/// A work meter: the units charged to it (and to every meter it was shared from) and its
/// limit. Charges go up the chain, so the call's meter holds the call's work.
#[derive(Debug)]
struct Meter {
    spent: AtomicU64,
    limit: u64,
    parent: Option<Arc<Meter>>,
}

impl Meter {
    fn root(limit: Option<u64>) -> Arc<Meter> {
        Arc::new(Meter {
            spent: AtomicU64::new(0),
            limit: limit.unwrap_or(u64::MAX),
            parent: None,
        })
    }

    fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    fn left(&self) -> u64 {
        self.limit.saturating_sub(self.spent())
    }
}

/// When planning must stop: a work limit, a time limit (counted from the start of the
/// call) or a deadline, a cancel token, whether the first plan may finish past the
/// deadline (not past a cancellation), and a node limit: the most nodes one search may
/// expand. Cloning shares the token and the work meter.
///
/// The default ([`Budget::new`]) is [`Budget::DEFAULT_WORK_LIMIT`] and no time limit:
/// the same for every door (library, command line, Python, C, ExecuTorch, TFLM), and
/// the same plan on every run, at any thread count and load.
///
/// ```
/// use memplan::budget::CancelToken;
/// use memplan::Budget;
/// use std::time::Duration;
///
/// let stop = CancelToken::new();
/// let budget = Budget::new().with_time_limit(Duration::from_millis(50)).with_cancel(&stop);
/// assert_eq!(budget.time_limit(), Some(Duration::from_millis(50)));
/// assert_eq!(Budget::new().work_limit(), Some(Budget::DEFAULT_WORK_LIMIT));
/// assert_eq!(Budget::new().time_limit(), None);
/// assert_eq!(Budget::unlimited().work_limit(), None);
/// assert_eq!(Budget::unlimited().with_node_limit(2_000).node_limit(), Some(2_000));
/// ```
#[derive(Clone, Debug)]
pub struct Budget {
    /// A limit not started yet: becomes the deadline when a call starts the budget.
    limit: Option<Duration>,
    deadline: Option<Instant>,
    cancel: CancelToken,
    finish_first: bool,
    /// The most nodes one search may expand (see [`Budget::with_node_limit`]).
    nodes: Option<u64>,
    /// The work limit, before the call starts the meter.
    work: Option<u64>,
    /// Once started: the meter that work is charged to.
    meter: Option<Arc<Meter>>,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new()
    }
}

impl Budget {
    /// The default work limit, in work units (the module doc's [Work](self#work)): for
    /// every door. Calibrated so that on the challenging suite it takes about as long as
    /// a one-second time limit did on two cores (BENCHMARKS.md §13).
    pub const DEFAULT_WORK_LIMIT: u64 = 80_000;

    /// The default budget: [`Budget::DEFAULT_WORK_LIMIT`], no time limit, the first plan
    /// let finish (see [`Budget::with_finish_first_plan`]), cancelled by nothing.
    pub fn new() -> Budget {
        Budget {
            limit: None,
            deadline: None,
            cancel: CancelToken::new(),
            finish_first: true,
            nodes: None,
            work: Some(Budget::DEFAULT_WORK_LIMIT),
            meter: None,
        }
    }

    /// No work limit, no time limit and no deadline; only a cancellation (or the
    /// families' node limits) stops it. A result then depends on the input and the
    /// options alone, but may take long.
    pub fn unlimited() -> Budget {
        Budget {
            work: None,
            ..Budget::new()
        }
    }

    /// This budget with a time limit counted from the start of the call (`None`, or
    /// [`TimeLimit::NONE`]: no limit), in place of any other limit, deadline *or work
    /// limit*: a caller who names a time limit gets that limit alone, as at every door.
    /// For both, set the work limit after it ([`Budget::with_work_limit`]); whichever
    /// runs out first stops the call.
    ///
    /// ```
    /// use memplan::Budget;
    /// use std::time::Duration;
    ///
    /// let timed = Budget::new().with_time_limit(Duration::from_secs(2));
    /// assert_eq!(timed.work_limit(), None);
    /// let both = timed.with_work_limit(10_000);
    /// assert_eq!((both.time_limit(), both.work_limit()), (Some(Duration::from_secs(2)), Some(10_000)));
    /// ```
    pub fn with_time_limit(self, limit: impl Into<TimeLimit>) -> Budget {
        Budget {
            limit: limit.into().duration(),
            deadline: None,
            work: None,
            meter: None,
            ..self
        }
    }

    /// This budget with a work limit in work units (`None`: none). With no time limit,
    /// the result depends on the input and the options alone.
    pub fn with_work_limit(self, units: impl Into<Option<u64>>) -> Budget {
        Budget {
            work: units.into(),
            meter: None,
            ..self
        }
    }

    /// The work limit, if any.
    pub fn work_limit(&self) -> Option<u64> {
        self.work
    }

    /// This budget ending at `deadline`, in place of any time limit or work limit (as
    /// [`Budget::with_time_limit`]).
    pub fn with_deadline(self, deadline: Instant) -> Budget {
        Budget {
            limit: None,
            deadline: Some(deadline),
            work: None,
            meter: None,
            ..self
        }
    }

    /// This budget, stopped also when `token` (or an ancestor of it) is cancelled.
    pub fn with_cancel(self, token: &CancelToken) -> Budget {
        Budget {
            cancel: token.child(),
            ..self
        }
    }

    /// Whether the run's first plan (start-best-fit, O(n log n) on buffers without gaps
    /// or fixed offsets) may finish past the deadline or the work limit, though not past
    /// a cancellation, so that a run is never left with the naive plan (every buffer at
    /// its own addresses) when a real one is cheap. On by default; off, the limits are
    /// strict and a limit shorter than the first plan gives the naive plan.
    pub fn with_finish_first_plan(self, finish_first: bool) -> Budget {
        Budget {
            finish_first,
            ..self
        }
    }

    /// This budget with a node limit (`None`: none): each search the call runs expands at
    /// most `nodes` nodes, then stops with what it has. A search is one capacity search
    /// of the exact planner (per preorder; minimise mode's probes get shares of it), one
    /// TelaMalloc search (a node is a placement tried; TelaMalloc's rounds and probes
    /// share it, and it takes 2,000,000 when there is none), or one of the memories'
    /// placement searches.
    pub fn with_node_limit(self, nodes: impl Into<Option<u64>>) -> Budget {
        Budget {
            nodes: nodes.into(),
            ..self
        }
    }

    /// The node limit, if any (see [`Budget::with_node_limit`]).
    pub fn node_limit(&self) -> Option<u64> {
        self.nodes
    }

    /// `nodes`, held to the node limit when there is one: the limit of a search whose
    /// family sets its own (the memories' searches).
    #[cfg(feature = "memories")]
    pub(crate) fn nodes_at_most(&self, nodes: u64) -> u64 {
        self.nodes.map_or(nodes, |n| n.min(nodes))
    }

    /// The step limit of each of `runs` exact searches that run side by side and are
    /// charged together: an equal share of the work left (at least one step), so that
    /// what they charge stays within the work limit; none without a work limit.
    pub(crate) fn steps_per_run(&self, runs: u64) -> u64 {
        match self.work_left() {
            Some(left) => (left.saturating_mul(work::EXACT_STEPS_PER_UNIT) / runs.max(1)).max(1),
            None => u64::MAX,
        }
    }

    /// The time limit, if the budget has one and has not been started.
    pub fn time_limit(&self) -> Option<Duration> {
        self.limit
    }

    /// The budget of a call that starts at `now`: a time limit becomes the deadline
    /// `now + limit − reserve` (`reserve`: time kept for work after planning, the final
    /// check), and the work limit a fresh meter. A limit too far ahead to be an `Instant`
    /// is none.
    pub(crate) fn start(&self, now: Instant, reserve: Duration) -> Budget {
        let deadline = match self.limit {
            Some(limit) => now.checked_add(limit.saturating_sub(reserve)),
            None => self.deadline,
        };
        Budget {
            limit: None,
            deadline,
            meter: Some(Meter::root(self.work)),
            ..self.clone()
        }
    }

    /// What is left of a call that started at `started` and has charged `spent` work
    /// units, for a stage that follows the rest: the call's deadline (`started + limit`)
    /// and the work limit less `spent`, on a meter of its own. A stage that starts the
    /// request's budget again would take the whole limit a second time.
    #[cfg(feature = "memories")]
    pub(crate) fn resume(&self, started: Instant, spent: u64) -> Budget {
        Budget {
            meter: Some(Meter::root(self.work.map(|w| w.saturating_sub(spent)))),
            ..self.start(started, Duration::ZERO)
        }
    }

    /// A budget that ends at `deadline` (none: never), when `cancel` (if any) is
    /// cancelled, or when [`Budget::cancel`] is called. With `finish_first`, the first
    /// plan of the run may finish past the deadline: see [`Budget::first_plan`].
    #[cfg(test)]
    pub(crate) fn started(
        deadline: Option<Instant>,
        cancel: Option<&CancelToken>,
        finish_first: bool,
    ) -> Budget {
        Budget {
            limit: None,
            deadline,
            cancel: cancel.map_or_else(CancelToken::new, CancelToken::child),
            finish_first,
            nodes: None,
            work: None,
            meter: None,
        }
    }

    /// The deadline, if any (once started).
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// True once the deadline has passed, the work limit is spent, or the budget was
    /// cancelled.
    pub(crate) fn exhausted(&self) -> bool {
        self.clock_ran_out() || self.work_ran_out() || self.cancelled()
    }

    fn clock_ran_out(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn work_ran_out(&self) -> bool {
        self.meter.as_ref().is_some_and(|m| m.left() == 0)
    }

    /// Which limit has run out, if any: a cancellation first, then the work limit, then
    /// the clock (a run that spent its work limit stopped on it, whatever the clock says
    /// afterwards).
    pub(crate) fn stop(&self) -> Option<Stop> {
        if self.cancelled() {
            Some(Stop::Cancel)
        } else if self.work_ran_out() {
            Some(Stop::Work)
        } else if self.clock_ran_out() {
            Some(Stop::Clock)
        } else {
            None
        }
    }

    /// Charges `units` of work to this budget's meter and every meter it was shared
    /// from. Only at a point where the call is sequential, and only an amount that
    /// depends on the input and the options alone (the module doc's [Work](self#work)).
    pub(crate) fn charge(&self, units: u64) {
        let mut meter = self.meter.as_deref();
        while let Some(m) = meter {
            m.spent.fetch_add(units, Ordering::Relaxed);
            meter = m.parent.as_deref();
        }
    }

    /// The work charged to this budget's meter so far (0 before the call starts it).
    pub(crate) fn work_spent(&self) -> u64 {
        self.meter.as_ref().map_or(0, |m| m.spent())
    }

    /// The work left under the limit, or `None` without a work limit.
    pub(crate) fn work_left(&self) -> Option<u64> {
        self.meter
            .as_ref()
            .filter(|m| m.limit != u64::MAX)
            .map(|m| m.left())
            .or_else(|| self.meter.is_none().then_some(self.work).flatten())
    }

    /// True once the budget (or the token it was made from) was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Cancels this budget and every budget derived from it by [`Budget::child`].
    pub(crate) fn cancel(&self) {
        self.cancel.cancel();
    }

    /// A budget with the same deadline and meter whose cancellation stops it (and its
    /// children) alone; it still stops when this one is cancelled.
    pub(crate) fn child(&self) -> Budget {
        Budget {
            cancel: self.cancel.child(),
            ..self.clone()
        }
    }

    /// The budget of the run's first plan: without the deadline and the work limit when
    /// the first plan may finish past them, else this budget. Shares the token (and the
    /// meter, which still counts its work).
    pub(crate) fn first_plan(&self) -> Budget {
        let lenient = self.finish_first;
        Budget {
            limit: None,
            deadline: if lenient { None } else { self.deadline },
            cancel: self.cancel.clone(),
            finish_first: false,
            nodes: self.nodes,
            work: None,
            meter: self.meter.as_ref().map(|m| {
                if lenient {
                    // A meter without a limit whose charges still reach the call's.
                    Arc::new(Meter {
                        spent: AtomicU64::new(0),
                        limit: u64::MAX,
                        parent: Some(m.clone()),
                    })
                } else {
                    m.clone()
                }
            }),
        }
    }

    /// This budget, with the first plan held to the limits like every other (for a
    /// stage that starts from a plan already made). Shares the token.
    pub(crate) fn strict(&self) -> Budget {
        Budget {
            finish_first: false,
            ..self.clone()
        }
    }

    /// True when less time is left than a setup of `n` buffers takes
    /// ([`SETUP_NANOS_PER_BUFFER`] each), or less work than it is charged
    /// ([`work::SETUP_BUFFERS_PER_UNIT`]). Setups (a greedy order, the exact search's
    /// model, boxing's first pass) are O(n log n) steps that do not poll the budget, so a
    /// stage that is not the first plan does not start when this holds.
    pub(crate) fn too_short_for_setup(&self, n: usize) -> bool {
        let setup = Duration::from_nanos(SETUP_NANOS_PER_BUFFER.saturating_mul(n as u64));
        let work = work::units(n as u64, work::SETUP_BUFFERS_PER_UNIT);
        self.deadline
            .is_some_and(|d| d.saturating_duration_since(Instant::now()) < setup)
            || self.work_left().is_some_and(|left| left < work)
    }

    /// This budget, ending after `share` (0 to 1) of the time left from `now` (or at its
    /// own deadline when it has none), and of the work left: a meter of its own whose
    /// charges reach this one's. Shares the token.
    pub(crate) fn share(&self, now: Instant, share: f64) -> Budget {
        let timed = match self.deadline {
            Some(d) => self.until(now + d.saturating_duration_since(now).mul_f64(share)),
            None => self.clone(),
        };
        timed.share_work(share)
    }

    /// This budget with `share` (0 to 1) of the work left, on a meter of its own whose
    /// charges reach this one's. The same budget without a work limit.
    pub(crate) fn share_work(&self, share: f64) -> Budget {
        match (&self.meter, self.work_left()) {
            (Some(m), Some(left)) => Budget {
                meter: Some(Arc::new(Meter {
                    spent: AtomicU64::new(0),
                    // Rounded down: a share never exceeds what is left.
                    limit: (left as f64 * share.clamp(0.0, 1.0)) as u64,
                    parent: Some(m.clone()),
                })),
                ..self.clone()
            },
            _ => self.clone(),
        }
    }

    /// This budget, ending at `deadline` or earlier. Shares the token.
    pub(crate) fn until(&self, deadline: Instant) -> Budget {
        Budget {
            deadline: Some(self.deadline.map_or(deadline, |d| d.min(deadline))),
            ..self.clone()
        }
    }
}

/// A time limit: a number of seconds, or none (`inf`). The one parser of time limits,
/// used by the command line, Python and C.
///
/// ```
/// use memplan::budget::TimeLimit;
/// use std::time::Duration;
///
/// assert_eq!("1.5".parse::<TimeLimit>()?.duration(), Some(Duration::from_millis(1500)));
/// assert_eq!("inf".parse::<TimeLimit>()?.duration(), None);
/// assert_eq!(TimeLimit::from_secs(1e300)?.duration(), None); // too long: no limit
/// assert!(TimeLimit::from_secs(-1.0).is_err());
/// assert!("NaN".parse::<TimeLimit>().is_err());
/// # Ok::<(), memplan::budget::TimeLimitError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeLimit(Option<Duration>);

impl TimeLimit {
    /// No limit.
    pub const NONE: TimeLimit = TimeLimit(None);

    /// A limit of `seconds`: non-negative; infinite, or too long for a [`Duration`]
    /// (over 584 billion years), means no limit. NaN and negative numbers are errors.
    pub fn from_secs(seconds: f64) -> Result<TimeLimit, TimeLimitError> {
        if seconds == f64::INFINITY {
            return Ok(TimeLimit::NONE);
        }
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(TimeLimitError(seconds.to_string()));
        }
        Ok(TimeLimit(Duration::try_from_secs_f64(seconds).ok()))
    }

    /// The limit, or `None` for no limit.
    pub fn duration(self) -> Option<Duration> {
        self.0
    }
}

impl From<Duration> for TimeLimit {
    fn from(d: Duration) -> TimeLimit {
        TimeLimit(Some(d))
    }
}

/// `None` is no limit.
impl From<Option<Duration>> for TimeLimit {
    fn from(d: Option<Duration>) -> TimeLimit {
        TimeLimit(d)
    }
}

impl std::str::FromStr for TimeLimit {
    type Err = TimeLimitError;
    /// Seconds as a decimal number (`0.5`, `10`, `1e3`), or `inf` for no limit.
    fn from_str(s: &str) -> Result<TimeLimit, TimeLimitError> {
        let seconds: f64 = s
            .trim()
            .parse()
            .map_err(|_| TimeLimitError(s.to_string()))?;
        TimeLimit::from_secs(seconds)
    }
}

/// A work limit: a number of work units ([`Budget::with_work_limit`]), or none (`inf`).
/// The one parser of work limits, used by the command line, Python and C.
///
/// ```
/// use memplan::budget::WorkLimit;
///
/// assert_eq!("60000".parse::<WorkLimit>()?.units(), Some(60_000));
/// assert_eq!("1_000_000".parse::<WorkLimit>()?.units(), Some(1_000_000));
/// assert_eq!("inf".parse::<WorkLimit>()?.units(), None);
/// assert!("-1".parse::<WorkLimit>().is_err());
/// assert!("1.5".parse::<WorkLimit>().is_err());
/// # Ok::<(), memplan::budget::WorkLimitError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkLimit(Option<u64>);

impl WorkLimit {
    /// No limit.
    pub const NONE: WorkLimit = WorkLimit(None);

    /// The limit in work units, or `None` for no limit.
    pub fn units(self) -> Option<u64> {
        self.0
    }
}

impl From<u64> for WorkLimit {
    fn from(units: u64) -> WorkLimit {
        WorkLimit(Some(units))
    }
}

impl std::str::FromStr for WorkLimit {
    type Err = WorkLimitError;
    /// A whole number of work units (digits, `_` allowed between them), or `inf` for
    /// no limit.
    fn from_str(s: &str) -> Result<WorkLimit, WorkLimitError> {
        let t = s.trim();
        if t == "inf" {
            return Ok(WorkLimit::NONE);
        }
        let digits: String = t.chars().filter(|&c| c != '_').collect();
        if t.starts_with('_') || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(WorkLimitError(s.to_string()));
        }
        digits
            .parse()
            .map(|u| WorkLimit(Some(u)))
            .map_err(|_| WorkLimitError(s.to_string()))
    }
}

/// A work limit that is not a whole number of work units; holds the input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("must be a whole number of work units (or inf), got {0}")]
pub struct WorkLimitError(pub String);

/// A time limit that is not a non-negative number of seconds; holds the input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("must be a non-negative number of seconds, got {0}")]
pub struct TimeLimitError(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_stops_with_its_parent_and_not_the_other_way() {
        let root = CancelToken::new();
        let child = root.child();
        let grandchild = child.child();
        let sibling = root.child();
        grandchild.cancel();
        assert!(grandchild.is_cancelled());
        assert!(!child.is_cancelled() && !root.is_cancelled() && !sibling.is_cancelled());
        root.cancel();
        assert!(child.is_cancelled() && sibling.is_cancelled());
    }

    #[test]
    fn a_budget_made_from_a_token_stops_with_it_and_cancels_only_itself() {
        let user = CancelToken::new();
        let budget = Budget::started(None, Some(&user), false);
        let racer = budget.child();
        racer.cancel();
        assert!(racer.exhausted() && !budget.exhausted() && !user.is_cancelled());
        user.cancel();
        assert!(budget.exhausted());
    }

    #[test]
    fn the_first_plan_ignores_the_deadline_only_when_asked() {
        let past = Instant::now();
        let lenient = Budget::started(Some(past), None, true);
        assert!(lenient.exhausted());
        assert!(!lenient.first_plan().exhausted());
        assert!(lenient.strict().first_plan().exhausted());
        assert!(Budget::started(Some(past), None, false)
            .first_plan()
            .exhausted());
        lenient.cancel();
        assert!(
            lenient.first_plan().exhausted(),
            "a cancellation stops the first plan too"
        );
    }

    #[test]
    fn until_keeps_the_earlier_deadline() {
        let now = Instant::now();
        let later = now + Duration::from_secs(60);
        assert_eq!(Budget::unlimited().until(later).deadline(), Some(later));
        assert_eq!(
            Budget::started(Some(now), None, false)
                .until(later)
                .deadline(),
            Some(now)
        );
    }

    #[test]
    fn time_limits_parse_seconds_and_inf() {
        let ok = |s: &str| s.parse::<TimeLimit>().map(TimeLimit::duration);
        assert_eq!(ok("0"), Ok(Some(Duration::ZERO)));
        assert_eq!(ok(" 2.5 "), Ok(Some(Duration::from_millis(2500))));
        assert_eq!(ok("inf"), Ok(None));
        assert_eq!(ok("1.8e308"), Ok(None));
        for bad in ["-1", "NaN", "-inf", "soon", ""] {
            assert!(ok(bad).is_err(), "{bad}");
        }
        assert_eq!(
            TimeLimit::from_secs(-1.0).unwrap_err().to_string(),
            "must be a non-negative number of seconds, got -1"
        );
    }
}
