#!/usr/bin/env bash
# Regenerates every committed result under results/ from experiments/*.toml,
# timing each experiment and the whole. Resumes: finished rows are kept, so
# pass --fresh to recompute everything (e.g. after changing a solver).
#
#   scripts/regenerate.sh [--fresh] [--threads N] [EXPERIMENT...]
#
# Without EXPERIMENT names it runs quick, seed_table, optimality, nas,
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
  names=(quick seed_table optimality nas scaling rules)
fi

cargo build --release --locked
bin=target/release/memsched
mkdir -p results
timings=results/TIMINGS.md
{
  echo "# Time to regenerate the committed results"
  echo
  echo "Machine: $(nproc) cores, $(uname -sm); command: scripts/regenerate.sh ${extra[*]:-}"
  echo
  echo "| experiment | wall-clock (s) | exit |"
  echo "|---|---:|---:|"
} > "$timings"
total_start=$(date +%s)
status=0
for name in "${names[@]}"; do
  start=$(date +%s)
  set +e
  "$bin" run "experiments/$name.toml" --quiet "${extra[@]}"
  rc=$?
  set -e
  end=$(date +%s)
  echo "| $name | $((end - start)) | $rc |" >> "$timings"
  echo "$name: $((end - start)) s (exit $rc)"
  [[ $rc -eq 0 ]] || status=$rc
done
total=$(( $(date +%s) - total_start ))
echo "| all | $total | $status |" >> "$timings"
echo "all experiments: $total s; timings in $timings"
exit "$status"
