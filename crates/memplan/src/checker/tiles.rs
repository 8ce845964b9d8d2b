//! The chunk-level checker for tile plans.
//!
//! A plan (one base address per tensor) is valid when no two items (tiles, or whole
//! tensors during their whole lifetime) of different tensors that are live at the same
//! time share a byte. Tiles of one tensor may share bytes: they are the same data.
//!
//! Independently of the planner's chunk renderer, each item is expanded here into its
//! innermost *rows* (one run per index of the outer axes, merged when adjacent), so the
//! check rests on eq. 1 alone. Items are swept in start order; each is compared with
//! the live items of other tensors by merging their sorted byte runs.

use super::violation::Collector;
use super::{CheckFailure, CheckSummary, Violation};
use crate::tile_types::TiledProblem;
use crate::types::{Lifetime, Offset, Size};

struct Item {
    tensor: usize,
    name: String,
    lifetime: Lifetime,
    /// Absolute byte runs, sorted, disjoint.
    runs: Vec<(u64, u64)>,
}

/// Absolute byte runs of a box, row by row along the innermost axis.
fn rows(
    base: u64,
    offset: &[u64],
    sizes: &[u64],
    strides: &[u64],
    esize: u64,
) -> Option<Vec<(u64, u64)>> {
    let rank = sizes.len();
    let inner = rank - 1;
    let mut runs: Vec<(u64, u64)> = Vec::new();
    let outer: u64 = sizes[..inner].iter().product();
    for k in 0..outer {
        let mut rest = k;
        let mut elem = 0u64;
        for a in (0..inner).rev() {
            elem = elem.checked_add((offset[a] + rest % sizes[a]).checked_mul(strides[a])?)?;
            rest /= sizes[a];
        }
        elem = elem.checked_add(offset[inner].checked_mul(strides[inner])?)?;
        let first = base.checked_add(elem.checked_mul(esize)?)?;
        let mut push = |lo: u64, hi: u64| match runs.last_mut() {
            Some(last) if last.1 == lo => last.1 = hi,
            _ => runs.push((lo, hi)),
        };
        if strides[inner] == 1 {
            push(first, first.checked_add(sizes[inner].checked_mul(esize)?)?);
        } else {
            for x in 0..sizes[inner] {
                let lo = first.checked_add(x.checked_mul(strides[inner])?.checked_mul(esize)?)?;
                push(lo, lo.checked_add(esize)?);
            }
        }
    }
    Some(runs)
}

/// Checks a plan (one base address per tensor) against `problem`: no two items (tiles,
/// or whole tensors during their whole lifetime) of different tensors that are live at
/// the same time may share a byte. Items are expanded into their innermost rows, so the
/// check shares no code with the planner's chunk renderer.
pub fn check_tiles(
    problem: &TiledProblem,
    offsets: &[Offset],
) -> Result<CheckSummary, CheckFailure> {
    let tensors = problem.tensors();
    if offsets.len() != tensors.len() {
        return Err(Violation::TileCount {
            expected: tensors.len(),
            found: offsets.len(),
        }
        .into());
    }
    let mut c = Collector::default();
    let mut items: Vec<Item> = Vec::new();
    for (ti, t) in tensors.iter().enumerate() {
        let base = offsets[ti].get();
        let zero = vec![0u64; t.shape.len()];
        let whole =
            (!t.lifetime.is_empty()).then_some(("whole".to_string(), t.lifetime, &zero, &t.shape));
        let tiles = t.tiles.iter().enumerate().map(|(k, tile)| {
            (
                format!("tile {k}"),
                tile.lifetime,
                &tile.offset,
                &tile.sizes,
            )
        });
        for (name, lifetime, off, sizes) in whole.into_iter().chain(tiles) {
            match rows(base, off, sizes, &t.strides, t.element_size) {
                Some(runs) => items.push(Item {
                    tensor: ti,
                    name,
                    lifetime,
                    runs,
                }),
                None => {
                    c.push(Violation::TileOverflow {
                        tensor: t.id.clone(),
                    });
                    break;
                }
            }
        }
    }
    items.sort_by_key(|it| (it.lifetime.start, it.tensor));
    let mut live: Vec<usize> = Vec::new();
    let mut peak = 0u64;
    for k in 0..items.len() {
        let it = &items[k];
        peak = peak.max(it.runs.last().map_or(0, |r| r.1));
        live.retain(|&j| items[j].lifetime.end > it.lifetime.start);
        for &j in &live {
            let other = &items[j];
            if other.tensor == it.tensor {
                continue;
            }
            if let Some(bytes) = first_shared(&other.runs, &it.runs) {
                c.push(Violation::TileOverlap {
                    first: (tensors[other.tensor].id.clone(), other.name.clone()),
                    second: (tensors[it.tensor].id.clone(), it.name.clone()),
                    time: it.lifetime.start.get(),
                    bytes,
                });
            }
        }
        live.push(k);
    }
    c.finish(CheckSummary {
        items: Some(items.len()),
        ..CheckSummary::new(tensors.len(), Size(peak))
    })
}

fn first_shared(a: &[(u64, u64)], b: &[(u64, u64)]) -> Option<(u64, u64)> {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let ((a_lo, a_hi), (b_lo, b_hi)) = (a[i], b[j]);
        let (lo, hi) = (a_lo.max(b_lo), a_hi.min(b_hi));
        if lo < hi {
            return Some((lo, hi));
        }
        if a_hi <= b_hi {
            i += 1;
        } else {
            j += 1;
        }
    }
    None
}
