// SPDX-License-Identifier: MIT
// One Karatsuba level for the double-width product (cuda/ff/karatsuba.hpp) on the host, with the
// carry flag emulated as for cuda/ff/mont32.hpp: equal to Fp32::mul_wide's schoolbook on random
// words over the whole 2^(32 N) range (not only field elements), on words with long runs of ones
// (carries that run to the top word) and on edge values that make both half-sums carry or
// neither; and, through redc_wide, equal to Fp32's Montgomery product on field elements. No GPU
// needed; the bench checks the device's bits.
#include "cuda/ff/karatsuba.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "cuda/ff/mont32.hpp"

namespace zkmill::test {

template <class T>
class KaratsubaWide : public ::testing::Test {};
using KaratsubaFields = ::testing::Types<ff::Bls12381FqParams, ff::Bn254FqParams, ff::Bn254FrParams>;
TYPED_TEST_SUITE(KaratsubaWide, KaratsubaFields);

namespace {

template <int N>
using Words = std::array<uint32_t, N>;

// Operands for the wide product: random words, and words chosen so that each half-sum carries
// or not (all ones, top halves all ones, zero, one).
template <int N>
std::vector<Words<N>> karatsuba_operands(std::mt19937_64& rng) {
  std::vector<Words<N>> v;
  Words<N> w{};
  v.push_back(w);  // 0
  w[0] = 1;
  v.push_back(w);  // 1
  w.fill(~0u);
  v.push_back(w);  // 2^(32 N) - 1: both halves all ones, the sum carries
  for (int i = 0; i < N / 2; ++i) w[i] = 0;
  v.push_back(w);  // high half all ones, low half zero: no carry
  w.fill(0);
  w[N / 2 - 1] = 0x80000000u;
  w[N - 1] = 0x80000000u;
  v.push_back(w);  // the two top bits of the halves: a carry with a zero sum
  for (int k = 0; k < 200; ++k) {
    for (auto& x : w) x = uint32_t(rng());
    v.push_back(w);
  }
  // Words drawn from {0, ~0, random}: long runs of ones, so that carries run far (the last
  // one into the top word of the result among them).
  for (int k = 0; k < 200; ++k) {
    for (auto& x : w) {
      const uint64_t r = rng();
      x = r % 3 == 0 ? 0u : r % 3 == 1 ? ~0u : uint32_t(r >> 32);
    }
    v.push_back(w);
  }
  return v;
}

}  // namespace

TYPED_TEST(KaratsubaWide, EqualsTheSchoolbookProductOnAnyWords) {
  using F = cuda::field::Fp32<TypeParam>;
  constexpr int N = F::N;
  std::mt19937_64 rng(0x6b61);
  const auto ops = karatsuba_operands<N>(rng);
  int checked = 0;
  for (const auto& a : ops)
    for (size_t j = 0; j < ops.size(); j += 7) {
      const auto& b = ops[j];
      uint32_t ta[N], tb[N], want[2 * N], got[2 * N];
      for (int i = 0; i < N; ++i) ta[i] = a[i], tb[i] = b[i];
      F::mul_wide(want, ta, tb);
      cuda::field::mul_wide_karatsuba<N>(got, ta, tb);
      for (int i = 0; i < 2 * N; ++i) ASSERT_EQ(got[i], want[i]) << "word " << i << ", operand pair " << checked;
      ++checked;
    }
  EXPECT_GT(checked, 5000);
}

TYPED_TEST(KaratsubaWide, ReducedItIsFp32sMontgomeryProduct) {
  using F = cuda::field::Fp32<TypeParam>;
  using H = ff::Fp<TypeParam>;
  constexpr int N = F::N;
  std::mt19937_64 rng(0x6b62);
  std::vector<H> xs = {H::zero(), H::one(), -H::one()};
  for (int k = 0; k < 300; ++k) xs.push_back(H::random(rng));
  for (size_t i = 0; i < xs.size(); ++i) {
    const H& x = xs[i];
    const H& y = xs[(i * 31 + 5) % xs.size()];
    const F a = F::from_host(x), b = F::from_host(y);
    uint32_t w[2 * N];
    cuda::field::mul_wide_karatsuba<N>(w, a.v, b.v);
    F r;
    F::redc_wide(r.v, w);
    ASSERT_EQ(r.to_host(), x * y) << "pair " << i;
    const F want = a * b;
    for (int j = 0; j < N; ++j) ASSERT_EQ(r.v[j], want.v[j]) << "pair " << i << " word " << j;
  }
}

}  // namespace zkmill::test
