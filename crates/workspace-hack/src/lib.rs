//! Not code: see Cargo.toml. The features this crate asks for make a per-crate `cargo test` resolve as `cargo test --workspace` does.
