// SPDX-License-Identifier: MIT
// Google Benchmark for the polynomial layer: FFTs and the Groth16 quotient h on BN254 and
// BLS12-381 Fr, plus a stage-by-stage radix-2 baseline that shows what the four-step layout buys.
//
// Run: build-*/bin/bench_poly [--benchmark_filter=...]. Threads: ThreadPool::global() (one per
// hardware thread) unless the name says /single_thread.
#include <benchmark/benchmark.h>

#include <random>
#include <span>
#include <vector>

#include "common/poly/evaluation_domain.hpp"
#include "common/poly/groth16_h.hpp"

using namespace zkmill::ff;
using zkmill::poly::EvaluationDomain;
using zkmill::poly::groth16_h_in_place;
using zkmill::util::ThreadPool;

namespace {

template <class F>
std::vector<F> random_vec(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

// Baseline: the textbook iterative radix-2 FFT (Cormen et al., "Introduction to Algorithms",
// ch. 30.3): a plain bit-reversal loop, then log n stages of Cooley-Tukey butterflies, each stage a
// parallel_for over all n/2 butterflies with twiddles w^(j n / 2m) from one table of n/2 powers.
// Every stage sweeps the whole array, so it moves log n times the data the four-step layout does.
template <class F>
void radix2_stagewise_fft(std::span<F> x, const std::vector<F>& tw, ThreadPool& pool) {
  const size_t n = x.size();
  size_t k = 0;
  while ((size_t(1) << k) < n) ++k;
  for (size_t i = 0, j = 0; i < n; ++i) {
    if (i < j) std::swap(x[i], x[j]);
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
  }
  for (size_t half = 1; half < n; half <<= 1) {
    const size_t stride = n / (2 * half);
    pool.parallel_for(
        n / 2,
        [&](size_t b, size_t e) {
          for (size_t idx = b; idx < e; ++idx) {
            const size_t j = idx & (half - 1);
            const size_t i = ((idx - j) << 1) + j;
            F u = x[i], v = x[i + half] * tw[j * stride];
            x[i] = u + v;
            x[i + half] = u - v;
          }
        },
        size_t(1) << 12);
  }
}

template <class F>
void set_counters(benchmark::State& st, size_t n, size_t threads) {
  st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(n));
  st.counters["threads"] = double(threads);
}

template <class F>
void BM_Fft(benchmark::State& st) {
  auto d = EvaluationDomain<F>::from_log_size(size_t(st.range(0)));
  auto x = random_vec<F>(d.size(), 1);
  ThreadPool& pool = ThreadPool::global();
  for (auto _ : st) {
    d.fft(std::span<F>(x), pool);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  set_counters<F>(st, d.size(), pool.size());
}

template <class F>
void BM_FftSingleThread(benchmark::State& st) {
  auto d = EvaluationDomain<F>::from_log_size(size_t(st.range(0)));
  auto x = random_vec<F>(d.size(), 2);
  ThreadPool pool(1);
  for (auto _ : st) {
    d.fft(std::span<F>(x), pool);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  set_counters<F>(st, d.size(), pool.size());
}

template <class F>
void run_radix2_baseline(benchmark::State& st, ThreadPool& pool) {
  const size_t k = size_t(st.range(0)), n = size_t(1) << k;
  const F w = F::root_of_unity(k);
  std::vector<F> tw(n / 2);
  F t = F::one();
  for (auto& v : tw) v = t, t *= w;
  auto x = random_vec<F>(n, 3);
  for (auto _ : st) {
    radix2_stagewise_fft<F>(std::span<F>(x), tw, pool);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  set_counters<F>(st, n, pool.size());
}

template <class F>
void BM_FftRadix2Baseline(benchmark::State& st) {
  run_radix2_baseline<F>(st, ThreadPool::global());
}

template <class F>
void BM_FftRadix2BaselineSingleThread(benchmark::State& st) {
  ThreadPool pool(1);
  run_radix2_baseline<F>(st, pool);
}

// The whole quotient: 3 x (iFFT + coset FFT), a b - c, inverse coset FFT. Inputs are refreshed
// outside the timed region (the computation is in place).
template <class F>
void BM_Groth16H(benchmark::State& st) {
  auto d = EvaluationDomain<F>::from_log_size(size_t(st.range(0)));
  const size_t n = d.size();
  auto a0 = random_vec<F>(n, 4), b0 = random_vec<F>(n, 5);
  std::vector<F> c0(n);
  for (size_t i = 0; i < n; ++i) c0[i] = a0[i] * b0[i];
  std::vector<F> a(n), b(n), c(n);
  ThreadPool& pool = ThreadPool::global();
  for (auto _ : st) {
    st.PauseTiming();
    a = a0;
    b = b0;
    c = c0;
    st.ResumeTiming();
    groth16_h_in_place<F>(d, a, b, c, pool);
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  if (!a[n - 1].is_zero()) st.SkipWithError("quotient has a non-zero top coefficient");
  set_counters<F>(st, n, pool.size());
}

}  // namespace

#define POLY_BENCH(fn, F) BENCHMARK_TEMPLATE(fn, F)->Unit(benchmark::kMillisecond)->UseRealTime()

POLY_BENCH(BM_Fft, Bn254Fr)->Arg(12)->Arg(16)->Arg(20)->Arg(22);
POLY_BENCH(BM_Fft, Bls12381Fr)->Arg(12)->Arg(16)->Arg(20)->Arg(22);
POLY_BENCH(BM_FftSingleThread, Bn254Fr)->Arg(16)->Arg(20)->Arg(22);
POLY_BENCH(BM_FftSingleThread, Bls12381Fr)->Arg(16)->Arg(20);
POLY_BENCH(BM_FftRadix2Baseline, Bn254Fr)->Arg(12)->Arg(16)->Arg(20)->Arg(22);
POLY_BENCH(BM_FftRadix2Baseline, Bls12381Fr)->Arg(16)->Arg(20);
POLY_BENCH(BM_FftRadix2BaselineSingleThread, Bn254Fr)->Arg(16)->Arg(20)->Arg(22);
POLY_BENCH(BM_Groth16H, Bn254Fr)->Arg(12)->Arg(16)->Arg(20);
POLY_BENCH(BM_Groth16H, Bls12381Fr)->Arg(12)->Arg(16)->Arg(20);

BENCHMARK_MAIN();
