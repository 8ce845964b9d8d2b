//! The joins that taking shares makes ([`Groups`]): which buffers share a storage, where
//! each sits in it, and the rules a join must keep.
//! [`Problem::with_shares`](crate::Problem::with_shares) takes the required shares with
//! them to check that they hold together; the planner's storages (`crate::storage`)
//! take the optional ones too.
//!
//! # The model
//!
//! Taking a [`Share`] of `b` over `t` fixes `b`'s offset to `t`'s plus the share's
//! offset; the buffers joined this way form a *storage*, one rectangle whose members sit
//! at fixed offsets inside it (`rel`). Invariants of [`Groups`], kept by every join: each
//! member's `rel` is a multiple of its alignment; two members live together whose
//! addresses overlap have a share declared between them whose rule holds at their
//! `rel`s; fixed members agree on the storage's offset; the members' memory masks
//! (several memories) have a common memory.

use super::buffer::Buffer;
use crate::share::{in_place_breach, Share, ShareKind};
use crate::units::{BufferIdx, Lifetime, Offset, Size};

/// The buffers and their shares, read by [`Groups`].
#[derive(Clone, Copy)]
pub(crate) struct Shared<'a> {
    pub(crate) buffers: &'a [Buffer],
    pub(crate) shares: &'a [Share],
    pub(crate) ends: &'a [(BufferIdx, BufferIdx)],
}

/// Joining two storages: every member of `keep` moves up by `shift_keep`, every member
/// of `absorb` by `shift_absorb` and joins `keep`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Join {
    pub(crate) keep: u32,
    pub(crate) absorb: u32,
    pub(crate) shift_keep: u64,
    pub(crate) shift_absorb: u64,
}

/// The storages so far: which buffers are joined, and where each sits in its storage.
#[derive(Clone)]
pub(crate) struct Groups<'a> {
    pub(crate) shared: Shared<'a>,
    /// `(unordered buffer pair, share index)`, sorted: the shares of a pair.
    by_pair: Vec<((u32, u32), u32)>,
    /// Each buffer's storage (the index of its representative).
    group: Vec<u32>,
    /// Each storage's members (empty for buffers that are not representatives).
    members: Vec<Vec<u32>>,
    /// Each buffer's offset inside its storage.
    rel: Vec<u64>,
    /// Each storage's alignment (lcm of its members').
    align: Vec<u64>,
    /// Each storage's offset, when a member is fixed.
    fixed: Vec<Option<u64>>,
    /// Each storage's memory mask (all ones without memories).
    mask: Vec<u64>,
}

fn pair(a: BufferIdx, b: BufferIdx) -> (u32, u32) {
    (a.0.min(b.0), a.0.max(b.0))
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl<'a> Groups<'a> {
    /// Every buffer a storage of its own. `masks`: each buffer's allowed memories.
    pub(crate) fn new(shared: Shared<'a>, masks: Option<&[u64]>) -> Groups<'a> {
        let n = shared.buffers.len();
        let mut by_pair: Vec<((u32, u32), u32)> = shared
            .ends
            .iter()
            .enumerate()
            .map(|(k, &(b, t))| (pair(b, t), k as u32))
            .collect();
        by_pair.sort_unstable();
        Groups {
            shared,
            by_pair,
            group: (0..n as u32).collect(),
            members: (0..n as u32).map(|i| vec![i]).collect(),
            rel: vec![0; n],
            align: shared.buffers.iter().map(|b| b.alignment.0).collect(),
            fixed: shared
                .buffers
                .iter()
                .map(|b| b.fixed_offset.map(|o| o.0))
                .collect(),
            mask: masks.map_or_else(|| vec![u64::MAX; n], <[u64]>::to_vec),
        }
    }

    /// The storage of buffer `i`.
    pub(crate) fn group_of(&self, i: usize) -> u32 {
        self.group[i]
    }

    /// The members of storage `g`.
    pub(crate) fn members(&self, g: u32) -> &[u32] {
        &self.members[g as usize]
    }

    /// Buffer `i`'s offset in its storage.
    pub(crate) fn rel(&self, i: usize) -> u64 {
        self.rel[i]
    }

    /// Does a share declared between `x` and `y` allow them to overlap with `x` at `rx`
    /// and `y` at `ry` inside one storage?
    fn allowed(&self, x: usize, rx: u64, y: usize, ry: u64) -> bool {
        let bufs = self.shared.buffers;
        let key = pair(BufferIdx::new(x), BufferIdx::new(y));
        let from = self.by_pair.partition_point(|&(p, _)| p < key);
        self.by_pair[from..]
            .iter()
            .take_while(|&&(p, _)| p == key)
            .map(|&(_, k)| k)
            .any(|k| {
                let s = &self.shared.shares[k as usize];
                let (b, t) = self.shared.ends[k as usize];
                let (rb, rt) = if b.index() == x { (rx, ry) } else { (ry, rx) };
                let rule = match s.kind {
                    ShareKind::InPlace => {
                        in_place_breach(named(&bufs[b.index()]), named(&bufs[t.index()])).is_none()
                    }
                    ShareKind::Inside => true,
                };
                rule && rt.checked_add(s.offset.0) == Some(rb)
            })
    }

    /// What taking share `k` takes: `Ok(None)` when its two buffers already sit in one
    /// storage as it says, `Ok(Some(join))` to join two storages, `Err(why)` when it
    /// cannot be taken now.
    pub(crate) fn plan_take(&self, k: usize) -> Result<Option<Join>, String> {
        let s = &self.shared.shares[k];
        let (b, t) = self.shared.ends[k];
        let bufs = self.shared.buffers;
        let (bi, ti) = (b.index(), t.index());
        if s.kind == ShareKind::InPlace {
            if let Some(why) = in_place_breach(named(&bufs[bi]), named(&bufs[ti])) {
                return Err(why);
            }
        }
        let (gb, gt) = (self.group[bi], self.group[ti]);
        let want = self.rel[ti] as u128 + s.offset.0 as u128;
        if gb == gt {
            return if self.rel[bi] as u128 == want {
                Ok(None)
            } else {
                Err(format!(
                    "'{}' and '{}' already share storage at other offsets",
                    crate::error::Escaped(&bufs[bi].id),
                    crate::error::Escaped(&bufs[ti].id)
                ))
            };
        }
        // Move the storage that must go up.
        let have = self.rel[bi] as u128;
        let (shift_t, shift_b) = if want >= have {
            (0u128, want - have)
        } else {
            (have - want, 0u128)
        };
        let (Ok(shift_t), Ok(shift_b)) = (u64::try_from(shift_t), u64::try_from(shift_b)) else {
            return Err("offsets overflow".into());
        };
        let join = Join {
            keep: gt,
            absorb: gb,
            shift_keep: shift_t,
            shift_absorb: shift_b,
        };
        self.check_join(&join)?;
        Ok(Some(join))
    }

    /// The invariants of the storage that `join` would make.
    fn check_join(&self, j: &Join) -> Result<(), String> {
        let bufs = self.shared.buffers;
        let (keep, absorb) = (
            &self.members[j.keep as usize],
            &self.members[j.absorb as usize],
        );
        if self.mask[j.keep as usize] & self.mask[j.absorb as usize] == 0 {
            return Err("the two buffers have no memory in common".into());
        }
        let moved = |i: u32, shift: u64| -> Result<u64, String> {
            let r = self.rel[i as usize]
                .checked_add(shift)
                .ok_or_else(|| "offsets overflow".to_string())?;
            if r % bufs[i as usize].alignment.0 != 0 {
                return Err(format!(
                    "'{}' would be misaligned",
                    crate::error::Escaped(&bufs[i as usize].id)
                ));
            }
            Ok(r)
        };
        let rk: Vec<u64> = keep
            .iter()
            .map(|&i| moved(i, j.shift_keep))
            .collect::<Result<_, _>>()?;
        let ra: Vec<u64> = absorb
            .iter()
            .map(|&i| moved(i, j.shift_absorb))
            .collect::<Result<_, _>>()?;
        let base = |g: u32, shift: u64| self.fixed[g as usize].map(|f| f.checked_sub(shift));
        let fixed = match (base(j.keep, j.shift_keep), base(j.absorb, j.shift_absorb)) {
            (Some(None), _) | (_, Some(None)) => return Err("a fixed buffer would move".into()),
            (Some(Some(a)), Some(Some(b))) if a != b => {
                return Err("two fixed buffers disagree on the storage's offset".into())
            }
            (Some(Some(a)), _) | (_, Some(Some(a))) => Some(a),
            (None, None) => None,
        };
        // A fixed storage does not move: each member must be aligned where it lands.
        if let Some(base) = fixed {
            let members = keep.iter().zip(&rk).chain(absorb.iter().zip(&ra));
            for (&i, &r) in members {
                let at = base.checked_add(r).ok_or("offsets overflow")?;
                if at % bufs[i as usize].alignment.0 != 0 {
                    return Err(format!(
                        "'{}' would be misaligned beside a fixed buffer",
                        crate::error::Escaped(&bufs[i as usize].id)
                    ));
                }
            }
        }
        for (&x, &rx) in keep.iter().zip(&rk) {
            let bx = &bufs[x as usize];
            for (&y, &ry) in absorb.iter().zip(&ra) {
                let by = &bufs[y as usize];
                let apart =
                    rx.saturating_add(bx.size.0) <= ry || ry.saturating_add(by.size.0) <= rx;
                if apart || !bx.live_together(by) {
                    continue;
                }
                if !self.allowed(x as usize, rx, y as usize, ry) {
                    return Err(format!(
                        "'{}' and '{}' would overlap with no share between them",
                        crate::error::Escaped(&bx.id),
                        crate::error::Escaped(&by.id)
                    ));
                }
            }
        }
        Ok(())
    }

    /// Takes a share by `join` (from [`Groups::plan_take`]; `None`: already held).
    pub(crate) fn apply(&mut self, join: Option<Join>) {
        let Some(j) = join else { return };
        let (keep, absorb) = (j.keep as usize, j.absorb as usize);
        for &i in &self.members[keep] {
            self.rel[i as usize] += j.shift_keep;
        }
        let moved = std::mem::take(&mut self.members[absorb]);
        for &i in &moved {
            self.rel[i as usize] += j.shift_absorb;
            self.group[i as usize] = j.keep;
        }
        self.members[keep].extend(moved);
        let (a, b) = (self.align[keep], self.align[absorb]);
        self.align[keep] = (a / gcd(a, b)).saturating_mul(b);
        let fk = self.fixed[keep].map(|f| f - j.shift_keep);
        let fa = self.fixed[absorb].map(|f| f - j.shift_absorb);
        self.fixed[keep] = fk.or(fa);
        self.mask[keep] &= self.mask[absorb];
    }

    /// The storages as buffers, one per storage in the order of their first members
    /// (each named after it), and each buffer's storage, an index into them.
    pub(crate) fn storage_buffers(&self) -> (Vec<Buffer>, Vec<u32>) {
        let bufs = self.shared.buffers;
        let mut reps: Vec<u32> = Vec::new();
        let mut index_of = vec![u32::MAX; bufs.len()];
        for i in 0..bufs.len() {
            let g = self.group[i] as usize;
            if index_of[g] == u32::MAX {
                index_of[g] = reps.len() as u32;
                reps.push(g as u32);
            }
        }
        let merged: Vec<Buffer> = reps.iter().map(|&g| self.storage_buffer(g)).collect();
        let storage_of = (0..bufs.len())
            .map(|i| index_of[self.group[i] as usize])
            .collect();
        (merged, storage_of)
    }

    /// Each buffer's offset in its storage.
    pub(crate) fn rels(&self) -> &[u64] {
        &self.rel
    }

    /// Storage `g` as one buffer: named after its first member.
    fn storage_buffer(&self, g: u32) -> Buffer {
        let bufs = self.shared.buffers;
        let members = &self.members[g as usize];
        let first = members
            .iter()
            .copied()
            .min()
            .expect("a storage has members");
        if members.len() == 1 {
            let mut b = bufs[first as usize].clone();
            b.fixed_offset = self.fixed[g as usize].map(Offset);
            return b;
        }
        let mut segments: Vec<Lifetime> = members
            .iter()
            .flat_map(|&i| bufs[i as usize].live_segments())
            .collect();
        segments.sort_unstable();
        // The span of the members' lifetimes, less the times when none is live (a
        // member's gaps may cover its whole lifetime).
        let start = members
            .iter()
            .map(|&i| bufs[i as usize].lifetime.start)
            .min()
            .expect("a storage has members");
        let end = members
            .iter()
            .map(|&i| bufs[i as usize].lifetime.end)
            .max()
            .expect("a storage has members");
        let mut gaps = Vec::new();
        let mut covered = start;
        for s in &segments {
            if s.start > covered {
                gaps.push(Lifetime {
                    start: covered,
                    end: s.start,
                });
            }
            covered = covered.max(s.end);
        }
        if end > covered {
            gaps.push(Lifetime {
                start: covered,
                end,
            });
        }
        let size = members
            .iter()
            .map(|&i| self.rel[i as usize] + bufs[i as usize].size.0)
            .max()
            .unwrap_or(1);
        // A fixed storage does not move: its members' alignments were checked where
        // they land.
        let alignment = if self.fixed[g as usize].is_some() {
            1
        } else {
            self.align[g as usize]
        };
        Buffer {
            id: bufs[first as usize].id.clone(),
            lifetime: Lifetime { start, end },
            size: Size(size),
            alignment: Size(alignment),
            fixed_offset: self.fixed[g as usize].map(Offset),
            gaps,
        }
    }
}

/// A buffer as the share rules name it: its id and lifetime.
pub(crate) fn named(b: &Buffer) -> (&str, Lifetime) {
    (&b.id, b.lifetime)
}
