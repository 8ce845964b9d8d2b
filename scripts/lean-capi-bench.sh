#!/usr/bin/env bash
# The lean C library against the full one, side by side (BENCHMARKS.md §11):
# examples/c/bench_plan.c is linked against each shared library and run in turn.
#
#   [ROUNDS=5] [SKIP_PLANS=1] scripts/lean-capi-bench.sh [FULL_SO LEAN_SO [THIRD_SO]]
#
# 1. Plans (unless SKIP_PLANS=1): on every file under benchmarks/, both libraries must
#    give the same plan (height and a hash of the offsets) where the plan does not depend
#    on the clock: every greedy planner, the greedy portfolio, naive and boxing with no
#    time limit; and the default planner with its default limit (1 s) minimising, on
#    every file where both runs prove their plan optimal (they ended before the limit).
#    Where the clock stopped the default planner's refinement (iopddl-S and -G, D, J),
#    the plan depends on how far it got, run after run in either library: both heights
#    are printed. Fitting under the 1,048,576 of the challenging suite, the default
#    planner races the exact search against TelaMalloc, and which one wins depends on
#    timing by design (D gives 1,042,432 or 1,048,576 in either library, run after
#    run): there both must fit, at any height.
# 2. Time: the challenging suite A-K, minimise and capacity mode (1,048,576), ROUNDS
#    rounds; in each round every library plans every instance in turn (full, lean,
#    [third], then the next instance), so load changes hit them alike. Prints per
#    instance and mode the median milliseconds of the memplan_plan call and the ratio
#    lean / full, and the sums. A third library (e.g. main's full build) is timed
#    beside them when given. State the load average (uptime) with the figures.
#
# Without arguments it builds both: `cargo build --release -p memplan-capi` (full) and
# scripts/lean-capi.sh (lean).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
if [ $# -ge 2 ]; then
    libs=("$@")
else
    cargo build -q --release -p memplan-capi
    libs=("$PWD/target/release/libmemplan_capi.so" "$(scripts/lean-capi.sh)")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bins=()
for k in "${!libs[@]}"; do
    so=$(realpath "${libs[$k]}")
    mkdir -p "$work/lib$k"
    cp "$so" "$work/lib$k/libmemplan_capi.so"
    gcc -O2 -Wall -Wextra -Werror -std=c11 -I crates/memplan-capi/include \
        examples/c/bench_plan.c -L "$work/lib$k" -lmemplan_capi -Wl,-rpath,"$work/lib$k" \
        -o "$work/bench$k"
    bins+=("$work/bench$k")
    echo "library $k: $so ($(stat -c %s "$so") bytes)"
done
suite=(benchmarks/minimalloc-challenging/[A-K].1048576.csv)

if [ "${SKIP_PLANS:-0}" != 1 ]; then
    greedy=(size-best-fit size-first-fit area-best-fit area-first-fit contention-best-fit
        contention-first-fit breadth-best-fit breadth-first-fit lifetime-best-fit
        lifetime-first-fit start-best-fit start-first-fit greedy naive)
    runs=()
    for g in "${greedy[@]}"; do
        runs+=("$g|--planner $g --time-limit inf|benchmarks/minimalloc-challenging/*.csv benchmarks/idealloc/*.csv|plan")
    done
    runs+=("boxing|--planner boxing --time-limit inf|benchmarks/minimalloc-challenging/*.csv benchmarks/idealloc/*.csv|plan")
    runs+=("auto|--planner auto|benchmarks/minimalloc-challenging/*.csv benchmarks/idealloc/*.csv|proven"
        "auto-capacity|--planner auto --capacity 1048576|${suite[*]}|fits")
    differ=0
    total=0
    for r in "${runs[@]}"; do
        IFS='|' read -r name flags files what <<<"$r"
        # plan: the height and the offsets' hash; proven: the same, with whether the plan
        # is proven optimal; fits: whether a plan fits (status 0)
        keep='{print $1, $3, $6}'
        [ "$what" = proven ] && keep='{print $1, $3, $6, $4}'
        [ "$what" = fits ] && keep='{print $1, ($3 != "-" && $3 <= 1048576) ? "fits" : $4}'
        # shellcheck disable=SC2086 # flags and files are word lists
        "${bins[0]}" $flags $files | awk "$keep" >"$work/a"
        # shellcheck disable=SC2086
        "${bins[1]}" $flags $files | awk "$keep" >"$work/b"
        total=$((total + $(wc -l <"$work/a")))
        if [ "$what" = proven ]; then
            # Where both runs proved their plan optimal, the run ended before the time
            # limit: the plans must be the same. Elsewhere the clock stopped the
            # refinement, at a point that differs from run to run (in either library):
            # the heights are printed.
            paste -d' ' "$work/a" "$work/b" >"$work/ab"
            awk '!($4 == 1 && $8 == 1) { print "stopped by the clock: " $1 ": full " $2 \
                ($4 == 1 ? " (optimal)" : "") ", lean " $6 ($8 == 1 ? " (optimal)" : "") }' "$work/ab"
            awk '$4 == 1 && $8 == 1 { print $1, $2, $3 }' "$work/ab" >"$work/a"
            awk '$4 == 1 && $8 == 1 { print $5, $6, $7 }' "$work/ab" >"$work/b"
        fi
        if ! diff -q "$work/a" "$work/b" >/dev/null; then
            echo "plans differ: $name"
            diff "$work/a" "$work/b" | sed 's/^/  /'
            differ=$((differ + 1))
        fi
    done
    echo "plans: $total runs in ${#runs[@]} configurations, $differ configurations differ"
    [ "$differ" -eq 0 ] || exit 1
fi

for mode in minimise capacity; do
    flags=()
    [ "$mode" = capacity ] && flags=(--capacity 1048576)
    : >"$work/times"
    for ((r = 0; r < rounds; r++)); do
        for f in "${suite[@]}"; do
            for k in "${!bins[@]}"; do
                "${bins[$k]}" "${flags[@]}" "$f" | awk -v k="$k" '{print $1, k, $NF}' >>"$work/times"
            done
        done
    done
    echo "== $mode (${flags[*]:-no capacity}), median ms of $rounds rounds, alternating"
    python3 - "$work/times" "${#bins[@]}" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
n = int(sys.argv[2])
names = sorted({r[0] for r in rows})
head = ["instance", "full", "lean"] + (["third"] if n > 2 else []) + ["lean/full"]
print(" | ".join(head))
sums = [0.0] * n
for name in names:
    med = [statistics.median(float(r[2]) for r in rows if r[0] == name and int(r[1]) == k)
           for k in range(n)]
    sums = [s + m for s, m in zip(sums, med)]
    print(" | ".join([name.split(".")[0]] + [f"{m:.1f}" for m in med] + [f"{med[1] / med[0]:.3f}"]))
print(" | ".join(["sum"] + [f"{s:.1f}" for s in sums] + [f"{sums[1] / sums[0]:.3f}"]))
EOF
done
