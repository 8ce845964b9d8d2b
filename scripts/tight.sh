#!/bin/bash
# Tight-capacity table: greedy portfolio vs telamalloc (defaults) vs exact vs the default
# planner (auto: greedy, then exact racing telamalloc), 10 s limit each, at 100/101/105/110% of the best height known. Run from the worktree root after
# `cargo build --release -p memplan-cli`, preferably under `nice -n 19`.
# Each cell: ok/-- , wall ms, CPU ms (user+sys from /usr/bin/time).
# Greedy (--planner greedy: the greedy portfolio alone) is deterministic and does not depend on the capacity except for the verdict,
# so it runs once per instance; its times repeat on the four rows.
M=./target/release/memplan
best() { # the best known height of benchmark file $1 (benchmarks/best-known.tsv)
  awk -F'\t' -v f="${1#benchmarks/}" '$1 == f { print $2 }' benchmarks/best-known.tsv
}
run() { # prints "ok|--|CHECK-FAIL wall_ms cpu_ms height"
  local t o rc wall user sys
  t=$(mktemp); o=$(mktemp)
  /usr/bin/time -f "%e %U %S" -o "$t" "$@" -o /dev/null 2>"$o"
  rc=$?
  read -r wall user sys < <(tail -1 "$t")
  local wms cms h
  wms=$(awk -v w="$wall" 'BEGIN{printf "%d", w*1000}')
  cms=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%d", (u+s)*1000}')
  h=$(grep -oE 'height [0-9,]+' "$o" | head -1 | tr -d 'height ,')
  rm -f "$t" "$o"
  if [ "$rc" -eq 0 ]; then echo "ok $wms $cms $h"; elif [ "$rc" -eq 4 ]; then echo "CHECK-FAIL $wms $cms $h"; else echo "-- $wms $cms $h"; fi
}
echo "| instance | best known | % | capacity | greedy | wall ms | CPU ms | telamalloc | wall ms | CPU ms | exact | wall ms | CPU ms | auto | wall ms | CPU ms |"
echo "|---|---:|---:|---:|---|---:|---:|---|---:|---:|---|---:|---:|---|---:|---:|"
for f in benchmarks/idealloc/*.csv benchmarks/minimalloc-challenging/[A-K].*.csv; do
  b=$(best "$f")
  read -r gs gw gc gh < <(run $M plan "$f" --planner greedy)  # greedy only: no improvers
  for pct in 100 101 105 110; do
    cap=$(( b * pct / 100 ))
    if [ -n "$gh" ] && [ "$gh" -le "$cap" ]; then g=ok; else g=--; fi
    read -r ts tw tc _ < <(run $M plan "$f" --capacity $cap --planner telamalloc --time-limit 10)
    read -r es ew ec _ < <(run $M plan "$f" --capacity $cap --planner exact --time-limit 10)
    read -r as aw ac _ < <(run $M plan "$f" --capacity $cap --time-limit 10)
    echo "| $(basename "$f" .csv) | $b | $pct | $cap | $g | $gw | $gc | $ts | $tw | $tc | $es | $ew | $ec | $as | $aw | $ac |"
  done
done
