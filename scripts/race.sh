#!/usr/bin/env bash
# The capacity race, side by side: for each challenging instance at capacity C (default
# 1,048,576), the default planner of OLD, the default planner of NEW and `--exact` of NEW,
# in turn, with --time-limit 10; ROUNDS rounds (default 3). Prints per-instance wall ms and
# exit codes, then each round's totals (BENCHMARKS.md §8).
#
#   scripts/race.sh OLD_BINARY NEW_BINARY [C]
set -uo pipefail
if [ $# -lt 2 ]; then sed -n '2,7p' "$0"; exit 2; fi
old=$1; new=$2; cap=${3:-1048576}; rounds=${ROUNDS:-3}
cd "$(dirname "$0")/.."
ms() {
    local s rc
    s=$(date +%s%N)
    "$@" --capacity "$cap" --time-limit 10 -o /dev/null --quiet
    rc=$?
    echo "$(( ($(date +%s%N) - s) / 1000000 )) $rc"
}
for r in $(seq "$rounds"); do
    to=0; tn=0; te=0
    for f in benchmarks/minimalloc-challenging/[A-K].1048576.csv; do
        read -r a ra < <(ms "$old" plan "$f")
        read -r b rb < <(ms "$new" plan "$f")
        read -r c rc < <(ms "$new" plan "$f" --exact)
        echo "round $r $(basename "$f" .1048576.csv): old ${a} ms (exit $ra), new ${b} ms (exit $rb), exact ${c} ms (exit $rc)"
        to=$((to + a)); tn=$((tn + b)); te=$((te + c))
    done
    echo "round $r total: old $to ms, new $tn ms, exact $te ms"
done
