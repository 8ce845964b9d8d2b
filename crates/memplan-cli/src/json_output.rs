//! `memplan plan --json`: the run's summary as one JSON object on stderr, in place of
//! the text line, for scripts.

use serde_json::json;

/// The summary of one `plan` run. `height` is `None` when no plan was found.
pub struct Summary<'a> {
    pub outcome: &'a str,
    pub buffers: usize,
    pub max_load: u64,
    pub lower_bound: u64,
    /// The height above the lower bound (the max load, or the fixed buffers' top).
    pub fragmentation: Option<u64>,
    pub height: Option<u64>,
    pub capacity: Option<u64>,
    pub planner: String,
    pub elapsed: std::time::Duration,
    pub interrupted: bool,
}

impl Summary<'_> {
    pub fn to_json(&self) -> String {
        json!({
            "outcome": self.outcome,
            "buffers": self.buffers,
            "max_load": self.max_load,
            "lower_bound": self.lower_bound,
            "height": self.height,
            "fragmentation": self.fragmentation,
            "capacity": self.capacity,
            "planner": self.planner,
            "optimal": self.outcome == "optimal",
            "elapsed_ms": millis(self.elapsed),
            "interrupted": self.interrupted,
        })
        .to_string()
    }
}

/// The summary of one `plan --spill` run; the plan's figures are `None` without a plan.
pub struct SpillSummary {
    pub outcome: &'static str,
    pub buffers: usize,
    pub fast_capacity: u64,
    pub spilled_buffers: Option<usize>,
    pub spilled_bytes: Option<u64>,
    pub cost: Option<u64>,
    pub lower_bound: u64,
    pub fast_height: Option<u64>,
    pub slow_height: Option<u64>,
    pub elapsed: std::time::Duration,
}

impl SpillSummary {
    pub fn to_json(&self) -> String {
        let gap = self.cost.map(|c| c.saturating_sub(self.lower_bound));
        json!({
            "outcome": self.outcome,
            "buffers": self.buffers,
            "fast_capacity": self.fast_capacity,
            "spilled_buffers": self.spilled_buffers,
            "spilled_bytes": self.spilled_bytes,
            "cost": self.cost,
            "lower_bound": self.lower_bound,
            "gap": gap,
            "gap_percent": gap.and_then(|g| match (g, self.lower_bound) {
                (0, _) => Some(0.0),
                (_, 0) => None,
                (g, b) => Some(g as f64 * 100.0 / b as f64),
            }),
            "fast_height": self.fast_height,
            "slow_height": self.slow_height,
            "optimal": self.outcome == "optimal",
            "elapsed_ms": millis(self.elapsed),
        })
        .to_string()
    }
}

/// Writes a two-level plan as JSON: the figures, then the buffers (one a line), each
/// with its `memory` (`fast` or `slow`) and its `offset` in that level.
pub fn write_spill_plan_json(
    w: &mut dyn std::io::Write,
    run: &crate::spill::SpillRun<'_>,
    plan: &memplan::spill::TwoLevelPlan,
) -> std::io::Result<()> {
    let summary = run.summary();
    let head = json!({
        "fast_capacity": run.capacity,
        "cost": plan.cost,
        "lower_bound": run.report.lower_bound,
        "optimal": summary.outcome == "optimal",
        "fast_height": plan.fast_height.get(),
        "slow_height": plan.slow_height.get(),
        "spilled_buffers": summary.spilled_buffers,
        "spilled_bytes": summary.spilled_bytes,
    })
    .to_string();
    w.write_all(&head.as_bytes()[..head.len() - 1])?;
    w.write_all(b",\n  \"buffers\": [")?;
    for (i, b) in run.problem.buffers().iter().enumerate() {
        let mut o = serde_json::Map::new();
        o.insert("id".into(), json!(b.id));
        o.insert("start".into(), json!(b.lifetime.start.get()));
        o.insert("end".into(), json!(b.lifetime.end.get()));
        o.insert("size".into(), json!(b.size.get()));
        if b.alignment.get() != 1 {
            o.insert("alignment".into(), json!(b.alignment.get()));
        }
        if let Some(f) = b.fixed_offset {
            o.insert("fixed_offset".into(), json!(f.get()));
        }
        if !b.gaps.is_empty() {
            let gaps: Vec<(u64, u64)> = b
                .gaps
                .iter()
                .map(|g| (g.start.get(), g.end.get()))
                .collect();
            o.insert("gaps".into(), json!(gaps));
        }
        if run.data.costs.is_some() {
            o.insert("cost".into(), json!(run.cost(i)));
        }
        let level = if plan.spilled[i] { "slow" } else { "fast" };
        o.insert("memory".into(), json!(level));
        o.insert("offset".into(), json!(plan.offsets[i].get()));
        w.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        serde_json::to_writer(&mut *w, &o)?;
    }
    w.write_all(b"\n  ]\n}\n")
}

/// Milliseconds rounded to the microsecond (`0.201`, not `0.20074399999999998`).
pub fn millis(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 1e6).round() / 1e3
}
