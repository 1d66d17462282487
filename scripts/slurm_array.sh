#!/usr/bin/env bash
# Runs one experiment as a Slurm job array: task K of N runs `--shard K/N`
# (a deterministic 1/N of the work items) into its own directory; a final
# job, submitted with a dependency on the array, merges the shards.
#
#   sbatch --array=0-15 scripts/slurm_array.sh experiments/optimality.toml 16
#   sbatch --dependency=afterok:<ARRAY_JOB_ID> --wrap \
#     "target/release/memsched merge results/optimality/shard-*-of-16 --out results/optimality --complete"
#
# N, the second argument, is the number of shards. It defaults to
# SLURM_ARRAY_TASK_COUNT, which is right only for a full array 0-(N-1): a
# killed or pre-empted task K is resubmitted alone, with N given, as
# `sbatch --array=K scripts/slurm_array.sh CONFIG N` (there the count is 1);
# `memsched run` resumes from the rows its shard already wrote.
#SBATCH --job-name=memsched
#SBATCH --cpus-per-task=8
#SBATCH --mem=16G
#SBATCH --time=04:00:00
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail

config=${1:?usage: sbatch --array=0-(N-1) scripts/slurm_array.sh CONFIG [N]}
name=$(basename "$config" .toml)
k=${SLURM_ARRAY_TASK_ID:?run under sbatch --array}
n=${2:-${SLURM_ARRAY_TASK_COUNT:?run under sbatch --array, or give N}}

target/release/memsched run "$config" \
  --shard "$k/$n" \
  --threads "${SLURM_CPUS_PER_TASK:-1}" \
  --out "results/$name/shard-$k-of-$n" \
  --quiet
