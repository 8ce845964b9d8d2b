//! Picking the next buffer to place: the candidate heuristics of TelaMalloc §5.1 (longest
//! lifetime, largest size, largest area), or the contention order of the §3.1 baseline,
//! each looked up within a phase (§5.3) or among all buffers.
//!
//! Each (group, heuristic) pair keeps its buffers sorted by the heuristic and a cursor at
//! the first unplaced one. Placing only moves cursors forward; unplacing a buffer moves
//! its cursors back to its rank. So a pick costs O(1) amortised along a branch.

use crate::greedy::area;
use crate::types::{Buffer, BufferIdx, Problem, Size};

/// One way to rank buffers; the first unplaced buffer in the ranking is the candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Heuristic {
    /// Longest lifetime first (§5.1 (1)).
    Lifetime,
    /// Largest size first (§5.1 (2)).
    Size,
    /// Largest size × lifetime first (§5.1 (3)).
    Area,
    /// Highest contention first; ties by alignment, size × lifetime², lifetime (§3.1).
    Contention,
    /// Highest contention, then longest lifetime, then largest area (a static order
    /// of MiniMalloc §7, whose "section total" is our contention at the root).
    ContentionLifetime,
    /// Highest contention, then largest area, then longest lifetime (MiniMalloc §7).
    ContentionArea,
}

fn sort_by(bufs: &[Buffer], contention: &[Size], h: Heuristic, list: &mut [BufferIdx]) {
    let len = |b: &Buffer| u128::from(b.lifetime.len());
    let bytes = |s: Size| u128::from(s.get());
    let key = |i: BufferIdx| {
        let b = &bufs[i];
        let s = bytes(b.size);
        match h {
            Heuristic::Lifetime => (len(b), s, 0, 0),
            Heuristic::Size => (s, len(b), 0, 0),
            Heuristic::Area => (area(b), s, 0, 0),
            Heuristic::Contention => (
                bytes(contention[i]),
                bytes(b.alignment),
                s.saturating_mul(len(b).saturating_mul(len(b))),
                len(b),
            ),
            Heuristic::ContentionLifetime => (bytes(contention[i]), len(b), area(b), 0),
            Heuristic::ContentionArea => (bytes(contention[i]), area(b), len(b), 0),
        }
    };
    crate::sort::by_cached_key(list, |&i| (std::cmp::Reverse(key(i)), i));
}

/// A sorted list per heuristic for one group of buffers, with its cursors.
struct Group {
    lists: Vec<Vec<BufferIdx>>,
    cursors: Vec<usize>,
}

pub(super) struct Candidates {
    heuristics: Vec<Heuristic>,
    /// The first `proposing` heuristics propose candidates; the others only rank.
    proposing: usize,
    /// Group `p` is phase `p`; the last group holds every buffer.
    groups: Vec<Group>,
    /// `rank[h][i]`: position of `i` in its phase's list for heuristic `h`.
    phase_rank: Vec<Vec<u32>>,
    /// `global_rank[h][i]`: position of `i` in the all-buffers list.
    global_rank: Vec<Vec<u32>>,
    phase_of: Vec<u32>,
    unplaced_in_phase: Vec<u32>,
    /// Every phase below this one has no unplaced buffer.
    first_open: usize,
}

impl Candidates {
    /// `phase_of` groups the buffers (all in phase 0 when grouping is off).
    pub(super) fn new(
        problem: &Problem,
        heuristics: Vec<Heuristic>,
        proposing: usize,
        contention: &[Size],
        phase_of: Vec<u32>,
        phase_count: u32,
    ) -> Candidates {
        let bufs = problem.buffers();
        let n = bufs.len();
        let phases = phase_count as usize;
        let mut members: Vec<Vec<BufferIdx>> = vec![Vec::new(); phases];
        for (i, &p) in problem.indices().zip(&phase_of) {
            members[p as usize].push(i);
        }
        let mut groups = Vec::with_capacity(phases + 1);
        let mut phase_rank = vec![vec![0u32; n]; heuristics.len()];
        let mut global_rank = vec![vec![0u32; n]; heuristics.len()];
        let all: Vec<BufferIdx> = problem.indices().collect();
        for (g, m) in members.iter().chain(std::iter::once(&all)).enumerate() {
            let mut lists = Vec::with_capacity(heuristics.len());
            for (k, &h) in heuristics.iter().enumerate() {
                let mut list = m.clone();
                sort_by(bufs, contention, h, &mut list);
                let rank = if g == phases {
                    &mut global_rank[k]
                } else {
                    &mut phase_rank[k]
                };
                for (r, &i) in list.iter().enumerate() {
                    rank[i] = r as u32;
                }
                lists.push(list);
            }
            groups.push(Group {
                cursors: vec![0; heuristics.len()],
                lists,
            });
        }
        Candidates {
            proposing: proposing.min(heuristics.len()),
            heuristics,
            groups,
            phase_rank,
            global_rank,
            unplaced_in_phase: members.iter().map(|m| m.len() as u32).collect(),
            phase_of,
            first_open: 0,
        }
    }

    /// `i`'s place in heuristic `k`'s order over all buffers (a static rank for the
    /// canonical order).
    pub(super) fn rank(&self, k: usize, i: BufferIdx) -> u32 {
        self.global_rank[k % self.heuristics.len()][i]
    }

    pub(super) fn heuristic_count(&self) -> usize {
        self.proposing
    }

    pub(super) fn phase_of(&self, i: BufferIdx) -> u32 {
        self.phase_of[i]
    }

    pub(super) fn phase_is_open(&self, p: u32) -> bool {
        self.unplaced_in_phase[p as usize] > 0
    }

    pub(super) fn on_place(&mut self, i: BufferIdx) {
        self.unplaced_in_phase[self.phase_of[i] as usize] -= 1;
    }

    pub(super) fn on_unplace(&mut self, i: BufferIdx) {
        let p = self.phase_of[i] as usize;
        self.unplaced_in_phase[p] += 1;
        self.first_open = self.first_open.min(p);
        let global = self.groups.len() - 1;
        for k in 0..self.heuristics.len() {
            let c = &mut self.groups[p].cursors[k];
            *c = (*c).min(self.phase_rank[k][i] as usize);
            let c = &mut self.groups[global].cursors[k];
            *c = (*c).min(self.global_rank[k][i] as usize);
        }
    }

    /// The open phases in order, starting from the first.
    pub(super) fn open_phases(&mut self) -> impl Iterator<Item = u32> + '_ {
        while self.first_open < self.unplaced_in_phase.len()
            && self.unplaced_in_phase[self.first_open] == 0
        {
            self.first_open += 1;
        }
        (self.first_open..self.unplaced_in_phase.len())
            .filter(|&p| self.unplaced_in_phase[p] > 0)
            .map(|p| p as u32)
    }

    /// The first unplaced buffer in heuristic `k`'s order over all buffers that
    /// satisfies `wanted` (scanning as far as needed).
    pub(super) fn first_where(
        &mut self,
        k: usize,
        is_placed: impl Fn(BufferIdx) -> bool,
        wanted: impl Fn(BufferIdx) -> bool,
    ) -> Option<BufferIdx> {
        let g = self.groups.len() - 1;
        let group = &mut self.groups[g];
        let list = &group.lists[k];
        let c = &mut group.cursors[k];
        while *c < list.len() && is_placed(list[*c]) {
            *c += 1;
        }
        list[*c..]
            .iter()
            .copied()
            .find(|&i| !is_placed(i) && wanted(i))
    }

    /// The first unplaced buffer of `phase` (or of all buffers, for `None`) under
    /// heuristic number `k` that satisfy `wanted`, up to `count` of them, looking at
    /// most at `window` buffers past the cursor; appended to `out` if not there yet.
    pub(super) fn pick(
        &mut self,
        phase: Option<u32>,
        k: usize,
        is_placed: impl Fn(BufferIdx) -> bool,
        wanted: impl Fn(BufferIdx) -> bool,
        (window, count): (usize, usize),
        out: &mut Vec<BufferIdx>,
    ) {
        let g = match phase {
            Some(p) => p as usize,
            None => self.groups.len() - 1,
        };
        let group = &mut self.groups[g];
        let list = &group.lists[k];
        let c = &mut group.cursors[k];
        while *c < list.len() && is_placed(list[*c]) {
            *c += 1;
        }
        // The window counts placed buffers too, so a pick costs O(window) however many
        // placed buffers follow the cursor.
        let found = list[*c..]
            .iter()
            .take(window)
            .filter(|&&i| !is_placed(i) && wanted(i))
            .take(count);
        for &i in found {
            if !crate::index::contains(out, i) {
                out.push(i);
            }
        }
    }
}
