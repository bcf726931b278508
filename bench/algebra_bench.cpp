// SPDX-License-Identifier: MIT
// Google Benchmark for the algebra core on BN254 and BLS12-381: base/scalar field products and
// inversion, G1/G2 group operations, tower products, Miller loop, final exponentiation, full
// pairing and a Groth16-shaped 4-pair product check with prepared G2 points; the Groth16
// verifier itself (groth16::PreparedVerifyingKey: subgroup tests included) alone and batched,
// per proof, which is what the coordinator's proof checks cost.
// Field products are measured as a dependent chain x <- x * y (latency, the cost seen inside
// the pairing and curve formulas). Run: build/bin/bench_algebra --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "common/groth16/verifier.hpp"
#include "common/pairing/engine.hpp"

using namespace zkmill;

namespace {

template <class F>
void field_mul(benchmark::State& st) {
  std::mt19937_64 rng(1);
  F x = F::random(rng), y = F::random(rng);
  for (auto _ : st) {
    x = x * y;
    benchmark::DoNotOptimize(x);
  }
}

template <class F>
void field_square(benchmark::State& st) {
  std::mt19937_64 rng(2);
  F x = F::random(rng);
  for (auto _ : st) {
    x = x.square();
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

template <class F>
void field_inverse(benchmark::State& st) {
  std::mt19937_64 rng(4);
  F x = F::random(rng);
  for (auto _ : st) {
    x = x.inverse();
    benchmark::DoNotOptimize(x);
  }
}

template <class C>
void g1_add_mixed(benchmark::State& st) {
  std::mt19937_64 rng(5);
  auto p = C::G1::generator() * C::Fr::random(rng);
  auto q = (C::G1::generator() * C::Fr::random(rng)).to_affine();
  for (auto _ : st) {
    p = p.add_mixed(q);
    benchmark::DoNotOptimize(p);
  }
}

template <class C>
void g1_double(benchmark::State& st) {
  std::mt19937_64 rng(6);
  auto p = C::G1::generator() * C::Fr::random(rng);
  for (auto _ : st) {
    p = p.dbl();
    benchmark::DoNotOptimize(p);
  }
}

template <class C>
void g2_add(benchmark::State& st) {
  std::mt19937_64 rng(7);
  auto p = C::G2::generator() * C::Fr::random(rng);
  auto q = C::G2::generator() * C::Fr::random(rng);
  for (auto _ : st) {
    p = p + q;
    benchmark::DoNotOptimize(p);
  }
}

template <class C>
void g2_double(benchmark::State& st) {
  std::mt19937_64 rng(8);
  auto p = C::G2::generator() * C::Fr::random(rng);
  for (auto _ : st) {
    p = p.dbl();
    benchmark::DoNotOptimize(p);
  }
}

template <class C>
struct PairingInputs {
  typename C::G1Affine p;
  typename C::G2Affine q;
  PairingInputs() {
    std::mt19937_64 rng(9);
    p = (C::G1::generator() * C::Fr::random(rng)).to_affine();
    q = (C::G2::generator() * C::Fr::random(rng)).to_affine();
  }
};

template <class C>
void fp12_mul(benchmark::State& st) {
  using GT = typename pairing::Engine<C>::GT;
  std::mt19937_64 rng(10);
  GT x = GT::random(rng), y = GT::random(rng);
  for (auto _ : st) {
    x = x * y;
    benchmark::DoNotOptimize(x);
  }
}

template <class C>
void fp12_cyclotomic_square(benchmark::State& st) {
  using E = pairing::Engine<C>;
  PairingInputs<C> in;
  auto x = E::pairing(in.p, in.q);
  for (auto _ : st) {
    x = x.cyclotomic_square();
    benchmark::DoNotOptimize(x);
  }
}

template <class C>
void pairing_full(benchmark::State& st) {
  using E = pairing::Engine<C>;
  PairingInputs<C> in;
  for (auto _ : st) benchmark::DoNotOptimize(E::pairing(in.p, in.q));
}

template <class C>
void miller_loop(benchmark::State& st) {
  using E = pairing::Engine<C>;
  PairingInputs<C> in;
  for (auto _ : st) benchmark::DoNotOptimize(E::miller_loop(in.p, in.q));
}

template <class C>
void miller_loop_prepared(benchmark::State& st) {
  using E = pairing::Engine<C>;
  PairingInputs<C> in;
  auto prep = E::prepare(in.q);
  for (auto _ : st) benchmark::DoNotOptimize(E::miller_loop(in.p, prep));
}

template <class C>
void prepare_g2(benchmark::State& st) {
  using E = pairing::Engine<C>;
  PairingInputs<C> in;
  for (auto _ : st) benchmark::DoNotOptimize(E::prepare(in.q));
}

template <class C>
void final_exponentiation(benchmark::State& st) {
  using E = pairing::Engine<C>;
  PairingInputs<C> in;
  auto f = E::miller_loop(in.p, in.q);
  for (auto _ : st) benchmark::DoNotOptimize(E::final_exponentiation(f));
}

// e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) == 1 with beta, gamma, delta prepared once
// and B fresh per proof: the Groth16 verifier's cost.
template <class C>
void groth16_shaped_check(benchmark::State& st) {
  using E = pairing::Engine<C>;
  std::mt19937_64 rng(11);
  auto g1 = [&] { return (C::G1::generator() * C::Fr::random(rng)).to_affine(); };
  auto g2 = [&] { return (C::G2::generator() * C::Fr::random(rng)).to_affine(); };
  auto beta = E::prepare(g2()), gamma = E::prepare(g2()), delta = E::prepare(g2());
  auto b = g2();
  auto a = g1(), alpha = g1(), l = g1(), c = g1();
  for (auto _ : st) {
    auto pb = E::prepare(b);
    std::vector<typename E::PreparedPair> pairs{{-a, &pb}, {alpha, &beta}, {l, &gamma}, {c, &delta}};
    benchmark::DoNotOptimize(E::pairing_product_is_one(pairs));
  }
}

// The verifier on random group elements (a key and proofs that do not verify: the work is the
// same, every step runs whatever the outcome), 2 public inputs as the farm's chain circuit.
template <class C>
struct VerifyInputs {
  std::mt19937_64 rng{12};
  typename C::G1Affine g1() { return (C::G1::generator() * C::Fr::random(rng)).to_affine(); }
  typename C::G2Affine g2() { return (C::G2::generator() * C::Fr::random(rng)).to_affine(); }
  groth16::PreparedVerifyingKey<C> pvk{[&] {
    groth16::VerifyingKey<C> vk;
    vk.alpha_g1 = g1(), vk.beta_g1 = g1(), vk.delta_g1 = g1();
    vk.beta_g2 = g2(), vk.gamma_g2 = g2(), vk.delta_g2 = g2();
    vk.ic = {g1(), g1(), g1()};
    return vk;
  }()};
  std::vector<groth16::Proof<C>> proofs;
  std::vector<std::vector<typename C::Fr>> inputs;
  explicit VerifyInputs(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      proofs.push_back({g1(), g2(), g1()});
      inputs.push_back({C::Fr::random(rng), C::Fr::random(rng)});
    }
  }
};

// One proof alone: PreparedVerifyingKey::verify.
template <class C>
void groth16_verify(benchmark::State& st) {
  VerifyInputs<C> in(1);
  for (auto _ : st) benchmark::DoNotOptimize(in.pvk.verify(in.proofs[0], in.inputs[0]));
}

// k proofs with one multi-pairing (verify_batch); the counter is the time per proof.
template <class C>
void groth16_verify_batch(benchmark::State& st) {
  const auto k = size_t(st.range(0));
  VerifyInputs<C> in(k);
  for (auto _ : st)
    benchmark::DoNotOptimize(in.pvk.verify_batch(std::span<const groth16::Proof<C>>(in.proofs),
                                                 std::span<const std::vector<typename C::Fr>>(in.inputs)));
  st.counters["us/proof"] =
      benchmark::Counter(double(st.iterations() * k) / 1e6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

#define ZK_CURVE_BENCHES(C, tag)                                                                        \
  BENCHMARK(field_mul<C::Fq>)->Name(tag "/Fq_mul");                                                     \
  BENCHMARK(field_square<C::Fq>)->Name(tag "/Fq_square");                                               \
  BENCHMARK(field_add<C::Fq>)->Name(tag "/Fq_add");                                                     \
  BENCHMARK(field_mul<C::Fr>)->Name(tag "/Fr_mul");                                                     \
  BENCHMARK(field_inverse<C::Fq>)->Name(tag "/Fq_inverse");                                             \
  BENCHMARK(field_mul<C::Fq2>)->Name(tag "/Fq2_mul");                                                   \
  BENCHMARK(g1_add_mixed<C>)->Name(tag "/G1_add_mixed");                                                \
  BENCHMARK(g1_double<C>)->Name(tag "/G1_double");                                                      \
  BENCHMARK(g2_add<C>)->Name(tag "/G2_add");                                                            \
  BENCHMARK(g2_double<C>)->Name(tag "/G2_double");                                                      \
  BENCHMARK(fp12_mul<C>)->Name(tag "/Fp12_mul");                                                        \
  BENCHMARK(fp12_cyclotomic_square<C>)->Name(tag "/Fp12_cyclotomic_square");                            \
  BENCHMARK(prepare_g2<C>)->Name(tag "/G2_prepare")->Unit(benchmark::kMicrosecond);                     \
  BENCHMARK(miller_loop<C>)->Name(tag "/miller_loop")->Unit(benchmark::kMicrosecond);                   \
  BENCHMARK(miller_loop_prepared<C>)->Name(tag "/miller_loop_prepared")->Unit(benchmark::kMicrosecond); \
  BENCHMARK(final_exponentiation<C>)->Name(tag "/final_exponentiation")->Unit(benchmark::kMicrosecond); \
  BENCHMARK(pairing_full<C>)->Name(tag "/pairing")->Unit(benchmark::kMicrosecond);                      \
  BENCHMARK(groth16_shaped_check<C>)->Name(tag "/groth16_4pair_check")->Unit(benchmark::kMicrosecond);  \
  BENCHMARK(groth16_verify<C>)->Name(tag "/groth16_verify")->Unit(benchmark::kMicrosecond);             \
  BENCHMARK(groth16_verify_batch<C>)                                                                    \
      ->Name(tag "/groth16_verify_batch")                                                               \
      ->Arg(1)                                                                                          \
      ->Arg(2)                                                                                          \
      ->Arg(4)                                                                                          \
      ->Arg(8)                                                                                          \
      ->Arg(64)                                                                                         \
      ->Unit(benchmark::kMicrosecond)

ZK_CURVE_BENCHES(curves::Bn254, "bn254");
ZK_CURVE_BENCHES(curves::Bls12381, "bls12_381");

BENCHMARK_MAIN();
