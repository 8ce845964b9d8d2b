#!/usr/bin/env bash
# Builds the lean C library (docs/c.md says what is in and out, BENCHMARKS.md §11 what
# each knob gives): the C API without its `csv`, `json` and `spill` features, so the memplan crate
# comes without CSV and JSON I/O and without the spill, tiles and shared-objects families
# (the model, every planner of memplan_plan and the checker stay, with the same plans), in
# the size-optimised `lean` profile of the workspace Cargo.toml, with:
# - the standard library rebuilt for it (`-Zbuild-std`, from the nightly toolchain's
#   rust-src): without its backtrace printer, and with its `optimize_for_size` sorts;
# - `panic = immediate-abort`: a bug in memplan stops the process, as a failed C assert
#   does, instead of returning MEMPLAN_ERR_INTERNAL; bad input still gets its error code;
# - no unwind tables (nothing unwinds through memplan's frames).
# The header is the same (crates/memplan-capi/include/memplan.h);
# memplan_problem_read_csv fails with MEMPLAN_ERR_IO and memplan_plan_spill with
# MEMPLAN_ERR_ARGUMENT in this build.
#
#   scripts/lean-capi.sh        # prints the stripped shared library's path, last line
#
# Also leaves libmemplan_capi.a beside it. Needs a nightly toolchain with rust-src
# (LEAN_TOOLCHAIN, default `nightly`: `rustup toolchain install nightly --component
# rust-src`); the stable toolchain builds the same code at 1.1 MB (docs/c.md).
# MAX_BYTES (default 512000, 500 kB) fails the script when the stripped shared library is
# larger.
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain=${LEAN_TOOLCHAIN:-nightly}
max=${MAX_BYTES:-512000}
sysroot=$(rustc "+$toolchain" --print sysroot 2>/dev/null) || {
    echo "lean C library: needs the $toolchain toolchain (rustup toolchain install $toolchain --component rust-src)" >&2
    exit 1
}
if [ ! -d "$sysroot/lib/rustlib/src/rust/library" ]; then
    echo "lean C library: the $toolchain toolchain has no rust-src (rustup component add rust-src --toolchain $toolchain)" >&2
    exit 1
fi
target=$(rustc "+$toolchain" -vV | sed -n 's/^host: //p')
# RUSTFLAGS reach memplan and the standard library (built for --target), not the build
# scripts and proc macros (built for the host).
RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Cforce-unwind-tables=no" \
    cargo "+$toolchain" build -q -p memplan-capi --no-default-features --profile lean \
    --config 'profile.lean.panic="abort"' \
    -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size \
    --target "$target" --target-dir target/lean-std
so="$PWD/target/lean-std/$target/lean/libmemplan_capi.so"
a="$PWD/target/lean-std/$target/lean/libmemplan_capi.a"
bytes=$(stat -c %s "$so")
echo "lean C library: $(basename "$so") $bytes bytes (stripped), $(basename "$a") $(stat -c %s "$a") bytes" >&2
if [ "$bytes" -gt "$max" ]; then
    echo "lean C library: $bytes bytes, above the limit of $max" >&2
    exit 1
fi
echo "$so"
