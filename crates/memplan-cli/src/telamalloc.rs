//! Flags of the TelaMalloc planner (`--planner telamalloc`), and the microbenchmark kinds
//! of `memplan gen`.

use clap::ValueEnum;
use memplan::telamalloc::{
    BacktrackOptions, CandidateOptions, DecompositionOptions, PruningOptions, RoundOptions,
};
use memplan::testing::{generate_microbenchmark, MicrobenchKind};
use memplan::{Problem, TelamallocOptions};

/// TelaMalloc's switches. Every technique is on unless turned off here.
#[derive(clap::Args, Debug, Clone)]
pub struct TelamallocArgs {
    /// Stop after this many placements (per capacity probe in minimise mode).
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_step_limit: Option<u64>,
    /// §5.1 off: only the highest-contention buffer is a candidate, not the longest,
    /// largest and largest-area ones.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_heuristics: bool,
    /// §5.2 off: place buffers on the skyline, not at the lowest valid offset.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_lowest_position: bool,
    /// §5.3 off: no contention phases.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_phases: bool,
    /// §5.4 off: a major backtrack goes back one decision, not to the second-to-last
    /// conflicting placement.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_backjump: bool,
    /// §5.4 off: do not put failed candidates in front at the jump target.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_prepend: bool,
    /// §5.4: the cap on queued candidates after prepending.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_max_candidates: Option<usize>,
    /// §5.4 off: never leave a subtree for having seen too many backtracks.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_subtree_limit: bool,
    /// §5.4: the backtrack budget of a subtree.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_subtree_backtracks: Option<u64>,
    /// Cross-section inference off (it applies to skyline placement only).
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_section_inference: bool,
    /// §3.1 row order off: candidates need not sit at the lowest position of all.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_row_order: bool,
    /// Row order takes only the lowest position, not every position below the lowest
    /// top of an unplaced buffer.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_dominance: bool,
    /// How many buffers each heuristic proposes at a decision point.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_per_heuristic: Option<usize>,
    /// Do not search again with wider candidate lists when the root runs out.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_widen: bool,
    /// Canonical sequences off: offsets may decrease along a branch and buffers at the
    /// same offset may come in any order.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_canonical: bool,
    /// Decision points hold only the heuristics' candidates, not every admissible buffer
    /// once those have failed.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_complete_candidates: bool,
    /// Cross-section inference without the section floors (the lowest domain of a
    /// section's unplaced buffers).
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_section_floors: bool,
    /// No restarts: one search with the first heuristic's canonical order.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_restarts: bool,
    /// Restart rounds stay at the capacity asked for (no tighter capacities).
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_tighten: bool,
    /// Canonical searches do not split into independent components (MiniMalloc's
    /// dynamic decomposition).
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_decomposition: bool,
    /// Search even when the first greedy plan (size order, best fit) fits the capacity.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_greedy_first: bool,
    /// Capacity mode searches the whole problem at once, not its independent parts (those
    /// split at times no buffer crosses) one after the other.
    #[arg(long, hide = true, help_heading = "TelaMalloc: ablations and tuning")]
    pub tm_no_independent_parts: bool,
}

impl TelamallocArgs {
    pub fn options(&self) -> TelamallocOptions {
        let d = TelamallocOptions::default();
        TelamallocOptions {
            step_limit: self.tm_step_limit.unwrap_or(d.step_limit),
            lowest_position: !self.tm_no_lowest_position,
            candidates: CandidateOptions {
                heuristics: !self.tm_no_heuristics,
                per_heuristic: self.tm_per_heuristic.unwrap_or(d.candidates.per_heuristic),
                phases: !self.tm_no_phases,
                row_order: !self.tm_no_row_order,
                dominance: !self.tm_no_dominance,
                complete_candidates: !self.tm_no_complete_candidates,
                widen: !self.tm_no_widen,
            },
            backtracking: BacktrackOptions {
                backjump: !self.tm_no_backjump,
                prepend_candidates: !self.tm_no_prepend,
                max_candidates: self
                    .tm_max_candidates
                    .unwrap_or(d.backtracking.max_candidates),
                subtree_limit: !self.tm_no_subtree_limit,
                subtree_backtracks: self
                    .tm_subtree_backtracks
                    .unwrap_or(d.backtracking.subtree_backtracks),
            },
            pruning: PruningOptions {
                canonical: !self.tm_no_canonical,
                section_inference: !self.tm_no_section_inference,
                section_floors: !self.tm_no_section_floors,
            },
            rounds: RoundOptions {
                greedy_first: !self.tm_no_greedy_first,
                restarts: !self.tm_no_restarts,
                tighten: !self.tm_no_tighten,
            },
            decomposition: DecompositionOptions {
                independent_parts: !self.tm_no_independent_parts,
                dynamic: !self.tm_no_decomposition,
            },
        }
    }
}

/// What `memplan gen` makes.
#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq)]
pub enum GenKind {
    /// A model-like training trace.
    #[default]
    Model,
    /// A dense training trace: `--live` buffers all live at once among `--buffers`, 10⁸+
    /// overlapping pairs at 60,000 buffers, sizes from `--min-size` to `--max-size`.
    Dense,
    /// TelaMalloc §7.1: buffers that never overlap in time (capacity: the largest size).
    NonOverlapping,
    /// TelaMalloc §7.1: buffers all live together (capacity: the sum of the sizes).
    FullOverlap,
}

/// The microbenchmark for `kind`, or `None` for the model-like generator.
pub fn microbenchmark(kind: GenKind, buffers: usize, seed: u64) -> Option<Problem> {
    let k = match kind {
        GenKind::Model | GenKind::Dense => return None,
        GenKind::NonOverlapping => MicrobenchKind::NonOverlapping,
        GenKind::FullOverlap => MicrobenchKind::FullOverlap,
    };
    Some(generate_microbenchmark(k, buffers, seed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        tm: TelamallocArgs,
    }

    type Switch = fn(&mut TelamallocOptions) -> &mut bool;

    /// No flag gives the library's defaults, and each `--tm-no-…` switch turns off its
    /// own technique and nothing else.
    #[test]
    fn each_switch_turns_off_one_technique() {
        let defaults = TelamallocOptions::default();
        assert_eq!(Flags::parse_from(["memplan"]).tm.options(), defaults);
        let switches: [(&str, Switch); 18] = [
            ("--tm-no-heuristics", |o| &mut o.candidates.heuristics),
            ("--tm-no-lowest-position", |o| &mut o.lowest_position),
            ("--tm-no-phases", |o| &mut o.candidates.phases),
            ("--tm-no-backjump", |o| &mut o.backtracking.backjump),
            ("--tm-no-prepend", |o| {
                &mut o.backtracking.prepend_candidates
            }),
            ("--tm-no-subtree-limit", |o| {
                &mut o.backtracking.subtree_limit
            }),
            ("--tm-no-section-inference", |o| {
                &mut o.pruning.section_inference
            }),
            ("--tm-no-row-order", |o| &mut o.candidates.row_order),
            ("--tm-no-dominance", |o| &mut o.candidates.dominance),
            ("--tm-no-widen", |o| &mut o.candidates.widen),
            ("--tm-no-canonical", |o| &mut o.pruning.canonical),
            ("--tm-no-complete-candidates", |o| {
                &mut o.candidates.complete_candidates
            }),
            ("--tm-no-section-floors", |o| &mut o.pruning.section_floors),
            ("--tm-no-restarts", |o| &mut o.rounds.restarts),
            ("--tm-no-tighten", |o| &mut o.rounds.tighten),
            ("--tm-no-decomposition", |o| &mut o.decomposition.dynamic),
            ("--tm-no-greedy-first", |o| &mut o.rounds.greedy_first),
            ("--tm-no-independent-parts", |o| {
                &mut o.decomposition.independent_parts
            }),
        ];
        for (flag, switch) in switches {
            let mut o = Flags::parse_from(["memplan", flag]).tm.options();
            assert!(!*switch(&mut o), "{flag} leaves its technique on");
            *switch(&mut o) = true;
            assert_eq!(o, defaults, "{flag} changes another option");
        }
    }
}
