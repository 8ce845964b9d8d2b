//! The switches of the planner across memories (`plan --memories`, and `plan --spill`,
//! its two-memory form), all ablations and tuning that `plan --help-all` shows under
//! their own heading. Each is `--memories-*`; the `--spill-*` spelling of each is a hidden
//! alias.

use memplan::memories::{self, MemoriesOptions};

/// The naive strategies of `--memories-baseline`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Baseline {
    /// The largest live buffer first.
    LargestFirst,
    /// The lowest cost per byte first.
    CostPerByte,
}

/// The planner across memories' ablation and tuning switches (shown by `--help-all`).
#[derive(clap::Args, Debug)]
pub struct MemoriesTuning {
    /// Ablation: skip the improvement phase after the heuristic.
    #[arg(
        long = "memories-no-improve",
        alias = "spill-no-improve",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_improve: bool,
    /// Ablation: skip the exact branch and bound over the spill decisions.
    #[arg(
        long = "memories-no-exact",
        alias = "spill-no-exact",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_exact: bool,
    /// Comparison: a naive strategy in place of the planner (spill in this order where the
    /// load exceeds the capacity, plan, spill what overflows).
    #[arg(
        long = "memories-baseline",
        alias = "spill-baseline",
        hide = true,
        value_enum,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_baseline: Option<Baseline>,
    /// Ablation: no Lagrangian relaxation (its bound and its cover).
    #[arg(
        long = "memories-no-lagrangian",
        alias = "spill-no-lagrangian",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_lagrangian: bool,
    /// Ablation: keep a buffer's allowed memories even where it is larger than one.
    #[arg(
        long = "memories-no-presolve",
        alias = "spill-no-presolve",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_presolve: bool,
    /// Ablation: no first-fit insertion starts after the heuristic.
    #[arg(
        long = "memories-no-greedy-starts",
        alias = "spill-no-greedy-starts",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_greedy_starts: bool,
    /// Ablation: no integer rounding of the fractional cover bound.
    #[arg(
        long = "memories-no-rounding",
        alias = "spill-no-rounding",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_rounding: bool,
    /// Ablation: do not add up the covers of times that share no buffer.
    #[arg(
        long = "memories-no-chain",
        alias = "spill-no-chain",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_chain: bool,
    /// Ablation: count the whole capacity as usable, not only the holes that the fixed
    /// buffers leave.
    #[arg(
        long = "memories-no-holes",
        alias = "spill-no-holes",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_holes: bool,
    /// Ablation: no pooled-capacity proof before the levels (several memories).
    #[arg(
        long = "memories-no-pooled-proof",
        alias = "spill-no-pooled-proof",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_pooled_proof: bool,
    /// Ablation: no joint search over every assignment on small problems.
    #[arg(
        long = "memories-no-joint",
        alias = "spill-no-joint",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_joint: bool,
    /// Ablation: the fallback tries the memories fastest first only.
    #[arg(
        long = "memories-no-slowest-first",
        alias = "spill-no-slowest-first",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_slowest_first: bool,
    /// Ablation: no re-plan of each bounded memory at its least height after the plan.
    #[arg(
        long = "memories-no-least-heights",
        alias = "spill-no-least-heights",
        hide = true,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_no_least_heights: bool,
    /// Seed of the improvement phase's random choices.
    #[arg(
        long = "memories-seed",
        alias = "spill-seed",
        hide = true,
        default_value_t = 0,
        help_heading = "Several memories: ablations and tuning"
    )]
    pub memories_seed: u64,
}

impl MemoriesTuning {
    /// The library's options: `threads` as for `plan` (`--threads`), checked when
    /// `verify`.
    pub fn options(&self, threads: usize, verify: bool) -> MemoriesOptions {
        MemoriesOptions {
            threads,
            seed: self.memories_seed,
            improve: !self.memories_no_improve,
            exact: !self.memories_no_exact,
            lagrangian: !self.memories_no_lagrangian,
            size_presolve: !self.memories_no_presolve,
            greedy_starts: !self.memories_no_greedy_starts,
            baseline: self.memories_baseline.map(|b| match b {
                Baseline::LargestFirst => memories::Baseline::LargestFirst,
                Baseline::CostPerByte => memories::Baseline::CostPerByte,
            }),
            rounding_bound: !self.memories_no_rounding,
            chain_bound: !self.memories_no_chain,
            holes_bound: !self.memories_no_holes,
            pooled_proof: !self.memories_no_pooled_proof,
            joint: !self.memories_no_joint,
            fill_slowest_first: !self.memories_no_slowest_first,
            least_heights: !self.memories_no_least_heights,
            verify,
            ..MemoriesOptions::default()
        }
    }
}
