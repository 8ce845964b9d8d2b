//! The search: decision levels, minor and major backtracks, backjumping (TelaMalloc §5.4).
//!
//! ```text
//!   level 0   candidates [a, b, c]   placed a
//!   level 1   candidates [d, e]      placed d
//!   level 2   candidates [f, g]      f fails (minor backtrack: undo f, try g),
//!                                    g fails too: level 2 is exhausted.
//!   major backtrack: the failures blamed placements {a, d}; the second-to-last of
//!   them is a, so the search jumps back to level 0, undoes a (and everything above),
//!   puts [f, g] in front of level 0's remaining candidates, and goes on with f.
//! ```
//!
//! Invariants: `levels[k].chosen` is the buffer placed at level `k` (none on the top
//! level, which is still choosing); everything placed after level `k`'s placement lies
//! on the trail after `levels[k].trail_mark`; a buffer is tried at most once per visit
//! of a level (its `tried` list).

use super::candidates::Candidates;
use super::domains::Domains;
use super::TelamallocOptions;
use crate::types::Problem;

/// Counters of one search, for reporting and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SearchStats {
    /// Placements tried.
    pub(crate) steps: u64,
    /// Placements that made some domain empty (§5.4 minor backtracks).
    pub(crate) minor_backtracks: u64,
    /// Decision points whose candidates were all exhausted (§5.4 major backtracks).
    pub(crate) major_backtracks: u64,
    /// Subtrees left because they saw too many backtracks (§5.4, last paragraph).
    pub(crate) subtree_escapes: u64,
}

/// How a search ended.
pub(crate) enum SearchEnd {
    /// Every buffer placed under the capacity: the offsets.
    Found(Vec<u64>),
    /// The fixed buffers alone leave some buffer no room: no plan exists.
    Infeasible,
    /// The root ran out of candidates (the search is heuristic: this proves nothing).
    Exhausted,
    /// The step limit was reached or `stop()` said so.
    Stopped,
}

const NO_LEVEL: u32 = u32::MAX;

/// In row order, how many unplaced buffers each heuristic looks at to find one in the row.
const ROW_WINDOW: usize = 64;

/// How often (in steps) the stop callback is polled.
const POLL_EVERY: u64 = 16;

struct Level {
    candidates: Vec<u32>,
    next: usize,
    tried: Vec<u32>,
    conflicts: Vec<u32>,
    chosen: Option<u32>,
    trail_mark: usize,
    /// The global backtrack count when this level's current subtree was entered.
    entry: u64,
}

struct Search<'p, 'o> {
    options: &'o TelamallocOptions,
    domains: Domains<'p>,
    candidates: Candidates,
    level_of: Vec<u32>,
    levels: Vec<Level>,
    backtracks: u64,
    stats: SearchStats,
}

/// Runs the search under `capacity`. `candidates` holds the heuristics and phases.
pub(crate) fn search(
    problem: &Problem,
    capacity: u64,
    candidates: Candidates,
    options: &TelamallocOptions,
    stop: &dyn Fn() -> bool,
) -> (SearchEnd, SearchStats) {
    let n = problem.len();
    let mut s = Search {
        options,
        domains: Domains::new(
            problem,
            capacity,
            !options.lowest_position,
            options.section_inference,
        ),
        candidates,
        level_of: vec![NO_LEVEL; n],
        levels: Vec::new(),
        backtracks: 0,
        stats: SearchStats::default(),
    };
    for (i, b) in problem.buffers().iter().enumerate() {
        if let Some(o) = b.fixed_offset {
            let i = i as u32;
            if !s.domains.fits(i, o.0) {
                return (SearchEnd::Infeasible, s.stats);
            }
            s.candidates.on_place(i);
            if s.domains.place(i, o.0).is_err() {
                // A proof only when domains are exact (lowest-position mode); the
                // skyline ignores the room below a fixed buffer.
                let end = if options.lowest_position {
                    SearchEnd::Infeasible
                } else {
                    SearchEnd::Exhausted
                };
                return (end, s.stats);
            }
        }
    }
    let end = s.run(n, stop);
    (end, s.stats)
}

impl Search<'_, '_> {
    fn run(&mut self, n: usize, stop: &dyn Fn() -> bool) -> SearchEnd {
        let root = self.new_level(None);
        self.levels.push(root);
        loop {
            if self.domains.placed_count() == n {
                return SearchEnd::Found(self.domains.offsets().to_vec());
            }
            if self.stats.steps >= self.options.step_limit
                || (self.stats.steps % POLL_EVERY == POLL_EVERY - 1 && stop())
            {
                return SearchEnd::Stopped;
            }
            let d = self.levels.len() - 1;
            let Some(c) = self.next_candidate(d) else {
                if d == 0 {
                    return SearchEnd::Exhausted;
                }
                self.stats.major_backtracks += 1;
                self.major_backtrack(d);
                self.count_backtrack();
                continue;
            };
            self.stats.steps += 1;
            self.levels[d].tried.push(c);
            let mark = self.domains.trail_len();
            // Propagation keeps every unplaced domain non-empty, so `at` fits.
            let at = self.domains.lowest(c);
            debug_assert!(self.domains.fits(c, at));
            self.candidates.on_place(c);
            let failure = match self.domains.place(c, at) {
                Ok(()) => self.floor_failure(),
                Err(f) => Some(self.domains.explain_failure(f)),
            };
            match failure {
                None => {
                    self.level_of[c as usize] = d as u32;
                    let lv = &mut self.levels[d];
                    lv.chosen = Some(c);
                    lv.trail_mark = mark;
                    let next = self.new_level(Some(c));
                    self.levels.push(next);
                }
                Some(blame) => {
                    let cands = &mut self.candidates;
                    self.domains.undo_to(mark, |x| cands.on_unplace(x));
                    self.levels[d]
                        .conflicts
                        .extend(blame.into_iter().filter(|&z| z != c));
                    self.stats.minor_backtracks += 1;
                    self.count_backtrack();
                }
            }
        }
    }

    /// A decision point after placing `last`: the candidates of every heuristic, first in
    /// `last`'s phase (or the first open phase), then in the next open phase (§5.3); or
    /// among all buffers when grouping is off.
    fn new_level(&mut self, last: Option<u32>) -> Level {
        let mut list: Vec<u32> = Vec::new();
        let cands = &mut self.candidates;
        let heuristics = cands.heuristic_count();
        let mut groups: [Option<u32>; 2] = [None, None];
        if self.options.phases {
            let preferred = last
                .map(|x| cands.phase_of(x))
                .filter(|&p| cands.phase_is_open(p));
            let mut open = cands.open_phases();
            let first = preferred.or_else(|| open.next());
            let second = open.find(|&p| Some(p) != first);
            groups = [first, second];
        }
        // Row order: only buffers whose position is the lowest of all (§3.1, Fig. 4).
        let row = if self.options.row_order {
            self.domains.min_lowest()
        } else {
            None
        };
        let domains = &self.domains;
        let placed = |i: u32| domains.is_placed(i);
        let below = if self.options.dominance {
            self.domains.min_top()
        } else {
            None
        };
        let in_row = |i: u32| {
            row.is_none_or(|(r, _)| match below {
                Some(top) => domains.lowest(i) < top,
                None => domains.lowest(i) == r,
            })
        };
        for g in groups.iter().take(if self.options.phases { 2 } else { 1 }) {
            if self.options.phases && g.is_none() {
                continue;
            }
            for k in 0..heuristics {
                let count = self.options.per_heuristic.max(1);
                cands.pick(*g, k, placed, in_row, (ROW_WINDOW, count), &mut list);
            }
        }
        if let Some((_, i)) = row {
            if list.is_empty() {
                list.push(i);
            }
        }
        Level {
            candidates: list,
            next: 0,
            tried: Vec::new(),
            conflicts: Vec::new(),
            chosen: None,
            trail_mark: self.domains.trail_len(),
            entry: self.backtracks,
        }
    }

    /// In row order every later placement lies at or above the lowest position of all,
    /// so the space under it is lost in every section: fail when the unplaced load of
    /// some section no longer fits above it. Blames what holds that buffer up.
    fn floor_failure(&mut self) -> Option<Vec<u32>> {
        let (floor, i) = self.domains.min_lowest()?;
        if self.domains.floor_overflows(floor) {
            Some(self.domains.explain_skyline(i, floor.saturating_sub(1)))
        } else {
            None
        }
    }

    fn next_candidate(&mut self, d: usize) -> Option<u32> {
        let lv = &mut self.levels[d];
        while lv.next < lv.candidates.len() {
            let c = lv.candidates[lv.next];
            lv.next += 1;
            if !self.domains.is_placed(c) && !lv.tried.contains(&c) {
                return Some(c);
            }
        }
        None
    }

    /// Level `d` has no candidate left. Jump to the second-to-last placement blamed by
    /// its failures (§5.4), or one level up when backjumping is off or nothing is blamed.
    fn major_backtrack(&mut self, d: usize) {
        let mut blamed: Vec<u32> = self.levels[d]
            .conflicts
            .iter()
            .map(|&z| self.level_of[z as usize])
            .filter(|&l| l != NO_LEVEL && (l as usize) < d)
            .collect();
        blamed.sort_unstable_by(|a, b| b.cmp(a));
        blamed.dedup();
        let target = if self.options.backjump && !blamed.is_empty() {
            blamed.get(1).copied().unwrap_or(blamed[0]) as usize
        } else {
            d - 1
        };
        let prepend = if self.options.prepend_candidates {
            std::mem::take(&mut self.levels[d].tried)
        } else {
            Vec::new()
        };
        let conflicts: Vec<u32> = std::mem::take(&mut self.levels[d].conflicts)
            .into_iter()
            .filter(|&z| {
                let l = self.level_of[z as usize];
                l != NO_LEVEL && (l as usize) < target
            })
            .collect();
        self.jump_to(target, prepend, conflicts);
    }

    /// Undoes level `t`'s placement and everything above it; level `t` then goes on with
    /// `prepend` (capped, skipping what it already tried) before its own remaining
    /// candidates.
    fn jump_to(&mut self, t: usize, prepend: Vec<u32>, conflicts: Vec<u32>) {
        let mark = self.levels[t].trail_mark;
        self.levels.truncate(t + 1);
        let cands = &mut self.candidates;
        self.domains.undo_to(mark, |x| cands.on_unplace(x));
        let lv = &mut self.levels[t];
        if let Some(c) = lv.chosen.take() {
            self.level_of[c as usize] = NO_LEVEL;
        }
        lv.conflicts.extend(conflicts);
        if !prepend.is_empty() {
            let mut queue: Vec<u32> = Vec::with_capacity(self.options.max_candidates);
            for &c in prepend.iter().chain(&lv.candidates[lv.next..]) {
                if queue.len() >= self.options.max_candidates.max(1) {
                    break;
                }
                if !lv.tried.contains(&c) && !queue.contains(&c) {
                    queue.push(c);
                }
            }
            lv.candidates = queue;
            lv.next = 0;
        }
    }

    /// Counts a backtrack and leaves the deepest subtree that has seen more than the
    /// allowed number of backtracks since it was entered (§5.4).
    fn count_backtrack(&mut self) {
        self.backtracks += 1;
        if !self.options.subtree_limit {
            return;
        }
        let top = self.levels.len() - 1;
        let limit = self.options.subtree_backtracks;
        let now = self.backtracks;
        // Entries never decrease with depth, so the stuck levels form a prefix.
        let stuck = self.levels[..top].partition_point(|lv| lv.entry.saturating_add(limit) < now);
        if stuck == 0 {
            return;
        }
        let l = stuck - 1;
        self.stats.subtree_escapes += 1;
        self.jump_to(l, Vec::new(), Vec::new());
        for lv in &mut self.levels[..=l] {
            lv.entry = now;
        }
    }
}
