//! `memplan plan --json`: the run's summary as one JSON object on stderr, in place of
//! the text line, for scripts.

use serde_json::json;

/// The summary of one `plan` run. `height` is `None` when no plan was found.
pub struct Summary<'a> {
    pub outcome: &'a str,
    pub buffers: usize,
    pub max_load: u64,
    pub lower_bound: u64,
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
            "fragmentation": self.height.map(|h| h.saturating_sub(self.max_load)),
            "capacity": self.capacity,
            "planner": self.planner,
            "optimal": self.outcome == "optimal",
            "elapsed_ms": self.elapsed.as_secs_f64() * 1000.0,
            "interrupted": self.interrupted,
        })
        .to_string()
    }
}
