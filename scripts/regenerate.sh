#!/usr/bin/env bash
# Regenerates every committed result under results/ from experiments/*.toml,
# timing each experiment and the whole. Resumes: finished rows are kept, so
# pass --fresh to recompute everything, --redo SOLVER (repeatable) to
# solve one solver's rows again after changing it, or --redo-graph GRAPH
# to solve one graph's rows again after editing its file.
#
#   scripts/regenerate.sh [--fresh | --redo SOLVER | --redo-graph GRAPH]... [--threads N] [EXPERIMENT...]
#   scripts/regenerate.sh --help
#
# EXPERIMENT is the stem of a file experiments/EXPERIMENT.toml. Without
# EXPERIMENT names it runs quick, seed_table, heuristics, optimality, nas,
# scaling and rules, in that order. Timings go to results/TIMINGS.md: one row
# per experiment and options, so a --redo leaves the --fresh run's row.
# Bad arguments (an unknown option, an option without its value, a name
# without its experiments/NAME.toml) exit 2 before the release build, and
# leave results/TIMINGS.md as it was.
set -euo pipefail
# The path of this script, kept before the cd below, so that --help can
# read its header from wherever the script was started.
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."

usage() { # the header comment above, without its '# '
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$self"
}
# An option's value is the next argument; one that is missing, or that is
# another option (`--redo --fresh`), is an error here rather than bash's
# "$2: unbound variable" or a solver named "--fresh". No solver, graph or
# thread count starts with '-'.
value_of() { # option, then the arguments after it
  if [[ $# -lt 2 || -z "$2" || "$2" == -* ]]; then
    local what="a number of threads"
    case "$1" in
      --redo) what="a solver name" ;;
      --redo-graph) what="a graph name" ;;
    esac
    echo "regenerate.sh: $1 needs a value ($what); see 'scripts/regenerate.sh --help'" >&2
    exit 2
  fi
}

extra=()
names=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --fresh) extra+=(--fresh); shift ;;
    --redo|--redo-graph) value_of "$@"; extra+=("$1" "$2"); shift 2 ;;
    --threads|-j)
      value_of "$@"
      # A positive whole number, as memsched requires; checked here so a
      # typo fails before the release build, not after it.
      if [[ ! "$2" =~ ^[0-9]{1,4}$ ]] || (( 10#$2 < 1 || 10#$2 > 4096 )); then
        echo "regenerate.sh: $1 needs a whole number of threads from 1 to 4096, not '$2'" >&2
        exit 2
      fi
      extra+=(--threads "$2"); shift 2 ;;
    --) shift; names+=("$@"); break ;;
    # Anything else that looks like an option is a typo or an option of
    # `memsched run` this script does not pass on; taken as an experiment
    # name it would only fail after the build.
    -*) echo "regenerate.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
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
# Every name must have its config before the (slow) release build, and
# before a row for it could reach results/TIMINGS.md.
unknown=()
for name in "${names[@]}"; do
  if [[ ! -f "experiments/$name.toml" ]]; then unknown+=("$name"); fi
done
if [[ ${#unknown[@]} -gt 0 ]]; then
  available=()
  for f in experiments/*.toml; do
    if [[ -f "$f" ]]; then available+=("$(basename "$f" .toml)"); fi
  done
  echo "regenerate.sh: no experiments/NAME.toml for: ${unknown[*]}" >&2
  echo "regenerate.sh: available experiments: ${available[*]:-none}" >&2
  exit 2
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
  # Every table row but the header ('| experiment | wall-clock ...') and
  # the separator ('|---|...'): experiment names may hold capitals, digits
  # and '-' (docs/experiments.md), and a row of such an experiment must be
  # kept like any other.
  grep '^| ' "$timings" | grep -v '^| experiment | wall-clock (s) |' > "$rows" || true
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
