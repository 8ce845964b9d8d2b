//! Number formatting for people: `1,234,816`.

pub use memplan_render::fmt::{count, percent, thousands};

pub fn millis(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
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
}
