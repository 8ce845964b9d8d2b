//! How [`crate::plan`] works: which [`Planner`] runs, with which [`Options`]. (What it
//! is asked for, the goal and the budget, is the [`crate::Request`].)
//!
//! Each family keeps its own options beside its code ([`crate::BoxingOptions`],
//! [`crate::ExactOptions`], [`crate::TelamallocOptions`]); [`Options`] gathers them with
//! the choices of the driver (planner, threads, verification). Only the driver reads
//! [`Options`]: a family takes its own options and a budget.

use crate::bounds::BoundOptions;
use crate::boxing::BoxingOptions;
use crate::error::PlanError;
use crate::exact::ExactOptions;
use crate::greedy::{self, Fit, Order as GreedyOrder};
use crate::telamalloc::TelamallocOptions;

/// Which planner [`crate::plan`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Planner {
    /// The default planner. First the greedy portfolio ([`Planner::GreedyPortfolio`]):
    /// every greedy planner, start-best-fit first, keeping the lowest plan and stopping as
    /// soon as one reaches the max load (in capacity mode, as soon as one fits; the later
    /// planners then do not count). Then, while fragmentation remains or the capacity is
    /// missed, it spends the rest of the budget on the exact search and on boxing from the
    /// best plan so far ([`BoxingOptions::in_portfolio`]): exact first up to 5,000
    /// buffers, boxing first above. With a capacity, the exact search first looks for a
    /// plan under it alone, on every thread, for a third of the time left (at most 1 s);
    /// then its anytime minimisation stops at a plan under the capacity or a proof, and
    /// otherwise lowers the best plan over it. With three threads or more, TelaMalloc
    /// races it on one of them and the first answer wins.
    ///
    /// Without a time limit it runs until the exact search has proved its plan optimal
    /// (or, in capacity mode, found one or proved that none fits), which on a hard
    /// instance may take very long; the result then depends only on the input and the
    /// options. With one, a run cut short by the clock may differ from a faster run.
    #[default]
    Auto,
    /// One greedy planner.
    Greedy(GreedyOrder, Fit),
    /// Every greedy planner, start-best-fit first, keeping the lowest plan (ties to the
    /// earlier one), and nothing else: milliseconds on most models. The time limit stops
    /// it after the plan in progress (the first always finishes); with no limit the
    /// result depends only on the input. The first stage of [`Planner::Auto`].
    GreedyPortfolio,
    /// Every buffer at its own addresses: the sum of the sizes. A baseline.
    Naive,
    /// TelaMalloc's backtracking search (see [`TelamallocOptions`]): for tight
    /// capacities; in minimise mode it probes capacities below the best greedy height.
    Telamalloc,
    /// idealloc's boxing planner, iterated (see [`BoxingOptions`]).
    Boxing,
    /// The exact search (MiniMalloc's canonical search) after the greedy portfolio: with
    /// a capacity, a plan under it or a proof that none exists; without, the minimum
    /// height, anytime. See [`ExactOptions`]. It runs alone, on every thread: the race
    /// against TelaMalloc in capacity mode is the default planner's.
    Exact,
}

impl Planner {
    /// Every planner: the greedy planners in the portfolio's order (which is also its
    /// tie-break order), then `greedy` (the portfolio), `telamalloc`, `naive`, `boxing`,
    /// `exact` and `auto`.
    pub fn all() -> Vec<Planner> {
        let mut v: Vec<Planner> = greedy::portfolio()
            .into_iter()
            .map(|(o, f)| Planner::Greedy(o, f))
            .collect();
        v.push(Planner::GreedyPortfolio);
        v.push(Planner::Telamalloc);
        v.push(Planner::Naive);
        v.push(Planner::Boxing);
        v.push(Planner::Exact);
        v.push(Planner::Auto);
        v
    }

    /// The planner's name, as accepted by [`str::parse`] and the CLI's `--planner`.
    pub fn name(&self) -> String {
        match self {
            Planner::Auto => "auto".into(),
            Planner::GreedyPortfolio => "greedy".into(),
            Planner::Naive => "naive".into(),
            Planner::Telamalloc => "telamalloc".into(),
            Planner::Boxing => "boxing".into(),
            Planner::Exact => "exact".into(),
            Planner::Greedy(o, f) => format!("{}-{}", o.name(), f.name()),
        }
    }
}

impl std::fmt::Display for Planner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for Planner {
    type Err = PlanError;
    fn from_str(s: &str) -> Result<Planner, PlanError> {
        let all = Planner::all();
        all.iter()
            .find(|p| p.name() == s)
            .copied()
            .ok_or_else(|| PlanError::UnknownPlanner {
                name: s.to_string(),
                expected: all.iter().map(Planner::name).collect(),
            })
    }
}

/// Options for [`crate::plan`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Which planner to run. Default: [`Planner::Auto`].
    pub planner: Planner,
    /// Worker threads for the portfolio, the exact search, boxing's iterations and
    /// TelaMalloc's restart cycle (capacity mode); 0 means one per core. The result does
    /// not depend on this. Threads are scoped to the call: no global pool is started.
    pub threads: usize,
    /// Run the independent checker on the result and fail with
    /// [`PlanError::InvalidPlan`] if it disagrees. Cheap (O(n log n)); on by default.
    pub verify: bool,
    /// Options of [`Planner::Telamalloc`].
    pub telamalloc: TelamallocOptions,
    /// Options of the boxing planner, also used when it joins the portfolio.
    pub boxing: BoxingOptions,
    /// Options of the exact search ([`Planner::Exact`], and the step of
    /// [`Planner::Auto`] that runs it after greedy when a time limit is given).
    pub exact: ExactOptions,
    /// The lower bounds reported beyond the max load, and the prover (see
    /// [`BoundOptions`]).
    pub bounds: BoundOptions,
    /// Which optional shares are taken, for problems with [`crate::Share`]s.
    pub shares: ShareOptions,
}

/// The techniques of planning with [`crate::Share`]s, each on by default (see
/// [`crate::share`]). Required shares are always taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShareOptions {
    /// Take the optional shares that lower or keep the load (CLI
    /// `--shares-no-optional`). Off: only the required shares.
    pub optional: bool,
    /// When the plan with the optional shares is not proven optimal, also plan without
    /// them (with the rest of the budget) and keep the lower plan, so that a plan with
    /// shares is never higher than one without (CLI `--shares-no-fallback`).
    pub fallback: bool,
}

impl Default for ShareOptions {
    fn default() -> ShareOptions {
        ShareOptions {
            optional: true,
            fallback: true,
        }
    }
}

/// The defaults, shared by every door: [`Planner::Auto`] on every core, the plan checked.
impl Default for Options {
    fn default() -> Options {
        Options {
            planner: Planner::Auto,
            threads: 0,
            verify: true,
            telamalloc: TelamallocOptions::default(),
            boxing: BoxingOptions::default(),
            exact: ExactOptions::default(),
            bounds: BoundOptions::default(),
            shares: ShareOptions::default(),
        }
    }
}
