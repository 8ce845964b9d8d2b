#!/bin/bash
# Tight-capacity table: greedy portfolio vs telamalloc (defaults) vs telamalloc with
# skyline placement (--tm-no-lowest-position), 10 s limit each, at 100/101/105/110% of
# the best height known. Run from the worktree root after `cargo build --release`.
M=./target/release/memplan
best() {
  case "$1" in
    *minimalloc-challenging/C.*) echo 1047552 ;;           # minimalloc's plan at 1,048,576
    *minimalloc-challenging/example.12.csv) echo 12 ;;     # = max load
    *minimalloc-challenging/*) echo 1048576 ;;             # minimalloc solves at this capacity
    *) $M plan "$1" -o /dev/null 2>&1 | grep -oE 'height [0-9,]+' | head -1 | tr -d 'height ,' ;;
  esac
}
run() { # prints "ok|-- ms"
  local s e rc
  s=$(date +%s%N); "$@" -o /dev/null 2>/dev/null; rc=$?; e=$(date +%s%N)
  local ms=$(( (e - s) / 1000000 ))
  if [ $rc -eq 0 ]; then echo "ok ${ms}"; elif [ $rc -eq 4 ]; then echo "CHECK-FAIL ${ms}"; else echo "-- ${ms}"; fi
}
echo "| instance | best known | % | capacity | greedy | ms | telamalloc | ms | telamalloc skyline | ms |"
echo "|---|---:|---:|---:|---|---:|---|---:|---|---:|"
for f in benchmarks/idealloc/*.csv benchmarks/minimalloc-challenging/[A-K].*.csv; do
  b=$(best "$f")
  for pct in 100 101 105 110; do
    cap=$(( b * pct / 100 ))
    g=$(run $M plan "$f" --capacity $cap)
    t=$(run $M plan "$f" --capacity $cap --planner telamalloc --time-limit 10)
    k=$(run $M plan "$f" --capacity $cap --planner telamalloc --time-limit 10 --tm-no-lowest-position)
    set -- $g $t $k
    echo "| $(basename $f .csv) | $b | $pct | $cap | $1 | $2 | $3 | $4 | $5 | $6 |"
  done
done
