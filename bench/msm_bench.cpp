// SPDX-License-Identifier: MIT
// MSM benchmarks (Google Benchmark): Pippenger G1/G2 of both curves on the global pool.
// Also a window-size and accumulation sweep and single-thread figures for comparison with other
// libraries. Before the benchmarks it prints the planner's window table.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/msm/pippenger.hpp"

using namespace zkmill;

namespace {

template <class P>
struct Inputs {
  std::vector<ec::Affine<P>> bases;
  std::vector<typename P::Scalar> scalars;  // uniform in [0, r)
  std::vector<typename P::Scalar> witness;  // 70% zero, 20% one, 10% uniform (Groth16-like)
  std::vector<typename P::Scalar> bits;     // 95% bits (47.5% zero, 47.5% one), 5% uniform (SHA-256-like)
};

// Points as a progression start + i*step (one addition each instead of a scalar multiplication),
// cached per size so that only the first benchmark of a size pays for generation.
template <class P>
const Inputs<P>& inputs(size_t logn) {
  static std::map<size_t, Inputs<P>> cache;
  auto it = cache.find(logn);
  if (it != cache.end()) return it->second;
  using J = ec::Jacobian<P>;
  using Fr = typename P::Scalar;
  std::mt19937_64 rng(0xbe9c4 + logn);
  const size_t n = size_t(1) << logn;
  J start = J::generator() * Fr::random(rng), step = J::generator() * Fr::random(rng);
  std::vector<J> js(n);
  for (size_t i = 0; i < n; ++i) {
    js[i] = start;
    start += step;
  }
  Inputs<P> in;
  in.bases = ec::batch_normalize<P>(js);
  in.scalars.resize(n);
  in.witness.resize(n);
  in.bits.resize(n);
  for (size_t i = 0; i < n; ++i) {
    in.scalars[i] = Fr::random(rng);
    auto u = rng() % 10;
    in.witness[i] = u < 7 ? Fr::zero() : u < 9 ? Fr::one() : Fr::random(rng);
    auto v = rng() % 40;
    in.bits[i] = v < 2 ? Fr::random(rng) : v < 21 ? Fr::zero() : Fr::one();
  }
  return cache.emplace(logn, std::move(in)).first->second;
}

const char* acc_name(msm::Accumulation a) {
  switch (a) {
    case msm::Accumulation::kXyzz:
      return "xyzz";
    case msm::Accumulation::kBatchAffine:
      return "batch-affine";
    default:
      return "auto";
  }
}

template <class P>
std::string plan_label(size_t n, size_t threads, const msm::MsmConfig& cfg) {
  auto p = msm::plan_windows(n, P::Scalar::kBits, sizeof(typename P::Base), threads, cfg.window_bits, cfg.accumulation);
  return "c=" + std::to_string(p.c) + " W=" + std::to_string(p.windows) + " chunks=" + std::to_string(p.chunks) + " " +
         acc_name(p.accumulation);
}

// args: log2 n
template <class P>
void BM_Msm(benchmark::State& st) {
  const auto& in = inputs<P>(size_t(st.range(0)));
  auto& pool = util::ThreadPool::global();
  for (auto _ : st) benchmark::DoNotOptimize(msm::msm<P>(in.bases, in.scalars, pool));
  st.SetLabel(plan_label<P>(in.bases.size(), pool.size(), {}) + " threads=" + std::to_string(pool.size()));
  st.counters["ns/point"] = benchmark::Counter(
      double(in.bases.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// args: log2 n; one thread (for comparison with single-threaded figures of other libraries).
template <class P>
void BM_MsmSingleThread(benchmark::State& st) {
  const auto& in = inputs<P>(size_t(st.range(0)));
  static util::ThreadPool one(1);
  for (auto _ : st) benchmark::DoNotOptimize(msm::msm<P>(in.bases, in.scalars, one));
  st.SetLabel(plan_label<P>(in.bases.size(), 1, {}));
}

// args: log2 n; Groth16-like scalars (70% zero, 20% one, 10% uniform).
template <class P>
void BM_MsmWitness(benchmark::State& st) {
  const auto& in = inputs<P>(size_t(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(msm::msm<P>(in.bases, in.witness));
}

// args: log2 n, bits (0: uniform scalars, 1: the 95%-bits vector). The bit-aware path: zeros
// skipped, ones added into one sum, only the 5% rest through the windows.
template <class P>
void BM_MsmBits(benchmark::State& st) {
  const auto& in = inputs<P>(size_t(st.range(0)));
  const auto& s = st.range(1) ? in.bits : in.scalars;
  for (auto _ : st) benchmark::DoNotOptimize(msm::msm<P>(in.bases, s));
  st.SetLabel(st.range(1) ? "95% bits" : "uniform");
}

// args: log2 n, c, accumulation (1 = xyzz, 2 = batch-affine).
template <class P>
void BM_MsmSweep(benchmark::State& st) {
  const auto& in = inputs<P>(size_t(st.range(0)));
  msm::MsmConfig cfg;
  cfg.window_bits = unsigned(st.range(1));
  cfg.accumulation = msm::Accumulation(st.range(2));
  auto& pool = util::ThreadPool::global();
  for (auto _ : st) benchmark::DoNotOptimize(msm::msm<P>(in.bases, in.scalars, cfg, pool));
  st.SetLabel(plan_label<P>(in.bases.size(), pool.size(), cfg));
}

// args: log2 n, batch-affine batch size (c from the planner).
template <class P>
void BM_MsmBatchSweep(benchmark::State& st) {
  const auto& in = inputs<P>(size_t(st.range(0)));
  msm::MsmConfig cfg;
  cfg.accumulation = msm::Accumulation::kBatchAffine;
  cfg.batch_size = size_t(st.range(1));
  for (auto _ : st) benchmark::DoNotOptimize(msm::msm<P>(in.bases, in.scalars, cfg));
  st.SetLabel(plan_label<P>(in.bases.size(), util::ThreadPool::global().size(), cfg));
}

void sweep_args(benchmark::internal::Benchmark* b) {
  for (int logn : {12, 16})
    for (int c = logn - 4; c <= logn + 1 && c <= 16; ++c)
      for (int acc : {1, 2}) b->Args({logn, c, acc});
}

using Bn1 = curves::Bn254G1Params;
using Bn2 = curves::Bn254G2Params;
using Bls1 = curves::Bls12381G1Params;
using Bls2 = curves::Bls12381G2Params;

#define MSM_BENCH(fn, P) BENCHMARK_TEMPLATE(fn, P)->Unit(benchmark::kMillisecond)->UseRealTime()
MSM_BENCH(BM_Msm, Bn1)->Arg(12)->Arg(16)->Arg(18);
MSM_BENCH(BM_Msm, Bls1)->Arg(12)->Arg(16)->Arg(18);
MSM_BENCH(BM_Msm, Bn2)->Arg(12)->Arg(16);
MSM_BENCH(BM_Msm, Bls2)->Arg(12)->Arg(16);
MSM_BENCH(BM_MsmSingleThread, Bn1)->Arg(16);
MSM_BENCH(BM_MsmSingleThread, Bls1)->Arg(16);
MSM_BENCH(BM_MsmWitness, Bn1)->Arg(16);
MSM_BENCH(BM_MsmWitness, Bls1)->Arg(16);
MSM_BENCH(BM_MsmBits, Bn1)->ArgsProduct({{16, 20}, {0, 1}});
MSM_BENCH(BM_MsmBits, Bls1)->ArgsProduct({{16, 20}, {0, 1}});
MSM_BENCH(BM_MsmBits, Bls2)->ArgsProduct({{16}, {0, 1}});
MSM_BENCH(BM_MsmSweep, Bn1)->Apply(sweep_args);
MSM_BENCH(BM_MsmSweep, Bls1)->Apply(sweep_args);
MSM_BENCH(BM_MsmBatchSweep, Bls1)->ArgsProduct({{16}, {128, 256, 512, 1024, 2048, 4096}});

// --tune: single-threaded grid over (log2 n, c, accumulation, batch) around the planner's choice,
// for fitting the planner (run with --benchmark_repetitions and take the minimum per entry).
template <class P>
void register_tuning(const char* curve) {
  for (size_t logn : {10, 12, 14, 16, 18}) {
    unsigned c0 = msm::plan_windows(size_t(1) << logn, P::Scalar::kBits, sizeof(typename P::Base), 1).c;
    for (unsigned c = c0 > 2 ? c0 - 2 : 1; c <= std::min(c0 + 2, msm::kMaxWindowBits); ++c)
      for (size_t batch : {size_t(0), size_t(256), size_t(512), size_t(1024)}) {
        msm::MsmConfig cfg;
        cfg.window_bits = c;
        cfg.accumulation = batch ? msm::Accumulation::kBatchAffine : msm::Accumulation::kXyzz;
        cfg.batch_size = batch;
        std::string name = std::string("Tune/") + curve + "/" + std::to_string(logn) + "/c" + std::to_string(c) + "/" +
                           (batch ? "ba" + std::to_string(batch) : std::string("xyzz"));
        benchmark::RegisterBenchmark(name.c_str(), [logn, cfg](benchmark::State& st) {
          static util::ThreadPool one(1);
          const auto& in = inputs<P>(logn);
          for (auto _ : st) benchmark::DoNotOptimize(msm::msm<P>(in.bases, in.scalars, cfg, one));
        })->Unit(benchmark::kMillisecond);
      }
  }
}

void print_plan_table() {
  const size_t threads = util::ThreadPool::global().size();
  std::printf("MSM planner (%zu threads): log2(n) -> plan for BN254 G1 | BLS12-381 G1 | BLS12-381 G2\n", threads);
  for (size_t logn = 4; logn <= 24; logn += 2)
    std::printf("  2^%-2zu  %-32s | %-32s | %s\n", logn, plan_label<Bn1>(size_t(1) << logn, threads, {}).c_str(),
                plan_label<Bls1>(size_t(1) << logn, threads, {}).c_str(),
                plan_label<Bls2>(size_t(1) << logn, threads, {}).c_str());
  std::fflush(stdout);
}

}  // namespace

// Extra flags: --threads=N sizes the global pool (default: one thread per hardware thread);
// --tune registers the tuning grid.
int main(int argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--threads=", 0) == 0) {
      util::ThreadPool::set_global_threads(std::stoul(a.substr(10)));
    } else if (a == "--tune") {
      register_tuning<Bn1>("bn254");
      register_tuning<Bls1>("bls12_381");
    } else
      argv[kept++] = argv[i];
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  print_plan_table();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
