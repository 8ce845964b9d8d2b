#!/usr/bin/env bash
# Builds the lean C library (docs/c.md says what is in and out): the C API without its
# `csv` and `spill` features, so the memplan crate comes without CSV and JSON I/O and
# without the spill, tiles and shared-objects families (the model, every planner of
# memplan_plan, the checker stay, with the same plans), in the size-optimised `lean`
# profile of the workspace Cargo.toml (each knob's effect: BENCHMARKS.md §11). The header
# is the same (crates/memplan-capi/include/memplan.h); memplan_problem_read_csv fails
# with MEMPLAN_ERR_IO and memplan_plan_spill with MEMPLAN_ERR_ARGUMENT in this build.
#
#   scripts/lean-capi.sh        # prints the stripped shared library's path, last line
#
# Also leaves target/lean/libmemplan_capi.a. MAX_BYTES (default 614400, 600 kB) fails the
# script when the stripped shared library is larger.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p memplan-capi --no-default-features --profile lean
so="$PWD/target/lean/libmemplan_capi.so"
a="$PWD/target/lean/libmemplan_capi.a"
bytes=$(stat -c %s "$so")
echo "lean C library: $(basename "$so") $bytes bytes (stripped), $(basename "$a") $(stat -c %s "$a") bytes" >&2
if [ "$bytes" -gt "${MAX_BYTES:-614400}" ]; then
    echo "lean C library: $bytes bytes, above the limit of ${MAX_BYTES:-614400}" >&2
    exit 1
fi
echo "$so"
