//! The latent invariants of Buchsbaum et al.'s boxing (idealloc §3.2) and the choice of
//! the error parameter ε (idealloc §5.6).
//!
//! With `r = h_max / h_min` the ratio of the largest to the smallest job size, the proof
//! of Theorem 16 only terminates, and its last Corollary 15 only gets non-zero box
//! capacities, when
//!
//! ```text
//!   (ineq. 11)  ((log2 r)^14 / r)^(1/6)  <=  ε  <=  φ · (log2 r)^2      φ = (√5 − 1)/2
//!   (ineq. 10)  μ = ε / (log2 r)^2  <=  φ
//!   (ineq. 12)  (log2 r)^2 / r  <  φ^6        (true for every r > 2216.53)
//! ```
//!
//! Inputs whose ratio is at most 2216.53 get a *dummy job* (see [`dummy_size`]) so that
//! ineq. 12 holds and the range of ineq. 11 is not empty.
//!
//! The arithmetic here is on ratios of sizes, in floating point.

use crate::types::Size;

/// `a / b`, as a float.
#[inline]
fn ratio(a: Size, b: Size) -> f64 {
    a.get() as f64 / b.get() as f64
}

/// φ = (√5 − 1)/2, the universal upper bound on μ (ineq. 10).
pub(super) const PHI: f64 = 0.618_033_988_749_894_9;

/// Inputs whose `h_max / h_min` is at most this need the dummy job (ineq. 12).
pub(super) const DUMMY_RATIO: f64 = 2216.53;

/// How many values of ε the calibration tries across the range of ineq. 11
/// (idealloc §5.6 steps by 1% of the range).
const CALIBRATION_STEPS: usize = 100;

/// True when `r` satisfies ineq. 12 and exceeds 2216.53 (the branch the paper keeps).
pub(super) fn ratio_is_legal(r: f64) -> bool {
    let l = r.log2();
    r > DUMMY_RATIO && l * l / r < PHI.powi(6)
}

/// The size of the dummy job for an input whose smallest job has `h_min` bytes, or
/// `None` when the input's ratio is already legal (idealloc §5.6: `⌈2216.53 · h_min⌉`,
/// bumped until ineq. 12 holds strictly).
pub(super) fn dummy_size(h_min: Size, h_max: Size) -> Option<Size> {
    if ratio_is_legal(ratio(h_max, h_min)) {
        return None;
    }
    let mut size = Size((DUMMY_RATIO * h_min.get() as f64).ceil() as u64);
    while !ratio_is_legal(ratio(size, h_min)) {
        size += Size(1.max(size.get() / 1_000_000));
    }
    Some(size.max(h_max))
}

/// The range of legal ε for ratio `r` (ineq. 11). `r` must be legal ([`ratio_is_legal`]).
pub(super) fn epsilon_range(r: f64) -> (f64, f64) {
    let l = r.log2();
    let lo = (l.powi(14) / r).powf(1.0 / 6.0);
    let hi = PHI * l * l;
    (lo, hi.max(lo))
}

/// μ for the current ratio (Theorem 16: `ε / (log2 r)^2`), capped at φ (ineq. 10).
#[inline]
pub(super) fn mu(epsilon: f64, r: f64) -> f64 {
    let l = r.log2();
    if l <= 0.0 {
        return PHI;
    }
    (epsilon / (l * l)).min(PHI)
}

/// One round of Theorem 16's loop on the current smallest size: `None` when the loop
/// stops (`(log2 r)^2 < 1/ε`), else `(μ, H)` with `H = ⌈μ^5 h_max / (log2 r)^2⌉`.
pub(super) fn small_job_round(epsilon: f64, h_min: Size, h_max: Size) -> Option<(f64, Size)> {
    let r = ratio(h_max, h_min);
    let l = r.log2();
    if r <= 1.0 || l * l < 1.0 / epsilon {
        return None;
    }
    let m = mu(epsilon, r);
    let h = (m.powi(5) * h_max.get() as f64 / (l * l)).ceil().max(1.0) as u64;
    Some((m, Size(h)))
}

/// Predicts the ratio `r*` that Theorem 16's loop ends with, from the job sizes alone:
/// each round boxes every job of size at most `μH` into boxes of size `H`, which depends
/// only on sizes. `sizes` must be sorted and distinct.
pub(super) fn final_ratio(sizes: &[Size], epsilon: f64) -> f64 {
    let h_max = *sizes.last().expect("at least one size");
    // The current distinct sizes: originals from `next` on, plus the box sizes made.
    let mut next = 0usize;
    let mut boxes: Vec<Size> = Vec::new();
    for _round in 0..MAX_ROUNDS {
        let h_min = sizes[next].min(boxes.iter().copied().min().unwrap_or(Size(u64::MAX)));
        let Some((m, h)) = small_job_round(epsilon, h_min, h_max) else {
            break;
        };
        let threshold = m * h.get() as f64;
        if h_min.get() as f64 > threshold {
            break;
        }
        while next < sizes.len() - 1 && sizes[next].get() as f64 <= threshold {
            next += 1;
        }
        boxes.retain(|&b| b.get() as f64 > threshold);
        boxes.push(h);
    }
    let h_min = sizes[next].min(boxes.iter().copied().min().unwrap_or(Size(u64::MAX)));
    ratio(h_max, h_min)
}

/// Theorem 16's loop never runs more rounds than this (each round raises `h_min`).
pub(super) const MAX_ROUNDS: usize = 64;

/// Picks ε (idealloc §5.6): from the low end of ineq. 11 upwards in steps of 1% of the
/// range, the value whose predicted `r*` is smallest (ties: the smaller ε). With
/// `calibrate` off, the low end of the range.
pub(super) fn choose_epsilon(sizes: &[Size], calibrate: bool) -> f64 {
    let h_max = *sizes.last().expect("at least one size");
    let r = ratio(h_max, sizes[0]);
    let (lo, hi) = epsilon_range(r);
    if !calibrate || hi <= lo {
        return lo;
    }
    let mut best = (f64::INFINITY, lo);
    for step in 0..CALIBRATION_STEPS {
        let eps = lo + (hi - lo) * step as f64 / CALIBRATION_STEPS as f64;
        let r_star = final_ratio(sizes, eps);
        if r_star < best.0 {
            best = (r_star, eps);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ineq_12_threshold() {
        assert!(!ratio_is_legal(2000.0));
        assert!(!ratio_is_legal(2216.0));
        assert!(ratio_is_legal(2217.0));
        assert!(ratio_is_legal(1e12));
        assert_eq!(dummy_size(Size(10), Size(50_000)), None);
        let d = dummy_size(Size(10), Size(20)).unwrap();
        assert!(
            ratio_is_legal(ratio(d, Size(10))) && d <= Size(22_170),
            "{d}"
        );
    }

    #[test]
    fn epsilon_range_is_nonempty_and_mu_capped() {
        for r in [2217.0, 1e4, 1e6, 1e9, 1e15] {
            let (lo, hi) = epsilon_range(r);
            assert!(lo > 0.0 && lo <= hi, "r {r}: {lo} {hi}");
            assert!(mu(hi, r) <= PHI + 1e-12);
        }
    }

    #[test]
    fn predicted_ratio_shrinks() {
        let sizes: Vec<Size> = [1, 7, 64, 4096, 100_000, 3_000_000].map(Size).to_vec();
        let eps = choose_epsilon(&sizes, true);
        let r = final_ratio(&sizes, eps);
        assert!(r <= 3_000_000.0);
        assert!(r >= 1.0);
    }
}
