#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds build/ if needed and runs the whole test suite through ctest, the sanitized readers
# and the two short chaos runs, one Redis over TLS and Redis under Sentinel (tests/chaos/run.sh; each
# stage below says how to skip it). Per-test timeouts come from the CMake test functions. Starts nothing outside the tests themselves (tests that need
# Redis or workers start and stop their own). Exit status: ctest's (non-zero on any failure).
#   BUILD_DIR=dir   test another build directory (default build/)
#   CTEST_ARGS=...  extra ctest arguments, e.g. CTEST_ARGS="-R Cli"
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}

# Each step says when it starts and how long the run has taken so far (bash's SECONDS), so a
# slow CI log shows where its time went.
step() { printf '\n==> [test %s, +%ds] %s\n' "$(date -u +%T)" "$SECONDS" "$*"; }

# The tree must match the committed .clang-format (C++ and CUDA sources we track). Checked
# first: it takes seconds and a misformatted file fails the run before anything is built.
#   ZKMILL_SKIP_FORMAT=1 skips this stage (e.g. with a clang-format other than Debian 12's 14).
if [[ -z ${ZKMILL_SKIP_FORMAT:-} ]]; then
  step "format check (clang-format --dry-run -Werror)"
  scripts/check-format.sh || {
    echo "test.sh: FAILED (format check: the files above differ from .clang-format; fix with clang-format -i FILE)" >&2
    exit 1
  }
fi

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
  # Each failed test's own output, last lines, once more at the end: a CI page that shows only a
  # log's tail then says why, not just which (ctest printed it far above, amid the other tests).
  failed="$BUILD_DIR/Testing/Temporary/LastTestsFailed.log"
  if [[ -f $failed ]]; then
    while IFS= read -r entry; do
      name=${entry#*:}
      printf '\n--- %s: the last 40 lines of its output ---\n' "$name"
      awk -v t="Test: $name" '$0 ~ /^[0-9]+\/[0-9]+ Test: / { on = (substr($0, index($0, "Test: ")) == t); next }
        on && /^<end of output>$/ { on = 0 } on' "$BUILD_DIR/Testing/Temporary/LastTest.log" | tail -n 40
    done < "$failed"
  fi
  printf 'test.sh: FAILED (ctest exit status %d)\n' "$rc" >&2
  exit "$rc"
fi

# The untrusted-input readers (.zkey/.wtns/.r1cs) once more, under AddressSanitizer and UBSan:
# the malformed-input tests of test_formats (every truncation, random corruption) and a short
# libFuzzer run per reader from the committed fixtures. Needs clang (scripts/setup.sh installs
# it); a separate small build (build-fuzz/, CPU only, no benchmarks, only these targets).
#   ZKMILL_SKIP_FUZZ=1 skips this stage; FUZZ_BUILD_DIR=dir builds elsewhere (default build-fuzz/).
if [[ -z ${ZKMILL_SKIP_FUZZ:-} ]]; then
  if command -v clang++ >/dev/null; then
    fuzz_dir=${FUZZ_BUILD_DIR:-build-fuzz}
    step "readers under ASan+UBSan, and libFuzzer ($fuzz_dir/)"
    if [[ ! -f $fuzz_dir/CMakeCache.txt ]]; then
      cmake -S . -B "$fuzz_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
        -DZKMILL_CUDA=OFF -DZKMILL_BENCH=OFF -DZKMILL_SANITIZE=ON -DZKMILL_FUZZ=ON
    fi
    cmake --build "$fuzz_dir" --target fuzz_zkey fuzz_wtns fuzz_r1cs fuzz_ptau test_formats
    # The fuzzers' smoke runs write crash-* files (the reproducer) into the working directory.
    (cd "$fuzz_dir" && ctest --output-on-failure -j2 -R '^(fuzz_.*_smoke|Malformed\.|Roots\.)') || {
      printf 'test.sh: FAILED (sanitized readers / fuzzing; reproducers: %s/tests/fuzz/crash-*)\n' "$fuzz_dir" >&2
      exit 1
    }
  else
    echo "test.sh: clang++ not found: the sanitized reader tests and fuzzers were NOT run (scripts/setup.sh installs clang)"
  fi
fi
# The short chaos runs (tests/chaos/run.sh --short, ~4 min each on 2 cores): the farm over
# network namespaces under process kills, stops, link cuts and loss, then its invariants (no job
# lost or stuck, no proof duplicated or unverified, nothing orphaned in Redis, every proof
# recorded by the lease holder of its moment). Two runs, as their Redis faults differ: one Redis
# serving TLS only (--tls: a restart from its AOF, delay and loss on the coordinators' TLS
# connections; plaintext Redis is what the Sentinel run and the system tests use), then Redis under
# Sentinel (--sentinel: a primary and a replica, kill -9, cuts and SENTINEL FAILOVER of the
# primary, failovers). Needs root and nftables; exit 77 from the script means it could not make
# namespaces here: skipped, said.
#   ZKMILL_SKIP_CHAOS=1 skips both; ZKMILL_SKIP_SENTINEL_CHAOS=1 only the Sentinel run;
#   CHAOS_ARGS="--seed 7" passes arguments to both.
chaos_run() {
  local what=$1
  shift
  step "chaos run, $what (tests/chaos/run.sh --short${*:+ $*})"
  local crc=0
  # shellcheck disable=SC2086  # CHAOS_ARGS is meant to split into words
  tests/chaos/run.sh --short --bin "$BUILD_DIR/bin/zkmill" "$@" ${CHAOS_ARGS:-} || crc=$?
  if ((crc == 77)); then
    echo "test.sh: the chaos run ($what) was SKIPPED (see its message above): network namespaces are not available here"
  elif ((crc != 0)); then
    printf 'test.sh: FAILED (chaos run, %s, exit status %d; its work directory is kept, named above)\n' "$what" "$crc" >&2
    exit 1
  fi
  return "$crc"
}
if [[ -z ${ZKMILL_SKIP_CHAOS:-} ]]; then
  if ! chaos_run "one Redis, over TLS" --tls; then
    echo "test.sh: the Sentinel chaos run is skipped too (no network namespaces here)"
  elif [[ -n ${ZKMILL_SKIP_SENTINEL_CHAOS:-} ]]; then
    echo "test.sh: ZKMILL_SKIP_SENTINEL_CHAOS is set: the Sentinel chaos run was NOT run"
  else
    chaos_run "Redis under Sentinel" --sentinel || true
  fi
else
  echo "test.sh: ZKMILL_SKIP_CHAOS is set: the chaos runs were NOT run"
fi
echo "test.sh: all tests passed (${SECONDS} s)"
