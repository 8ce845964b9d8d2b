//! What a call is asked for: a [`Goal`] and a [`Budget`], together a [`Request`].
//!
//! The model: the problem says what the buffers are; the request says what to do with
//! them and for how long. The goal is to minimise the height, or to fit under a
//! capacity; the budget says when to stop. Every door (the library's [`crate::plan`],
//! `memories::plan_spill`, [`crate::tiles::plan_tiles`] and
//! [`crate::shared_objects::plan_shared_objects`], the command line, Python, C and the
//! framework adapters) builds one request and passes it down unchanged; the capacity is
//! never part of the problem, and a reader that finds one in a file returns it beside the
//! problem ([`crate::io`]).

use crate::budget::Budget;
use crate::types::Size;

/// What to plan for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Goal {
    /// The lowest height (peak address) that can be found and proven.
    #[default]
    Minimise,
    /// Any plan whose height is at most this capacity (for `memories::plan_spill`:
    /// the fast memory's capacity, the cheapest such spill).
    Fit(Size),
}

impl Goal {
    /// The capacity, when the goal is to fit under one.
    pub fn capacity(self) -> Option<Size> {
        match self {
            Goal::Minimise => None,
            Goal::Fit(c) => Some(c),
        }
    }

    /// [`Goal::Fit`] with `capacity`, or [`Goal::Minimise`] without one.
    pub fn from_capacity(capacity: Option<Size>) -> Goal {
        capacity.map_or(Goal::Minimise, Goal::Fit)
    }
}

/// One request: the goal and the budget of a call.
///
/// ```
/// use memplan::{Budget, Goal, Request, Size};
/// use std::time::Duration;
///
/// let r = Request::fit(Size(1 << 20)).with_budget(Budget::new().with_time_limit(Duration::from_secs(5)));
/// assert_eq!(r.goal, Goal::Fit(Size(1 << 20)));
/// assert_eq!(Request::default().goal, Goal::Minimise);
/// assert_eq!(Request::default().budget.work_limit(), Some(Budget::DEFAULT_WORK_LIMIT));
/// assert_eq!(Request::default().budget.time_limit(), None);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// What to plan for.
    pub goal: Goal,
    /// When to stop.
    pub budget: Budget,
}

impl Request {
    /// Minimise the height, within the default budget.
    pub fn minimise() -> Request {
        Request::default()
    }

    /// Fit under `capacity`, within the default budget.
    pub fn fit(capacity: Size) -> Request {
        Request {
            goal: Goal::Fit(capacity),
            budget: Budget::default(),
        }
    }

    /// This request with `budget`.
    pub fn with_budget(self, budget: Budget) -> Request {
        Request { budget, ..self }
    }

    /// The capacity, when the goal is to fit under one.
    pub fn capacity(&self) -> Option<Size> {
        self.goal.capacity()
    }
}
