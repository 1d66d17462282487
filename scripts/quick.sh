#!/usr/bin/env bash
# The README's main command: set-up, release build, and the `quick` experiment
# on the bundled datasets (results in results/quick/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo build --release --locked
./target/release/memsched run experiments/quick.toml "$@"
