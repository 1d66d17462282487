#!/usr/bin/env bash
# The test command of the README and of CI: set-up, formatting, lints, docs, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
# The library as a dependency without default features (no command line,
# plots or progress bar; Cargo.toml's features): ~15 s more here.
cargo clippy --lib --no-default-features --locked -- -D warnings
# Links in the private modules' docs too (most modules are private), then
# the public docs, whose links must not lead to private items.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked --document-private-items
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked
cargo test --locked
