pub use crate::generate::{generate_model_like, GenOptions};
pub use crate::generate_dense::{generate_dense_trace, DenseGenOptions};
pub use crate::telamalloc::microbench::{generate_microbenchmark, MicrobenchKind};
pub use crate::tiles::generate::{generate_tiled, Layout, TiledGenOptions};
