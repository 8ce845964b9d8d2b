//! Tile-aware planning: plans pass the chunk-level checker under every order and both
//! collision rules (which must agree), the checker catches collisions, and the README's
//! JSON example parses.

use memplan::testing::{generate_tiled, Layout, TiledGenOptions};
use memplan::tiles::{
    check_tiles, plan_tiles, read_tiled_json, write_tiled_json, Tile, TileOptions, TileOrder,
    TiledProblem, TiledTensor,
};
use memplan::{Lifetime, Offset, Request};
use proptest::prelude::*;

/// Random tensors of rank 1–3 with random (possibly padded) strides and random tiles.
fn problems() -> impl Strategy<Value = TiledProblem> {
    let tensor = (
        prop::collection::vec(1u64..5, 1..4),
        prop::collection::vec(0u64..2, 3),
        1u64..3,
        (0u64..12, 0u64..4),
        prop::collection::vec((any::<u64>(), 0u64..12, 1u64..5), 0..5),
    );
    prop::collection::vec(tensor, 1..12).prop_map(|ts| {
        let tensors = ts
            .into_iter()
            .enumerate()
            .map(|(n, (shape, pad, esize, (ls, ll), tiles))| {
                let rank = shape.len();
                let mut strides = vec![0u64; rank];
                let mut acc = 1;
                for a in (0..rank).rev() {
                    strides[a] = acc;
                    acc *= shape[a] + pad[a];
                }
                let tiles = tiles
                    .into_iter()
                    .map(|(r, s, len)| {
                        let mut r = r;
                        let mut offset = Vec::new();
                        let mut sizes = Vec::new();
                        for &n in &shape {
                            let o = r % n;
                            r /= 7;
                            let z = 1 + r % (n - o);
                            r /= 5;
                            offset.push(o);
                            sizes.push(z);
                        }
                        Tile {
                            offset,
                            sizes,
                            lifetime: Lifetime::new(s, s + len),
                        }
                    })
                    .collect();
                TiledTensor {
                    id: format!("t{n}"),
                    shape,
                    strides,
                    element_size: esize,
                    lifetime: Lifetime::new(ls, ls + ll),
                    tiles,
                }
            })
            .collect();
        TiledProblem::new(tensors).unwrap()
    })
}

fn options(order: TileOrder, jump: bool) -> TileOptions {
    TileOptions {
        order: Some(order),
        jump_past_all_collisions: jump,
        // These tests compare the tile-aware orders themselves.
        whole_tensor_fallback: false,
        verify: false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn plans_pass_the_chunk_checker(p in problems()) {
        for order in TileOrder::ALL {
            let a = plan_tiles(&p, &Request::minimise(), &options(order, true)).unwrap();
            let b = plan_tiles(&p, &Request::minimise(), &options(order, false)).unwrap();
            let summary = check_tiles(&p, &tile_plan(&a).offsets);
            prop_assert!(summary.is_ok(), "{}: {}", order.name(), summary.unwrap_err());
            prop_assert_eq!(summary.unwrap().height, tile_plan(&a).peak);
            // Both collision rules skip only invalid addresses: same lowest address.
            prop_assert_eq!(&tile_plan(&a), &tile_plan(&b));
        }
        let auto = plan_tiles(&p, &Request::minimise(), &TileOptions::default()).unwrap();
        prop_assert_eq!(auto.candidates.len(), 3);
        let best_order = auto.candidates.iter().map(|c| c.1).min().unwrap();
        // The whole-tensor fallback is kept only when it beats every tile-aware order
        // (a case the fourth session's CI run found: 66 against 67; the seed is in
        // tiles.proptest-regressions).
        if auto.whole_tensor_fallback {
            prop_assert!(tile_plan(&auto).peak < best_order);
        } else {
            prop_assert_eq!(tile_plan(&auto).peak, best_order);
        }
        let summary = check_tiles(&p, &tile_plan(&auto).offsets);
        prop_assert!(summary.is_ok(), "auto: {}", summary.unwrap_err());
        prop_assert_eq!(summary.unwrap().height, tile_plan(&auto).peak);
    }

    #[test]
    fn the_checker_catches_a_tensor_moved_onto_a_live_peer(p in problems()) {
        let r = plan_tiles(&p, &Request::minimise(), &TileOptions::default()).unwrap();
        // Put every tensor at 0: valid only if no two live items of different tensors
        // ever share a byte there; compare with a brute-force byte map.
        let zero = vec![Offset(0); p.len()];
        let brute = brute_force_valid(&p, &zero);
        prop_assert_eq!(check_tiles(&p, &zero).is_ok(), brute);
        prop_assert!(brute_force_valid(&p, &tile_plan(&r).offsets));
    }
}

/// Every live byte at every time, by enumeration.
fn brute_force_valid(p: &TiledProblem, offsets: &[Offset]) -> bool {
    use std::collections::HashMap;
    let mut owner: HashMap<(u64, u64), usize> = HashMap::new();
    for (ti, t) in p.tensors().iter().enumerate() {
        let zero = vec![0u64; t.shape.len()];
        let whole = (!t.lifetime.is_empty()).then_some((t.lifetime, &zero, &t.shape));
        let tiles = t.tiles.iter().map(|k| (k.lifetime, &k.offset, &k.sizes));
        for (lt, off, sizes) in whole.into_iter().chain(tiles) {
            let count: u64 = sizes.iter().product();
            for k in 0..count {
                let mut rest = k;
                let mut e = 0;
                for a in (0..sizes.len()).rev() {
                    e += (off[a] + rest % sizes[a]) * t.strides[a];
                    rest /= sizes[a];
                }
                for z in 0..t.element_size {
                    let byte = offsets[ti].0 + e * t.element_size + z;
                    for time in lt.start.0..lt.end.0 {
                        if let Some(&o) = owner.get(&(time, byte)) {
                            if o != ti {
                                return false;
                            }
                        }
                        owner.insert((time, byte), ti);
                    }
                }
            }
        }
    }
    true
}

#[test]
fn readme_example_parses_and_plans() {
    // The example of the tiles guide.
    let doc = include_str!("../../../docs/tiles.md");
    let start = doc.find("```json").unwrap() + "```json".len();
    let end = start + doc[start..].find("```").unwrap();
    let p = read_tiled_json(&doc.as_bytes()[start..end]).unwrap();
    assert_eq!(p.len(), 2);
    let r = plan_tiles(&p, &Request::minimise(), &TileOptions::default()).unwrap();
    check_tiles(&p, &tile_plan(&r).offsets).unwrap();
    // y's tiles are written after the x tiles under them are dead, so y may sit on x.
    let whole = memplan::plan(
        &p.whole_tensors(),
        &Request::minimise(),
        &memplan::Options::default(),
    )
    .unwrap();
    assert!(tile_plan(&r).peak < whole.outcome.plan().unwrap().height());
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    for bad in [
        "",
        "{}",
        r#"{"tensors": [{"id": "a", "shape": [2], "strides": [1, 1], "element_size": 1}]}"#,
        r#"{"tensors": [{"id": "a", "shape": [0], "strides": [1], "element_size": 1}]}"#,
        r#"{"tensors": [{"id": "a", "shape": [2, 4], "strides": [2, 1], "element_size": 1}]}"#,
        r#"{"tensors": [{"id": "a", "shape": [4], "strides": [1], "element_size": 1,
            "tiles": [{"offset": [3], "sizes": [2], "lifetime": [0, 1]}]}]}"#,
        r#"{"tensors": [{"id": "a", "shape": [4], "strides": [1], "element_size": 1,
            "tiles": [{"offset": [0], "sizes": [2], "lifetime": [1, 1]}]}]}"#,
        r#"{"tensors": [{"id": "a", "shape": [4], "strides": [1], "element_size": 1},
                        {"id": "a", "shape": [4], "strides": [1], "element_size": 1}]}"#,
        r#"{"tensors": [{"id": "a", "shape": [4294967296, 4294967296], "strides": [4294967296, 1], "element_size": 4}]}"#,
    ] {
        assert!(read_tiled_json(bad.as_bytes()).is_err(), "{bad}");
    }
}

#[test]
fn generated_networks_are_deterministic_valid_and_round_trip() {
    for layout in [Layout::Nhwc, Layout::Nchw] {
        let opts = TiledGenOptions {
            seed: 5,
            layout,
            blocks: 4,
            on_chip: 512 * 1024,
        };
        let p = generate_tiled(&opts);
        assert_eq!(p, generate_tiled(&opts));
        assert_ne!(p, generate_tiled(&TiledGenOptions { seed: 6, ..opts }));
        assert!(
            p.tensors().iter().any(|t| t.tiles.len() > 1),
            "some tensor is tiled"
        );
        let mut json = Vec::new();
        write_tiled_json(&p, &mut json).unwrap();
        assert_eq!(read_tiled_json(&json).unwrap(), p);
        let r = plan_tiles(&p, &Request::minimise(), &TileOptions::default()).unwrap();
        check_tiles(&p, &tile_plan(&r).offsets).unwrap();
    }
}

/// The tile-aware result is never worse than planning the same tensors whole,
/// because the whole-tensor plan is kept when it is lower (and is a valid tile plan).
#[test]
fn never_worse_than_whole_tensor_planning() {
    for seed in 0..6 {
        for layout in [Layout::Nhwc, Layout::Nchw] {
            let opts = TiledGenOptions {
                seed,
                layout,
                blocks: 3,
                ..TiledGenOptions::default()
            };
            let p = generate_tiled(&opts);
            let r = plan_tiles(&p, &Request::minimise(), &TileOptions::default()).unwrap();
            check_tiles(&p, &tile_plan(&r).offsets).unwrap();
            // The whole-tensor plan the tile planner falls back to: the greedy portfolio's.
            let greedy = memplan::Options {
                planner: memplan::Planner::GreedyPortfolio,
                ..memplan::Options::default()
            };
            let whole = memplan::plan(&p.whole_tensors(), &Request::minimise(), &greedy).unwrap();
            assert!(
                tile_plan(&r).peak <= whole.outcome.plan().unwrap().height(),
                "seed {seed} {layout:?}"
            );
        }
    }
}

/// The plan of a minimising run (there always is one).
fn tile_plan(r: &memplan::tiles::TileReport) -> &memplan::tiles::TilePlan {
    r.outcome.best().expect("minimising: always a plan")
}
