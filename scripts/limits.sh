#!/usr/bin/env bash
# Limits stress script: time-limit overshoot per planner, peak memory of greedy
# on 1M and 5M generated buffers, and 100k all-overlapping buffers under a time limit.
#
#   scripts/limits.sh [overshoot|memory|overlap|all]   (default: all)
#
# Release build (built here if missing). Writes a tab-separated log to
# target/limits/results.tsv and the generated instances to target/limits/.
#
# Overshoot is measured on the planner's own clock (`elapsed_ms` of `--json`, which
# starts when `plan` is called, after parsing) against the limit: the target is
# elapsed <= 1.1 * limit + 50 ms. The process's wall, user and sys times and peak RSS
# come from /usr/bin/time. Wall time is what a limit promises, so run this on a quiet
# machine, NOT under nice; `uptime` is recorded with every section.
set -euo pipefail
cd "$(dirname "$0")/.."

what="${1:-all}"
bin=target/release/memplan
out=target/limits
mkdir -p "$out"
if [ ! -x "$bin" ]; then
    cargo build --release -p memplan-cli
fi
results="$out/results.tsv"
[ -f "$results" ] || printf 'section\tinstance\tplanner\tlimit_s\telapsed_ms\tovershoot_ms\tok\twall_s\tuser_s\tsys_s\tmaxrss_kb\toutcome\theight\texit\n' >"$results"

# run SECTION INSTANCE PLANNER LIMIT [extra args...]
run() {
    local section=$1 file=$2 planner=$3 limit=$4
    shift 4
    local err="$out/last.err"
    local code=0
    /usr/bin/time -f 'TIME %e %U %S %M' "$bin" plan "$file" --planner "$planner" \
        --time-limit "$limit" --json -o /dev/null "$@" 2>"$err" || code=$?
    local json times
    json=$(grep '^{' "$err" | tail -1 || true)
    times=$(grep '^TIME ' "$err" | tail -1 | cut -d' ' -f2-)
    python3 - "$section" "$(basename "$file")" "$planner" "$limit" "$code" "$times" "$json" >>"$results" <<'EOF'
import json, sys
section, inst, planner, limit, code, times, js = sys.argv[1:8]
wall, user, sys_, rss = (times.split() + ["?"] * 4)[:4]
try:
    j = json.loads(js)
except Exception:
    j = {}
el = j.get("elapsed_ms")
if limit == "inf" or el is None:
    over, ok = "", ""
else:
    lim = float(limit) * 1000
    over = f"{el - lim:.1f}"
    ok = "yes" if el <= 1.1 * lim + 50 else "NO"
el_s = f"{el:.1f}" if el is not None else "?"
print("\t".join([section, inst, planner, limit, el_s, over, ok, wall, user, sys_, rss,
                 str(j.get("outcome", "?")), str(j.get("height", "?")), code]))
EOF
    tail -1 "$results"
}

if [ "$what" = overshoot ] || [ "$what" = all ]; then
    echo "# overshoot $(date -u +%FT%TZ) $(uptime)" | tee -a "$out/uptime.log"
    [ -f "$out/model100k.csv" ] || "$bin" gen --buffers 100000 --seed 1 -o "$out/model100k.csv"
    bench=benchmarks/minimalloc-challenging/D.1048576.csv
    big=benchmarks/idealloc/iopddl-S.csv
    planners="auto greedy exact boxing telamalloc naive size-best-fit breadth-first-fit"
    for limit in 0.05 0.2 1 2; do
        for p in $planners; do
            run overshoot "$bench" "$p" "$limit"
            run overshoot "$out/model100k.csv" "$p" "$limit"
            run overshoot "$big" "$p" "$limit"
        done
        # Capacity mode: exact and TelaMalloc search under a capacity they cannot prove.
        run overshoot "$bench" exact "$limit" --capacity 1040000
        run overshoot "$bench" telamalloc "$limit" --capacity 1040000
        run overshoot "$bench" auto "$limit" --capacity 1040000
        # Long lifetimes under a capacity (105% of the best known height): the search's
        # setup alone is most of a second here (found in the fourth session).
        run overshoot "$big" exact "$limit" --capacity 1584737160
        run overshoot "$big" telamalloc "$limit" --capacity 1584737160
        run overshoot "$big" auto "$limit" --capacity 1584737160
    done
fi

if [ "$what" = memory ] || [ "$what" = all ]; then
    echo "# memory $(date -u +%FT%TZ) $(uptime)" | tee -a "$out/uptime.log"
    for n in 1000000 5000000; do
        f="$out/model$n.csv"
        [ -f "$f" ] || "$bin" gen --buffers "$n" --seed 1 -o "$f"
        ls -l "$f" | tee -a "$out/uptime.log"
        # Parse and analyse only (no plan), for comparison.
        /usr/bin/time -f "stats $n: %e s wall %U user %S sys %M KB" "$bin" stats "$f" \
            >/dev/null 2>>"$out/uptime.log" || true
        tail -1 "$out/uptime.log"
        run memory "$f" size-best-fit inf
        run memory "$f" size-best-fit inf --threads 1
    done
fi

if [ "$what" = overlap ] || [ "$what" = all ]; then
    echo "# overlap $(date -u +%FT%TZ) $(uptime)" | tee -a "$out/uptime.log"
    f="$out/full100k.csv"
    [ -f "$f" ] || "$bin" gen --kind full-overlap --buffers 100000 --seed 1 -o "$f"
    for limit in 1 5; do
        run overlap "$f" auto "$limit"
        run overlap "$f" boxing "$limit"
        run overlap "$f" telamalloc "$limit"
        run overlap "$f" exact "$limit"
    done
fi
