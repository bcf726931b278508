// SPDX-License-Identifier: MIT
// Benchmarks of the farm's shared layer: the content hash of key files (circuit ids), which
// every worker computes for every key at start and on rescan.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "farm/sha256.hpp"

namespace {

void BM_Sha256(benchmark::State& state) {
  std::vector<uint8_t> data(size_t(state.range(0)));
  std::mt19937_64 rng(1);
  for (auto& b : data) b = uint8_t(rng());
  for (auto _ : state) benchmark::DoNotOptimize(zkmill::farm::Sha256::hash(data));
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha256)->Arg(1 << 20)->Arg(64 << 20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
