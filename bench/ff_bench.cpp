// SPDX-License-Identifier: MIT
// Google Benchmark for the prime-field layer: mul, square, add and inverse on BN254 Fq/Fr and
// BLS12-381 Fq/Fr, for both Montgomery multiplication paths -- "asm" is Fp::mont_mul (the
// x86-64 MULX/ADX assembly where compiled in, see Fp::kAsmMul; otherwise the same C++) and
// "portable" is Fp::mont_mul_portable. Each is a dependent chain x <- f(x) (latency).
// Run: build/bin/bench_ff --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <random>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"

using namespace zkmill::ff;

namespace {

struct Asm {
  template <class F>
  static void mul(Limbs<F::N>& out, const Limbs<F::N>& a, const Limbs<F::N>& b) {
    F::mont_mul(out, a, b);
  }
};
struct Portable {
  template <class F>
  static void mul(Limbs<F::N>& out, const Limbs<F::N>& a, const Limbs<F::N>& b) {
    F::mont_mul_portable(out, a, b);
  }
};

template <class F, class Path>
void field_mul(benchmark::State& st) {
  std::mt19937_64 rng(1);
  F x = F::random(rng), y = F::random(rng);
  for (auto _ : st) {
    Path::template mul<F>(x.v, x.v, y.v);
    benchmark::DoNotOptimize(x);
  }
}

template <class F, class Path>
void field_square(benchmark::State& st) {
  std::mt19937_64 rng(2);
  F x = F::random(rng);
  for (auto _ : st) {
    Path::template mul<F>(x.v, x.v, x.v);
    benchmark::DoNotOptimize(x);
  }
}

template <class F>
void field_add(benchmark::State& st) {
  std::mt19937_64 rng(3);
  F x = F::random(rng), y = F::random(rng);
  for (auto _ : st) {
    x = x + y;
    benchmark::DoNotOptimize(x);
  }
}

// Fermat inversion x^(p-2), the same square-and-multiply as Fp::pow, over the chosen path.
template <class F, class Path>
void field_inverse(benchmark::State& st) {
  std::mt19937_64 rng(4);
  F x = F::random(rng);
  const auto& e = F::C::p_minus_2;
  for (auto _ : st) {
    Limbs<F::N> r = F::one().v;
    for (size_t i = num_bits(e); i-- > 0;) {
      Path::template mul<F>(r, r, r);
      if (bit(e, i)) Path::template mul<F>(r, r, x.v);
    }
    x.v = r;
    benchmark::DoNotOptimize(x);
  }
}

#define FIELD_BENCHES(F, tag)                                         \
  BENCHMARK(field_mul<F, Asm>)->Name(tag "/mul/asm");                 \
  BENCHMARK(field_mul<F, Portable>)->Name(tag "/mul/portable");       \
  BENCHMARK(field_square<F, Asm>)->Name(tag "/square/asm");           \
  BENCHMARK(field_square<F, Portable>)->Name(tag "/square/portable"); \
  BENCHMARK(field_add<F>)->Name(tag "/add");                          \
  BENCHMARK(field_inverse<F, Asm>)->Name(tag "/inverse/asm");         \
  BENCHMARK(field_inverse<F, Portable>)->Name(tag "/inverse/portable");

FIELD_BENCHES(Bn254Fq, "bn254_Fq")
FIELD_BENCHES(Bn254Fr, "bn254_Fr")
FIELD_BENCHES(Bls12381Fq, "bls12_381_Fq")
FIELD_BENCHES(Bls12381Fr, "bls12_381_Fr")

}  // namespace

BENCHMARK_MAIN();
