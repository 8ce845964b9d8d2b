//! The switches of the planner across memories (`plan --spill`, its two-memory form, and
//! `plan --memories`), all ablations and tuning that `plan --help-all` shows under their
//! own heading.

use memplan::memories::{self, MemoriesOptions};

/// The naive strategies of `--spill-baseline`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Baseline {
    /// The largest live buffer first.
    LargestFirst,
    /// The lowest cost per byte first.
    CostPerByte,
}

/// The spill planner's ablation and tuning switches (shown by `--help-all`).
#[derive(clap::Args, Debug)]
pub struct SpillTuning {
    /// Ablation: skip the improvement phase after the heuristic.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_improve: bool,
    /// Ablation: skip the exact branch and bound over the spill decisions.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_exact: bool,
    /// Comparison: a naive strategy in place of the planner (spill in this order where the
    /// load exceeds the capacity, plan, spill what overflows).
    #[arg(
        long,
        hide = true,
        value_enum,
        help_heading = "Spill: ablations and tuning"
    )]
    pub spill_baseline: Option<Baseline>,
    /// Ablation: no Lagrangian relaxation (its bound and its cover).
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_lagrangian: bool,
    /// Ablation: keep a buffer's allowed memories even where it is larger than one.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_presolve: bool,
    /// Ablation: no first-fit insertion starts after the heuristic.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_greedy_starts: bool,
    /// Ablation: no integer rounding of the fractional cover bound.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_rounding: bool,
    /// Ablation: do not add up the covers of times that share no buffer.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_chain: bool,
    /// Ablation: count the whole capacity as usable, not only the holes that the fixed
    /// buffers leave.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_holes: bool,
    /// Ablation: no pooled-capacity proof before the levels (several memories).
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_pooled_proof: bool,
    /// Ablation: no joint search over every assignment on small problems.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_joint: bool,
    /// Ablation: the fallback tries the memories fastest first only.
    #[arg(long, hide = true, help_heading = "Spill: ablations and tuning")]
    pub spill_no_slowest_first: bool,
    /// Seed of the improvement phase's random choices.
    #[arg(
        long,
        hide = true,
        default_value_t = 0,
        help_heading = "Spill: ablations and tuning"
    )]
    pub spill_seed: u64,
}

impl SpillTuning {
    /// The library's options: `threads` as for `plan` (`--threads`), checked when
    /// `verify`.
    pub fn options(&self, threads: usize, verify: bool) -> MemoriesOptions {
        MemoriesOptions {
            threads,
            seed: self.spill_seed,
            improve: !self.spill_no_improve,
            exact: !self.spill_no_exact,
            lagrangian: !self.spill_no_lagrangian,
            size_presolve: !self.spill_no_presolve,
            greedy_starts: !self.spill_no_greedy_starts,
            baseline: self.spill_baseline.map(|b| match b {
                Baseline::LargestFirst => memories::Baseline::LargestFirst,
                Baseline::CostPerByte => memories::Baseline::CostPerByte,
            }),
            rounding_bound: !self.spill_no_rounding,
            chain_bound: !self.spill_no_chain,
            holes_bound: !self.spill_no_holes,
            pooled_proof: !self.spill_no_pooled_proof,
            joint: !self.spill_no_joint,
            fill_slowest_first: !self.spill_no_slowest_first,
            verify,
            ..MemoriesOptions::default()
        }
    }
}
