#!/usr/bin/env bash
# Compares the plans of two `memplan` binaries, byte for byte, on every file under
# benchmarks/: the default planner and each named planner, on --threads 1 and 2.
#
#   [ONLY=config,config] scripts/compare-builds.sh OLD_BINARY NEW_BINARY [WORK_DIR]
#
# e.g. a baseline built from an older commit in its own worktree:
#   git worktree add /tmp/memplan-baseline <commit>
#   (cd /tmp/memplan-baseline && cargo build --release -p memplan-cli)
#   cargo build --release -p memplan-cli
#   scripts/compare-builds.sh /tmp/memplan-baseline/target/release/memplan target/release/memplan
#
# Every run must be reproducible, so no run may depend on the clock:
# - the greedy planners, `naive` and the greedy portfolio (`--planner greedy`; builds
#   before it existed ran it as `auto --time-limit inf`, and get that flag instead) run
#   with `--time-limit inf` (no clock: the result depends on the input alone), on every
#   file;
# - the refining stages (exact, boxing, TelaMalloc, the default planner's exact and boxing
#   steps) are bounded by counts, not time: `--node-limit` for the exact search and
#   TelaMalloc (builds before it covered TelaMalloc had `--tm-step-limit`, and get that
#   flag instead in the TelaMalloc configurations), `--iterations` and `--polish-moves`
#   for boxing.
#   `auto-refine` gives the default planner one hour, which the count limits keep it far
#   from; the capacity modes run with `--time-limit inf`, where the default planner's
#   exact search runs alone (the race against TelaMalloc depends on timing by design and
#   is not compared), and without boxing;
# - the refining stages run on the files that finish in seconds: every file but
#   iopddl-S (28,526 buffers, 43M overlapping pairs).
# The capacities are 101% of the best known heights (benchmarks/best-known.tsv). A run that
# finds no plan under the capacity exits 6; its output is compared too (from ae317b4 on, the
# CLI writes the best plan there, where 1c7d1a5 wrote nothing: those 24 runs differ).
#
# Output: one line per differing run, then the totals. Exit status 1 when a plan, or the
# exit status of a run, differs.
set -uo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,12p' "$0"
    exit 2
fi
old=$1
new=$2
work=${3:-$(mktemp -d)}
cd "$(dirname "$0")/.."

all_files=(benchmarks/minimalloc-challenging/*.csv benchmarks/idealloc/*.csv)
small_files=()
for f in "${all_files[@]}"; do
    case "$f" in *iopddl-S*) ;; *) small_files+=("$f") ;; esac
done

best() { # the best known height of benchmark file $1 (benchmarks/best-known.tsv)
  awk -F'\t' -v f="${1#benchmarks/}" '$1 == f { print $2 }' benchmarks/best-known.tsv
}

greedy=(size-best-fit size-first-fit area-best-fit area-first-fit contention-best-fit
    contention-first-fit breadth-best-fit breadth-first-fit lifetime-best-fit
    lifetime-first-fit start-best-fit start-first-fit)

# Each configuration: NAME|FILES (all or small)|CAPACITY (yes or no)|FLAGS
configs=("greedy|all|no|--planner greedy --time-limit inf")
for g in "${greedy[@]}" naive; do
    configs+=("$g|all|no|--planner $g --time-limit inf")
done
configs+=(
    "auto-refine|small|no|--time-limit 3600 --node-limit 2000 --iterations 3 --polish-moves 2000"
    "auto-capacity|small|yes|--time-limit inf --node-limit 2000 --no-boxing-in-portfolio"
    "exact|small|no|--planner exact --time-limit inf --node-limit 2000"
    "exact-capacity|small|yes|--planner exact --time-limit inf --node-limit 2000"
    "telamalloc|small|no|--planner telamalloc --time-limit inf --node-limit 100000"
    "telamalloc-capacity|small|yes|--planner telamalloc --time-limit inf --node-limit 200000"
    "boxing|small|no|--planner boxing --time-limit inf --iterations 3 --polish-moves 2000"
    # Ablations: the option flags reach the same techniques in both builds.
    "telamalloc-ablation|small|no|--planner telamalloc --time-limit inf --node-limit 50000 --telamalloc-no-canonical --telamalloc-no-dynamic-decomposition --telamalloc-no-backjump --telamalloc-no-phases"
    "exact-ablation|small|no|--planner exact --time-limit inf --node-limit 200 --no-dominance --no-decomposition --no-monotonic-floor"
    "boxing-ablation|small|no|--planner boxing --time-limit inf --iterations 3 --polish-moves 0 --no-plan-to-beat --no-calibrate-epsilon"
)
# ONLY=name,name runs those configurations alone.
if [ -n "${ONLY:-}" ]; then
    kept=()
    for c in "${configs[@]}"; do
        case ",$ONLY," in *",${c%%|*},"*) kept+=("$c") ;; esac
    done
    configs=("${kept[@]}")
fi

# Builds without `--planner greedy` ran the greedy portfolio as `auto --time-limit inf`.
# Builds with `--tm-step-limit` held TelaMalloc to it, not to `--node-limit`.
has_greedy() { "$1" plan --help | grep -q '`greedy`'; }
has_tm_steps() { "$1" plan --help-all | grep -q -- '--tm-step-limit'; }
# Builds before the switches were named after their options spelled TelaMalloc's
# `--telamalloc-…` as `--tm-…` (its dynamic decomposition `--tm-no-decomposition`) and
# `--no-plan-to-beat` as `--no-bootstrap`.
has_option_names() { "$1" plan --help-all | grep -q -- '--telamalloc-no-canonical'; }
side_flags() { # the flags $2 as binary $1 spells them
    local f=$2
    if ! has_greedy "$1"; then f=${f/--planner greedy/}; fi
    if ! has_option_names "$1"; then
        f=${f//--telamalloc-no-dynamic-decomposition/--tm-no-decomposition}
        f=${f//--telamalloc-/--tm-}
        f=${f//--no-plan-to-beat/--no-bootstrap}
    fi
    if has_tm_steps "$1"; then
        case "$f" in *"--planner telamalloc"*) f=${f/--node-limit/--tm-step-limit} ;; esac
    fi
    echo "$f"
}

compared=0
differed=0
started=$(date +%s)
for c in "${configs[@]}"; do
    IFS='|' read -r name which capacity flags <<<"$c"
    if [ "$which" = all ]; then files=("${all_files[@]}"); else files=("${small_files[@]}"); fi
    for f in "${files[@]}"; do
        extra=()
        if [ "$capacity" = yes ]; then extra=(--capacity $(($(best "$f") * 101 / 100))); fi
        for t in 1 2; do
            key="$name/$(basename "$f" .csv).t$t"
            for side in old new; do
                bin=$old
                if [ "$side" = new ]; then bin=$new; fi
                side_flags=$(side_flags "$bin" "$flags")
                mkdir -p "$work/$side/$name"
                rm -f "$work/$side/$key.csv"
                # shellcheck disable=SC2086 # $flags is a list of words
                "$bin" plan "$f" $side_flags "${extra[@]}" --threads $t --quiet \
                    -o "$work/$side/$key.csv" 2>"$work/$side/$key.err"
                echo "exit $?" >>"$work/$side/$key.csv"
            done
            compared=$((compared + 1))
            if ! cmp -s "$work/old/$key.csv" "$work/new/$key.csv"; then
                differed=$((differed + 1))
                echo "DIFFERS: $key ($flags ${extra[*]} --threads $t)"
            fi
        done
    done
done
echo "compared $compared runs (${#configs[@]} configurations x files x threads 1 and 2)" \
    "in $(($(date +%s) - started)) s: $differed differed. Outputs in $work"
[ "$differed" -eq 0 ]
