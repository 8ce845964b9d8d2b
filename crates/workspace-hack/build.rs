// Empty: the build-dependencies above are for feature resolution only (see Cargo.toml).
fn main() {}
