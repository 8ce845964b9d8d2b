#!/usr/bin/env bash
# Builds the lean C library: the memplan crate without its CSV and JSON I/O (the model,
# the planners, the checker and plan stay), in the size-optimised `lean` profile of the
# workspace Cargo.toml (its knobs' effect on the size: BENCHMARKS.md §11; docs/c.md says
# how to use it). The header is the same (crates/memplan-capi/include/memplan.h);
# memplan_problem_read_csv fails with MEMPLAN_ERR_IO in this build.
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
