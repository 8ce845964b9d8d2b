#!/usr/bin/env bash
# Speed against an earlier build, side by side, alternating (issue 51): the 10^6-buffer
# path and the exact search on A-K against minimalloc. A benchmark, not a timed test.
#
#   [RUNS=5] [MINIMALLOC=path/to/minimalloc] [NEW=target/release/memplan]
#   [INSTRUCTIONS=1] [THREADS=1] scripts/speed-compare.sh OLD_BINARY [OUT_FILE]
#
# - Huge: `memplan gen --buffers 1000000 --seed 7`, default options and
#   `--planner start-best-fit`, and the 200,000 all-live problem (scripts/benchmarks.sh's,
#   sizes to 2^40), default options; each build RUNS times, alternating; the plans compared
#   byte for byte; wall, user, sys and peak RSS from /usr/bin/time, the median of each.
# - A-K (benchmarks/minimalloc-challenging) at capacity 1,048,576, `--threads 1`
#   (THREADS: another count; minimalloc has one), default options, each instance
#   alternating minimalloc (when MINIMALLOC is given, a
#   build of google/minimalloc), OLD and NEW, RUNS times; every plan checked with
#   `memplan check`, OLD's and NEW's compared byte for byte.
# - INSTRUCTIONS=1 adds one run of each build under `valgrind --tool=callgrind` per row:
#   instruction counts, which do not depend on the machine's load.
# Every row carries the 1-minute load average before and after its runs. Writes a
# Markdown table to OUT_FILE (default benchmarks/results/speed_compare.md), headed by
# the command. Wall times need a quiet machine; the load column says how quiet it was.
set -euo pipefail
if [ $# -lt 1 ]; then
    sed -n '2,20p' "$0"
    exit 2
fi
OLD=$(realpath "$1")
[ -z "${MINIMALLOC:-}" ] || MINIMALLOC=$(realpath "$MINIMALLOC")
cd "$(dirname "$0")/.."
OUT=${2:-benchmarks/results/speed_compare.md}
NEW=${NEW:-target/release/memplan}
RUNS=${RUNS:-5}
MINIMALLOC=${MINIMALLOC:-}
INSTRUCTIONS=${INSTRUCTIONS:-}
THREADS=${THREADS:-1}
CAP=1048576
for b in "$OLD" "$NEW" ${MINIMALLOC:+"$MINIMALLOC"}; do
    [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }
done
if [ -n "$INSTRUCTIONS" ] && ! command -v valgrind >/dev/null; then
    echo "INSTRUCTIONS=1 needs valgrind" >&2
    exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

load() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
column_median() { awk -v k="$2" '{print $k}' "$1" | median; }
# One timed run of the command after $1: wall, user, sys (s) and peak RSS (MB) appended
# to the file $1. A failing command stops the script with its message.
timed() {
    local into=$1
    shift
    local t0=$EPOCHREALTIME
    if ! /usr/bin/time -f '%U %S %M' -o "$dir/t" "$@" >/dev/null 2>"$dir/err"; then
        echo "failed: $*" >&2
        cat "$dir/err" >&2
        exit 1
    fi
    local t1=$EPOCHREALTIME
    # Wall from the shell's clock (microseconds; /usr/bin/time gives centiseconds).
    awk -v a="$t0" -v b="$t1" '{printf "%.3f %s %s %.0f\n", b - a, $1, $2, $3 / 1024}' "$dir/t" >>"$into"
}
# Millions of instructions of one run of the command (callgrind), or - without
# INSTRUCTIONS.
instructions() {
    if [ -z "$INSTRUCTIONS" ]; then
        echo -
        return
    fi
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >/dev/null 2>"$dir/cg"
    awk '/Collected :/ {printf "%.0f", $NF / 1e6}' "$dir/cg"
}
sum() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-") print "-"; else print a + b}'; }
commit() { git rev-parse --short HEAD 2>/dev/null || echo '?'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.1f", a / b}'; }

cmd="scripts/speed-compare.sh $1${2:+ $2}"
[ -n "$MINIMALLOC" ] && cmd="MINIMALLOC=$MINIMALLOC $cmd"
[ -n "$INSTRUCTIONS" ] && cmd="INSTRUCTIONS=1 $cmd"
[ "$RUNS" != 5 ] && cmd="RUNS=$RUNS $cmd"
[ "$THREADS" != 1 ] && cmd="THREADS=$THREADS $cmd"
[ "$NEW" != target/release/memplan ] && cmd="NEW=$NEW $cmd"
{
    echo "\`$cmd\` on $(date -u '+%Y-%m-%d %H:%M') UTC (NEW: \`$NEW\` at $(commit); OLD: \`$OLD\`)"
    echo
    echo "Both comparisons of issue 51, side by side in one run: $RUNS runs of each build, alternating, medians;"
    echo "$(nproc) cores, $(uname -m). The load column is the 1-minute load average before and after the"
    echo "row's runs: wall times above a load of about 1 are not those of a quiet machine. Instructions"
    echo "(millions, callgrind, one run) do not depend on the load."
    echo
    echo "## 10^6 generated buffers (huge: \`memplan gen --buffers 1000000 --seed 7\`) and 200,000 all live (alllive)"
    echo
    echo "| options | build | wall s | user s | sys s | peak RSS MB | instructions M | same plan | load |"
    echo "|---|---|---:|---:|---:|---:|---:|---|---|"
} >"$OUT"

"$NEW" gen --buffers 1000000 --seed 7 -o "$dir/huge.csv" 2>/dev/null
# The 200,000 all-live problem of scripts/benchmarks.sh (section dense), sizes to 2^40:
# %.0f, since mawk's %d stops at 2^31 - 1.
awk 'BEGIN { srand(7); print "id,lower,upper,size";
    for (i = 0; i < 200000; i++) printf "%d,0,1,%.0f\n", i, 1 + int(rand() * 2^40) }' >"$dir/alllive.csv"
for row in "huge.csv|" "huge.csv|--planner start-best-fit" "alllive.csv|"; do
    input=${row%%|*}
    opts=${row#*|}
    l0=$(load)
    : >"$dir/old.times"
    : >"$dir/new.times"
    for _ in $(seq "$RUNS"); do
        # shellcheck disable=SC2086
        timed "$dir/old.times" "$OLD" plan "$dir/$input" $opts -q -o "$dir/old.plan"
        # shellcheck disable=SC2086
        timed "$dir/new.times" "$NEW" plan "$dir/$input" $opts -q -o "$dir/new.plan"
    done
    same=yes
    cmp -s "$dir/old.plan" "$dir/new.plan" || same=no
    # shellcheck disable=SC2086
    i_old=$(instructions "$OLD" plan "$dir/$input" $opts -q -o /dev/null)
    # shellcheck disable=SC2086
    i_new=$(instructions "$NEW" plan "$dir/$input" $opts -q -o /dev/null)
    l1=$(load)
    for side in old new; do
        f="$dir/$side.times"
        i=$i_old
        [ "$side" = new ] && i=$i_new
        echo "| ${input%.csv} ${opts:-default} | $side | $(column_median "$f" 1) | $(column_median "$f" 2) | $(column_median "$f" 3) | $(column_median "$f" 4) | $i | $same | $l0–$l1 |" >>"$OUT"
    done
done

{
    echo
    echo "## A–K at capacity 1,048,576, \`--threads $THREADS\`, default options"
    echo
    echo "Wall s of the whole process; every plan passed \`memplan check\`."
    echo
    echo "| instance | minimalloc s | OLD s | NEW s | minimalloc / OLD | minimalloc / NEW | OLD instructions M | NEW instructions M | same plan | load |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"
} >>"$OUT"
tot_mm=0
tot_old=0
tot_new=0
tot_iold=0
tot_inew=0
for f in A B C D E F G H I J K; do
    file="benchmarks/minimalloc-challenging/$f.$CAP.csv"
    l0=$(load)
    : >"$dir/mm.times"
    : >"$dir/old.times"
    : >"$dir/new.times"
    for _ in $(seq "$RUNS"); do
        if [ -n "$MINIMALLOC" ]; then
            timed "$dir/mm.times" "$MINIMALLOC" --capacity=$CAP --input="$file" --output="$dir/mm.csv"
            "$NEW" check "$file" "$dir/mm.csv" --capacity $CAP >/dev/null
        fi
        timed "$dir/old.times" "$OLD" plan "$file" --capacity $CAP --threads "$THREADS" -q -o "$dir/old.csv"
        timed "$dir/new.times" "$NEW" plan "$file" --capacity $CAP --threads "$THREADS" -q -o "$dir/new.csv"
        "$NEW" check "$file" "$dir/old.csv" --capacity $CAP >/dev/null
        "$NEW" check "$file" "$dir/new.csv" --capacity $CAP >/dev/null
    done
    same=yes
    cmp -s "$dir/old.csv" "$dir/new.csv" || same=no
    i_old=$(instructions "$OLD" plan "$file" --capacity $CAP --threads "$THREADS" -q -o /dev/null)
    i_new=$(instructions "$NEW" plan "$file" --capacity $CAP --threads "$THREADS" -q -o /dev/null)
    l1=$(load)
    mm=-
    [ -n "$MINIMALLOC" ] && mm=$(column_median "$dir/mm.times" 1)
    old=$(column_median "$dir/old.times" 1)
    new=$(column_median "$dir/new.times" 1)
    echo "| $f | $mm | $old | $new | $(ratio "$mm" "$old") | $(ratio "$mm" "$new") | $i_old | $i_new | $same | $l0–$l1 |" >>"$OUT"
    tot_mm=$(sum "$tot_mm" "$mm")
    tot_old=$(sum "$tot_old" "$old")
    tot_new=$(sum "$tot_new" "$new")
    tot_iold=$(sum "$tot_iold" "$i_old")
    tot_inew=$(sum "$tot_inew" "$i_new")
done
echo "| **total** | $tot_mm | $tot_old | $tot_new | $(ratio "$tot_mm" "$tot_old") | $(ratio "$tot_mm" "$tot_new") | $tot_iold | $tot_inew | | |" >>"$OUT"
echo "wrote $OUT"
