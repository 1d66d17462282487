#!/usr/bin/env bash
# The test command of the README and of CI: set-up, formatting, lints, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
cargo test --locked
