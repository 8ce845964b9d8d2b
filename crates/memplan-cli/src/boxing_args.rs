//! Command-line flags of the boxing planner (`--planner boxing`, and boxing inside the
//! default portfolio).

use memplan::{Bootstrap, BoxingOptions, SqueezeFit};

/// Flags shared by `plan` and `bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BoxingArgs {
    /// Boxing: iterations of box, unbox and squeeze.
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning", default_value_t = BoxingOptions::default().iterations)]
    pub iterations: u32,
    /// Boxing: the seed of its random choices; the same seed gives the same plan.
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning", default_value_t = BoxingOptions::default().seed)]
    pub seed: u64,
    /// Boxing: stop once the fragmentation (height − max load) is at most this many bytes.
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning", default_value_t = BoxingOptions::default().target_fragmentation)]
    pub target_fragmentation: u64,
    /// Boxing: the plan to beat, polished before the iterations and returned when none
    /// beats it: the best of the twelve greedy planners, size-then-lifetime first-fit
    /// (idealloc's), or none. Inside the default portfolio, its best greedy plan.
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning", default_value = "greedy", value_parser = ["greedy", "size-then-lifetime", "none"])]
    pub bootstrap: String,
    /// Boxing: the same as `--bootstrap none`.
    #[arg(
        long,
        hide = true,
        help_heading = "Boxing: ablations and tuning",
        conflicts_with = "bootstrap"
    )]
    pub no_bootstrap: bool,
    /// Boxing: finish every iteration, even those already above the best height.
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning")]
    pub no_abandon: bool,
    /// Boxing: take the low end of ε's legal range instead of calibrating it.
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning")]
    pub no_calibrate_epsilon: bool,
    /// Boxing: how the squeeze picks addresses: first-fit, best-fit, or alternate
    /// (first-fit in even iterations, best-fit in odd ones).
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning", default_value = "first-fit", value_parser = ["first-fit", "best-fit", "alternate"])]
    pub squeeze: String,
    /// Boxing: give each Theorem 2 sub-problem one fresh random critical time instead of
    /// the ends of the row gaps above it.
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning")]
    pub no_inherit_critical_times: bool,
    /// Boxing: peak-repair moves on the final plan (0 = none). Each lifts the buffers
    /// around the peak and puts them back in a random order, kept if the height does not
    /// rise.
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning", default_value_t = BoxingOptions::default().polish_moves)]
    pub polish_moves: u32,
    /// Keep boxing out of the default portfolio (`--planner auto`).
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning")]
    pub no_boxing_in_portfolio: bool,
}

impl BoxingArgs {
    /// The library options these flags select.
    pub fn options(&self) -> BoxingOptions {
        BoxingOptions {
            iterations: self.iterations,
            seed: self.seed,
            target_fragmentation: self.target_fragmentation,
            bootstrap: if self.no_bootstrap {
                Bootstrap::None
            } else {
                self.bootstrap.parse().unwrap_or_default()
            },
            abandon: !self.no_abandon,
            calibrate_epsilon: !self.no_calibrate_epsilon,
            squeeze: match self.squeeze.as_str() {
                "best-fit" => SqueezeFit::BestFit,
                "alternate" => SqueezeFit::Alternate,
                _ => SqueezeFit::FirstFit,
            },
            inherit_critical_times: !self.no_inherit_critical_times,
            in_portfolio: !self.no_boxing_in_portfolio,
            polish_moves: self.polish_moves,
        }
    }
}
