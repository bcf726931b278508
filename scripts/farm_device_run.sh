#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One device-machine session for the farm's host-side benchmarks (issue 7) on a many-core host:
# data-plane throughput (bench_wire), farm overhead (zkmill bench-farm) and prove-worker scaling
# (bench/farm/scaling.sh), plus the GPU farm tests when a GPU is there. Runs from the repository
# root with binaries built on the dev box in .device-farm/ (bin/: zkmill, bench_wire, test_system,
# redis-server, redis-cli; lib/: the shared libraries ldd lists). Logs go to $OUT (or
# ./farm-logs); the summary is printed last. Each step has its own time limit.
#   scripts/farm_device_run.sh [wire|overhead|ceiling|scaling|gpu|all]...
set -u
out=${OUT:-farm-logs}
mkdir -p "$out"
root=$PWD
export PATH=$root/.device-farm/bin:$PATH
export LD_LIBRARY_PATH=$root/.device-farm/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ZKMILL_BIN=$root/.device-farm/bin/zkmill
bin=$root/.device-farm/bin
steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(all)
want() { local s; for s in "${steps[@]}"; do [[ $s == all || $s == "$1" ]] && return 0; done; return 1; }
summary=()

{ nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uptime; nvidia-smi -L 2>&1; } | tee "$out/host.txt"

if want wire; then
  timeout "${T_WIRE:-200}" "$bin/bench_wire" --bundle_mib=2048 --windows=4,8,16 --threads=1,2,4,8 \
    --benchmark_filter='FetchBundle|ReceiverOnly' >"$out/wire.log" 2>&1
  summary+=("wire: rc=$?")
  timeout "${T_WIRE2:-90}" "$bin/bench_wire" --bundle_mib=2048 --windows=8 --threads=4,8 --huge_pages=1 \
    --benchmark_filter='FetchBundle|ReceiverOnly' >"$out/wire_huge.log" 2>&1
  summary+=("wire huge pages: rc=$?")
fi

if want overhead; then
  timeout "${T_OVERHEAD:-240}" "$bin/zkmill" bench-farm --workers 1,2,4,8 --partitions 400 >"$out/overhead.log" 2>&1
  summary+=("overhead: rc=$?")
fi

if want ceiling; then
  # One coordinator's ceiling: workers as pinned processes on the CPUs beyond the first 4.
  timeout "${T_CEILING:-300}" "$bin/zkmill" bench-farm --worker-processes --coordinator-cores 4 --workers 4,8,12 \
    --partitions 2000 --latency-jobs 0 --queued-jobs 0 >"$out/ceiling.log" 2>&1
  summary+=("ceiling: rc=$?")
fi

if want scaling; then
  timeout "${T_SCALING:-300}" bench/farm/scaling.sh --bin "$bin/zkmill" --counts 1,2,4,8 --per-worker 4 --synth 2 \
    >"$out/scaling.log" 2>&1
  summary+=("scaling: rc=$?")
fi

if want gpu; then
  timeout "${T_GPU:-240}" "$bin/test_system" --gtest_brief=1 --gtest_filter='*Gpu*' >"$out/gpu_farm.log" 2>&1
  summary+=("gpu farm tests: rc=$?")
fi

for f in wire wire_huge overhead ceiling scaling gpu_farm; do
  [[ -f "$out/$f.log" ]] && { echo "== $f"; tail -25 "$out/$f.log"; }
done
printf '%s\n' "${summary[@]}"
