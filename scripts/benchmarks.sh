#!/usr/bin/env bash
# Regenerates the raw output behind every table of BENCHMARKS.md, one file per section,
# each starting with the commit, the command lines and `uptime`.
#
#   scripts/benchmarks.sh OUT_DIR [SECTION...]     (default: every section)
#
# Sections: exact minimise large telamalloc share tiles executorch dense spill tflite banked.
# executorch, spill, tflite and banked also write their full tables to benchmarks/results/.
# Needs `cargo build --release -p memplan-cli` (target/release/memplan). `dense` compares
# with an older build: OLD=path/to/memplan (default: skipped side). `executorch` needs
# PYTHON, a Python with the memplan wheel and the ExecuTorch pins (see .ci/run), as does
# `banked`; `tflite` TFLM_PYTHON, a Python with tflite-micro (the TFLM venv of .ci/run).
# Times are wall clock: run it on a quiet machine, one section at a time if need be.
set -uo pipefail

if [ $# -lt 1 ]; then
    sed -n '2,13p' "$0"
    exit 2
fi
out=$1
shift
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
M=${M:-$PWD/target/release/memplan}
sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(exact minimise large telamalloc share tiles executorch dense spill tflite banked)
gen_dir="$out/generated"
mkdir -p "$gen_dir"

header() { # section name
    echo "# $1: $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'), $(date -u '+%F %T') UTC"
    echo "# $(uptime)"
}
timed() { # runs "$@" under /usr/bin/time; prints the summary line, then wall s and peak RSS
    local err
    err=$(mktemp)
    /usr/bin/time -f 'time: %e s wall, %U s user, %M KB peak RSS' "$@" 2>"$err" >/dev/null
    grep -E '^memplan:|^time:' "$err"
    rm -f "$err"
}

exact() {
    $M bench benchmarks/minimalloc-challenging --capacity-from-name --planner exact --time-limit 10
}

minimise() {
    $M bench benchmarks --planner greedy --time-limit inf
    for t in 1 10; do
        echo "## --time-limit $t"
        $M bench benchmarks --time-limit $t
    done
}

large() {
    local dense18k="$gen_dir/dense18k.csv"
    [ -f "$dense18k" ] || $M gen --kind dense --buffers 18692 --live 1100 --seed 1 -o "$dense18k"
    for f in benchmarks/idealloc/iopddl-S.csv "$dense18k"; do
        for t in 1 5 20 60; do
            echo "## $(basename "$f") --time-limit $t"
            timed $M plan "$f" --time-limit $t -o /dev/null
        done
    done
}

telamalloc() {
    for spec in non-overlapping:1000 non-overlapping:10000 full-overlap:100 full-overlap:1000; do
        local kind=${spec%%:*} n=${spec##*:}
        local f="$gen_dir/$kind-$n.csv"
        $M gen --kind "$kind" --buffers "$n" --seed 1 -o "$f"
        # The capacity of TelaMalloc §7.1: the largest size (non-overlapping), the sum of
        # the sizes (full-overlap).
        local cap
        cap=$(awk -F, -v k="$kind" 'NR > 1 { s += $4; if ($4 > m) m = $4 }
            END { print (k == "full-overlap" ? s : m) }' "$f")
        for threads in 1 2; do
            echo "## $kind-$n, --threads $threads"
            perf stat -r 20 -x, -e task-clock $M plan "$f" --planner telamalloc \
                --telamalloc-no-greedy-first --no-check --threads $threads -o /dev/null --quiet \
                --capacity "$cap" 2>&1 | tail -1
            $M plan "$f" --planner telamalloc --telamalloc-no-greedy-first --threads $threads \
                -o /dev/null --capacity "$cap" 2>&1 | tail -1
        done
    done
    scripts/tight.sh
}

share() {
    for f in benchmarks/minimalloc-challenging/[A-K].*.csv benchmarks/idealloc/*.csv; do
        echo "## $(basename "$f")"
        $M plan "$f" -o /dev/null 2>&1 | tail -1
        $M share "$f" -o /dev/null 2>&1 | head -1
    done
}

tiles() {
    for layout in nhwc nchw; do
        for seed in 1 2 3; do
            local f="$gen_dir/net-$layout-$seed.json"
            echo "## $layout, seed $seed"
            $M gen --tiled --layout $layout --seed $seed --blocks 16 --on-chip 262144 -o "$f"
            $M tiles "$f" --compare -o /dev/null 2>&1 | tail -1
        done
    done
}

executorch() {
    "${PYTHON:-python3}" crates/memplan-py/scripts/executorch_table.py --time-limit 1 \
        --out benchmarks/results/executorch.md
}

banked() {
    "${PYTHON:-python3}" crates/memplan-py/scripts/banked_table.py \
        --out benchmarks/results/executorch_banked.md
}

dense() {
    local d60="$gen_dir/dense60k.csv" g1m="$gen_dir/gen1m.csv" live="$gen_dir/alllive200k.csv"
    [ -f "$d60" ] || $M gen --kind dense --buffers 60000 --seed 1 -o "$d60"
    [ -f "$g1m" ] || $M gen --buffers 1000000 --seed 1 -o "$g1m"
    [ -f "$live" ] || awk 'BEGIN { srand(7); print "id,lower,upper,size";
        for (i = 0; i < 200000; i++) printf "%d,0,1,%.0f\n", i, 1 + int(rand() * 2^40) }' >"$live"
    local bins=("$M")
    [ -n "${OLD:-}" ] && bins=("$OLD" "$M")
    for round in 1 2; do
        for bin in "${bins[@]}"; do
            echo "## round $round: $bin"
            for t in 1 5 20; do
                echo "### dense60k --time-limit $t"
                timed "$bin" plan "$d60" --time-limit $t -o /dev/null
            done
            echo "### gen1m default"
            timed "$bin" plan "$g1m" -o /dev/null
            echo "### gen1m --time-limit 1"
            timed "$bin" plan "$g1m" --time-limit 1 -o /dev/null
            echo "### alllive200k default"
            timed "$bin" plan "$live" -o /dev/null
        done
    done
    echo "## each greedy planner alone on dense60k (--time-limit inf)"
    for p in start-best-fit breadth-best-fit size-first-fit size-best-fit area-best-fit \
        area-first-fit contention-best-fit contention-first-fit breadth-first-fit \
        lifetime-best-fit lifetime-first-fit start-first-fit; do
        for bin in "${bins[@]}"; do
            echo "### $p: $bin"
            timed "$bin" plan "$d60" --planner $p --time-limit inf -o /dev/null
        done
    done
    ROUNDS=2 scripts/race.sh "${OLD:-$M}" "$M"
}

spill() {
    scripts/spill-bench.sh "$M"
    scripts/spill-gaps.sh "$M"
}

tflite() {
    "${TFLM_PYTHON:-python3}" scripts/tflite/table.py --bin "$M" -o benchmarks/results/tflite.md
}

for s in "${sections[@]}"; do
    case "$s" in
    exact | minimise | large | telamalloc | share | tiles | executorch | dense | spill | tflite | banked) ;;
    *)
        echo "unknown section: $s" >&2
        exit 2
        ;;
    esac
    echo "== $s" >&2
    { header "$s"; "$s"; } >"$out/$s.txt" 2>&1
done
