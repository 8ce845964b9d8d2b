//! Contention-based grouping into phases (TelaMalloc §5.3, Fig. 9), and the per-buffer
//! contention of the §3.1 baseline.
//!
//! First the timeline is cut at every time that no buffer crosses (the time components):
//! each piece is independent. Within each piece, a falling *threshold* (100% of the
//! capacity, then 90%, … down to 0) marks the maximal time ranges whose load reaches
//! it; the still-ungrouped buffers that overlap one such range become one phase.
//!
//! ```text
//!   load  ^      ____                   threshold 90%: the ranges A and B
//!         |  A  |    |     B  __          each become a phase;
//!   90% --|--+--|----|-------|--|------   threshold 80%: what overlaps C ...
//!         |  |__|    |__   __|  |
//!         |            C|_|     |__
//!         +----------------------------> time
//! ```
//!
//! Phases are numbered in the order found, so a lower number means higher contention.

use crate::analysis::{load_profile, time_components};
use crate::index::TimeIndex;
use crate::types::{BufferIdx, Lifetime, Problem, Size};

/// How many threshold steps from 100% of the capacity down to 0.
const THRESHOLD_STEPS: u64 = 10;

/// The phase of every buffer, and the number of phases.
pub(super) fn phases(problem: &Problem, capacity: Size) -> (Vec<u32>, u32) {
    let n = problem.len();
    let mut phase = vec![u32::MAX; n];
    if n == 0 {
        return (phase, 0);
    }
    let steps = load_profile(problem);
    let components = time_components(problem);
    let mut index = TimeIndex::new(problem);
    let mut count = 0u32;
    let mut found: Vec<BufferIdx> = Vec::new();
    // Per component: its load steps `[first, last)` and its peak.
    let spans: Vec<(usize, usize, Size)> = components
        .iter()
        .map(|c| {
            let first = steps.partition_point(|s| s.time < c.span.start);
            let last = steps.partition_point(|s| s.time < c.span.end);
            let peak = steps[first..last]
                .iter()
                .map(|s| s.load)
                .max()
                .unwrap_or(Size::ZERO);
            (first, last, peak)
        })
        .collect();
    let mut left: Vec<usize> = components.iter().map(|c| c.buffers.len()).collect();
    for level in 0..=THRESHOLD_STEPS {
        let share = u128::from(THRESHOLD_STEPS - level);
        let threshold =
            Size((u128::from(capacity.get()) * share / u128::from(THRESHOLD_STEPS)) as u64);
        for (ci, c) in components.iter().enumerate() {
            // The load steps inside the component: step k holds on [time_k, time_k+1).
            let (first, last, peak) = spans[ci];
            if left[ci] == 0 || (peak < threshold && level < THRESHOLD_STEPS) {
                continue;
            }
            let mut k = first;
            while k < last {
                let load = steps[k].load;
                if load < threshold || (level < THRESHOLD_STEPS && load == Size::ZERO) {
                    k += 1;
                    continue;
                }
                let start = steps[k].time;
                while k < last && steps[k].load >= threshold {
                    k += 1;
                }
                let end = if k < steps.len() {
                    steps[k].time
                } else {
                    c.span.end
                };
                let range = Lifetime {
                    start,
                    end: end.max(start + 1),
                };
                found.clear();
                index.for_each_overlapping(range, |i| found.push(i));
                if found.is_empty() {
                    continue;
                }
                for &i in &found {
                    phase[i] = count;
                    index.remove(i);
                }
                left[ci] = left[ci].saturating_sub(found.len());
                count += 1;
            }
        }
    }
    // The last level (threshold 0) covers every time step of every component that has
    // a load; a buffer gapped over its whole lifetime may sit in none (found by
    // fuzzing). Such buffers make one last phase.
    if phase.contains(&u32::MAX) {
        for p in phase.iter_mut().filter(|p| **p == u32::MAX) {
            *p = count;
        }
        count += 1;
    }
    (phase, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Buffer;

    #[test]
    fn high_contention_first_and_everyone_grouped() {
        // Two peaks separated by a trough, then an independent low piece.
        let p = Problem::new(vec![
            Buffer::new("a", 0, 2, 9),
            Buffer::new("b", 1, 5, 1),
            Buffer::new("c", 4, 6, 8),
            Buffer::new("d", 10, 12, 2),
        ])
        .unwrap();
        let (phase, count) = phases(&p, Size(10));
        assert!(count >= 3);
        // a (load 10 at time 1) is in the first phase, with b which overlaps the peak.
        assert_eq!(phase[0], 0);
        assert_eq!(phase[1], 0);
        assert!(phase[2] > 0 && phase[2] < phase[3], "{phase:?}");
    }
}
