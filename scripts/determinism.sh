#!/usr/bin/env bash
# Issue 37's check, on the command line: the default budget gives the same output bytes
# on every run, quiet and beside two busy processes, at --threads 1 and 2.
#   scripts/determinism.sh [MEMPLAN_BIN]    (default: target/release/memplan)
# For each case it prints the distinct sha256 of the plans written over the 4 runs (one
# line per case: `same` when there is one), then plans A-K at --capacity 1048576 beside
# the busy processes and prints each exit code. Exits 1 if any case differs or any A-K run
# fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/memplan}
tmp=$(mktemp -d)
busy_pids=()
busy() { for _ in 1 2; do (while :; do :; done) & busy_pids+=($!); done; }
quiet() { kill "${busy_pids[@]}" 2>/dev/null; wait "${busy_pids[@]}" 2>/dev/null; busy_pids=(); }
trap quiet EXIT
m=benchmarks/minimalloc-challenging
cases=("$m/D.1048576.csv" "$m/J.1048576.csv" "benchmarks/idealloc/iopddl-S.csv" "$m/D.1048576.csv --capacity 1000000")
status=0
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in "${cases[@]}"; do
    sums=()
    for load in quiet busy; do
        [ "$load" = busy ] && busy
        for t in 1 2; do
            # shellcheck disable=SC2086
            "$bin" plan $c --threads "$t" -q -o "$tmp/plan.csv" 2>/dev/null
            rc=$?
            sums+=("$(sha256sum "$tmp/plan.csv" | cut -c1-16) exit $rc")
        done
        quiet
    done
    distinct=$(printf '%s\n' "${sums[@]}" | sort -u)
    if [ "$(printf '%s\n' "$distinct" | wc -l)" = 1 ]; then
        echo "same      $c: $distinct"
    else
        echo "DIFFERENT $c: $(printf '%s; ' "${sums[@]}")"; status=1
    fi
done
busy
echo "# A-K at --capacity 1048576 beside two busy processes (load $(cut -d' ' -f1 /proc/loadavg))"
for f in $m/[A-K].1048576.csv; do
    "$bin" plan "$f" --capacity 1048576 -q -o /dev/null 2>/dev/null
    rc=$?
    echo "exit $rc  $(basename "$f")"
    [ "$rc" = 0 ] || status=1
done
quiet
rm -rf "$tmp"
exit $status
