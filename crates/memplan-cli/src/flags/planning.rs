//! The planner and budget flags that `plan`, `bench` and `tflite` share, and what they
//! become in the library: [`PlannerArgs::limits`] (the capacity, the time limit and the
//! cancellation token) and [`PlannerArgs::options`] (the library's [`Options`]).

use std::time::Duration;

use memplan::{CancelToken, Options, Planner, Size, TimeLimit};

use super::tuning::{BoxingArgs, ExactArgs, TelamallocArgs};

/// The planner and budget flags that `plan`, `bench` and `tflite` share.
#[derive(clap::Args, Debug)]
pub struct PlannerArgs {
    /// The planner: `auto` (greedy, then exact search and boxing within the time limit),
    /// `greedy` (every greedy planner, nothing else, within the time limit; with
    /// `--time-limit inf` the result depends on the input alone),
    /// `naive`, `telamalloc`, `boxing`, `exact`, or ORDER-FIT with ORDER one of size,
    /// area, contention, breadth, lifetime, start and FIT one of best-fit, first-fit.
    // Parsed by `Planner`'s `FromStr` (whose names are `Planner::all()`'s); the text above
    // lists them, and a test holds it to `Planner::all()`.
    #[arg(long, default_value = "auto")]
    pub planner: Planner,
    /// Worker threads (0: one per core). The plan does not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Stop after this many seconds, final check included, and return the best plan
    /// found [default: 1, as in the library, Python and C]. Within it, `auto` tightens a
    /// plan that greedy leaves fragmented, or looks for one under --capacity. `inf`: no
    /// clock; `auto` then runs until its plan is proven optimal, which may take long. The
    /// first plan (start-best-fit, O(n log n)) always finishes.
    #[arg(long)]
    pub time_limit: Option<TimeLimit>,
    /// Hold the first plan to the time limit too: a limit shorter than it returns the
    /// naive plan (every buffer at its own addresses).
    #[arg(long, hide = true)]
    pub strict_time_limit: bool,
    #[command(flatten)]
    pub exact: ExactArgs,
    #[command(flatten)]
    pub telamalloc: TelamallocArgs,
    #[command(flatten)]
    pub boxing: BoxingArgs,
}

/// What a planning run may use, in the library's types: the capacity to fit under, the
/// time limit and the token that stops it. Built by [`PlannerArgs::limits`] alone.
#[derive(Clone, Debug)]
pub struct Limits {
    /// `--capacity`: the problem's (`plan`, `bench`), the fast memory's (`plan --spill`)
    /// or the planned tensors' (`tflite`); `None`: minimise.
    pub capacity: Option<Size>,
    /// `--time-limit`, else the library's default; `None`: no clock.
    pub time_limit: Option<Duration>,
    /// Cancelled by Ctrl-C (`crate::shared::progress`), when the command listens for it.
    pub cancel: Option<CancelToken>,
}

impl PlannerArgs {
    /// The one place where the CLI turns `--capacity`, `--time-limit` and cancellation
    /// into library arguments, for `plan`, `plan --spill`, `tflite` and `bench` alike:
    /// every command takes its capacity, time limit and token from the [`Limits`] this
    /// returns, and nowhere else.
    pub fn limits(&self, capacity: Option<u64>, cancel: Option<CancelToken>) -> Limits {
        Limits {
            capacity: capacity.map(Size),
            time_limit: match self.time_limit {
                Some(t) => t.duration(),
                None => Options::default().time_limit,
            },
            cancel,
        }
    }

    /// The library's options: [`Options::default()`] with the flags given, under
    /// `limits`.
    pub fn options(&self, limits: &Limits) -> Options {
        let default = Options::default();
        Options {
            planner: if self.exact.exact {
                Planner::Exact
            } else {
                self.planner
            },
            threads: self.threads,
            time_limit: limits.time_limit,
            cancel: limits.cancel.clone(),
            verify: default.verify,
            telamalloc: self.telamalloc.options(),
            boxing: self.boxing.options(),
            exact: self.exact.options(),
            finish_first_plan: default.finish_first_plan && !self.strict_time_limit,
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
        let limits = flags.limits(None, None);
        assert_eq!(limits.capacity, None);
        assert_eq!(limits.time_limit, Options::default().time_limit);
        let options = flags.options(&limits);
        assert_eq!(options.planner, Planner::Auto);
        assert_eq!(options.time_limit, Options::default().time_limit);
        assert!(options.finish_first_plan && options.cancel.is_none());
        let exact = Flags::parse_from(["memplan", "--exact", "--time-limit", "inf"]).planning;
        let options = exact.options(&exact.limits(Some(7), Some(CancelToken::new())));
        assert_eq!(options.planner, Planner::Exact);
        assert_eq!(options.time_limit, None);
        assert!(options.cancel.is_some());
        assert_eq!(exact.limits(Some(7), None).capacity, Some(Size(7)));
    }
}
