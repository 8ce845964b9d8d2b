//! Budgets: when a planner must stop.
//!
//! The model: a [`Budget`] is a time limit or a deadline (an [`Instant`]), or neither,
//! plus a [`CancelToken`], a work limit (the most nodes one search may expand), and one
//! property, whether the *first plan* may finish past the deadline. It is the one limit type from the doors to the families: a caller builds
//! one ([`Budget::new`], [`Budget::with_time_limit`], [`Budget::with_cancel`]) and puts
//! it in a [`crate::Request`]; the call *starts* it (a time limit becomes a deadline at
//! the call's start) and hands it, or budgets derived from it ([`Budget::child`],
//! `until`, `strict`), to every stage. Every family (greedy, exact, boxing, TelaMalloc,
//! spill) takes a `&Budget` and polls [`Budget::exhausted`] now and then; none keeps its
//! own notion of "stop", and none turns a budget back into a duration.
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
//! token stays cancelled; a budget is never exhausted before its deadline unless some
//! token on its chain was cancelled.
//!
//! [`TimeLimit`] is the one parser of a time limit in seconds (`inf` for none), shared by
//! the command line, Python and C.

use std::sync::atomic::{AtomicBool, Ordering};
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

/// When planning must stop: a time limit (counted from the start of the call) or a
/// deadline, a cancel token, whether the first plan may finish past the deadline (not
/// past a cancellation), and a work limit: the most nodes one search may expand.
/// Cloning shares the token.
///
/// The default ([`Budget::new`]) is [`Budget::DEFAULT_TIME_LIMIT`], with the first plan
/// let finish: the same for every door (library, command line, Python, C).
///
/// ```
/// use memplan::{Budget, CancelToken};
/// use std::time::Duration;
///
/// let stop = CancelToken::new();
/// let budget = Budget::new().with_time_limit(Duration::from_millis(50)).with_cancel(&stop);
/// assert_eq!(budget.time_limit(), Some(Duration::from_millis(50)));
/// assert_eq!(Budget::unlimited().time_limit(), None);
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
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new()
    }
}

impl Budget {
    /// The default time limit: one second, for every door (library, command line,
    /// Python, C).
    pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(1);

    /// The default budget: [`Budget::DEFAULT_TIME_LIMIT`], the first plan let finish
    /// (see [`Budget::with_finish_first_plan`]), cancelled by nothing.
    pub fn new() -> Budget {
        Budget {
            limit: Some(Budget::DEFAULT_TIME_LIMIT),
            deadline: None,
            cancel: CancelToken::new(),
            finish_first: true,
            nodes: None,
        }
    }

    /// No time limit and no deadline; only a cancellation (or the families' work
    /// limits) stops it. A result then depends on the input and the options alone.
    pub fn unlimited() -> Budget {
        Budget {
            limit: None,
            ..Budget::new()
        }
    }

    /// This budget with a time limit counted from the start of the call (`None`, or
    /// [`TimeLimit::NONE`]: no limit), in place of any other limit or deadline.
    pub fn with_time_limit(self, limit: impl Into<TimeLimit>) -> Budget {
        Budget {
            limit: limit.into().duration(),
            deadline: None,
            ..self
        }
    }

    /// This budget ending at `deadline`, in place of any time limit.
    pub fn with_deadline(self, deadline: Instant) -> Budget {
        Budget {
            limit: None,
            deadline: Some(deadline),
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
    /// or fixed offsets) may finish past the deadline, though not past a cancellation,
    /// so that a run is never left with the naive plan (every buffer at its own
    /// addresses) when a real one is cheap. On by default; off, the limit is strict and
    /// a limit shorter than the first plan gives the naive plan.
    pub fn with_finish_first_plan(self, finish_first: bool) -> Budget {
        Budget {
            finish_first,
            ..self
        }
    }

    /// This budget with a work limit (`None`: none): each search the call runs expands at
    /// most `nodes` nodes, then stops with what it has. A search is one capacity search
    /// of the exact planner (per preorder; minimise mode's probes get shares of it), one
    /// TelaMalloc search (a node is a placement tried; TelaMalloc's rounds and probes
    /// share it, and it takes 2,000,000 when there is none), or one of spill's placement
    /// searches. With no time limit, a node limit makes the result depend on the input
    /// and the options alone.
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
    /// family sets its own (spill's searches).
    #[cfg(feature = "memories")]
    pub(crate) fn nodes_at_most(&self, nodes: u64) -> u64 {
        self.nodes.map_or(nodes, |n| n.min(nodes))
    }

    /// The time limit, if the budget has one and has not been started.
    pub fn time_limit(&self) -> Option<Duration> {
        self.limit
    }

    /// The budget of a call that starts at `now`: a time limit becomes the deadline
    /// `now + limit − reserve` (`reserve`: time kept for work after planning, the final
    /// check). A limit too far ahead to be an `Instant` is none.
    pub(crate) fn start(&self, now: Instant, reserve: Duration) -> Budget {
        let deadline = match self.limit {
            Some(limit) => now.checked_add(limit.saturating_sub(reserve)),
            None => self.deadline,
        };
        Budget {
            limit: None,
            deadline,
            ..self.clone()
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
        }
    }

    /// The deadline, if any (once started).
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// True once the deadline has passed or the budget was cancelled.
    pub(crate) fn exhausted(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) || self.cancelled()
    }

    /// True once the budget (or the token it was made from) was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Cancels this budget and every budget derived from it by [`Budget::child`].
    pub(crate) fn cancel(&self) {
        self.cancel.cancel();
    }

    /// A budget with the same deadline whose cancellation stops it (and its children)
    /// alone; it still stops when this one is cancelled.
    pub(crate) fn child(&self) -> Budget {
        Budget {
            cancel: self.cancel.child(),
            ..self.clone()
        }
    }

    /// The budget of the run's first plan: without the deadline when the first plan may
    /// finish past it, else this budget. Shares the token.
    pub(crate) fn first_plan(&self) -> Budget {
        Budget {
            limit: None,
            deadline: if self.finish_first {
                None
            } else {
                self.deadline
            },
            cancel: self.cancel.clone(),
            finish_first: false,
            nodes: self.nodes,
        }
    }

    /// This budget, with the first plan held to the deadline like every other (for a
    /// stage that starts from a plan already made). Shares the token.
    pub(crate) fn strict(&self) -> Budget {
        Budget {
            finish_first: false,
            ..self.clone()
        }
    }

    /// True when less time is left than a setup of `n` buffers takes
    /// ([`SETUP_NANOS_PER_BUFFER`] each). Setups (a greedy order, the exact search's
    /// model, boxing's first pass) are O(n log n) steps that do not poll the clock, so a
    /// stage that is not the first plan does not start when this holds. Never true
    /// without a deadline.
    pub(crate) fn too_short_for_setup(&self, n: usize) -> bool {
        let setup = Duration::from_nanos(SETUP_NANOS_PER_BUFFER.saturating_mul(n as u64));
        self.deadline
            .is_some_and(|d| d.saturating_duration_since(Instant::now()) < setup)
    }

    /// This budget, ending after `share` (0 to 1) of the time left from `now`, or at its
    /// own deadline when it has none. Shares the token.
    pub(crate) fn share(&self, now: Instant, share: f64) -> Budget {
        match self.deadline {
            Some(d) => self.until(now + d.saturating_duration_since(now).mul_f64(share)),
            None => self.clone(),
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
/// use memplan::TimeLimit;
/// use std::time::Duration;
///
/// assert_eq!("1.5".parse::<TimeLimit>()?.duration(), Some(Duration::from_millis(1500)));
/// assert_eq!("inf".parse::<TimeLimit>()?.duration(), None);
/// assert_eq!(TimeLimit::from_secs(1e300)?.duration(), None); // too long: no limit
/// assert!(TimeLimit::from_secs(-1.0).is_err());
/// assert!("NaN".parse::<TimeLimit>().is_err());
/// # Ok::<(), memplan::TimeLimitError>(())
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
