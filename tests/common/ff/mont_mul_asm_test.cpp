// SPDX-License-Identifier: MIT
// The x86-64 MULX/ADX Montgomery multiplication (common/ff/mont_mul_x86.hpp) against the
// portable C++ CIOS path, which stays callable as Fp<P>::mont_mul_portable. Where the
// assembly is not compiled in (no BMI2/ADX, or ZKMILL_FF_PORTABLE) mont_mul is the portable
// path itself and these tests compare it with itself.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"

namespace zkmill::test {

using namespace zkmill::ff;

// Outside the anonymous namespace: TYPED_TEST's classes derive from it at namespace scope, and
// in a unity build (this file included into a batch) GCC warns (-Wsubobject-linkage) about a
// base with internal linkage.
template <class F>
class MontMulAsm : public ::testing::Test {};

using MontMulAsmFields = ::testing::Types<Bn254Fq, Bn254Fr, Bls12381Fq, Bls12381Fr>;
TYPED_TEST_SUITE(MontMulAsm, MontMulAsmFields);

namespace {

template <size_t N>
Limbs<N> small(uint64_t x) {
  Limbs<N> r{};
  r[0] = x;
  return r;
}

// Raw Montgomery representatives (integers < p) that stress the carry chains and the final
// conditional subtraction: 0, 1, 2, p-1, p-2, (p-1)/2, R mod p, R^2 mod p, R^-1-related
// values, single-limb extremes and the largest value with only ones below the top limb.
template <class F>
std::vector<Limbs<F::N>> edge_values() {
  constexpr size_t N = F::N;
  using C = typename F::C;
  std::vector<Limbs<N>> v = {small<N>(0),  small<N>(1),  small<N>(2),       small<N>(~uint64_t(0)),
                             C::p_minus_1, C::p_minus_2, C::half_p_minus_1, C::r1,
                             C::r2};
  Limbs<N> r_inv;  // R^-1 mod p: one's Montgomery form times R^-2
  F::mont_mul_portable(r_inv, small<N>(1), small<N>(1));
  v.push_back(r_inv);
  Limbs<N> p_minus_r;  // p - R mod p
  sub_to(p_minus_r, C::p, C::r1);
  v.push_back(p_minus_r);
  Limbs<N> ones{};
  for (size_t i = 0; i + 1 < N; ++i) ones[i] = ~uint64_t(0);
  v.push_back(ones);  // below p: p's top limb is non-zero
  Limbs<N> top{};
  top[N - 1] = C::p[N - 1];  // p with the low limbs cleared
  v.push_back(top);
  for (auto& x : v) EXPECT_LT(cmp(x, C::p), 0);
  return v;
}

}  // namespace

TYPED_TEST(MontMulAsm, MatchesPortableOnEdgeValues) {
  using F = TypeParam;
  auto ev = edge_values<F>();
  for (const auto& a : ev)
    for (const auto& b : ev) {
      Limbs<F::N> fast, slow;
      F::mont_mul(fast, a, b);
      F::mont_mul_portable(slow, a, b);
      ASSERT_EQ(fast, slow) << F::Params::kName << ": " << to_hex(a) << " * " << to_hex(b);
      ASSERT_LT(cmp(fast, F::C::p), 0);
    }
}

TYPED_TEST(MontMulAsm, MatchesPortableOnRandomPairs) {
  using F = TypeParam;
  std::mt19937_64 rng(0xa5a5'0000 + F::N);
  for (int i = 0; i < 100'000; ++i) {
    F a = F::random(rng), b = F::random(rng);
    Limbs<F::N> fast, slow;
    F::mont_mul(fast, a.v, b.v);
    F::mont_mul_portable(slow, a.v, b.v);
    ASSERT_EQ(fast, slow) << F::Params::kName << " pair " << i << ": " << to_hex(a.v) << " * " << to_hex(b.v);
  }
}

TYPED_TEST(MontMulAsm, OutputMayAliasInputs) {
  using F = TypeParam;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    Limbs<F::N> a = F::random(rng).v, b = F::random(rng).v, want;
    F::mont_mul_portable(want, a, b);
    Limbs<F::N> x = a;
    F::mont_mul(x, x, b);  // out == a
    EXPECT_EQ(x, want);
    Limbs<F::N> y = b;
    F::mont_mul(y, a, y);  // out == b
    EXPECT_EQ(y, want);
    Limbs<F::N> sq, z = a;
    F::mont_mul_portable(sq, a, a);
    F::mont_mul(z, z, z);  // out == a == b
    EXPECT_EQ(z, sq);
  }
}

TYPED_TEST(MontMulAsm, AssemblySelectedWhereAvailable) {
  using F = TypeParam;
#if ZKMILL_FF_X86_ADX
  EXPECT_TRUE(F::kAsmMul);
#else
  EXPECT_FALSE(F::kAsmMul);
  GTEST_SKIP() << "MULX/ADX assembly not compiled in (needs __BMI2__ and __ADX__)";
#endif
}

}  // namespace zkmill::test
