//! Flags of the exact search (`memplan plan --exact` and its ablation switches).

use memplan::{ExactOptions, Preorder};

use crate::Failure;

/// The exact search's flags, flattened into `plan`.
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
        value_delimiter = ','
    )]
    pub preorders: Vec<String>,
    /// Stop each capacity search after this many nodes per preorder.
    #[arg(long, hide = true, help_heading = "Exact search: ablations and tuning")]
    pub node_limit: Option<u64>,
}

impl ExactArgs {
    /// The library options these flags describe.
    pub fn options(&self) -> Result<ExactOptions, Failure> {
        let mut o = ExactOptions {
            canonical: !self.no_canonical,
            section_inference: !self.no_section_inference,
            monotonic_floor: !self.no_monotonic_floor,
            unallocated_floor: !self.no_unallocated_floor,
            dominance: !self.no_dominance,
            decomposition: !self.no_decomposition,
            static_preordering: !self.no_static_preordering,
            tighten: !self.no_tighten,
            node_limit: self.node_limit,
            ..ExactOptions::default()
        };
        if !self.preorders.is_empty() {
            o.preorders = self
                .preorders
                .iter()
                .map(|name| {
                    Preorder::ALL
                        .into_iter()
                        .find(|p| p.name() == name)
                        .ok_or_else(|| {
                            Failure::new(2, format!("unknown preorder '{name}'; see --help"))
                        })
                })
                .collect::<Result<_, _>>()?;
        }
        Ok(o)
    }
}
