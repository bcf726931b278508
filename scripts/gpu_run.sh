#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One device-machine session for the CUDA backend: GPU tests, compute-sanitizer on the small
# cases, then the benchmark table. Runs from the repository root on the GPU machine with the
# binaries built on the dev box in .device/ (bin/ and the shared libraries ldd lists in lib/).
#   scripts/gpu_run.sh [tests|sanitize|bench|all] [extra bench args...]
# Logs go to $OUT (the device tool's result folder) or ./gpu-logs; the last lines printed are
# the summary, so a caller that sees only the tail of the output still gets the figures.
# Each step has its own time limit (device time is scarce): a hang costs one step, not the run;
# T_TESTS, T_BENCH, T_MEMCHECK, T_RACECHECK (seconds) override them, 0 skips the step.
# Order: tests, bench, then the sanitizers (the slowest and the first to give up).
set -u
what=${1:-all}
shift || true
out=${OUT:-gpu-logs}
mkdir -p "$out"
bin=${ZK_BIN:-.device/bin}  # ZK_BIN: another folder of binaries (shared .device trees)
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
summary=()

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader 2>&1 | tee "$out/gpu.txt"

if [[ ($what == all || $what == tests) && ${T_TESTS:-150} != 0 ]]; then
  timeout "${T_TESTS:-150}" "$bin/test_cuda" --gtest_brief=1 >"$out/tests.log" 2>&1
  rc=$?
  summary+=("tests: rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/tests.log" | tr '\n' ' ')")
  grep -E 'FAILED|Failure|error' "$out/tests.log" | head -40
fi

if [[ ($what == all || $what == bench) && ${T_BENCH:-300} != 0 ]]; then
  timeout "${T_BENCH:-300}" "$bin/zkmill_gpu_bench" "$@" >"$out/bench.log" 2>&1
  rc=$?
  summary+=("bench: rc=$rc")
  [[ $rc == 0 ]] || tail -20 "$out/bench.log"
fi

if [[ $what == all || $what == sanitize ]]; then
  # Small cases only: memcheck slows kernels by one to two orders of magnitude.
  [[ ${T_MEMCHECK:-90} != 0 ]] && timeout "${T_MEMCHECK:-90}" "$san" --tool memcheck --leak-check full --error-exitcode 3 "$bin/test_cuda" \
    --gtest_filter='GpuMsm*.Small1k*:GpuMsm*.ExceptionalPoints:GpuMsm*.TrivialSizes*:GpuMsm/0.BitHeavy*:GpuNtt*.Small1k:GpuNtt*.TinySizes:GpuGroth16*.ZeroBlinders*' \
    >"$out/memcheck.log" 2>&1
  rc=$?
  [[ ${T_MEMCHECK:-90} != 0 ]] && summary+=("memcheck: rc=$rc $(grep -E 'ERROR SUMMARY' "$out/memcheck.log" | tail -1)")
  [[ ${T_RACECHECK:-35} != 0 ]] && timeout "${T_RACECHECK:-35}" "$san" --tool racecheck --error-exitcode 3 "$bin/test_cuda" --gtest_filter='GpuNtt*.Small1k:GpuMsm*.Small1k*' \
    >"$out/racecheck.log" 2>&1
  rc=$?
  [[ ${T_RACECHECK:-35} != 0 ]] && summary+=("racecheck: rc=$rc $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck.log" | tail -1)")
fi


[[ -f $out/bench.log ]] && sed -n '/^op /,$p' "$out/bench.log"
printf '%s\n' "${summary[@]}"
