#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-shot setup for a fresh Debian 12 machine (or this repo's dev box): system packages,
# the project-local npm tools used by the interop tests, then a Release build of the programs
# (build/bin/zkmill, and zkmill_gpu_bench with CUDA) into build/. scripts/test.sh builds the
# rest of the tree (tests, benchmark programs) before it runs them.
# Idempotent: every step checks or tolerates what an earlier run left behind.
#
# Runs as root (CI, containers); as another user it uses sudo for apt-get if sudo exists.
# Environment knobs:
#   ZKMILL_SKIP_APT=1   skip the apt-get step entirely (packages managed elsewhere)
#   ZKMILL_FORCE_APT=1  run apt-get update/install even when every package is present
#   ZKMILL_SKIP_NPM=1   skip the npm step (no network; interop tests will skip or fail)
#   BUILD_DIR=dir       build somewhere other than build/
#   ZKMILL_SETUP_BUILD=all  build the whole tree (tests and benchmarks too), not only the programs
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BUILD_DIR=${BUILD_DIR:-build}

# Each step says when it starts and how long the run has taken so far (bash's SECONDS), so a
# slow CI log shows where its time went.
step() { printf '\n==> [setup %s, +%ds] %s\n' "$(date -u +%T)" "$SECONDS" "$*"; }
note() { printf '    %s\n' "$*"; }
die() {
  printf 'setup.sh: error: %s\n' "$*" >&2
  exit 1
}

# ---------------------------------------------------------------------------------------------
# 1. System packages
# ---------------------------------------------------------------------------------------------
# Why each group is here: README.md ("Dependencies").
PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config git ca-certificates
  # C++ libraries
  libzmq3-dev cppzmq-dev libhiredis-dev libyaml-cpp-dev libspdlog-dev libgtest-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev prometheus-cpp-dev libcpp-httplib-dev libssl-dev
  # farm state store, used by tests that start their own instance; Sentinel for failover;
  # openssl makes the certificates of the Redis-over-TLS tests
  redis-server redis-sentinel openssl
  # the chaos run's link faults between network namespaces (tests/chaos/)
  nftables iproute2
  # snarkjs/circom for interop tests
  nodejs npm
  # libFuzzer and sanitizers; clang-format checks the tree against .clang-format (scripts/test.sh)
  clang libclang-rt-14-dev clang-format
  # benchmarking and scripts
  hyperfine time python3
  # a client process with a skewed clock (tests/coordinator/client_clock_test.cpp)
  faketime
  # the dashboard's browser test (headless)
  chromium
)

# NodeSource's nodejs package bundles npm and conflicts with Debian's npm package; asking for
# both makes apt-get fail. Any working npm will do, so only ask for Debian's when there is none.
if command -v npm >/dev/null 2>&1; then
  filtered=()
  for p in "${PACKAGES[@]}"; do [[ $p == npm ]] || filtered+=("$p"); done
  PACKAGES=("${filtered[@]}")
fi

missing_packages() {
  local p status
  for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [[ $status == installed ]] || echo "$p"
  done
}

step "system packages (${#PACKAGES[@]} wanted)"
if [[ ${ZKMILL_SKIP_APT:-0} == 1 ]]; then
  note "ZKMILL_SKIP_APT=1: skipping apt-get"
elif ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  die "apt-get/dpkg not found: this script targets Debian 12; install the packages listed in README.md by hand and re-run with ZKMILL_SKIP_APT=1"
else
  mapfile -t MISSING < <(missing_packages)
  if ((${#MISSING[@]} == 0)) && [[ ${ZKMILL_FORCE_APT:-0} != 1 ]]; then
    note "all present; skipping apt-get"
  else
    note "missing: ${MISSING[*]:-(none; ZKMILL_FORCE_APT=1)}"
    SUDO=()
    if ((EUID != 0)); then
      command -v sudo >/dev/null 2>&1 || die "not root and sudo is not installed; run as root"
      SUDO=(sudo)
    fi
    # env(1) so that DEBIAN_FRONTEND survives sudo's environment reset.
    APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
    note "apt-get update"
    "${APT[@]}" update
    note "apt-get install (all ${#PACKAGES[@]}, so apt can resolve them together)"
    "${APT[@]}" install -y --no-install-recommends "${PACKAGES[@]}"
  fi
fi

# ---------------------------------------------------------------------------------------------
# 2. npm tools for the interop tests, project-local (tests/interop/node_modules, git-ignored)
# ---------------------------------------------------------------------------------------------
step "npm packages for tests/interop (snarkjs, circom2, circomlib, circomlibjs, @noble/curves)"
if [[ ${ZKMILL_SKIP_NPM:-0} == 1 ]]; then
  note "ZKMILL_SKIP_NPM=1: skipping npm"
else
  command -v node >/dev/null 2>&1 || die "node not found after the package step"
  command -v npm >/dev/null 2>&1 || die "npm not found after the package step"
  note "node $(node --version), npm $(npm --version)"
  # Versions are pinned in tests/interop/package.json and package-lock.json; with both present
  # npm install only fetches what node_modules lacks, so a re-run is quick.
  npm install --no-audit --no-fund --prefix tests/interop
  [[ -x tests/interop/node_modules/.bin/snarkjs ]] || die "snarkjs missing after npm install"
  note "snarkjs $(node -p 'require("./tests/interop/node_modules/snarkjs/package.json").version')"
fi

# ---------------------------------------------------------------------------------------------
# 3. Release build
# ---------------------------------------------------------------------------------------------
step "configure $BUILD_DIR/ (Release, Ninja)"
if [[ -f $BUILD_DIR/CMakeCache.txt ]]; then
  # Reconfiguring keeps the generator the directory was made with; forcing -G on an existing
  # directory of another generator is an error.
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
else
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi

# The programs only, by default: what README's commands after setup run. The test suite and the
# benchmark programs are about half of a cold build's CPU time (README.md, "Build time");
# scripts/test.sh builds them (`cmake --build`), so setup then test costs the same as before.
if [[ ${ZKMILL_SETUP_BUILD:-programs} == all ]]; then
  step "build $BUILD_DIR/, the whole tree ($(nproc) jobs)"
  cmake --build "$BUILD_DIR" -j"$(nproc)"
else
  targets=(zkmill)
  # zkmill_gpu_bench exists only in a CUDA build with benchmarks.
  if cmake --build "$BUILD_DIR" --target help 2>/dev/null | grep -q '^zkmill_gpu_bench:'; then
    targets+=(zkmill_gpu_bench)
  fi
  step "build $BUILD_DIR/: ${targets[*]} ($(nproc) jobs; scripts/test.sh builds the tests, ZKMILL_SETUP_BUILD=all builds everything now)"
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${targets[@]}"
fi

[[ -x $BUILD_DIR/bin/zkmill ]] || die "$BUILD_DIR/bin/zkmill was not built"
step "done: $ROOT/$BUILD_DIR/bin/zkmill"
"$BUILD_DIR/bin/zkmill" --version
