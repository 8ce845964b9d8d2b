#!/usr/bin/env bash
# Runs cargo-fuzz targets on stable (`--sanitizer none`) under `nice -n 19`, JOBS at a time
# (default: the number of cores), each until it has used SECONDS of CPU time (user + sys,
# default 1800), and prints each target's executions, executions per CPU second, wall and CPU
# time. A CPU budget, not a wall-clock one, so that a target sharing the machine still gets
# its full share; a wall-clock backstop of 4 x SECONDS stops a starved run.
# Needs `cargo install cargo-fuzz` and a C++ compiler.
#
#   [JOBS=2] [OUT=FILE.md] scripts/fuzz.sh [SECONDS] [TARGET...]
#
# With OUT, the summary is also written to FILE.md as a markdown table, under a line naming
# the command, the date and the commit (benchmarks/results/fuzz_runs.md keeps every run).
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
jobs="${JOBS:-$(nproc)}"
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

# tflite_read: the flatbuffer cases of the corpus, and the test models under 64 KiB (its
# max_len), planned and not (the planned ones carry an offline plan).
mkdir -p fuzz/corpus/tflite_read
cp tests/bad_inputs/*.tflite fuzz/corpus/tflite_read/ 2>/dev/null || true
for m in tests/tflite/models/*.tflite; do
    [ -f "$m" ] && [ "$(stat -c %s "$m")" -le 65536 ] || continue
    cp "$m" fuzz/corpus/tflite_read/
    if [ -x target/debug/memplan ]; then
        target/debug/memplan tflite "$m" -q --force -o "fuzz/corpus/tflite_read/planned-$(basename "$m")" || true
    fi
done

tick=$(getconf CLK_TCK)
# Runs one target until it has used `secs` of CPU, then interrupts it (libFuzzer prints its
# final stats on SIGINT). Appends "CPU <seconds> WALL <seconds> START <utc> END <utc>".
run_one() {
    local t="$1" log="fuzz/logs/$1.log" start pid cpu=0 t0
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    start=$(date -u +%FT%TZ)
    t0=$(date +%s)
    local extra=()
    if [ "$t" = tflite_read ]; then extra=(-max_len=65536); fi
    nice -n 19 "$bin/$t" "fuzz/corpus/$t" "${extra[@]}" \
        -artifact_prefix="fuzz/artifacts/$t/" -max_total_time="$((4 * secs))" \
        -timeout=120 -print_final_stats=1 >"$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 5
        # fields 14 and 15 of /proc/PID/stat: utime and stime in clock ticks
        if [ -r "/proc/$pid/stat" ]; then
            cpu=$(awk -v tick="$tick" '{printf "%d", ($14 + $15) / tick}' "/proc/$pid/stat" 2>/dev/null || echo "$cpu")
        fi
        if [ "$cpu" -ge "$secs" ]; then
            kill -INT "$pid" 2>/dev/null || true
            break
        fi
    done
    wait "$pid" || true
    echo "CPU $cpu WALL $(($(date +%s) - t0)) START $start END $(date -u +%FT%TZ)" >>"$log"
}

running=0
for t in "${targets[@]}"; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait

printf '%-16s %14s %12s %8s %8s %8s %s\n' target executions exec/cpu_s cpu_s wall_s edges result
rows=()
for t in "${targets[@]}"; do
    log="fuzz/logs/$t.log"
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}' | tail -1)
    cpu=$(grep '^CPU ' "$log" | awk '{print $2}' | tail -1)
    wall=$(grep '^CPU ' "$log" | awk '{print $4}' | tail -1)
    edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    rate=$(awk -v e="${execs:-0}" -v c="${cpu:-0}" 'BEGIN { if (c > 0) printf "%.0f", e / c; else print "?" }')
    crash=$(ls "fuzz/artifacts/$t" | grep -v "^slow-unit" | head -1 || true)
    printf '%-16s %14s %12s %8s %8s %8s %s\n' "$t" "${execs:-?}" "$rate" "${cpu:-?}" "${wall:-?}" "${edges:-?}" "${crash:-no crash}"
    rows+=("| \`$t\` | ${execs:-?} | $rate | ${cpu:-?} | ${wall:-?} | ${edges:-?} | ${crash:-no crash} |")
done
if [ -n "${OUT:-}" ]; then
    {
        echo "\`JOBS=$jobs scripts/fuzz.sh $secs ${targets[*]}\` on $(date -u '+%F %H:%M') UTC (commit $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'))"
        echo
        echo "| target | executions | exec/CPU s | CPU s | wall s | edges | result |"
        echo "|---|---:|---:|---:|---:|---:|---|"
        printf '%s\n' "${rows[@]}"
    } >"$OUT"
fi
