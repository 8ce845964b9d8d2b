//! The planner and budget flags that `plan`, `bench` and `tflite` share, and what they
//! become in the library: [`PlannerArgs::request`] (the goal and the budget: capacity,
//! time limit, node limit, cancellation) and [`PlannerArgs::options`] (the library's [`Options`]).

use memplan::budget::{CancelToken, TimeLimit, WorkLimit};
use memplan::{Budget, Goal, Options, Planner, Request, Size};

use super::tuning::{BoundArgs, BoxingArgs, ExactArgs, TelamallocArgs};

/// The planner and budget flags that `plan`, `bench` and `tflite` share.
#[derive(clap::Args, Debug)]
pub struct PlannerArgs {
    /// The planner: `auto` (greedy, then exact search and boxing within the budget:
    /// --work-limit, and --time-limit when given), `greedy` (every greedy planner,
    /// nothing else),
    /// `naive`, `telamalloc`, `boxing`, `exact`, or ORDER-FIT with ORDER one of size,
    /// area, contention, breadth, lifetime, start and FIT one of best-fit, first-fit.
    // Parsed by `Planner`'s `FromStr` (whose names are `Planner::all()`'s); the text above
    // lists them, and a test holds it to `Planner::all()`.
    #[arg(long, default_value = "auto")]
    pub planner: Planner,
    /// Worker threads (0: one per core). The plan does not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Stop after this much work, in work units, and return the best plan found
    /// [default: 80000, as in the library, Python, C, ExecuTorch and TFLM: about a second
    /// on two cores on the challenging suite]. Within it, `auto` tightens a plan that
    /// greedy leaves fragmented, or looks for one under --capacity. Work does not depend
    /// on the machine's load or the thread count, so the same input and flags give the
    /// same plan, byte for byte. The summary reports the work spent. `inf`: no limit
    #[arg(long, value_name = "UNITS")]
    pub work_limit: Option<WorkLimit>,
    /// Stop after this many seconds of wall-clock time instead, final check included
    /// (with --work-limit too: whichever runs out first). A plan the clock stopped may
    /// differ from run to run: the summary says `stopped by the clock`. `inf`: no clock
    /// and, without --work-limit, no limit at all; `auto` then runs until its plan is
    /// proven optimal, which may take long. The first plan (start-best-fit, O(n log n))
    /// always finishes
    // Negative values reach TimeLimit's parser, which says what is wrong with them.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub time_limit: Option<TimeLimit>,
    /// Hold the first plan to the time limit too: a limit shorter than it returns the
    /// naive plan (every buffer at its own addresses).
    #[arg(long, hide = true)]
    pub strict_time_limit: bool,
    /// Stop each search after this many nodes: each capacity search of the exact search
    /// (per preorder; minimise mode's probes get shares), each TelaMalloc search (a node
    /// is a placement tried; 2,000,000 without this flag). With `--time-limit inf`, the
    /// plan depends on the input and the flags alone.
    #[arg(long, hide = true)]
    pub node_limit: Option<u64>,
    #[command(flatten)]
    pub exact: ExactArgs,
    #[command(flatten)]
    pub telamalloc: TelamallocArgs,
    #[command(flatten)]
    pub boxing: BoxingArgs,
    #[command(flatten)]
    pub bounds: BoundArgs,
    /// Take no optional share: only the required ones (ablation; see docs/shares.md)
    #[arg(long, hide = true)]
    pub shares_no_optional: bool,
    /// Do not plan without the optional shares as well, when the plan with them is not
    /// proven optimal (ablation)
    #[arg(long, hide = true)]
    pub shares_no_fallback: bool,
}

impl PlannerArgs {
    /// The one place where the CLI turns `--capacity` (or a problem file's own
    /// capacity), `--time-limit` and cancellation into the library's [`Request`], for
    /// `plan`, `plan --spill`, `tflite` and `bench` alike: every command plans with the
    /// request this returns, and nowhere else.
    pub fn request(&self, capacity: Option<Size>, cancel: Option<&CancelToken>) -> Request {
        let mut budget = Budget::new()
            .with_finish_first_plan(!self.strict_time_limit)
            .with_node_limit(self.node_limit);
        // A time limit alone replaces the default work limit; both: whichever ends first.
        if let Some(limit) = self.time_limit {
            budget = budget.with_time_limit(limit);
        }
        if let Some(limit) = self.work_limit {
            budget = budget.with_work_limit(limit.units());
        }
        if let Some(token) = cancel {
            budget = budget.with_cancel(token);
        }
        Request {
            goal: Goal::from_capacity(capacity),
            budget,
        }
    }

    /// The library's options: [`Options::default()`] with the flags given.
    pub fn options(&self) -> Options {
        let default = Options::default();
        Options {
            planner: if self.exact.exact {
                Planner::Exact
            } else {
                self.planner
            },
            threads: self.threads,
            verify: default.verify,
            telamalloc: self.telamalloc.options(),
            boxing: self.boxing.options(),
            exact: self.exact.options(),
            bounds: self.bounds.options(),
            shares: memplan::ShareOptions {
                optional: !self.shares_no_optional,
                fallback: !self.shares_no_fallback,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        planning: PlannerArgs,
    }

    /// `--planner` takes every name of `Planner::all()` and nothing else, and its help
    /// lists each of them: by name, or as ORDER-FIT from its lists of orders and fits.
    #[test]
    fn the_planner_flag_takes_and_lists_every_planner() {
        let help = Flags::command().render_help().to_string();
        let list = |from: &str, to: &str| -> Vec<String> {
            let start = help.find(from).expect(from) + from.len();
            let len = help[start..].find(to).expect(to);
            help[start..start + len]
                .split(", ")
                .map(String::from)
                .collect()
        };
        let orders = list("ORDER one of ", " and FIT");
        let fits = list("FIT one of ", " [default");
        for p in Planner::all() {
            let name = p.name();
            let flags = Flags::try_parse_from(["memplan", "--planner", &name]);
            assert_eq!(flags.map(|f| f.planning.planner).ok(), Some(p), "{name}");
            let listed = match p {
                Planner::Greedy(..) => orders
                    .iter()
                    .any(|o| fits.iter().any(|f| format!("{o}-{f}") == name)),
                _ => help.contains(&format!("`{name}`")),
            };
            assert!(listed, "{name} is not in the help: {help}");
        }
        assert!(Flags::try_parse_from(["memplan", "--planner", "magic"]).is_err());
    }

    /// No flag gives the library's defaults; `--exact` picks the exact planner.
    #[test]
    fn no_flag_gives_the_library_defaults() {
        let flags = Flags::parse_from(["memplan"]).planning;
        let request = flags.request(None, None);
        assert_eq!(request.goal, Goal::Minimise);
        assert_eq!(request.budget.time_limit(), Budget::new().time_limit());
        assert_eq!(
            request.budget.work_limit(),
            Some(Budget::DEFAULT_WORK_LIMIT)
        );
        assert_eq!(flags.options().planner, Planner::Auto);
        let exact = Flags::parse_from(["memplan", "--exact", "--time-limit", "inf"]).planning;
        assert_eq!(exact.options().planner, Planner::Exact);
        let token = CancelToken::new();
        let request = exact.request(Some(Size(7)), Some(&token));
        assert_eq!(request.budget.time_limit(), None);
        assert_eq!(
            request.budget.work_limit(),
            None,
            "inf alone: no limit at all"
        );
        assert_eq!(request.goal, Goal::Fit(Size(7)));
        token.cancel();
        assert!(request.budget.cancelled());
    }
}
