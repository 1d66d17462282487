#!/usr/bin/env bash
# Regenerates every committed result under results/ from experiments/*.toml,
# timing each experiment and the whole. Resumes: finished rows are kept, so
# pass --fresh to recompute everything (e.g. after changing a solver).
#
#   scripts/regenerate.sh [--fresh] [--threads N] [EXPERIMENT...]
#
# Without EXPERIMENT names it runs quick, seed_table, heuristics, optimality, nas,
# scaling and rules, in that order. Timings go to results/TIMINGS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

extra=()
names=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fresh) extra+=(--fresh); shift ;;
    --threads|-j) extra+=(--threads "$2"); shift 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [[ ${#names[@]} -eq 0 ]]; then
  names=(quick seed_table heuristics optimality nas scaling rules)
fi

cargo build --release --locked
bin=target/release/memsched
mkdir -p results
# results/TIMINGS.md keeps one row per experiment: a run replaces that
# experiment's row and leaves the others, so experiments can be regenerated
# one at a time.
timings=results/TIMINGS.md
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
if [[ -f "$timings" ]]; then
  grep '^| [a-z_]* |' "$timings" | grep -v '^| experiment |' > "$rows" || true
fi
record() { # name seconds exit
  grep -v "^| $1 |" "$rows" > "$rows.new" || true
  echo "| $1 | $2 | $3 | $(nproc) cores, ${extra[*]:-default threads} | $(date -u +%Y-%m-%d) |" >> "$rows.new"
  mv "$rows.new" "$rows"
  {
    echo "# Time to regenerate the committed results"
    echo
    echo "Written by scripts/regenerate.sh on $(uname -sm); one row per experiment, from its last run."
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
