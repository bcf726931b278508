#!/usr/bin/env bash
# Builds build/ if needed and runs the whole test suite through ctest. Per-test timeouts come
# from the CMake test functions. Starts nothing outside the tests themselves (tests that need
# Redis or workers start and stop their own). Exit status: ctest's (non-zero on any failure).
#   BUILD_DIR=dir   test another build directory (default build/)
#   CTEST_ARGS=...  extra ctest arguments, e.g. CTEST_ARGS="-R Cli"
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}

step() { printf '\n==> [test] %s\n' "$*"; }

if [[ ! -f $BUILD_DIR/CMakeCache.txt ]]; then
  step "configure $BUILD_DIR/ (Release, Ninja)"
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
step "build $BUILD_DIR/"
cmake --build "$BUILD_DIR"

step "ctest (-j2)"
log="$BUILD_DIR/Testing/test.sh.log"
mkdir -p "$(dirname "$log")"
rc=0
# shellcheck disable=SC2086  # CTEST_ARGS is meant to split into words
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 ${CTEST_ARGS:-} 2>&1 | tee "$log" || rc=$?

# The summary is at the end of a long log; repeat it where it is seen.
step "summary"
sed -n '/tests passed/,$p' "$log"
if ((rc != 0)); then
  printf 'test.sh: FAILED (ctest exit status %d)\n' "$rc" >&2
  exit "$rc"
fi
echo "test.sh: all tests passed"
