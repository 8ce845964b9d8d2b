//! The lower bound on the cost of spilling, from one sweep over time.
//!
//! # The cover bound
//!
//! Let `load(t)` be the total size of the buffers not yet spilled that are live at `t`
//! (gaps honoured) and `need(t) = load(t) − C`. Every valid spill set must contain buffers
//! live at `t` of total size at least `need(t)`: otherwise more than `C` bytes are live
//! at `t` in fast memory, and no plan fits. So the cost of a valid spill set is at least
//! the cheapest *cover* of `need(t)` by the undecided buffers live at `t`, for every `t`.
//! The cheapest *fractional* cover (a fractional knapsack) is found by taking buffers in
//! increasing cost per byte, the last one in part: it is at most the cheapest integer
//! cover, and, costs being integers, so is its ceiling. Buffers already spilled add their
//! cost; buffers that must stay fast cannot cover anything, and when they alone exceed
//! `C` at some time the answer is [`Bound::Infeasible`].
//!
//! The undecided buffers get a rank by cost per byte once; a Fenwick tree over the ranks
//! holds the sizes and costs of those live at the current time, so the fractional cover
//! is one descent, O(log n), at each time where the live set changed and `need > 0`.
//! The whole bound costs O(n log n).
//!
//! # Integer rounding ([`BoundOptions::rounding`])
//!
//! Let `k` be the *critical* buffer, the one the fractional cover takes in part. An
//! integer cover either contains `k` or not (Martello and Toth's branching on the
//! critical item, here for a covering knapsack):
//! - with `k`: its cost is at least `cost(k)` plus the fractional cover of
//!   `need − size(k)` by the other buffers, which the cheaper-ranked ones provide;
//! - without `k`: at least the fractional cover of `need` by the buffers other than `k`,
//!   which is the fractional cover of `need + size(k)` by all of them less `cost(k)` (the
//!   cover of that larger need takes `k` whole).
//!
//! The smaller of the two (each rounded up) is a valid bound, and at least the fractional
//! cover, since each branch is a fractional cover with one more constraint.
//!
//! # The exact cover (with [`BoundOptions::rounding`], when it is small)
//!
//! Buffers cannot be spilled in part: the cover must be made of whole buffers. With `g`
//! the gcd of the undecided buffers' sizes, covering `need` bytes means covering
//! `⌈need / g⌉` units, and the cheapest integer cover is a 0/1 knapsack over the live
//! undecided buffers, `best[u] = min(best[u], best[max(0, u − size/g)] + cost)`, in
//! O(live × units). It is the strongest bound one time can give, and it matters when
//! sizes are coarse next to the need: with costs equal to sizes, every fractional cover
//! of 104,858 bytes costs 104,858, but on the challenging `E` at capacity 943,718 the
//! smallest set of whole buffers live at one time that covers it holds 372,736 bytes.
//! It runs where `units ≤` [`EXACT_UNITS`] and `live × units ≤` [`EXACT_WORK`], within
//! [`EXACT_WORK_PER_CALL`] per call, so the bound stays near-linear on large inputs; the
//! critical-item rounding covers the rest.
//!
//! # The chain ([`BoundOptions::chain`])
//!
//! Two times `t' < t` such that no undecided buffer's lifetime contains both have disjoint
//! sets of candidates, so a spill set pays both covers: they add up. With `L(t)` the
//! earliest start of an undecided buffer whose lifetime contains `t`, every time before
//! `L(t)` is disjoint from `t` in this sense, and a chain `t1 < t2 < …` with
//! `t_i < L(t_{i+1})` is pairwise disjoint (`t_i < L(t_{i+1}) ≤ t_{i+1} < L(t_{i+2})`).
//! The best chain is a longest-path recurrence over the times in order,
//! `best(t) = max(best(t⁻), cover(t) + best(before L(t)))`, kept as a nondecreasing list
//! searched by bisection. It is at least the largest single cover, and it adds up the
//! time components of the problem.

//!
//! # Holes ([`BoundOptions::holes`])
//!
//! The load counts what must leave fast memory; the fixed buffers also decide where the
//! rest can go. At time `t` the fixed buffers live there cut `[0, C)` into holes, and every
//! other kept buffer live at `t` lies inside one hole (it is live with each of them, so it
//! shares no address with them). A hole of `h` bytes holds buffers of total at most `h`,
//! none of them when `h` is below the smallest such buffer live at `t`, and a total that is
//! a multiple of `g`, the gcd of the sizes of the buffers that are not fixed. So the
//! undecided and forced-fast buffers live at `t` that are not fixed get at most
//!
//! ```text
//!   usable(t) = Σ over holes h ≥ smallest(t) of ⌊h / g⌋·g        (≤ C − fixed load)
//!
//!   C ┬─────────────┐
//!     │ hole 3      │ usable if ≥ the smallest buffer, rounded down to g
//!     ├─────────────┤
//!     │ fixed b     │
//!     ├─────────────┤
//!     │ hole 2      │ too small for any buffer live now: lost
//!     ├─────────────┤
//!     │ fixed a     │
//!     ├─────────────┤
//!     │ hole 1      │
//!   0 ┴─────────────┘
//! ```
//!
//! and the need at `t` becomes their load less `usable(t)`, never less than the load's
//! need. This is the holes bound of minimise mode (`crate::bounds`, module doc), which
//! proves heights above the max load where fixed buffers leave unusable space, applied
//! under the capacity. The sweep keeps the fixed ranges and the live sizes only when some
//! fixed buffer is kept.

use std::collections::BTreeMap;

/// The exact cover runs at a time only when the need is at most this many units...
pub(crate) const EXACT_UNITS: u64 = 1 << 14;
/// ...and the knapsack takes at most this many steps there...
pub(crate) const EXACT_WORK: u64 = 1 << 18;
/// ...and while one call has spent at most this many steps on it.
pub(crate) const EXACT_WORK_PER_CALL: u64 = 1 << 21;

use crate::types::Problem;

use super::model::Decision;

/// Which strengthenings of the cover bound to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BoundOptions {
    /// Integer rounding on the critical buffer.
    pub(crate) rounding: bool,
    /// Sum over chains of disjoint times.
    pub(crate) chain: bool,
    /// The holes the fixed buffers leave under the capacity.
    pub(crate) holes: bool,
}

/// The answer of [`lower_bound`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Buffers decided fast exceed the capacity at some time (or a fixed one ends above
    /// it): no spill set of the undecided ones helps.
    Infeasible,
    /// Every valid completion costs at least this (spilled buffers' costs included).
    AtLeast(u64),
}

/// A Fenwick tree of (size, cost) sums over ranks.
struct Fenwick {
    size: Vec<u64>,
    cost: Vec<u64>,
    /// Sizes and costs by rank (0-based).
    item_size: Vec<u64>,
    item_cost: Vec<u64>,
    total_size: u64,
}

/// A rational `num / den`, `den > 0`.
#[derive(Clone, Copy)]
struct Ratio {
    num: u128,
    den: u128,
}

impl Ratio {
    fn ceil(self) -> u64 {
        self.num.div_ceil(self.den).min(u64::MAX as u128) as u64
    }
}

impl Fenwick {
    fn new(item_size: Vec<u64>, item_cost: Vec<u64>) -> Fenwick {
        let n = item_size.len();
        Fenwick {
            size: vec![0; n + 1],
            cost: vec![0; n + 1],
            item_size,
            item_cost,
            total_size: 0,
        }
    }

    /// Adds (or removes) the item of rank `r` to the live set.
    fn update(&mut self, r: usize, add: bool) {
        let (s, c) = (self.item_size[r], self.item_cost[r]);
        if add {
            self.total_size += s;
        } else {
            self.total_size -= s;
        }
        let mut i = r + 1;
        while i < self.size.len() {
            if add {
                self.size[i] += s;
                self.cost[i] += c;
            } else {
                self.size[i] -= s;
                self.cost[i] -= c;
            }
            i += i & i.wrapping_neg();
        }
    }

    /// The longest prefix of ranks whose live size is below `x` (`x ≥ 1`): its length,
    /// size and cost.
    fn descend(&self, x: u64) -> (usize, u64, u64) {
        let n = self.size.len() - 1;
        let (mut pos, mut s, mut c) = (0usize, 0u64, 0u64);
        let mut step = n.checked_next_power_of_two().unwrap_or(1);
        while step > 0 {
            let next = pos + step;
            if next <= n && s + self.size[next] < x {
                pos = next;
                s += self.size[next];
                c += self.cost[next];
            }
            step /= 2;
        }
        (pos, s, c)
    }

    /// The cheapest fractional cover of `x` bytes by the live items, and the rank of the
    /// critical item (the one taken in part or last); `None` when they hold less than `x`.
    fn cover(&self, x: u64) -> Option<(Ratio, usize)> {
        if x == 0 {
            return Some((Ratio { num: 0, den: 1 }, usize::MAX));
        }
        if self.total_size < x {
            return None;
        }
        let (p, s, c) = self.descend(x);
        // Rank p (0-based) is live: the prefix grows past x there.
        let (ks, kc) = (self.item_size[p] as u128, self.item_cost[p] as u128);
        let num = c as u128 * ks + (x - s) as u128 * kc;
        Some((Ratio { num, den: ks }, p))
    }

    /// The cover of `need`, strengthened by the integer rounding when asked.
    fn bound(&self, need: u64, rounding: bool) -> u64 {
        let Some((lp, k)) = self.cover(need) else {
            return u64::MAX;
        };
        if !rounding {
            return lp.ceil();
        }
        let (ks, kc) = (self.item_size[k], self.item_cost[k]);
        let with_k = kc.saturating_add(
            self.cover(need.saturating_sub(ks))
                .map_or(u64::MAX, |(r, _)| r.ceil()),
        );
        let without_k =
            need.checked_add(ks)
                .and_then(|x| self.cover(x))
                .map_or(u64::MAX, |(r, _)| {
                    Ratio {
                        num: r.num - kc as u128 * r.den,
                        den: r.den,
                    }
                    .ceil()
                });
        lp.ceil().max(with_k.min(without_k))
    }
}

/// The lower bound on the cost of the spill sets that agree with `decisions` (spill the
/// `Slow` ones, keep the `Fast` ones), for `problem` under `capacity`. See the module
/// docs.
pub(crate) fn lower_bound(
    problem: &Problem,
    capacity: u64,
    costs: &[u64],
    decisions: &[Decision],
    options: BoundOptions,
) -> Bound {
    let bufs = problem.buffers();
    let n = bufs.len();
    let mut spilled_cost = 0u64;
    for i in 0..n {
        match decisions[i] {
            Decision::Slow => spilled_cost += costs[i],
            Decision::Fast => {
                if let Some(o) = bufs[i].fixed_offset {
                    if o.0 + bufs[i].size.0 > capacity {
                        return Bound::Infeasible;
                    }
                }
            }
            Decision::Free => {}
        }
    }
    let mut free: Vec<usize> = (0..n).filter(|&i| decisions[i] == Decision::Free).collect();
    free.sort_by(|&a, &b| {
        let (ca, sa) = (costs[a] as u128, bufs[a].size.0 as u128);
        let (cb, sb) = (costs[b] as u128, bufs[b].size.0 as u128);
        (ca * sb).cmp(&(cb * sa)).then(a.cmp(&b))
    });
    let mut rank = vec![usize::MAX; n];
    for (r, &i) in free.iter().enumerate() {
        rank[i] = r;
    }
    let mut tree = Fenwick::new(
        free.iter().map(|&i| bufs[i].size.0).collect(),
        free.iter().map(|&i| costs[i]).collect(),
    );
    // Events: (time, kind, buffer). Kinds: 0 segment end, 1 segment start, 2 span end,
    // 3 span start (spans: whole lifetimes of undecided buffers, for the chain).
    let mut events: Vec<(u64, u8, u32)> = Vec::with_capacity(4 * n);
    for (i, b) in bufs.iter().enumerate() {
        if decisions[i] == Decision::Slow {
            continue;
        }
        for seg in b.live_segments() {
            events.push((seg.start.0, 1, i as u32));
            events.push((seg.end.0, 0, i as u32));
        }
        if decisions[i] == Decision::Free {
            events.push((b.lifetime.start.0, 3, i as u32));
            events.push((b.lifetime.end.0, 2, i as u32));
        }
    }
    events.sort_unstable();
    let unit = free
        .iter()
        .fold(0u64, |g, &i| gcd(g, bufs[i].size.0))
        .max(1);
    let mut live = LiveSet::new(n);
    let mut holes = options
        .holes
        .then(|| Holes::new(problem, decisions))
        .flatten();
    let mut work = 0u64;
    let mut forced_load = 0u64;
    let mut span_starts: BTreeMap<u64, u32> = BTreeMap::new();
    // (time, best chain value up to it), nondecreasing.
    let mut chain: Vec<(u64, u64)> = Vec::new();
    let mut best = 0u64;
    let mut k = 0;
    while k < events.len() {
        let t = events[k].0;
        while k < events.len() && events[k].0 == t {
            let (_, kind, i) = events[k];
            let i = i as usize;
            let start = bufs[i].lifetime.start.0;
            if let Some(h) = holes.as_mut().filter(|_| kind <= 1) {
                h.update(&bufs[i], kind == 1);
            }
            match (kind, decisions[i] == Decision::Free) {
                (0, true) => {
                    tree.update(rank[i], false);
                    live.remove(i);
                }
                (1, true) => {
                    tree.update(rank[i], true);
                    live.insert(i);
                }
                (0, false) => forced_load -= bufs[i].size.0,
                (1, false) => forced_load += bufs[i].size.0,
                (2, _) => match span_starts.get_mut(&start) {
                    Some(c) if *c > 1 => *c -= 1,
                    _ => {
                        span_starts.remove(&start);
                    }
                },
                _ => *span_starts.entry(start).or_insert(0) += 1,
            }
            k += 1;
        }
        if forced_load > capacity {
            return Bound::Infeasible;
        }
        let mut need = (forced_load + tree.total_size).saturating_sub(capacity);
        if let Some(h) = &holes {
            let movable = forced_load - h.fixed_load + tree.total_size;
            need = need.max(movable.saturating_sub(h.usable(capacity)));
        }
        if need == 0 {
            continue;
        }
        let mut cover = tree.bound(need, options.rounding);
        if options.rounding && cover != u64::MAX {
            let units = need.div_ceil(unit);
            let steps = units.saturating_mul(live.items.len() as u64);
            if units <= EXACT_UNITS && steps <= EXACT_WORK && work + steps <= EXACT_WORK_PER_CALL {
                work += steps;
                let items = live
                    .items
                    .iter()
                    .map(|&i| (bufs[i].size.0 / unit, costs[i]));
                cover = cover.max(exact_cover(items, units));
            }
        }
        if options.chain {
            let earliest = span_starts.keys().next().copied().unwrap_or(t);
            let before = chain.partition_point(|&(time, _)| time < earliest);
            let prior = if before > 0 { chain[before - 1].1 } else { 0 };
            best = best.max(cover.saturating_add(prior));
            chain.push((t, best));
        } else {
            best = best.max(cover);
        }
    }
    Bound::AtLeast(spilled_cost.saturating_add(best))
}

/// The sweep's view of the holes: the fixed buffers live now (their address ranges) and
/// the sizes of the others live now (undecided or forced fast).
struct Holes {
    fixed: BTreeMap<u64, u64>,
    fixed_load: u64,
    sizes: BTreeMap<u64, u32>,
    /// The gcd of the sizes of the buffers that are not fixed and not spilled.
    unit: u64,
}

impl Holes {
    /// `None` when no kept buffer is fixed: then there are no holes to see.
    fn new(problem: &Problem, decisions: &[Decision]) -> Option<Holes> {
        let bufs = problem.buffers();
        let kept = |i: usize| decisions[i] != Decision::Slow;
        if !(0..bufs.len()).any(|i| kept(i) && bufs[i].fixed_offset.is_some()) {
            return None;
        }
        let unit = (0..bufs.len())
            .filter(|&i| kept(i) && bufs[i].fixed_offset.is_none())
            .fold(0, |g, i| gcd(g, bufs[i].size.0))
            .max(1);
        Some(Holes {
            fixed: BTreeMap::new(),
            fixed_load: 0,
            sizes: BTreeMap::new(),
            unit,
        })
    }

    /// A kept buffer's live segment starts (`starts`) or ends.
    fn update(&mut self, b: &crate::types::Buffer, starts: bool) {
        let size = b.size.0;
        match (b.fixed_offset, starts) {
            (Some(o), true) => {
                self.fixed.insert(o.0, o.0 + size);
                self.fixed_load += size;
            }
            (Some(o), false) => {
                self.fixed.remove(&o.0);
                self.fixed_load -= size;
            }
            (None, true) => *self.sizes.entry(size).or_insert(0) += 1,
            (None, false) => match self.sizes.get_mut(&size) {
                Some(c) if *c > 1 => *c -= 1,
                _ => {
                    self.sizes.remove(&size);
                }
            },
        }
    }

    /// The most that the live buffers that are not fixed can occupy under `capacity`.
    fn usable(&self, capacity: u64) -> u64 {
        let Some((&smallest, _)) = self.sizes.iter().next() else {
            return 0;
        };
        let mut total = 0;
        let mut bottom = 0;
        for (&lo, &hi) in self
            .fixed
            .iter()
            .chain(std::iter::once((&capacity, &capacity)))
        {
            let h = lo.min(capacity).saturating_sub(bottom);
            if h >= smallest {
                total += h / self.unit * self.unit;
            }
            bottom = bottom.max(hi);
        }
        total
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The undecided buffers live at the current time, for the exact cover.
struct LiveSet {
    items: Vec<usize>,
    /// Position of each buffer in `items` (`usize::MAX`: absent).
    at: Vec<usize>,
}

impl LiveSet {
    fn new(n: usize) -> LiveSet {
        LiveSet {
            items: Vec::new(),
            at: vec![usize::MAX; n],
        }
    }

    fn insert(&mut self, i: usize) {
        self.at[i] = self.items.len();
        self.items.push(i);
    }

    fn remove(&mut self, i: usize) {
        let k = self.at[i];
        self.items.swap_remove(k);
        if let Some(&moved) = self.items.get(k) {
            self.at[moved] = k;
        }
        self.at[i] = usize::MAX;
    }
}

/// The cheapest set of whole items `(units, cost)` that covers `need` units (0/1
/// knapsack); `u64::MAX` when all of them together do not.
fn exact_cover(items: impl Iterator<Item = (u64, u64)>, need: u64) -> u64 {
    let need = need as usize;
    let mut best = vec![u64::MAX; need + 1];
    best[0] = 0;
    for (units, cost) in items {
        let units = units.min(need as u64) as usize;
        for u in (1..=need).rev() {
            let from = best[u.saturating_sub(units)];
            if from != u64::MAX {
                best[u] = best[u].min(from.saturating_add(cost));
            }
        }
    }
    best[need]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Buffer;

    const ALL: BoundOptions = BoundOptions {
        rounding: true,
        chain: true,
        holes: true,
    };
    const PLAIN: BoundOptions = BoundOptions {
        rounding: false,
        chain: false,
        holes: false,
    };

    fn problem(specs: &[(u64, u64, u64)]) -> Problem {
        let bufs = specs
            .iter()
            .enumerate()
            .map(|(i, &(s, e, z))| Buffer::new(i.to_string(), s, e, z))
            .collect();
        Problem::new(bufs).unwrap()
    }

    #[test]
    fn the_fractional_cover_takes_the_cheapest_bytes_first() {
        // At time 0: 12 bytes, C = 8: cover 4 bytes. Cost per byte: 3/4, 5/4, 9/4.
        let p = problem(&[(0, 1, 4), (0, 1, 4), (0, 1, 4)]);
        let free = [Decision::Free; 3];
        let b = lower_bound(&p, 8, &[9, 3, 5], &free, PLAIN);
        assert_eq!(b, Bound::AtLeast(3));
        // Need 6 bytes: 4 of b (3) and 2 of c (2.5): ceil 5.5 = 6.
        assert_eq!(
            lower_bound(&p, 6, &[9, 3, 5], &free, PLAIN),
            Bound::AtLeast(6)
        );
        // Rounding: with c (the critical one): 5 + cover of 2 by b (1.5): 7; without
        // c: b and half of a, 7.5: 8. So 7; the exact cover finds the integer optimum,
        // b + c: 8.
        let rounding_only = tree_bound(&p, 6, &[9, 3, 5]);
        assert_eq!(rounding_only, 7);
        assert_eq!(
            lower_bound(&p, 6, &[9, 3, 5], &free, ALL),
            Bound::AtLeast(8)
        );
    }

    /// The critical-item rounding alone (no exact cover), all buffers live at time 0.
    fn tree_bound(p: &Problem, capacity: u64, costs: &[u64]) -> u64 {
        let bufs = p.buffers();
        let mut order: Vec<usize> = (0..bufs.len()).collect();
        order.sort_by(|&a, &b| {
            (costs[a] as u128 * bufs[b].size.0 as u128)
                .cmp(&(costs[b] as u128 * bufs[a].size.0 as u128))
                .then(a.cmp(&b))
        });
        let mut tree = Fenwick::new(
            order.iter().map(|&i| bufs[i].size.0).collect(),
            order.iter().map(|&i| costs[i]).collect(),
        );
        for r in 0..order.len() {
            tree.update(r, true);
        }
        let load: u64 = bufs.iter().map(|b| b.size.0).sum();
        match load.saturating_sub(capacity) {
            0 => 0,
            need => tree.bound(need, true),
        }
    }

    /// The cheapest set of buffers whose removal leaves every time's load ≤ `capacity`
    /// (the covering problem the bound relaxes; packing needs at least this).
    fn brute_force_cover(p: &Problem, capacity: u64, costs: &[u64]) -> u64 {
        let n = p.len();
        let times: Vec<u64> = p.buffers().iter().map(|b| b.lifetime.start.0).collect();
        (0..1u32 << n)
            .filter(|mask| {
                times.iter().all(|&t| {
                    let kept: u64 = (0..n)
                        .filter(|&i| mask >> i & 1 == 0)
                        .filter(|&i| {
                            p.buffers()[i]
                                .live_segments()
                                .any(|s| s.start.0 <= t && t < s.end.0)
                        })
                        .map(|i| p.buffers()[i].size.0)
                        .sum();
                    kept <= capacity
                })
            })
            .map(|mask| {
                (0..n)
                    .filter(|&i| mask >> i & 1 == 1)
                    .map(|i| costs[i])
                    .sum()
            })
            .min()
            .unwrap_or(u64::MAX)
    }

    #[test]
    fn the_exact_cover_is_the_integer_optimum_at_one_time_and_never_above_it() {
        let mut rng = crate::rng::Rng::new(7);
        let mut above_rounding = 0;
        for case in 0..400 {
            let n = rng.range(1, 9) as usize;
            let one_time = case % 2 == 0;
            let unit = [1, 8, 1024][case % 3];
            let specs: Vec<(u64, u64, u64)> = (0..n)
                .map(|_| {
                    let s = if one_time { 0 } else { rng.range(0, 4) };
                    let e = if one_time { 1 } else { s + rng.range(1, 3) };
                    (s, e, unit * rng.range(1, 9))
                })
                .collect();
            let p = problem(&specs);
            let costs: Vec<u64> = specs.iter().map(|_| rng.range(1, 20)).collect();
            let load_peak: u64 = (0..5)
                .map(|t| {
                    specs
                        .iter()
                        .filter(|x| x.0 <= t && t < x.1)
                        .map(|x| x.2)
                        .sum()
                })
                .max()
                .unwrap();
            let capacity = rng.range(0, load_peak);
            let free = vec![Decision::Free; n];
            let Bound::AtLeast(b) = lower_bound(&p, capacity, &costs, &free, ALL) else {
                panic!("nothing is forced")
            };
            let best = brute_force_cover(&p, capacity, &costs);
            assert!(
                b <= best,
                "case {case}: bound {b} above the cover optimum {best}"
            );
            if one_time {
                assert_eq!(
                    b, best,
                    "case {case}: one time, the exact cover is the optimum"
                );
                above_rounding += usize::from(b > tree_bound(&p, capacity.min(load_peak), &costs));
            }
        }
        assert!(
            above_rounding >= 10,
            "the exact cover beat the rounding {above_rounding} times"
        );
    }

    #[test]
    fn forced_buffers_cover_nothing_and_can_overflow() {
        let p = problem(&[(0, 2, 6), (0, 2, 4), (1, 2, 4)]);
        let d = [Decision::Fast, Decision::Free, Decision::Slow];
        // Buffer 2 spilled (cost 7); at time 0: 10 bytes, C = 8: buffer 1 covers 2 of
        // its 4 bytes: 1.
        assert_eq!(lower_bound(&p, 8, &[1, 2, 7], &d, PLAIN), Bound::AtLeast(8));
        assert_eq!(lower_bound(&p, 5, &[1, 2, 7], &d, PLAIN), Bound::Infeasible);
    }

    #[test]
    fn a_hole_too_small_for_any_buffer_is_lost() {
        // C = 16. A fixed buffer of 4 at offset 3 leaves holes [0, 3) and [7, 16): 3 and
        // 9 bytes. Two free buffers of 4 and 8 (cost = size), live with it: the load is
        // 16, so the load alone needs nothing spilled; the hole of 3 holds neither, so
        // 12 bytes must go into 9, and the cheapest cover of 3 bytes is the buffer of 4.
        let mut bufs = vec![
            Buffer::new("fixed", 0, 2, 4).with_fixed_offset(3),
            Buffer::new("a", 0, 2, 4),
            Buffer::new("b", 0, 2, 8),
        ];
        let d = [Decision::Fast, Decision::Free, Decision::Free];
        let p = Problem::new(bufs.clone()).unwrap();
        let costs = [0, 4, 8];
        assert_eq!(lower_bound(&p, 16, &costs, &d, PLAIN), Bound::AtLeast(0));
        let holes = BoundOptions {
            holes: true,
            ..PLAIN
        };
        assert_eq!(lower_bound(&p, 16, &costs, &d, holes), Bound::AtLeast(4));
        assert_eq!(lower_bound(&p, 16, &costs, &d, ALL), Bound::AtLeast(4));
        // At offset 4 the holes are 4 and 8: both buffers fit, nothing is lost.
        bufs[0] = Buffer::new("fixed", 0, 2, 4).with_fixed_offset(4);
        let p = Problem::new(bufs).unwrap();
        assert_eq!(lower_bound(&p, 16, &costs, &d, ALL), Bound::AtLeast(0));
    }

    #[test]
    fn disjoint_times_add_up_in_the_chain() {
        // Two time components, each overloaded by 4 bytes.
        let p = problem(&[(0, 2, 4), (0, 2, 4), (3, 5, 4), (3, 5, 4)]);
        let free = [Decision::Free; 4];
        assert_eq!(lower_bound(&p, 4, &[1; 4], &free, PLAIN), Bound::AtLeast(1));
        assert_eq!(lower_bound(&p, 4, &[1; 4], &free, ALL), Bound::AtLeast(2));
        // A long buffer joins them: the chain may not add them.
        let q = problem(&[(0, 2, 4), (0, 2, 4), (3, 5, 4), (3, 5, 4), (0, 5, 1)]);
        let free = [Decision::Free; 5];
        // Needs of 5 at both ends: the free long buffer covers 1 byte of each, and 4
        // bytes more cost 4. The long buffer links the two times: 4, not 8.
        let b = lower_bound(&q, 4, &[4, 4, 4, 4, 0], &free, ALL);
        assert_eq!(b, Bound::AtLeast(4));
    }

    #[test]
    fn gaps_take_a_buffer_out_of_the_load() {
        let mut bufs = vec![Buffer::new("a", 0, 3, 4), Buffer::new("b", 0, 3, 4)];
        bufs[0].gaps.push(crate::types::Lifetime::new(1, 2));
        let p = Problem::new(bufs).unwrap();
        let free = [Decision::Free; 2];
        // Overloaded at 0 and 2 only, and the same two buffers: 1 either way.
        assert_eq!(lower_bound(&p, 4, &[1, 1], &free, ALL), Bound::AtLeast(1));
    }
}
