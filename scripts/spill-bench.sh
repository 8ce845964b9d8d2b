#!/usr/bin/env bash
# The two-level (spill) table of BENCHMARKS.md: for each instance and fast capacity (a
# percentage of its max load), the spill planner's cost, proven bound, gap and wall time,
# side by side with the two naive baselines (`--memories-baseline largest-first` and
# `cost-per-byte`, same time limit). Costs are the defaults (each buffer's size).
#
#   scripts/spill-bench.sh [BINARY]        (default: target/release/memplan)
#
# Rows: challenging A–K at 95, 90 and 80 % with --time-limit 10; iopddl-G,
# somas-resnet50 and iopddl-S at 50 and 75 % with --time-limit 1 and 10. SPILL_ROWS=small
# runs the second group only.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/memplan}
max_load() { "$bin" stats "$1" | awk '/^max load/ { gsub(",", "", $3); print $3 }'; }
# One run: prints "cost bound gap% ms optimal" (or the outcome when there is no plan).
run() {
    local out
    out=$("$bin" plan "$1" --capacity "$2" --spill --time-limit "$3" "${@:4}" \
        -o /dev/null --summary-json 2>&1 >/dev/null | tail -1)
    python3 -c '
import json, sys
s = json.loads(sys.argv[1])
if "cost" not in s:
    print(s.get("outcome", "error"), "-", "-", round(s.get("elapsed_ms", 0)), "no")
else:
    print(s["cost"], s["lower_bound"], "%.2f" % s["gap_percent"], round(s["elapsed_ms"]),
          "yes" if s["optimal"] else "no")
' "$out" 2>/dev/null || echo "error - - - -"
}
row() { # file percent limit
    local f=$1 p=$2 t=$3 ml c
    ml=$(max_load "$f")
    c=$((ml * p / 100))
    read -r cost bound gap ms opt < <(run "$f" "$c" "$t")
    read -r lcost _ < <(run "$f" "$c" "$t" --memories-baseline largest-first)
    read -r bcost _ < <(run "$f" "$c" "$t" --memories-baseline cost-per-byte)
    printf '| %s | %s%% | %s s | %s | %s | %s%% | %s | %s | %s | %s |\n' \
        "$(basename "$f" .csv)" "$p" "$t" "$cost" "$bound" "$gap" "$ms" "$opt" "$lcost" "$bcost"
}
echo "| instance | capacity (% of max load) | limit | cost | bound | gap | ms | optimal | largest first | cost per byte |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
if [ "${SPILL_ROWS:-all}" != small ]; then
    for f in benchmarks/minimalloc-challenging/[A-K].1048576.csv; do
        for p in 95 90 80; do row "$f" "$p" 10; done
    done
fi
for f in benchmarks/idealloc/iopddl-G.csv benchmarks/idealloc/somas-resnet50.csv \
    benchmarks/idealloc/iopddl-S.csv; do
    for p in 50 75; do
        for t in 1 10; do row "$f" "$p" "$t"; done
    done
done
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $("$bin" --version)"
