#!/usr/bin/env bash
# Do two `memplan` builds write the same plans? Each build plans, with the default budget
# (a work limit: the plan depends on the input and the flags alone), and the plan files
# are compared byte for byte:
#
#   scripts/plans-identical.sh OLD_BINARY NEW_BINARY
#
# - A-K (benchmarks/minimalloc-challenging): one memory, minimised and under 1,048,576;
#   spill at 80, 90 and 95% of 1,048,576 (`--capacity C --spill`); two memories at 90%
#   (`--memories fast:C,slow`); three (`--memories tcm:C/2,ocram:C/2,dram`, C = 90%);
# - tests/shares/*.csv (one memory, their shares) and tests/memories/three.csv
#   (`--memories tcm:10,ocram:8:4,dram`).
#
# Prints one line per case: same/DIFF and each build's exit code. Exits 1 when any
# plan (or exit code) differs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
    sed -n '2,14p' "$0"
    exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
differ=0
# One case: a label, then the arguments after `plan FILE`.
case_() {
    local label=$1 file=$2
    shift 2
    local codes=()
    for side in old new; do
        local bin=$OLD
        [ "$side" = new ] && bin=$NEW
        set +e
        "$bin" plan "$file" "$@" -q -o "$dir/$side.out"
        codes+=($?)
        set -e
    done
    local same=same
    if [ "${codes[0]}" != "${codes[1]}" ] || ! cmp -s "$dir/old.out" "$dir/new.out"; then
        same=DIFF
        differ=1
    fi
    echo "$same $label exit ${codes[0]} ${codes[1]}"
    rm -f "$dir/old.out" "$dir/new.out"
}
OLD=$1
NEW=$2
for f in A B C D E F G H I J K; do
    file="benchmarks/minimalloc-challenging/$f.1048576.csv"
    case_ "$f minimise" "$file"
    case_ "$f capacity 1048576" "$file" --capacity 1048576
    for cap in 838861 943718 996147; do
        case_ "$f spill $cap" "$file" --capacity "$cap" --spill
    done
    case_ "$f memories fast:943718,slow" "$file" --memories fast:943718,slow
    case_ "$f memories tcm:471859,ocram:471859,dram" "$file" --memories tcm:471859,ocram:471859,dram
done
for file in tests/shares/*.csv; do
    case_ "$file" "$file"
done
case_ "tests/memories/three.csv" tests/memories/three.csv --memories tcm:10,ocram:8:4,dram
exit $differ
