#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# zkmill_gpu_bench's command line, which needs no GPU: --help prints the options and exits 0
# without touching a device (it used to run every benchmark); an option without its value or an
# unknown option is refused with the usage and exit 2.
# usage: gpu_bench_cli_test.sh PATH/TO/zkmill_gpu_bench
set -u
bin=$1
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

out=$("$bin" --help 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "--help exited $rc"
grep -q '^usage: zkmill_gpu_bench' <<<"$out" || fail "--help printed no usage: $out"
grep -q -- '--prove-sizes' <<<"$out" || fail "--help does not list --prove-sizes"
grep -qi 'device' <<<"$out" && fail "--help looked for a device: $out"

out=$("$bin" --msm-sizes 24 --runs 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "an option without a value exited $rc, not 2"
grep -q 'option --runs has no value' <<<"$out" || fail "no message naming --runs: $out"
grep -q '^usage: zkmill_gpu_bench' <<<"$out" || fail "no usage after the error"

out=$("$bin" --bogus 1 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "an unknown option exited $rc, not 2"
grep -q 'unknown option --bogus' <<<"$out" || fail "no message naming --bogus: $out"
echo "gpu_bench_cli: ok"
