#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS (default 1800), all in parallel, under
# `nice -n 19`, on stable (`--sanitizer none`), and prints each target's executions,
# executions per second and CPU time. Needs `cargo install cargo-fuzz` and a C++ compiler.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Corpora go to fuzz/corpus/TARGET (seeded from tests/bad_inputs and generated files),
# crashes to fuzz/artifacts/TARGET, logs to fuzz/logs/TARGET.log (all git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-1800}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi
nice -n 19 cargo fuzz build --sanitizer none

mkdir -p fuzz/logs fuzz/corpus/parse_csv fuzz/corpus/parse_json
cp tests/bad_inputs/*.csv fuzz/corpus/parse_csv/ 2>/dev/null || true
rm -f fuzz/corpus/parse_csv/huge_id.csv # larger than libFuzzer's max_len
cp benchmarks/minimalloc-challenging/example.12.csv fuzz/corpus/parse_csv/
bin=fuzz/target/x86_64-unknown-linux-gnu/release
if [ -x target/debug/memplan ]; then
    target/debug/memplan gen --buffers 20 -o fuzz/corpus/parse_json/gen20.json
    target/debug/memplan gen --buffers 20 -o fuzz/corpus/parse_csv/gen20.csv
    target/debug/memplan gen --tiled --blocks 1 -o fuzz/corpus/parse_json/tiled1.json || true
fi

for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    (
        /usr/bin/time -f "TIME wall %e s user %U s sys %S s maxrss %M KB" \
            nice -n 19 "$bin/$t" "fuzz/corpus/$t" \
            -artifact_prefix="fuzz/artifacts/$t/" -max_total_time="$secs" \
            -timeout=120 -print_final_stats=1 >"fuzz/logs/$t.log" 2>&1 || true
    ) &
done
wait
printf '%-16s %14s %10s %10s %s\n' target executions exec/s cpu_s result
for t in "${targets[@]}"; do
    log="fuzz/logs/$t.log"
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}' | tail -1)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}' | tail -1)
    cpu=$(grep '^TIME' "$log" | awk '{printf "%.0f", $6 + $9}')
    crash=$(ls "fuzz/artifacts/$t" | grep -v '^slow-unit' | head -1)
    printf '%-16s %14s %10s %10s %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cpu:-?}" "${crash:-no crash}"
done
