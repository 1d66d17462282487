#!/usr/bin/env bash
# Installs what building memsched needs beyond cargo, when it is missing:
# cmake, libclang-dev and g++ for HiGHS (the ILP backend, built from source by
# highs-sys). Safe to run repeatedly; does nothing when all are present.
set -euo pipefail

# cargo first: without it nothing below is of use, so install no packages
# (and ask for no sudo password) before saying so.
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo not found: install Rust from rustup.rs (then run this script again)" >&2; exit 1; }
# The oldest Rust that builds memsched: Cargo.toml's rust-version.
want=$(sed -n 's/^rust-version = "\([0-9.]*\)".*/\1/p' "$(dirname "$0")/../Cargo.toml")
have=$(cargo --version | awk '{print $2}')
if [ -n "$want" ] && [ "$(printf '%s\n%s\n' "$want" "${have%%-*}" | sort -V | head -n1)" != "$want" ]; then
  echo "setup: cargo $have is older than the Rust $want memsched needs: run \`rustup update\` (or install Rust from rustup.rs)" >&2
  exit 1
fi

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v g++ >/dev/null 2>&1 || need+=(g++)
# bindgen loads libclang.so or libclang-N.so (libclang-cpp.so, which comes
# with other LLVM packages, is a different library and does not count).
has_libclang() {
  local dir
  for dir in /usr/lib/llvm-*/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib ${LIBCLANG_PATH:-}; do
    compgen -G "$dir/libclang.so*" >/dev/null && return 0
    compgen -G "$dir/libclang-[0-9]*.so*" >/dev/null && return 0
  done
  return 1
}
has_libclang || need+=(libclang-dev)

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} (needed to build HiGHS for the ilp solver)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "setup: not root and no sudo: install ${need[*]} yourself, or build without the ILP: cargo build --no-default-features --features cli" >&2
      exit 1
    fi
  fi
  if command -v apt-get >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
  else
    echo "setup: no apt-get: install ${need[*]} with your package manager, or build with --no-default-features --features cli" >&2
    exit 1
  fi
fi
