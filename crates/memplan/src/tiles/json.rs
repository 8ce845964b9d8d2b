//! The tiled-tensor JSON format (documented in docs/tiles.md).
//!
//! ```json
//! {"tensors": [
//!   {"id": "x", "shape": [4, 8], "strides": [8, 1], "element_size": 1,
//!    "lifetime": [0, 0],
//!    "tiles": [{"offset": [0, 0], "sizes": [2, 8], "lifetime": [0, 2]},
//!              {"offset": [2, 0], "sizes": [2, 8], "lifetime": [0, 3]}]}
//! ]}
//! ```
//!
//! Lifetimes are half-open `[start, end)`; a tensor's `lifetime` may be empty
//! (`[t, t]`) or left out, and its `tiles` may be left out.

use serde::{Deserialize, Serialize};

use super::{Tile, TiledProblem, TiledTensor};
use crate::error::{ReadError, ReadErrorKind};
use crate::types::Lifetime;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileJson {
    tensors: Vec<TensorJson>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TensorJson {
    id: String,
    shape: Vec<u64>,
    strides: Vec<u64>,
    element_size: u64,
    #[serde(default)]
    lifetime: Option<[u64; 2]>,
    #[serde(default)]
    tiles: Vec<TileJson>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TileJson {
    offset: Vec<u64>,
    sizes: Vec<u64>,
    lifetime: [u64; 2],
}

fn lifetime(pair: [u64; 2]) -> Lifetime {
    Lifetime::new(pair[0], pair[1])
}

/// Reads and validates a tiled problem from JSON. Errors are [`ReadError`]s: malformed
/// JSON (with its line), or a tensor that breaks a rule of [`TiledProblem::new`]
/// ([`ReadErrorKind::Tiles`]).
pub fn read_tiled_json(input: &[u8]) -> Result<TiledProblem, ReadError> {
    let file: FileJson = serde_json::from_slice(input).map_err(|e| ReadError {
        line: e.line() as u64,
        column: None,
        kind: ReadErrorKind::Json(e.to_string()),
    })?;
    let tensors = file
        .tensors
        .into_iter()
        .map(|t| TiledTensor {
            id: t.id,
            shape: t.shape,
            strides: t.strides,
            element_size: t.element_size,
            // An inverted pair is as empty as [t, t]; keep it as given.
            lifetime: t.lifetime.map_or(Lifetime::new(0, 0), lifetime),
            tiles: t
                .tiles
                .into_iter()
                .map(|k| Tile {
                    offset: k.offset,
                    sizes: k.sizes,
                    lifetime: lifetime(k.lifetime),
                })
                .collect(),
        })
        .collect();
    TiledProblem::new(tensors).map_err(|e| ReadError {
        line: 0,
        column: None,
        kind: ReadErrorKind::Tiles(e),
    })
}

/// Writes a tiled problem as JSON (one tensor per line).
pub fn write_tiled_json(
    problem: &TiledProblem,
    mut out: impl std::io::Write,
) -> std::io::Result<()> {
    writeln!(out, "{{\"tensors\": [")?;
    for (k, t) in problem.tensors().iter().enumerate() {
        let json = TensorJson {
            id: t.id.clone(),
            shape: t.shape.clone(),
            strides: t.strides.clone(),
            element_size: t.element_size,
            lifetime: Some(bounds(t.lifetime)),
            tiles: t
                .tiles
                .iter()
                .map(|k| TileJson {
                    offset: k.offset.clone(),
                    sizes: k.sizes.clone(),
                    lifetime: bounds(k.lifetime),
                })
                .collect(),
        };
        let sep = if k + 1 < problem.len() { "," } else { "" };
        writeln!(out, "  {}{sep}", serde_json::to_string(&json)?)?;
    }
    writeln!(out, "]}}")
}

/// `[start, end)` as the file writes it.
fn bounds(lifetime: Lifetime) -> [u64; 2] {
    [lifetime.start.get(), lifetime.end.get()]
}
