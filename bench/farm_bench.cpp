// SPDX-License-Identifier: MIT
// Benchmarks of the farm's shared layer: the content hash of key files (circuit ids), which
// every worker computes for every key at start and on rescan, and its memo.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "farm/key_id.hpp"
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

// A key's circuit id (farm/key_id.hpp) for a file of range(0) bytes: range(1) = 0 hashes it
// every time (no memo: a worker start before memos), 1 reads the KEY.id.json memo.
void BM_KeyFileDigest(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() / ("zkmill-bench-keyid-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string key = (dir / "bench.key").string();
  {
    std::vector<char> block(1 << 20);
    std::mt19937_64 rng(2);
    for (auto& b : block) b = char(rng());
    std::ofstream out(key, std::ios::binary);
    for (int64_t done = 0; done < state.range(0); done += int64_t(block.size())) out.write(block.data(), block.size());
  }
  zkmill::farm::KeyIdOptions opts;
  opts.cache_dir = "";
  opts.use_memo = state.range(1) != 0;
  opts.write_memo = state.range(1) != 0;
  zkmill::farm::key_file_digest(key, opts);  // page cache warm; the memo written when used
  for (auto _ : state) benchmark::DoNotOptimize(zkmill::farm::key_file_digest(key, opts));
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_KeyFileDigest)->Args({256 << 20, 0})->Args({256 << 20, 1})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
