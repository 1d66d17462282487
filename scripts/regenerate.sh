#!/usr/bin/env bash
# Regenerates every committed result under results/ from experiments/*.toml,
# timing each experiment and the whole. Resumes: finished rows are kept, so
# pass --fresh to recompute everything, --redo SOLVER (repeatable) to
# solve one solver's rows again after changing it, or --redo-graph GRAPH
# to solve one graph's rows again after editing its file.
#
#   scripts/regenerate.sh [--fresh | --redo SOLVER | --redo-graph GRAPH]... [--threads N] [EXPERIMENT...]
#
# Without EXPERIMENT names it runs quick, seed_table, heuristics, optimality, nas,
# scaling and rules, in that order. Timings go to results/TIMINGS.md: one row
# per experiment and options, so a --redo leaves the --fresh run's row.
set -euo pipefail
cd "$(dirname "$0")/.."

extra=()
names=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fresh) extra+=(--fresh); shift ;;
    --redo) extra+=(--redo "$2"); shift 2 ;;
    --redo-graph) extra+=(--redo-graph "$2"); shift 2 ;;
    --threads|-j) extra+=(--threads "$2"); shift 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [[ ${#names[@]} -eq 0 ]]; then
  if [[ " ${extra[*]:-} " == *" --redo "* || " ${extra[*]:-} " == *" --redo-graph "* ]]; then
    echo "regenerate.sh: --redo and --redo-graph need the experiments that hold the solver or graph, e.g. 'scripts/regenerate.sh --redo ilp nas seed_table'" >&2
    exit 2
  fi
  names=(quick seed_table heuristics optimality nas scaling rules)
fi

cargo build --release --locked
bin=target/release/memsched
mkdir -p results
# results/TIMINGS.md keeps one row per experiment and options: a run
# replaces the row of its experiment run with its options and leaves the
# others, so experiments can be regenerated one at a time.
timings=results/TIMINGS.md
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
if [[ -f "$timings" ]]; then
  grep '^| [a-z_]* |' "$timings" | grep -v '^| experiment |' > "$rows" || true
fi
record() { # name seconds exit
  local how="$(nproc) cores, ${extra[*]:-default threads}"
  # A --fresh run replaces every row of its experiment (the partial runs
  # before it describe rows it discarded); others only their own options'.
  local fresh=0
  [[ " ${extra[*]:-} " == *" --fresh "* ]] && fresh=1
  awk -F' [|] ' -v name="| $1" -v how="$how" -v fresh="$fresh" \
    '!($1 == name && (fresh == 1 || $4 == how))' "$rows" > "$rows.new"
  echo "| $1 | $2 | $3 | $how | $(date -u +%Y-%m-%d) |" >> "$rows.new"
  mv "$rows.new" "$rows"
  {
    echo "# Time to regenerate the committed results"
    echo
    echo "Written by scripts/regenerate.sh on $(uname -sm); one row per experiment and options, from its last run (a --fresh run replaces the experiment's other rows)."
    echo
    echo "| experiment | wall-clock (s) | exit | machine, options | date |"
    echo "|---|---:|---:|---|---|"
    cat "$rows"
  } > "$timings"
}
total_start=$(date +%s)
status=0
for name in "${names[@]}"; do
  start=$(date +%s)
  set +e
  "$bin" run "experiments/$name.toml" --quiet "${extra[@]}"
  rc=$?
  set -e
  end=$(date +%s)
  record "$name" "$((end - start))" "$rc"
  echo "$name: $((end - start)) s (exit $rc)"
  [[ $rc -eq 0 ]] || status=$rc
done
total=$(( $(date +%s) - total_start ))
echo "all requested experiments: $total s; timings in $timings"
exit "$status"
