//! The ablation and tuning switches of the exact search, TelaMalloc and boxing, flattened
//! into `plan`, `bench` and `tflite` through [`super::planning::PlannerArgs`]. Every one
//! is `hide`: `plan --help-all` shows them, grouped per planner, and the other commands'
//! help does not. Each switch maps to one field of the planner's library options, and
//! no switch means the library's default.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use memplan::{
    Bootstrap, BoundOptions, BoxingOptions, ExactOptions, Preorder, SqueezeFit, TelamallocOptions,
};

/// The exact search's switches (`--exact`, `--planner exact`, and the exact search
/// inside the default portfolio).
#[derive(clap::Args, Debug, Clone)]
pub struct ExactArgs {
    /// Run the exact search after greedy: with --capacity, a plan under it or a proof that
    /// none exists; without, the minimum height (anytime, within --time-limit).
    #[arg(long)]
    pub exact: bool,
    /// Ablation: search every order, not only canonical ones (offset- and index-monotonic).
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub no_canonical: bool,
    /// Ablation: no section inference (eq. 3 of the MiniMalloc paper).
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub no_section_inference: bool,
    /// Ablation: no monotonic floor in section inference.
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub no_monotonic_floor: bool,
    /// Ablation: no effective height (unallocated floors) in section inference.
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub no_unallocated_floor: bool,
    /// Ablation: no dominance pruning.
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub no_dominance: bool,
    /// Ablation: no dynamic temporal decomposition.
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub no_decomposition: bool,
    /// Ablation: no static preordering (input order, one run).
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub no_static_preordering: bool,
    /// Ablation: with --capacity, search only under it, not also under the max load.
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub no_tighten: bool,
    /// The static preorders to alternate, comma-separated, from length-area-total,
    /// total-area-length, total-length-area, size-length-area.
    #[arg(
        long,
        hide = true,
        help_heading = "Exact search: ablations and tuning",
        value_delimiter = ',',
        value_parser = parse_preorder
    )]
    pub preorders: Vec<Preorder>,
}

/// `--preorders NAME,...`: the names of [`Preorder::ALL`].
fn parse_preorder(name: &str) -> Result<Preorder, String> {
    Preorder::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| format!("unknown preorder '{name}'"))
}

impl ExactArgs {
    /// The library options these flags describe.
    pub fn options(&self) -> ExactOptions {
        let mut o = ExactOptions {
            canonical: !self.no_canonical,
            section_inference: !self.no_section_inference,
            monotonic_floor: !self.no_monotonic_floor,
            unallocated_floor: !self.no_unallocated_floor,
            dominance: !self.no_dominance,
            decomposition: !self.no_decomposition,
            static_preordering: !self.no_static_preordering,
            tighten: !self.no_tighten,
            ..ExactOptions::default()
        };
        if !self.preorders.is_empty() {
            o.preorders = self.preorders.clone();
        }
        o
    }
}

/// The lower bounds' switches (the proven bound every output reports; see
/// [`BoundOptions`]).
#[derive(clap::Args, Debug, Clone)]
pub struct BoundArgs {
    /// Ablation: proven bounds not rounded up to the gcd of sizes, alignments and fixed
    /// offsets.
    #[arg(long, hide = true, help_heading = "Lower bounds: ablations and tuning")]
    pub no_granularity: bool,
    /// Ablation: no holes bound (free buffers that fit in no hole the fixed ones leave).
    #[arg(long, hide = true, help_heading = "Lower bounds: ablations and tuning")]
    pub no_holes: bool,
    /// Run the lower-bound prover first, on half the time left: the exact search at the
    /// bound itself, part by part, raising it by proofs (with --capacity: a proof that
    /// nothing fits, or a plan).
    #[arg(long, hide = true, help_heading = "Lower bounds: ablations and tuning")]
    pub prove: bool,
    /// Ablation: the prover searches the whole problem, not each time component.
    #[arg(long, hide = true, help_heading = "Lower bounds: ablations and tuning")]
    pub no_components: bool,
    /// Ablation: the prover searches no windows in time.
    #[arg(long, hide = true, help_heading = "Lower bounds: ablations and tuning")]
    pub no_windows: bool,
}

impl BoundArgs {
    /// The library options these flags select.
    pub fn options(&self) -> BoundOptions {
        BoundOptions {
            granularity: !self.no_granularity,
            holes: !self.no_holes,
            components: !self.no_components,
            windows: !self.no_windows,
            prover: self.prove,
        }
    }
}

/// Boxing's switches (`--planner boxing`, and boxing inside the default portfolio).
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
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning", default_value = "greedy", value_parser = PossibleValuesParser::new(["greedy", "size-then-lifetime", "none"]).map(|s| s.parse::<Bootstrap>().unwrap_or_default()))]
    pub bootstrap: Bootstrap,
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
    #[arg(long, hide = true, help_heading = "Boxing: ablations and tuning", default_value = "first-fit", value_parser = PossibleValuesParser::new(["first-fit", "best-fit", "alternate"]).map(|s| match s.as_str() {
        "best-fit" => SqueezeFit::BestFit,
        "alternate" => SqueezeFit::Alternate,
        _ => SqueezeFit::FirstFit,
    }))]
    pub squeeze: SqueezeFit,
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
                self.bootstrap
            },
            abandon: !self.no_abandon,
            calibrate_epsilon: !self.no_calibrate_epsilon,
            squeeze: self.squeeze,
            inherit_critical_times: !self.no_inherit_critical_times,
            in_portfolio: !self.no_boxing_in_portfolio,
            polish_moves: self.polish_moves,
        }
    }
}

/// TelaMalloc's switches. Every technique is on unless turned off here.
#[derive(clap::Args, Debug, Clone)]
pub struct TelamallocArgs {
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
            lowest_position: !self.tm_no_lowest_position,
            heuristics: !self.tm_no_heuristics,
            per_heuristic: self.tm_per_heuristic.unwrap_or(d.per_heuristic),
            phases: !self.tm_no_phases,
            row_order: !self.tm_no_row_order,
            dominance: !self.tm_no_dominance,
            complete_candidates: !self.tm_no_complete_candidates,
            widen: !self.tm_no_widen,
            backjump: !self.tm_no_backjump,
            prepend_candidates: !self.tm_no_prepend,
            max_candidates: self.tm_max_candidates.unwrap_or(d.max_candidates),
            subtree_limit: !self.tm_no_subtree_limit,
            subtree_backtracks: self.tm_subtree_backtracks.unwrap_or(d.subtree_backtracks),
            canonical: !self.tm_no_canonical,
            section_inference: !self.tm_no_section_inference,
            section_floors: !self.tm_no_section_floors,
            greedy_first: !self.tm_no_greedy_first,
            restarts: !self.tm_no_restarts,
            tighten: !self.tm_no_tighten,
            independent_parts: !self.tm_no_independent_parts,
            dynamic_decomposition: !self.tm_no_decomposition,
        }
    }
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
            ("--tm-no-heuristics", |o| &mut o.heuristics),
            ("--tm-no-lowest-position", |o| &mut o.lowest_position),
            ("--tm-no-phases", |o| &mut o.phases),
            ("--tm-no-backjump", |o| &mut o.backjump),
            ("--tm-no-prepend", |o| &mut o.prepend_candidates),
            ("--tm-no-subtree-limit", |o| &mut o.subtree_limit),
            ("--tm-no-section-inference", |o| &mut o.section_inference),
            ("--tm-no-row-order", |o| &mut o.row_order),
            ("--tm-no-dominance", |o| &mut o.dominance),
            ("--tm-no-widen", |o| &mut o.widen),
            ("--tm-no-canonical", |o| &mut o.canonical),
            ("--tm-no-complete-candidates", |o| {
                &mut o.complete_candidates
            }),
            ("--tm-no-section-floors", |o| &mut o.section_floors),
            ("--tm-no-restarts", |o| &mut o.restarts),
            ("--tm-no-tighten", |o| &mut o.tighten),
            ("--tm-no-decomposition", |o| &mut o.dynamic_decomposition),
            ("--tm-no-greedy-first", |o| &mut o.greedy_first),
            ("--tm-no-independent-parts", |o| &mut o.independent_parts),
        ];
        for (flag, switch) in switches {
            let mut o = Flags::parse_from(["memplan", flag]).tm.options();
            assert!(!*switch(&mut o), "{flag} leaves its technique on");
            *switch(&mut o) = true;
            assert_eq!(o, defaults, "{flag} changes another option");
        }
    }
}
