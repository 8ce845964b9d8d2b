//! Numbers for people (`1,234,816`, `12.50%`, `3.2 ms`) and for JSON summaries.

pub use memplan_render::fmt::{count, percent, thousands};

/// A duration in milliseconds, one decimal: `3.2 ms`.
pub fn millis(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// A duration in milliseconds for a JSON summary, rounded to the microsecond (`0.201`,
/// not `0.20074399999999998`).
pub fn json_millis(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 1e6).round() / 1e3
}

/// `fragmentation F (P%)`: a plan of height `h` over the problem's lower `bound`, which is
/// the max load unless fixed buffers reach higher; then it says so (`over the lower bound
/// 104 that the fixed buffers set`), since the README defines fragmentation against the
/// max load.
pub fn fragmentation(h: u64, max_load: u64, bound: u64) -> String {
    let f = h.saturating_sub(bound);
    let against = match bound > max_load {
        true => format!(
            " over the lower bound {} that the fixed buffers set",
            thousands(bound)
        ),
        false => String::new(),
    };
    format!(
        "fragmentation {} ({}){against}",
        thousands(f),
        percent(f, bound)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234816), "1,234,816");
        assert_eq!(percent(1, 3), "33.33%");
    }

    #[test]
    fn json_milliseconds_keep_three_decimals() {
        let d = std::time::Duration::from_nanos(200_743_999);
        assert_eq!(json_millis(d), 200.744);
        assert_eq!(millis(d), "200.7 ms");
    }
}
