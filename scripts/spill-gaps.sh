#!/usr/bin/env bash
# The spill gap (cost over the proven bound) of two `memplan` builds side by side on the
# challenging suite A-K, at 80, 90 and 95% of 1,048,576 (BENCHMARKS.md §9 and §12):
#
#   [ROUNDS=2] [TIME_LIMIT=2] scripts/spill-gaps.sh OLD_BINARY NEW_BINARY
#   WORK_LIMIT=80000 [ROUNDS=1] scripts/spill-gaps.sh OLD_BINARY NEW_BINARY
#   [OUT=benchmarks/results/spill_gaps.md] scripts/spill-gaps.sh BINARY
#
# With one binary: one round at the default budget (deterministic), a markdown table of
# each instance's cost, bound and gap per capacity, written to OUT (default
# benchmarks/results/spill_gaps.md) under a line naming the command.
#
# Per instance and capacity the two builds alternate, ROUNDS rounds, each run
# `plan FILE --capacity C --spill --time-limit TIME_LIMIT --summary-json` (with WORK_LIMIT,
# `--work-limit WORK_LIMIT` instead: deterministic, so one round is enough). Prints, per
# capacity, each instance's gap for the median cost of each build against the higher
# bound of all its runs ("old -> new"), and the geometric mean of cost / bound (without
# instances whose bound is 0). State the load average with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 1 ]; then
    bin=$1
    dest=${OUT:-benchmarks/results/spill_gaps.md}
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    for cap in 838861 943718 996147; do
        for f in A B C D E F G H I J K; do
            "$bin" plan "benchmarks/minimalloc-challenging/$f.1048576.csv" --capacity "$cap" \
                --spill --summary-json -o /dev/null 2>&1 | tail -1 |
                python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sys.argv[1], sys.argv[2], d["cost"], d["lower_bound"], d["outcome"])' "$cap" "$f" >>"$out"
        done
    done
    {
        echo "\`scripts/spill-gaps.sh $bin\` on $(date -u '+%F %H:%M') UTC (commit $(git rev-parse --short HEAD); $("$bin" --version))"
        echo
        python3 - "$out" <<'EOF'
import math, sys
rows = [l.split() for l in open(sys.argv[1])]
caps = ["838861", "943718", "996147"]
print("Spill on the challenging suite at the default budget (deterministic): per instance "
      "the cost (bytes moved to the slow memory) and the gap to the proven lower bound, at "
      "80, 90 and 95% of 1,048,576.")
print()
print("| instance | " + " | ".join(f"{c}: cost, gap" for c in ("80%", "90%", "95%")) + " |")
print("|---|---:|---:|---:|")
cell = {}
for cap, f, cost, lb, outcome in rows:
    cost, lb = int(cost), int(lb)
    if lb == 0:
        text = f"{cost:,}, bound 0"
    elif outcome == "optimal":
        text = f"{cost:,}, optimal"
    else:
        text = f"{cost:,}, {(cost - lb) / lb * 100:.1f}%"
    cell[(cap, f)] = (text, cost, lb)
for f in "ABCDEFGHIJK":
    print(f"| {f} | " + " | ".join(cell[(c, f)][0] for c in caps) + " |")
geo = []
for c in caps:
    v = [math.log(cost / lb) for (cc, _), (_, cost, lb) in cell.items()
         if cc == c and lb > 0 and cost > 0]
    geo.append(f"{math.exp(sum(v) / len(v)):.3f}" if v else "-")
print("| geometric mean of cost / bound (bound > 0) | " + " | ".join(geo) + " |")
EOF
    } >"$dest"
    cat "$dest"
    exit 0
fi
if [ $# -ne 2 ]; then
    sed -n '2,17p' "$0"
    exit 2
fi
rounds=${ROUNDS:-2}
limit=(--time-limit "${TIME_LIMIT:-2}")
if [ -n "${WORK_LIMIT:-}" ]; then
    limit=(--work-limit "$WORK_LIMIT")
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for cap in 838861 943718 996147; do
    for ((r = 0; r < rounds; r++)); do
        for f in A B C D E F G H I J K; do
            for side in old new; do
                bin=$1
                [ "$side" = new ] && bin=$2
                "$bin" plan "benchmarks/minimalloc-challenging/$f.1048576.csv" --capacity "$cap" \
                    --spill "${limit[@]}" --summary-json -o /dev/null 2>&1 | tail -1 |
                    python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sys.argv[1], sys.argv[2], sys.argv[3], d["cost"], d["lower_bound"])' "$cap" "$f" "$side" >>"$out"
            done
        done
    done
done
python3 - "$out" <<'EOF'
import collections, math, statistics, sys
costs, bound = collections.defaultdict(list), collections.defaultdict(int)
for line in open(sys.argv[1]):
    cap, f, side, cost, lb = line.split()
    costs[(cap, f, side)].append(int(cost))
    bound[(cap, f)] = max(bound[(cap, f)], int(lb))
for cap in ["838861", "943718", "996147"]:
    cells, logs = [], {"old": [], "new": []}
    for f in "ABCDEFGHIJK":
        lb = bound[(cap, f)]
        med = {s: statistics.median(costs[(cap, f, s)]) for s in ("old", "new")}
        if lb == 0:
            cells.append(f"{f}: bound 0, cost {med['old']:,.0f} -> {med['new']:,.0f}")
            continue
        gap = {s: (med[s] - lb) / lb * 100 for s in med}
        cells.append(f"{f}: {gap['old']:.1f} -> {gap['new']:.1f}%")
        for s in med:
            logs[s].append(math.log(med[s] / lb) if med[s] else 0.0)
    geo = {s: math.exp(sum(v) / len(v)) if v else float("nan") for s, v in logs.items()}
    print(f"capacity {int(cap):,}: " + "; ".join(cells))
    print(f"  geometric mean of cost / bound: {geo['old']:.3f} -> {geo['new']:.3f}")
EOF
