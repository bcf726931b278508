#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# zkmill_gpu_bench's command line (CLI11, the options of `zkmill bench gpu`:
# cuda/bench/gpu_bench_cli.hpp), which needs no GPU: --help prints the options and exits 0
# without touching a device; an option without its value, an unknown option, a value that is not
# a number or out of range, and a --porep-bundle other than full / witness are refused with a
# message naming the option and exit 2, before any device is looked for.
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
grep -q '^Usage: zkmill_gpu_bench' <<<"$out" || fail "--help printed no usage: $out"
for opt in --prove-sizes --h-beside --porep-bundle --ceilings; do
  grep -q -- "$opt" <<<"$out" || fail "--help does not list $opt"
done
# What a run that looked for a device prints on this machine (no GPU, or no driver).
touched='cudaError\|no device\|CUDA driver'
grep -q "$touched" <<<"$out" && fail "--help looked for a device: $out"

refused() {  # refused "what" "pattern the message must match" args...
  local what=$1 pattern=$2
  shift 2
  out=$("$bin" "$@" 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "$what exited $rc, not 2: $out"
  grep -q -- "$pattern" <<<"$out" || fail "$what: no message matching '$pattern': $out"
  grep -q "$touched" <<<"$out" && fail "$what looked for a device: $out"
  return 0
}
refused "an option without a value" '--runs.*required' --msm-sizes 24 --runs
refused "an unknown option" 'not expected.*--bogus' --bogus 1
refused "a value that is not a number" '--runs.*abc' --runs abc
refused "a value out of range" '--porep-partitions' --porep-partitions 0
refused "a bundle kind it does not know" '--porep-bundle.*half' --porep-bundle half
refused "a list with a word in it" '--msm-sizes' --msm-sizes 20,x
echo "gpu_bench_cli: ok"
