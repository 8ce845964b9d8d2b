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
use super::components::{components, Cuts};
use super::domains::Domains;
use super::options::Config;
use crate::index::contains;
use crate::outcome::{Halt, Verdict};
use crate::types::{Buffer, BufferIdx, Offset, Problem, Size};
use crate::units::Key;

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

/// How a search ended: `Found` with every buffer's offset under the capacity;
/// `Infeasible` when the fixed buffers alone leave some buffer no room (or, from the
/// restart cycle, a complete configuration ran out of candidates); `Stopped` at the step
/// limit ([`Halt::Limit`]), when `stop()` said so ([`Halt::Budget`]), or when the root
/// ran out of candidates ([`Halt::Exhausted`]: the search is heuristic, this proves
/// nothing).
pub(crate) type SearchEnd = Verdict<Vec<Offset>>;

/// [`SearchEnd`] of a heuristic search that ran out of candidates.
pub(crate) const EXHAUSTED: SearchEnd = Verdict::Stopped(Halt::Exhausted);

const NO_LEVEL: u32 = u32::MAX;

/// In row order, how many unplaced buffers each heuristic looks at to find one in the row.
const ROW_WINDOW: usize = 64;

/// How often (in steps) the stop callback is polled.
const POLL_EVERY: u64 = 16;

/// Components nest at most this deep; deeper, the search goes on without splitting.
const MAX_DEPTH: u32 = 48;

/// Where a search sits in the decomposition: the floors its domains start from (empty
/// at the top) and how many splits it is nested in.
#[derive(Clone, Copy, Default)]
pub(crate) struct Component<'b> {
    pub(crate) base: &'b [Offset],
    pub(crate) depth: u32,
}

/// What solving the components of a split gave.
enum Split {
    /// Every component placed: the offsets of the whole problem.
    Solved(Vec<Offset>),
    /// Some component has no plan (or, heuristically, none was found).
    Failed,
    /// The step limit or `stop()`.
    Stopped(Halt),
}

struct Level {
    candidates: Vec<BufferIdx>,
    next: usize,
    tried: Vec<BufferIdx>,
    conflicts: Vec<BufferIdx>,
    chosen: Option<BufferIdx>,
    trail_mark: usize,
    /// The global backtrack count when this level's current subtree was entered.
    entry: u64,
    /// (offset, rank) of `chosen`: the canonical order's key (`canonical`).
    key: Key,
    /// The list has been completed with every admissible buffer (`complete_candidates`).
    completed: bool,
}

struct Search<'p, 'o> {
    problem: &'p Problem,
    capacity: Size,
    options: &'o Config,
    domains: Domains<'p>,
    candidates: Candidates,
    level_of: Vec<u32>,
    levels: Vec<Level>,
    backtracks: u64,
    stats: SearchStats,
    /// `options.canonical`, unless some buffer has a fixed offset.
    canonical: bool,
    /// Scratch marks for building completed candidate lists.
    mark: Vec<bool>,
    /// The canonical order's rank of every buffer (the first heuristic's order).
    rank: Vec<u32>,
    /// The heuristic whose order gives `rank`.
    rank_by: usize,
    /// Dynamic decomposition (`decomposition`, canonical searches only).
    cuts: Option<Cuts>,
    depth: u32,
}

/// Runs the search under `capacity`. `candidates` holds the heuristics and phases;
/// heuristic number `rank_by` gives the canonical order's ranks; `at` says where the
/// search sits in a decomposition.
pub(crate) fn search(
    problem: &Problem,
    capacity: Size,
    candidates: Candidates,
    rank_by: usize,
    options: &Config,
    stop: &dyn Fn() -> bool,
    at: Component<'_>,
) -> (SearchEnd, SearchStats) {
    let n = problem.len();
    let canonical = options.canonical && problem.buffers().iter().all(|b| b.fixed_offset.is_none());
    let bufs = problem.buffers();
    if (bufs.iter().zip(at.base)).any(|(b, &floor)| !fits_above(b, floor, capacity)) {
        return (Verdict::Infeasible, SearchStats::default());
    }
    // The setup is polled too: on long-lived buffers it is most of a second.
    let stopped = (Verdict::Stopped(Halt::Budget), SearchStats::default());
    let Some(domains) = Domains::new(
        problem,
        capacity,
        // In a canonical sequence the lowest valid position at or above the last offset
        // is the skyline (every placed buffer starts at or below it).
        !options.lowest_position || canonical,
        options.section_inference,
        options.section_floors,
        at.base,
        stop,
    ) else {
        return stopped;
    };
    let cuts = if canonical && options.dynamic_decomposition {
        if stop() {
            return stopped;
        }
        Some(Cuts::new(problem))
    } else {
        None
    };
    let mut s = Search {
        problem,
        capacity,
        options,
        domains,
        candidates,
        level_of: vec![NO_LEVEL; n],
        levels: Vec::new(),
        backtracks: 0,
        stats: SearchStats::default(),
        canonical,
        mark: vec![false; n],
        rank: Vec::new(),
        rank_by,
        cuts,
        depth: at.depth,
    };
    s.rank = problem
        .indices()
        .map(|i| s.candidates.rank(rank_by, i))
        .collect();
    for (i, b) in problem.indexed() {
        if let Some(o) = b.fixed_offset {
            if !s.domains.fits(i, o) {
                return (Verdict::Infeasible, s.stats);
            }
            s.candidates.on_place(i);
            if s.domains.place(i, o).is_err() {
                // A proof only when domains are exact (lowest-position mode); the
                // skyline ignores the room below a fixed buffer.
                let end = if options.lowest_position {
                    Verdict::Infeasible
                } else {
                    EXHAUSTED
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
        if self.cuts.as_ref().is_some_and(|c| c.is_split()) && self.depth < MAX_DEPTH {
            return match self.solve_split(Offset::ZERO, stop) {
                Split::Solved(offsets) => Verdict::Found(offsets),
                Split::Failed => EXHAUSTED,
                Split::Stopped(h) => Verdict::Stopped(h),
            };
        }
        let root = self.new_level(None);
        self.levels.push(root);
        loop {
            if self.domains.placed_count() == n {
                return Verdict::Found(self.domains.offsets().to_vec());
            }
            if self.stats.steps >= self.options.step_limit {
                return Verdict::Stopped(Halt::Limit);
            }
            if self.stats.steps % POLL_EVERY == POLL_EVERY - 1 && stop() {
                return Verdict::Stopped(Halt::Budget);
            }
            let d = self.levels.len() - 1;
            let Some(c) = self.next_candidate(d) else {
                if d == 0 {
                    return EXHAUSTED;
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
            if let Some(cuts) = &mut self.cuts {
                cuts.place(c);
            }
            let mut failure = match self.domains.place(c, at) {
                Ok(()) => self.floor_failure(c, at),
                // Explanations only steer backjumping; without it they are not needed.
                Err(_) if !self.options.backjump => Some(Vec::new()),
                Err(f) => Some(self.domains.explain_failure(f)),
            };
            let split = self.cuts.as_mut().is_some_and(|c| c.take_split());
            if failure.is_none() && split && self.depth < MAX_DEPTH {
                match self.solve_split(at, stop) {
                    Split::Solved(offsets) => return Verdict::Found(offsets),
                    Split::Stopped(h) => return Verdict::Stopped(h),
                    // Nothing is blamed: the level falls back one step (chronologically).
                    Split::Failed => failure = Some(Vec::new()),
                }
            }
            match failure {
                None => {
                    self.level_of[c] = d as u32;
                    let key = Key::new(at, self.rank[c]);
                    let lv = &mut self.levels[d];
                    lv.chosen = Some(c);
                    lv.key = key;
                    lv.trail_mark = mark;
                    let next = self.new_level(Some(c));
                    self.levels.push(next);
                }
                Some(blame) => {
                    self.undo_to(mark);
                    self.levels[d]
                        .conflicts
                        .extend(blame.into_iter().filter(|&z| z != c));
                    self.stats.minor_backtracks += 1;
                    self.count_backtrack();
                }
            }
        }
    }

    /// Undoes the domains' trail down to `mark`, with the candidates and cuts.
    fn undo_to(&mut self, mark: usize) {
        let cands = &mut self.candidates;
        let cuts = &mut self.cuts;
        self.domains.undo_to(mark, |x| {
            cands.on_unplace(x);
            if let Some(c) = cuts {
                c.unplace(x);
            }
        });
    }

    /// The unplaced buffers fall into components (`components.rs`): solves each as a
    /// problem of its own, its domains starting at the current floors lifted to `last`
    /// (the last offset of the canonical sequence), one after the other. The steps they
    /// take count against this search's limit.
    fn solve_split(&mut self, last: Offset, stop: &dyn Fn() -> bool) -> Split {
        let (problem, capacity) = (self.problem, self.capacity);
        let domains = &self.domains;
        let groups = components(
            problem,
            problem.indices().filter(|&i| !domains.is_placed(i)),
        );
        let mut offsets = self.domains.offsets().to_vec();
        for group in groups {
            let floor = |y: BufferIdx| self.domains.lowest(y).max(last);
            if let [y] = group[..] {
                // One buffer: its floor is its place (one placement tried).
                self.stats.steps += 1;
                let b = problem.buffer(y);
                let at = floor(y).align_up_saturating(b.alignment);
                if at.saturating_add(b.size) > capacity {
                    return Split::Failed;
                }
                offsets[y] = at;
                continue;
            }
            let buffers: Vec<Buffer> = group.iter().map(|&y| problem.buffer(y).clone()).collect();
            let base: Vec<Offset> = group.iter().map(|&y| floor(y)).collect();
            let Ok(sub) = Problem::new(buffers) else {
                return Split::Failed; // unreachable: a subset of a valid problem
            };
            let options = Config {
                step_limit: self.options.step_limit.saturating_sub(self.stats.steps),
                ..self.options.clone()
            };
            let at = Component {
                base: &base,
                depth: self.depth + 1,
            };
            let (end, stats) =
                super::search_component(&sub, capacity, self.rank_by, &options, stop, at);
            self.stats.steps += stats.steps;
            self.stats.minor_backtracks += stats.minor_backtracks;
            self.stats.major_backtracks += stats.major_backtracks;
            self.stats.subtree_escapes += stats.subtree_escapes;
            match end {
                Verdict::Found(found) => {
                    for (&y, o) in group.iter().zip(found) {
                        offsets[y] = o;
                    }
                }
                Verdict::Stopped(Halt::Exhausted) | Verdict::Infeasible => return Split::Failed,
                Verdict::Stopped(h) => return Split::Stopped(h),
            }
        }
        Split::Solved(offsets)
    }

    /// A decision point after placing `last`: the candidates of every heuristic, first in
    /// `last`'s phase (or the first open phase), then in the next open phase (§5.3); or
    /// among all buffers when grouping is off.
    fn new_level(&mut self, last: Option<BufferIdx>) -> Level {
        let mut list: Vec<BufferIdx> = Vec::new();
        let floor_key = self.last_key(self.levels.len());
        let bound = self.canonical_bound();
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
        // Canonical: the row is the lowest position at or above the last offset, and
        // only admissible buffers qualify.
        let canonical = self.canonical;
        let mut row = if self.options.row_order {
            self.domains.min_lowest()
        } else {
            None
        };
        if canonical {
            if let (Some((r, _)), Some(k)) = (&mut row, floor_key) {
                *r = (*r).max(k.offset);
            }
        }
        let domains = &self.domains;
        let placed = |i: BufferIdx| domains.is_placed(i);
        let below = if self.options.dominance {
            self.domains.min_top()
        } else {
            None
        };
        let ranks = &self.rank;
        let in_row = |i: BufferIdx| {
            if canonical {
                return admissible(domains, ranks, floor_key, bound, i)
                    && row.is_none_or(|(r, _)| domains.lowest(i) == r);
            }
            row.is_none_or(|(r, _)| match below {
                Some(top) => domains.lowest(i) < top,
                None => domains.lowest(i) == r,
            })
        };
        // No picks (canonical, `per_heuristic` 0): the admissible buffers in key order.
        let picks = if self.options.per_heuristic == 0 && canonical {
            0
        } else if self.options.phases {
            2
        } else {
            1
        };
        for g in groups.iter().take(picks) {
            if self.options.phases && g.is_none() {
                continue;
            }
            for k in 0..heuristics {
                let count = self.options.per_heuristic.max(1);
                cands.pick(*g, k, placed, in_row, (ROW_WINDOW, count), &mut list);
            }
        }
        if let Some((_, i)) = row {
            if list.is_empty() && !canonical {
                list.push(i);
            }
        }
        if canonical {
            // The heuristics propose alternatives; the first candidate is the one with
            // the lowest canonical key (the lowest-ranked admissible buffer in the row),
            // so that the other buffers of the row are not shut out by a pick.
            list.sort_by_key(|&y| Key::new(self.domains.lowest(y), self.rank[y]));
            let lowest_row = self
                .domains
                .min_lowest()
                .map(|(m, _)| floor_key.map_or(m, |k| m.max(k.offset)));
            if let Some(r) = lowest_row {
                let first = self.candidates.first_where(
                    self.rank_by,
                    |i| self.domains.is_placed(i),
                    |i| {
                        self.domains.lowest(i) == r
                            && admissible(&self.domains, &self.rank, floor_key, bound, i)
                    },
                );
                if let Some(f) = first {
                    list.retain(|&y| y != f);
                    list.insert(0, f);
                }
            }
        }
        let mut level = Level {
            candidates: list,
            next: 0,
            tried: Vec::new(),
            conflicts: Vec::new(),
            chosen: None,
            trail_mark: self.domains.trail_len(),
            entry: self.backtracks,
            key: Key::default(),
            completed: false,
        };
        if level.candidates.is_empty() && canonical {
            // Nothing in the row among the heuristics' windows: the lowest admissible
            // buffer (or all of them, in order, when the list is to be complete).
            let mut rest = self.admissible_rest(&level, floor_key);
            if !self.options.complete_candidates {
                rest.truncate(1);
            }
            level.candidates = rest;
            level.completed = self.options.complete_candidates;
        }
        level
    }

    /// Canonical: positions must lie below this bound. Dominance (MiniMalloc §6.3):
    /// below the lowest top an unplaced buffer can reach. Section inference with the
    /// monotonic floor (§6.2): every later placement, and so every unplaced buffer of
    /// a section, lies at or above this position, so it plus the largest unplaced load
    /// of a section must fit; checking it here fails such candidates without placing.
    #[inline]
    fn canonical_bound(&self) -> Option<Offset> {
        if !self.canonical {
            return None;
        }
        let top = self
            .options
            .dominance
            .then(|| self.domains.min_top())
            .flatten();
        let floor = self.domains.floor_limit();
        match (top, floor) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The key of the placement made just below level `d` (the canonical floor).
    fn last_key(&self, d: usize) -> Option<Key> {
        if d == 0 {
            None
        } else {
            self.levels.get(d - 1).map(|lv| lv.key)
        }
    }

    /// Every unplaced buffer admissible at a level (canonical: after the last key and
    /// under the dominance bound; otherwise: in the row, if rows are on) that is neither
    /// tried nor queued there, lowest position first, then by rank.
    fn admissible_rest(&mut self, lv: &Level, last: Option<Key>) -> Vec<BufferIdx> {
        for &c in lv.tried.iter().chain(&lv.candidates[lv.next..]) {
            self.mark[c] = true;
        }
        let domains = &self.domains;
        let below = if self.options.dominance {
            domains.min_top()
        } else {
            None
        };
        let row = if self.options.row_order {
            domains.min_lowest()
        } else {
            None
        };
        let bound = self.canonical_bound();
        let domains = &self.domains;
        // Ranks are a permutation: no two buffers share a key.
        let mut rest: Vec<(Key, BufferIdx)> = Vec::new();
        for y in self.problem.indices() {
            if self.mark[y] || domains.is_placed(y) {
                continue;
            }
            let ok = if self.canonical {
                admissible(domains, &self.rank, last, bound, y)
            } else {
                row.is_none_or(|(r, _)| match below {
                    Some(top) => domains.lowest(y) < top,
                    None => domains.lowest(y) == r,
                })
            };
            if ok {
                rest.push((Key::new(domains.lowest(y), self.rank[y]), y));
            }
        }
        for &c in lv.tried.iter().chain(&lv.candidates[lv.next..]) {
            self.mark[c] = false;
        }
        rest.sort_unstable_by_key(|&(key, _)| key);
        rest.into_iter().map(|(_, y)| y).collect()
    }

    /// In row order every later placement lies at or above the lowest position of all,
    /// so the space under it is lost in every section: fail when the unplaced load of
    /// some section no longer fits above it. Blames what holds that buffer up.
    /// Canonical: every later placement also lies at or above `at`, where `c` was just
    /// placed (blame what holds `c` up there).
    fn floor_failure(&mut self, c: BufferIdx, at: Offset) -> Option<Vec<BufferIdx>> {
        let (floor, i) = self.domains.min_lowest()?;
        if self.canonical && at > floor {
            if self.domains.floor_overflows(at) {
                return Some(self.blame_skyline(c, at.saturating_sub(Size(1))));
            }
            return None;
        }
        if self.domains.floor_overflows(floor) {
            Some(self.blame_skyline(i, floor.saturating_sub(Size(1))))
        } else {
            None
        }
    }

    /// What holds `x` above `limit`, when backjumping needs it.
    fn blame_skyline(&self, x: BufferIdx, limit: Offset) -> Vec<BufferIdx> {
        if self.options.backjump {
            self.domains.explain_skyline(x, limit)
        } else {
            Vec::new()
        }
    }

    /// The next untried candidate of level `d`; when the list runs out and
    /// `complete_candidates` is on, the list goes on with every other admissible buffer.
    fn next_candidate(&mut self, d: usize) -> Option<BufferIdx> {
        loop {
            let last = self.last_key(d);
            let below = self.canonical_bound();
            let lv = &mut self.levels[d];
            while lv.next < lv.candidates.len() {
                let c = lv.candidates[lv.next];
                lv.next += 1;
                // Lists hold no duplicates and nothing tried (see `jump_to`); prepended
                // candidates may be inadmissible here.
                if !self.domains.is_placed(c)
                    && (!self.canonical || admissible(&self.domains, &self.rank, last, below, c))
                {
                    return Some(c);
                }
            }
            if !self.options.complete_candidates || lv.completed {
                return None;
            }
            lv.completed = true;
            let lv = std::mem::replace(
                &mut self.levels[d],
                Level {
                    candidates: Vec::new(),
                    next: 0,
                    tried: Vec::new(),
                    conflicts: Vec::new(),
                    chosen: None,
                    trail_mark: 0,
                    entry: 0,
                    key: Key::default(),
                    completed: true,
                },
            );
            let rest = self.admissible_rest(&lv, last);
            self.levels[d] = lv;
            let lv = &mut self.levels[d];
            lv.candidates = rest;
            lv.next = 0;
        }
    }

    /// Level `d` has no candidate left. Jump to the second-to-last placement blamed by
    /// its failures (§5.4), or one level up when backjumping is off or nothing is blamed.
    fn major_backtrack(&mut self, d: usize) {
        let mut blamed: Vec<u32> = self.levels[d]
            .conflicts
            .iter()
            .map(|&z| self.level_of[z])
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
        let conflicts: Vec<BufferIdx> = std::mem::take(&mut self.levels[d].conflicts)
            .into_iter()
            .filter(|&z| {
                let l = self.level_of[z];
                l != NO_LEVEL && (l as usize) < target
            })
            .collect();
        self.jump_to(target, prepend, conflicts);
    }

    /// Undoes level `t`'s placement and everything above it; level `t` then goes on with
    /// `prepend` (capped, skipping what it already tried) before its own remaining
    /// candidates.
    fn jump_to(&mut self, t: usize, prepend: Vec<BufferIdx>, conflicts: Vec<BufferIdx>) {
        let mark = self.levels[t].trail_mark;
        self.levels.truncate(t + 1);
        self.undo_to(mark);
        let lv = &mut self.levels[t];
        if let Some(c) = lv.chosen.take() {
            self.level_of[c] = NO_LEVEL;
        }
        lv.conflicts.extend(conflicts);
        if !prepend.is_empty() {
            let mut queue: Vec<BufferIdx> = Vec::with_capacity(self.options.max_candidates);
            for &c in prepend.iter().chain(&lv.candidates[lv.next..]) {
                if queue.len() >= self.options.max_candidates.max(1) {
                    break;
                }
                if !contains(&lv.tried, c) && !contains(&queue, c) {
                    queue.push(c);
                }
            }
            lv.candidates = queue;
            lv.next = 0;
            // The cap may have dropped candidates: completing brings them back.
            lv.completed = false;
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

/// True when `b` fits under `capacity` at `floor` rounded up to its alignment.
fn fits_above(b: &Buffer, floor: Offset, capacity: Size) -> bool {
    floor
        .align_up_saturating(b.alignment)
        .saturating_add(b.size)
        <= capacity
}

/// Canonical order (MiniMalloc §5): `y` may come next when its key (position, rank) is
/// above the last placement's, and (dominance, §6.3) its position lies below the lowest
/// top `below` that any unplaced buffer can reach.
#[inline]
fn admissible(
    domains: &Domains<'_>,
    rank: &[u32],
    last: Option<Key>,
    below: Option<Offset>,
    y: BufferIdx,
) -> bool {
    let lo = domains.lowest(y);
    last.is_none_or(|k| Key::new(lo, rank[y]) > k) && below.is_none_or(|t| lo < t)
}
