#!/usr/bin/env bash
# Do two `memplan` builds write the same two-level plans? On A-K at 80, 90 and 95% of
# 1,048,576, each build runs
#   plan FILE --capacity C --spill --time-limit inf --node-limit NODES --summary-json
# (no clock: the plan depends on the input and the flags alone), and the plans are
# compared byte for byte:
#
#   [NODES=300] scripts/spill-identical.sh OLD_BINARY NEW_BINARY
#
# Prints one line per instance and capacity: same/DIFF, each build's cost and bound, and
# each build's time in ms. Exits 1 when any plan differs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
    sed -n '2,11p' "$0"
    exit 2
fi
nodes=${NODES:-300}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
differ=0
for cap in 838861 943718 996147; do
    for f in A B C D E F G H I J K; do
        for side in old new; do
            bin=$1
            [ "$side" = new ] && bin=$2
            "$bin" plan "benchmarks/minimalloc-challenging/$f.1048576.csv" --capacity "$cap" \
                --spill --time-limit inf --node-limit "$nodes" --summary-json \
                -o "$dir/$side.csv" 2>"$dir/$side.json" || true
        done
        if cmp -s "$dir/old.csv" "$dir/new.csv"; then same=same; else same=DIFF; differ=1; fi
        python3 - "$cap" "$f" "$same" "$dir/old.json" "$dir/new.json" <<'PY'
import json, sys
cap, f, same, a, b = sys.argv[1:]
o, n = (json.loads(open(p).read().strip().splitlines()[-1]) for p in (a, b))
print(cap, f, same, "cost", o["cost"], n["cost"], "bound", o["lower_bound"], n["lower_bound"],
      "ms", round(o["elapsed_ms"]), round(n["elapsed_ms"]))
PY
    done
done
exit $differ
