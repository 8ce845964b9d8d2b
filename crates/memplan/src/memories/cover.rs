//! The covering relaxation, solved by Lagrangian relaxation: a lower bound as strong as
//! the linear programme's, and cheap spill sets that cover every overload.
//!
//! # The relaxation
//!
//! Forget where the kept buffers go: a spill set is valid only if, at every time `t`, the
//! spilled buffers live at `t` cover `need(t) = load(t) − C` bytes (`load` counts every
//! buffer not forced slow). With `x_i = 1` for a spilled free buffer, its cost `c_i` and
//! size `s_i`:
//!
//! ```text
//!   min  Σ c_i x_i   subject to   Σ_{i live at t} s_i x_i ≥ need(t)  for every t,   x ∈ {0,1}
//!
//!   time        0   1   2   3   4
//!   need        0   5   9   4   0        rows: the times with need > 0 (1, 2, 3)
//!   a  s=6      [=======)                 a covers rows 1–2
//!   b  s=4          [===========)         b covers rows 2–3
//!   c  s=5      [===)                     c covers row 1
//! ```
//!
//! # The Lagrangian bound
//!
//! Move the cover constraints into the objective with multipliers `y_t ≥ 0`. With
//! `Y_i = Σ_{t ∈ life(i)} y_t` and the reduced cost `r_i = c_i − s_i Y_i`,
//!
//! ```text
//!   L(y) = Σ_t need(t) y_t + Σ_i min(0, r_i)
//! ```
//!
//! is a lower bound for every `y ≥ 0`: for a valid `x`,
//! `Σ c_i x_i ≥ Σ c_i x_i − Σ_t y_t (Σ_{i live at t} s_i x_i − need(t))
//!  = Σ_t need(t) y_t + Σ_i x_i r_i ≥ L(y)`. Its maximum over `y` is the optimum of the
//! linear relaxation (`0 ≤ x ≤ 1`), which is at least the fractional cover of any single
//! time (put all the weight on that time). Subgradient ascent (Held and Karp's step,
//! `λ (U − L) / ‖g‖²` with `U` the best cover found) climbs towards it.
//!
//! The bound is *certified* in integers: the best `y` is rounded down to `Y_t · 2^−k`
//! (still `≥ 0`, so still a valid multiplier) and `L` evaluated exactly in 128-bit
//! arithmetic; the costs being integers, its ceiling is a bound too. Floating point
//! only steers the search.
//!
//! # Covers from the multipliers
//!
//! Every few steps, the spill set `{i : r_i < 0}` is completed into a cover by a sweep
//! over time that spills, wherever some need is left, the live buffer with the lowest
//! reduced cost per byte, and then pruned: the most expensive spilled buffers are kept
//! back whenever the load allows (Beasley's Lagrangian heuristic for set covering). The
//! cheapest cover found is the spill set the planner places next.

use crate::budget::Budget;
use crate::types::{BufferIdx, Time};

use super::heuristic::{cover_overloads_by, unspill_by_load};
use super::model::{Decision, LevelModel};

/// Subgradient steps at most.
const MAX_STEPS: usize = 400;
/// Steps without a better bound before the step factor halves.
const STALL_STEPS: usize = 15;
/// The step factor below which the ascent stops.
const MIN_FACTOR: f64 = 1e-4;
/// The first few steps all build a cover; later ones every `COVER_EVERY`.
const COVER_EVERY: usize = 8;

/// The answer of [`solve`].
pub(crate) struct Relaxation {
    /// A certified lower bound on the cost of every valid spill set (forced-slow buffers
    /// included), or 0.
    pub(crate) bound: u64,
    /// The reduced costs of the multipliers that gave the cheapest cover, per buffer
    /// (free buffers only; a buffer live at no overloaded time keeps its cost), and the
    /// cost of that cover; `None` when nothing needs covering.
    pub(crate) keys: Option<(Vec<f64>, u64)>,
}

impl Relaxation {
    /// The cover of [`Relaxation::keys`] for `model`'s capacity (which may be lower than
    /// the one the multipliers were found for).
    pub(crate) fn cover(&self, model: &LevelModel<'_>) -> Option<Vec<bool>> {
        self.keys
            .as_ref()
            .map(|(reduced, _)| cover_from(model, reduced))
    }
}

/// The rows (times with need) and, per free buffer that covers one, its row ranges.
struct Rows {
    need: Vec<u64>,
    /// Free buffers covering at least one row.
    cands: Vec<BufferIdx>,
    /// Per candidate, its row ranges `[a, b)` in `ranges[first[k]..first[k + 1]]`.
    first: Vec<usize>,
    ranges: Vec<(usize, usize)>,
    /// The cost of the buffers forced slow.
    slow_cost: u64,
}

impl Rows {
    fn new(model: &LevelModel<'_>) -> Rows {
        let bufs = model.problem.buffers();
        let counted = || {
            model
                .problem
                .indexed()
                .filter(|&(i, _)| model.base[i] != Decision::Slow)
                .map(|(_, b)| b)
        };
        let mut times: Vec<Time> = counted()
            .flat_map(|b| b.live_segments().flat_map(|s| [s.start, s.end]))
            .collect();
        times.sort_unstable();
        times.dedup();
        let at = |t: Time| times.partition_point(|&x| x < t);
        let mut diff = vec![0i128; times.len() + 1];
        for b in counted() {
            let size = i128::from(b.size.get());
            for s in b.live_segments() {
                diff[at(s.start)] += size;
                diff[at(s.end)] -= size;
            }
        }
        // row_before[k]: rows among the elementary intervals before k.
        let mut need = Vec::new();
        let mut row_before = Vec::with_capacity(times.len() + 1);
        let mut load = 0i128;
        let capacity = i128::from(model.capacity.get());
        for d in &diff {
            row_before.push(need.len());
            load += d;
            if load > capacity {
                need.push((load - capacity) as u64);
            }
        }
        let (mut cands, mut first, mut ranges) = (Vec::new(), vec![0], Vec::new());
        for i in model.decided(Decision::Free) {
            for s in bufs[i].live_segments() {
                let (a, b) = (row_before[at(s.start)], row_before[at(s.end)]);
                if a < b {
                    ranges.push((a, b));
                }
            }
            if ranges.len() > *first.last().unwrap_or(&0) {
                cands.push(i);
                first.push(ranges.len());
            }
        }
        let slow_cost = model.decided(Decision::Slow).map(|i| model.costs[i]).sum();
        Rows {
            need,
            cands,
            first,
            ranges,
            slow_cost,
        }
    }

    fn spans(&self, k: usize) -> &[(usize, usize)] {
        &self.ranges[self.first[k]..self.first[k + 1]]
    }
}

/// The Lagrangian ascent and its covers (see the module docs), until the budget is spent
/// or the ascent stalls. Deterministic for a given input without a budget.
pub(crate) fn solve(model: &LevelModel<'_>, budget: &Budget) -> Relaxation {
    let rows = Rows::new(model);
    let mut out = Relaxation {
        bound: rows.slow_cost,
        keys: None,
    };
    if rows.need.is_empty() || rows.cands.is_empty() {
        return out;
    }
    let bufs = model.problem.buffers();
    let sizes: Vec<f64> = rows
        .cands
        .iter()
        .map(|&i| bufs[i].size.get() as f64)
        .collect();
    let costs: Vec<f64> = rows.cands.iter().map(|&i| model.costs[i] as f64).collect();
    let m = rows.need.len();
    let mut y = vec![0f64; m];
    let mut best_y = y.clone();
    let mut best_l = f64::NEG_INFINITY;
    let mut upper = f64::INFINITY;
    let (mut factor, mut stall) = (2.0f64, 0usize);
    let mut reduced = vec![0f64; rows.cands.len()];
    let mut by_buffer: Vec<f64> = model.costs.iter().map(|&c| c as f64).collect();
    for step in 0..MAX_STEPS {
        if budget.exhausted() {
            break;
        }
        let mut covered = vec![0f64; m + 1];
        let l = evaluate(&rows, &y, &sizes, &costs, &mut reduced, &mut covered);
        if l > best_l * (1.0 + 1e-9) + 1e-9 {
            best_l = l;
            best_y.clone_from(&y);
            stall = 0;
        } else {
            stall += 1;
            if stall >= STALL_STEPS {
                factor /= 2.0;
                stall = 0;
            }
        }
        if step < COVER_EVERY || step % COVER_EVERY == 0 {
            for (k, &i) in rows.cands.iter().enumerate() {
                by_buffer[i] = reduced[k];
            }
            let c = model.cost_of(&cover_from(model, &by_buffer));
            if out.keys.as_ref().is_none_or(|(_, best)| c < *best) {
                out.keys = Some((by_buffer.clone(), c));
            }
            upper = upper.min(c as f64);
        }
        if factor < MIN_FACTOR || best_l >= upper - 0.5 {
            break;
        }
        // The projected subgradient: the uncovered need at each row.
        let mut g = vec![0f64; m];
        let mut acc = 0f64;
        for j in 0..m {
            acc += covered[j];
            g[j] = rows.need[j] as f64 - acc;
            if y[j] <= 0.0 && g[j] < 0.0 {
                g[j] = 0.0;
            }
        }
        let norm: f64 = g.iter().map(|v| v * v).sum();
        if norm <= 0.0 {
            break; // the Lagrangian's own set covers every row: the bound is its cost
        }
        let t = factor * (upper - l).max(0.0) / norm;
        for j in 0..m {
            y[j] = (y[j] + t * g[j]).max(0.0);
        }
    }
    out.bound = out.bound.saturating_add(certify(model, &rows, &best_y));
    out
}

/// `L(y)`; fills the candidates' reduced costs and, as a difference array over the rows,
/// the bytes that the Lagrangian's spill set covers.
fn evaluate(
    rows: &Rows,
    y: &[f64],
    sizes: &[f64],
    costs: &[f64],
    reduced: &mut [f64],
    covered: &mut [f64],
) -> f64 {
    let mut prefix = vec![0f64; y.len() + 1];
    for (j, v) in y.iter().enumerate() {
        prefix[j + 1] = prefix[j] + v;
    }
    let mut l: f64 = rows.need.iter().zip(y).map(|(&n, v)| n as f64 * v).sum();
    for (k, r) in reduced.iter_mut().enumerate() {
        let w: f64 = rows
            .spans(k)
            .iter()
            .map(|&(a, b)| prefix[b] - prefix[a])
            .sum();
        *r = costs[k] - sizes[k] * w;
        if *r < 0.0 {
            l += *r;
            for &(a, b) in rows.spans(k) {
                covered[a] += sizes[k];
                covered[b] -= sizes[k];
            }
        }
    }
    l
}

/// The cover from reduced costs (per buffer): spill the free buffers below zero,
/// complete by the lowest reduced cost per byte, prune. Forced-slow buffers are spilled.
fn cover_from(model: &LevelModel<'_>, reduced: &[f64]) -> Vec<bool> {
    let mut spilled = vec![false; model.len()];
    let mut per_byte = vec![f64::INFINITY; model.len()];
    for (i, b) in model.problem.indexed() {
        match model.base[i] {
            Decision::Slow => spilled[i] = true,
            Decision::Fast => {}
            Decision::Free => {
                spilled[i] = reduced[i] < 0.0;
                per_byte[i] = reduced[i].max(0.0) / b.size.get().max(1) as f64;
            }
        }
    }
    // Non-negative floats order like their bits.
    cover_overloads_by(model, &mut spilled, |i| (per_byte[i].to_bits(), i));
    unspill_by_load(model, &mut spilled);
    spilled
}

/// `L(y')` in exact arithmetic for `y'` = `y` rounded down to multiples of `2^−k`, with
/// `k ∈ [0, 100]` chosen so that `Σ Y_t` stays near 2^40; its ceiling, or 0 when it does
/// not fit in 128 bits or is negative. Any `y' ≥ 0` gives a valid bound, so the rounding
/// only costs precision.
fn certify(model: &LevelModel<'_>, rows: &Rows, y: &[f64]) -> u64 {
    let total: f64 = y.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return 0;
    }
    // y_t = Y_t / 2^k; k ≥ 0 (multipliers above 2^40 in total are cut to integers).
    let k = (40 - total.log2().ceil() as i64).clamp(0, 100) as i32;
    let scale = 2f64.powi(k);
    let big: Vec<u64> = y.iter().map(|&v| (v * scale).floor() as u64).collect();
    let mut prefix = vec![0u128; big.len() + 1];
    for (j, &v) in big.iter().enumerate() {
        prefix[j + 1] = prefix[j] + u128::from(v);
    }
    // 2^k · L = Σ need·Y + Σ min(0, c·2^k − s·ΣY).
    let Some(mut scaled) = rows.need.iter().zip(&big).try_fold(0i128, |acc, (&n, &v)| {
        let term = u128::from(n).checked_mul(u128::from(v))?;
        acc.checked_add(i128::try_from(term).ok()?)
    }) else {
        return 0;
    };
    let bufs = model.problem.buffers();
    for (kk, &i) in rows.cands.iter().enumerate() {
        let w: u128 = rows
            .spans(kk)
            .iter()
            .map(|&(a, b)| prefix[b] - prefix[a])
            .sum();
        let Some(gain) = u128::from(bufs[i].size.get()).checked_mul(w) else {
            return 0;
        };
        let price = u128::from(model.costs[i])
            .checked_shl(k as u32)
            .filter(|p| {
                // checked_shl only rejects shifts ≥ 128; catch the lost high bits too.
                k == 0 || p >> k == u128::from(model.costs[i])
            });
        match price {
            Some(p) if p >= gain => {}
            Some(p) => {
                let Some(s) = i128::try_from(gain - p)
                    .ok()
                    .and_then(|d| scaled.checked_sub(d))
                else {
                    return 0;
                };
                scaled = s;
            }
            None => {} // the price exceeds 2^128 > gain: the term is 0
        }
    }
    if scaled <= 0 {
        return 0;
    }
    let denom = 1i128 << k;
    let ceil = scaled / denom + i128::from(scaled % denom != 0);
    u64::try_from(ceil).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memories::model::Decision;
    use crate::types::{Buffer, Problem, Size};

    /// Two times each need 4 bytes; `a` covers both at 8, `b` and `c` one each at 4. The
    /// cheapest cover of either time alone costs 4, and no two times are disjoint (both
    /// hold `a`), so the per-time bounds stop at 4; the relaxation proves 8.
    #[test]
    fn the_relaxation_proves_more_than_any_single_time() {
        let problem = Problem::new(vec![
            Buffer::new("a", 0, 2, 4),
            Buffer::new("b", 0, 1, 4),
            Buffer::new("c", 1, 2, 4),
            Buffer::new("f", 0, 2, 4),
        ])
        .unwrap();
        let costs = [8, 4, 4, 0];
        let base = vec![
            Decision::Free,
            Decision::Free,
            Decision::Free,
            Decision::Fast,
        ];
        let model = LevelModel::new(&problem, Size(8), costs.to_vec(), base);
        let relaxation = solve(&model, &Budget::unlimited());
        assert_eq!(relaxation.bound, 8);
        let (_, cost) = relaxation.keys.as_ref().unwrap();
        assert_eq!(*cost, 8);
        let cover = relaxation.cover(&model).unwrap();
        assert!(!cover[3], "the forced-fast buffer stays");
        assert_eq!(model.cost_of(&cover), 8);
        let per_time = super::super::bound::lower_bound(
            &problem,
            8,
            &model.costs,
            &model.base,
            super::super::bound::BoundOptions {
                rounding: true,
                chain: true,
                holes: true,
            },
        );
        assert_eq!(per_time, super::super::bound::Bound::AtLeast(4));
    }

    /// Forced-slow buffers' costs are part of the bound; with nothing to cover, that is
    /// all of it.
    #[test]
    fn forced_slow_costs_count_and_nothing_to_cover_is_cheap() {
        let problem =
            Problem::new(vec![Buffer::new("a", 0, 2, 4), Buffer::new("b", 0, 2, 4)]).unwrap();
        let costs = [5, 7];
        let base = vec![Decision::Slow, Decision::Free];
        let model = LevelModel::new(&problem, Size(4), costs.to_vec(), base);
        let relaxation = solve(&model, &Budget::unlimited());
        assert_eq!(relaxation.bound, 5);
        assert!(relaxation.keys.is_none());
    }
}
