//! The ablation and tuning switches of the exact search, TelaMalloc and boxing, flattened
//! into `plan`, `bench` and `tflite` through [`super::planning::PlannerArgs`]. Every one
//! is `hide`: `plan --help-all` shows them, grouped per planner, and the other commands'
//! help does not. Each switch maps to one field of the planner's library options and is
//! named after it (TelaMalloc's as `--telamalloc-…`), and no switch means the library's
//! default. Earlier spellings (`--tm-…`, `--bootstrap`, `--squeeze`, `--no-abandon`, the
//! preorders `length-area-total` and the like) are hidden aliases, so scripts keep working.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use memplan::{
    BoundOptions, BoxingOptions, CompactionFit, ExactOptions, PlanToBeat, Preorder,
    TelamallocOptions,
};

/// The `--help-all` headings, one per planner.
const EXACT: &str = "Exact search: ablations and tuning";
const BOUNDS: &str = "Lower bounds: ablations and tuning";
const BOXING: &str = "Boxing: ablations and tuning";
const TELAMALLOC: &str = "TelaMalloc: ablations and tuning";

/// The exact search's switches (`--exact`, `--planner exact`, and the exact search
/// inside the default portfolio).
#[derive(clap::Args, Debug, Clone)]
pub struct ExactArgs {
    /// Run the exact search after greedy: with --capacity, a plan under it or a proof that
    /// none exists; without, the minimum height (anytime, within --work-limit and any
    /// --time-limit).
    #[arg(long)]
    pub exact: bool,
    /// Ablation: search every order, not only canonical ones (offset- and index-monotonic).
    #[arg(long, hide = true, help_heading = EXACT)]
    pub no_canonical: bool,
    /// Ablation: no section inference (eq. 3 of the MiniMalloc paper).
    #[arg(long, hide = true, help_heading = EXACT)]
    pub no_section_inference: bool,
    /// Ablation: no monotonic floor in section inference.
    #[arg(long, hide = true, help_heading = EXACT)]
    pub no_monotonic_floor: bool,
    /// Ablation: no effective height (unallocated floors) in section inference.
    #[arg(long, hide = true, help_heading = EXACT)]
    pub no_unallocated_floor: bool,
    /// Ablation: no dominance pruning.
    #[arg(long, hide = true, help_heading = EXACT)]
    pub no_dominance: bool,
    /// Ablation: no dynamic temporal decomposition.
    #[arg(long, hide = true, help_heading = EXACT)]
    pub no_decomposition: bool,
    /// Ablation: no static preordering (input order, one run).
    #[arg(long, hide = true, help_heading = EXACT)]
    pub no_static_preordering: bool,
    /// Ablation: with --capacity, search only under it, not also under the max load.
    #[arg(long, hide = true, help_heading = EXACT)]
    pub no_tighten: bool,
    /// The static preorders to alternate, comma-separated, from longest-first,
    /// busiest-section-then-area, busiest-section-then-length, largest-first.
    #[arg(
        long,
        hide = true,
        help_heading = EXACT,
        value_delimiter = ',',
        value_parser = parse_preorder
    )]
    pub preorders: Vec<Preorder>,
}

/// The preorders' earlier names (by their sort keys), still accepted.
const PREORDER_ALIASES: [(&str, Preorder); 4] = [
    ("length-area-total", Preorder::LongestFirst),
    ("total-area-length", Preorder::BusiestSectionThenArea),
    ("total-length-area", Preorder::BusiestSectionThenLength),
    ("size-length-area", Preorder::LargestFirst),
];

/// `--preorders NAME,...`: the names of [`Preorder::ALL`] (or their aliases).
fn parse_preorder(name: &str) -> Result<Preorder, String> {
    Preorder::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .or_else(|| {
            PREORDER_ALIASES
                .into_iter()
                .find(|&(alias, _)| alias == name)
                .map(|(_, p)| p)
        })
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
    #[arg(long, hide = true, help_heading = BOUNDS)]
    pub no_granularity: bool,
    /// Ablation: no holes bound (free buffers that fit in no hole the fixed ones leave).
    #[arg(long, hide = true, help_heading = BOUNDS)]
    pub no_holes: bool,
    /// Run the lower-bound prover first, on half the time left: the exact search at the
    /// bound itself, part by part, raising it by proofs (with --capacity: a proof that
    /// nothing fits, or a plan).
    #[arg(long, hide = true, help_heading = BOUNDS)]
    pub prove: bool,
    /// Ablation: the prover searches the whole problem, not each time component.
    #[arg(long, hide = true, help_heading = BOUNDS)]
    pub no_components: bool,
    /// Ablation: the prover searches no windows in time.
    #[arg(long, hide = true, help_heading = BOUNDS)]
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
    /// Boxing: iterations of box, unbox and compaction.
    #[arg(long, hide = true, help_heading = BOXING, default_value_t = BoxingOptions::default().iterations)]
    pub iterations: u32,
    /// Boxing: the seed of its random choices; the same seed gives the same plan.
    #[arg(long, hide = true, help_heading = BOXING, default_value_t = BoxingOptions::default().seed)]
    pub seed: u64,
    /// Boxing: stop once the fragmentation (height − max load) is at most this many bytes.
    #[arg(long, hide = true, help_heading = BOXING, default_value_t = BoxingOptions::default().target_fragmentation)]
    pub target_fragmentation: u64,
    /// Boxing: the plan to beat, polished before the iterations and returned when none
    /// beats it: the best of the twelve greedy planners, size-then-lifetime first-fit
    /// (idealloc's), or none. Inside the default portfolio, its best greedy plan.
    #[arg(long, alias = "bootstrap", hide = true, help_heading = BOXING, default_value = "greedy", value_parser = PossibleValuesParser::new(["greedy", "size-then-lifetime", "none"]).map(|s| s.parse::<PlanToBeat>().unwrap_or_default()))]
    pub plan_to_beat: PlanToBeat,
    /// Boxing: the same as `--plan-to-beat none`.
    #[arg(
        long,
        alias = "no-bootstrap",
        hide = true,
        help_heading = BOXING,
        conflicts_with = "plan_to_beat"
    )]
    pub no_plan_to_beat: bool,
    /// Boxing: finish every iteration, even those already above the best height.
    #[arg(long, alias = "no-abandon", hide = true, help_heading = BOXING)]
    pub no_stop_losing_iterations: bool,
    /// Boxing: take the low end of ε's legal range instead of calibrating it.
    #[arg(long, hide = true, help_heading = BOXING)]
    pub no_calibrate_epsilon: bool,
    /// Boxing: how the compaction (the final pass that packs the iteration's order)
    /// picks addresses: first-fit, best-fit, or alternate (first-fit in even iterations,
    /// best-fit in odd ones).
    #[arg(long, alias = "squeeze", hide = true, help_heading = BOXING, default_value = "first-fit", value_parser = PossibleValuesParser::new(["first-fit", "best-fit", "alternate"]).map(|s| match s.as_str() {
        "best-fit" => CompactionFit::BestFit,
        "alternate" => CompactionFit::Alternate,
        _ => CompactionFit::FirstFit,
    }))]
    pub compaction: CompactionFit,
    /// Boxing: give each Theorem 2 sub-problem one fresh random critical time instead of
    /// the ends of the row gaps above it.
    #[arg(long, hide = true, help_heading = BOXING)]
    pub no_inherit_critical_times: bool,
    /// Boxing: peak-repair moves on the final plan (0 = none). Each lifts the buffers
    /// around the peak and puts them back in a random order, kept if the height does not
    /// rise.
    #[arg(long, hide = true, help_heading = BOXING, default_value_t = BoxingOptions::default().polish_moves)]
    pub polish_moves: u32,
    /// Keep boxing out of the default portfolio (`--planner auto`).
    #[arg(long, hide = true, help_heading = BOXING)]
    pub no_boxing_in_portfolio: bool,
}

impl BoxingArgs {
    /// The library options these flags select.
    pub fn options(&self) -> BoxingOptions {
        BoxingOptions {
            iterations: self.iterations,
            seed: self.seed,
            target_fragmentation: self.target_fragmentation,
            plan_to_beat: if self.no_plan_to_beat {
                PlanToBeat::None
            } else {
                self.plan_to_beat
            },
            stop_losing_iterations: !self.no_stop_losing_iterations,
            calibrate_epsilon: !self.no_calibrate_epsilon,
            compaction: self.compaction,
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
    #[arg(long, alias = "tm-no-heuristics", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_heuristics: bool,
    /// §5.2 off: place buffers on the skyline, not at the lowest valid offset.
    #[arg(long, alias = "tm-no-lowest-position", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_lowest_position: bool,
    /// §5.3 off: no contention phases.
    #[arg(long, alias = "tm-no-phases", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_phases: bool,
    /// §5.4 off: a major backtrack goes back one decision, not to the second-to-last
    /// conflicting placement.
    #[arg(long, alias = "tm-no-backjump", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_backjump: bool,
    /// §5.4 off: do not put failed candidates in front at the jump target.
    #[arg(long, alias = "tm-no-prepend", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_prepend_candidates: bool,
    /// §5.4: the cap on queued candidates after prepending.
    #[arg(long, alias = "tm-max-candidates", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_max_candidates: Option<usize>,
    /// §5.4 off: never leave a subtree for having seen too many backtracks.
    #[arg(long, alias = "tm-no-subtree-limit", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_subtree_limit: bool,
    /// §5.4: the backtrack budget of a subtree.
    #[arg(long, alias = "tm-subtree-backtracks", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_subtree_backtracks: Option<u64>,
    /// Cross-section inference off (it applies to skyline placement only).
    #[arg(long, alias = "tm-no-section-inference", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_section_inference: bool,
    /// §3.1 row order off: candidates need not sit at the lowest position of all.
    #[arg(long, alias = "tm-no-row-order", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_row_order: bool,
    /// Row order takes only the lowest position, not every position below the lowest
    /// top of an unplaced buffer.
    #[arg(long, alias = "tm-no-dominance", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_dominance: bool,
    /// How many buffers each heuristic proposes at a decision point.
    #[arg(long, alias = "tm-per-heuristic", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_per_heuristic: Option<usize>,
    /// Do not search again with wider candidate lists when the root runs out.
    #[arg(long, alias = "tm-no-widen", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_widen: bool,
    /// Canonical sequences off: offsets may decrease along a branch and buffers at the
    /// same offset may come in any order.
    #[arg(long, alias = "tm-no-canonical", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_canonical: bool,
    /// Decision points hold only the heuristics' candidates, not every admissible buffer
    /// once those have failed.
    #[arg(long, alias = "tm-no-complete-candidates", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_complete_candidates: bool,
    /// Cross-section inference without the section floors (the lowest domain of a
    /// section's unplaced buffers).
    #[arg(long, alias = "tm-no-section-floors", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_section_floors: bool,
    /// No restarts: one search with the first heuristic's canonical order.
    #[arg(long, alias = "tm-no-restarts", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_restarts: bool,
    /// Restart rounds stay at the capacity asked for (no tighter capacities).
    #[arg(long, alias = "tm-no-tighten", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_tighten: bool,
    /// Canonical searches do not split into independent components (MiniMalloc's
    /// dynamic decomposition).
    #[arg(long, alias = "tm-no-decomposition", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_dynamic_decomposition: bool,
    /// Search even when the first greedy plan (size order, best fit) fits the capacity.
    #[arg(long, alias = "tm-no-greedy-first", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_greedy_first: bool,
    /// Capacity mode searches the whole problem at once, not its independent parts (those
    /// split at times no buffer crosses) one after the other.
    #[arg(long, alias = "tm-no-independent-parts", hide = true, help_heading = TELAMALLOC)]
    pub telamalloc_no_independent_parts: bool,
}

impl TelamallocArgs {
    pub fn options(&self) -> TelamallocOptions {
        let d = TelamallocOptions::default();
        TelamallocOptions {
            lowest_position: !self.telamalloc_no_lowest_position,
            heuristics: !self.telamalloc_no_heuristics,
            per_heuristic: self.telamalloc_per_heuristic.unwrap_or(d.per_heuristic),
            phases: !self.telamalloc_no_phases,
            row_order: !self.telamalloc_no_row_order,
            dominance: !self.telamalloc_no_dominance,
            complete_candidates: !self.telamalloc_no_complete_candidates,
            widen: !self.telamalloc_no_widen,
            backjump: !self.telamalloc_no_backjump,
            prepend_candidates: !self.telamalloc_no_prepend_candidates,
            max_candidates: self.telamalloc_max_candidates.unwrap_or(d.max_candidates),
            subtree_limit: !self.telamalloc_no_subtree_limit,
            subtree_backtracks: self
                .telamalloc_subtree_backtracks
                .unwrap_or(d.subtree_backtracks),
            canonical: !self.telamalloc_no_canonical,
            section_inference: !self.telamalloc_no_section_inference,
            section_floors: !self.telamalloc_no_section_floors,
            greedy_first: !self.telamalloc_no_greedy_first,
            restarts: !self.telamalloc_no_restarts,
            tighten: !self.telamalloc_no_tighten,
            independent_parts: !self.telamalloc_no_independent_parts,
            dynamic_decomposition: !self.telamalloc_no_dynamic_decomposition,
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
        #[command(flatten)]
        exact: ExactArgs,
        #[command(flatten)]
        boxing: BoxingArgs,
    }

    type Switch = fn(&mut TelamallocOptions) -> &mut bool;

    /// TelaMalloc's switches, each with the earlier spelling it still accepts.
    const SWITCHES: [(&str, &str, Switch); 18] = [
        ("--telamalloc-no-heuristics", "--tm-no-heuristics", |o| {
            &mut o.heuristics
        }),
        (
            "--telamalloc-no-lowest-position",
            "--tm-no-lowest-position",
            |o| &mut o.lowest_position,
        ),
        ("--telamalloc-no-phases", "--tm-no-phases", |o| {
            &mut o.phases
        }),
        ("--telamalloc-no-backjump", "--tm-no-backjump", |o| {
            &mut o.backjump
        }),
        (
            "--telamalloc-no-prepend-candidates",
            "--tm-no-prepend",
            |o| &mut o.prepend_candidates,
        ),
        (
            "--telamalloc-no-subtree-limit",
            "--tm-no-subtree-limit",
            |o| &mut o.subtree_limit,
        ),
        (
            "--telamalloc-no-section-inference",
            "--tm-no-section-inference",
            |o| &mut o.section_inference,
        ),
        ("--telamalloc-no-row-order", "--tm-no-row-order", |o| {
            &mut o.row_order
        }),
        ("--telamalloc-no-dominance", "--tm-no-dominance", |o| {
            &mut o.dominance
        }),
        ("--telamalloc-no-widen", "--tm-no-widen", |o| &mut o.widen),
        ("--telamalloc-no-canonical", "--tm-no-canonical", |o| {
            &mut o.canonical
        }),
        (
            "--telamalloc-no-complete-candidates",
            "--tm-no-complete-candidates",
            |o| &mut o.complete_candidates,
        ),
        (
            "--telamalloc-no-section-floors",
            "--tm-no-section-floors",
            |o| &mut o.section_floors,
        ),
        ("--telamalloc-no-restarts", "--tm-no-restarts", |o| {
            &mut o.restarts
        }),
        ("--telamalloc-no-tighten", "--tm-no-tighten", |o| {
            &mut o.tighten
        }),
        (
            "--telamalloc-no-dynamic-decomposition",
            "--tm-no-decomposition",
            |o| &mut o.dynamic_decomposition,
        ),
        (
            "--telamalloc-no-greedy-first",
            "--tm-no-greedy-first",
            |o| &mut o.greedy_first,
        ),
        (
            "--telamalloc-no-independent-parts",
            "--tm-no-independent-parts",
            |o| &mut o.independent_parts,
        ),
    ];

    /// No flag gives the library's defaults, and each `--telamalloc-no-…` switch turns
    /// off its own technique and nothing else.
    #[test]
    fn each_switch_turns_off_one_technique() {
        let defaults = TelamallocOptions::default();
        assert_eq!(Flags::parse_from(["memplan"]).tm.options(), defaults);
        for (flag, _, switch) in SWITCHES {
            let mut o = Flags::parse_from(["memplan", flag]).tm.options();
            assert!(!*switch(&mut o), "{flag} leaves its technique on");
            *switch(&mut o) = true;
            assert_eq!(o, defaults, "{flag} changes another option");
        }
    }

    /// Every earlier spelling selects what its new name does, so old scripts plan the
    /// same.
    #[test]
    fn earlier_spellings_still_work() {
        for (flag, old, _) in SWITCHES {
            assert_eq!(
                Flags::parse_from(["memplan", old]).tm.options(),
                Flags::parse_from(["memplan", flag]).tm.options(),
                "{old}"
            );
        }
        let pairs: [(&[&str], &[&str]); 8] = [
            (
                &["--tm-max-candidates", "3"],
                &["--telamalloc-max-candidates", "3"],
            ),
            (
                &["--tm-per-heuristic", "2"],
                &["--telamalloc-per-heuristic", "2"],
            ),
            (
                &["--tm-subtree-backtracks", "9"],
                &["--telamalloc-subtree-backtracks", "9"],
            ),
            (&["--bootstrap", "none"], &["--plan-to-beat", "none"]),
            (&["--no-bootstrap"], &["--no-plan-to-beat"]),
            (&["--no-abandon"], &["--no-stop-losing-iterations"]),
            (&["--squeeze", "best-fit"], &["--compaction", "best-fit"]),
            (
                &["--preorders", "length-area-total,total-area-length"],
                &["--preorders", "longest-first,busiest-section-then-area"],
            ),
        ];
        for (old, new) in pairs {
            let parse = |args: &[&str]| {
                let f = Flags::parse_from(std::iter::once("memplan").chain(args.iter().copied()));
                (f.tm.options(), f.exact.options(), f.boxing.options())
            };
            let (o, n) = (parse(old), parse(new));
            assert_eq!(o, n, "{old:?}");
            assert_ne!(n, parse(&[]), "{new:?} changes something");
        }
        let o = Flags::parse_from([
            "memplan",
            "--preorders",
            "total-length-area,size-length-area",
        ]);
        assert_eq!(
            o.exact.options().preorders,
            [Preorder::BusiestSectionThenLength, Preorder::LargestFirst]
        );
    }
}
