//! Number formatting for people: `1,234,816`, `0.71%`.

/// `v` with thousands separators: `1,234,816`.
/// `n` and `noun`, in the plural unless `n` is 1: `1 buffer`, `2,000 buffers`.
pub fn count(n: u64, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {noun}{s}", thousands(n))
}

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
