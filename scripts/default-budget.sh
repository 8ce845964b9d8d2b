#!/usr/bin/env bash
# Compares the default budget of two memplan builds, side by side in one run, alternating
# per file: `scripts/default-budget.sh OLD_BIN NEW_BIN [ROUNDS]`. For each of A-K
# minimised, A-K at --capacity 1048576 and the real traces (benchmarks/idealloc), it runs
# `plan FILE --summary-json` with every other option at its default and prints one TSV
# line per run: round, build, mode, file, wall seconds (from /usr/bin/time), height,
# exit code and the plan's sha256. The load average is printed before and after.
set -euo pipefail
old=$1 new=$2 rounds=${3:-1}
cd "$(dirname "$0")/.."
files_min=(benchmarks/minimalloc-challenging/[A-K].*.csv benchmarks/idealloc/*.csv)
files_cap=(benchmarks/minimalloc-challenging/[A-K].*.csv)
tmp=$(mktemp -d)
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'round\tbuild\tmode\tfile\twall_s\theight\texit\tsha256\n'
one() { # build_name bin mode file args...
    local name=$1 bin=$2 mode=$3 file=$4; shift 4
    local rc=0
    /usr/bin/time -f %e -o "$tmp/time" "$bin" plan "$file" "$@" --summary-json -o "$tmp/plan.csv" \
        2>/dev/null || rc=$?
    local h
    h=$(python3 -c "import csv,sys; r=list(csv.DictReader(open('$tmp/plan.csv'))); print(max(int(x['offset'])+int(x['size']) for x in r))" 2>/dev/null || echo -)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$mode" "$(basename "$file")" \
        "$(tail -1 "$tmp/time")" "$h" "$rc" "$(sha256sum "$tmp/plan.csv" | cut -c1-16)"
}
for round in $(seq 1 "$rounds"); do
    for f in "${files_min[@]}"; do
        one old "$old" min "$f"; one new "$new" min "$f"
    done
    for f in "${files_cap[@]}"; do
        one old "$old" cap "$f" --capacity 1048576; one new "$new" cap "$f" --capacity 1048576
    done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$tmp"
