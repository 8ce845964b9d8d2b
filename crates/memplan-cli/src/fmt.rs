//! Number formatting for people: `1,234,816`.

pub fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `part` as a percentage of `whole`, two decimals.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0.00%".into();
    }
    format!("{:.2}%", part as f64 * 100.0 / whole as f64)
}

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
