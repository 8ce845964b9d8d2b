#!/usr/bin/env bash
# Wall time against an earlier build, side by side, alternating (issue 51): the
# 10^6-buffer path and the exact search on A-K against minimalloc.
#
#   [RUNS=5] [MINIMALLOC=path/to/minimalloc] [NEW=target/release/memplan] \
#       scripts/speed-compare.sh OLD_BINARY [OUT_FILE]
#
# - Huge: `memplan gen --buffers 1000000 --seed 7` (and `--planner start-best-fit`), each
#   build RUNS times, alternating, plans compared byte for byte; wall, user, sys and peak
#   RSS from /usr/bin/time, the median of each.
# - A-K (benchmarks/minimalloc-challenging) at capacity 1,048,576, `--threads 1`,
#   default options, each instance alternating minimalloc (when MINIMALLOC is given),
#   OLD and NEW, RUNS times; every plan checked with `memplan check`.
# Every row carries the load average (1 min) read before its runs. Writes a Markdown
# table to OUT_FILE (default benchmarks/results/speed_compare.md). Times are wall
# clock: the figures for BENCHMARKS.md come from a quiet machine only.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
    sed -n '2,16p' "$0"
    exit 2
fi
OLD=$1
OUT=${2:-benchmarks/results/speed_compare.md}
NEW=${NEW:-target/release/memplan}
RUNS=${RUNS:-5}
MINIMALLOC=${MINIMALLOC:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

load() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
# One timed run: wall, user, sys (s) and peak RSS (MB) appended to the file $1.
timed() {
    local into=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$dir/t" "$@" >/dev/null 2>"$dir/err" || {
        local rc=$?
        # minimalloc and memplan exit non-zero only on a real failure here.
        cat "$dir/err" >&2
        return $rc
    }
    awk '{printf "%s %s %s %.0f\n", $1, $2, $3, $4 / 1024}' "$dir/t" >>"$into"
}
column_median() { awk -v k="$2" '{print $k}' "$1" | median; }

{
    echo "# Speed against an earlier build"
    echo
    echo "OLD: \`$OLD\` ($("$OLD" --version 2>/dev/null || echo '?')); NEW: \`$NEW\` ($("$NEW" --version 2>/dev/null || echo '?'))."
    echo "$RUNS runs each, alternating; medians. $(uname -n), $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)."
    echo
    echo "## 10^6 generated buffers (seed 7)"
    echo
    echo "| options | build | wall s | user s | sys s | peak RSS MB | load |"
    echo "|---|---|---:|---:|---:|---:|---:|"
} >"$OUT"

"$NEW" gen --buffers 1000000 --seed 7 -o "$dir/huge.csv" 2>/dev/null
for opts in "" "--planner start-best-fit"; do
    l=$(load)
    : >"$dir/old.times"
    : >"$dir/new.times"
    for _ in $(seq "$RUNS"); do
        # shellcheck disable=SC2086
        timed "$dir/old.times" "$OLD" plan "$dir/huge.csv" $opts -q -o "$dir/old.plan"
        # shellcheck disable=SC2086
        timed "$dir/new.times" "$NEW" plan "$dir/huge.csv" $opts -q -o "$dir/new.plan"
    done
    cmp -s "$dir/old.plan" "$dir/new.plan" || echo "warning: the plans differ (${opts:-default})" >&2
    for side in old new; do
        f="$dir/$side.times"
        echo "| ${opts:-default} | $side | $(column_median "$f" 1) | $(column_median "$f" 2) | $(column_median "$f" 3) | $(column_median "$f" 4) | $l |" >>"$OUT"
    done
done

{
    echo
    echo "## A-K at capacity 1,048,576, one thread"
    echo
    echo "| instance | minimalloc s | OLD s | NEW s | minimalloc / NEW | load |"
    echo "|---|---:|---:|---:|---:|---:|"
} >>"$OUT"
for f in A B C D E F G H I J K; do
    file="benchmarks/minimalloc-challenging/$f.1048576.csv"
    l=$(load)
    : >"$dir/mm.times"
    : >"$dir/old.times"
    : >"$dir/new.times"
    for _ in $(seq "$RUNS"); do
        if [ -n "$MINIMALLOC" ]; then
            timed "$dir/mm.times" "$MINIMALLOC" --capacity=1048576 --input="$file" --output="$dir/mm.csv"
        fi
        timed "$dir/old.times" "$OLD" plan "$file" --capacity 1048576 --threads 1 -q -o "$dir/old.csv"
        timed "$dir/new.times" "$NEW" plan "$file" --capacity 1048576 --threads 1 -q -o "$dir/new.csv"
        "$NEW" check "$file" "$dir/new.csv" --capacity 1048576 >/dev/null
    done
    mm=-
    ratio=-
    if [ -n "$MINIMALLOC" ]; then
        mm=$(column_median "$dir/mm.times" 1)
        ratio=$(awk -v a="$mm" -v b="$(column_median "$dir/new.times" 1)" 'BEGIN {printf "%.1f", (b > 0) ? a / b : 0}')
    fi
    echo "| $f | $mm | $(column_median "$dir/old.times" 1) | $(column_median "$dir/new.times" 1) | $ratio | $l |" >>"$OUT"
done
echo "wrote $OUT"
