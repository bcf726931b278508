// SPDX-License-Identifier: MIT
// The FP64 Montgomery product (cuda/ff/fp64_mont.hpp) on the host, against the CPU fields: the
// split of one limb product into two exact halves, a b R^-1 for the reduced and the lazy forms
// (inputs below 2p, the lazy output below 2p and congruent), the conversions, and long chains
// of products as the microbenchmark runs them. The host runs the same IEEE operations as the
// device except the one round-down FMA, formed from the exact product (as the carry flag is
// emulated for cuda/ff/mont32.hpp); the bench's own check covers the device's instruction.
// No GPU needed.
#include "cuda/ff/fp64_mont.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "cuda/ff/mont32.hpp"

namespace zkmill::test {

using cuda::field::Mont52Constants;
using cuda::field::mont_mul52;

template <class P>
struct Fp64Case {
  using H = ff::Fp<P>;
  static constexpr int L = Mont52Constants<P>::L;
};

// Outside the anonymous namespace, as in tests/common/ff/mont_mul_asm_test.cpp (unity builds).
template <class T>
class Fp64Mont : public ::testing::Test {};
using Fp64MontFields = ::testing::Types<Fp64Case<ff::Bls12381FqParams>, Fp64Case<ff::Bls12381FrParams>,
                                        Fp64Case<ff::Bn254FqParams>, Fp64Case<ff::Bn254FrParams>>;
TYPED_TEST_SUITE(Fp64Mont, Fp64MontFields);

namespace {

// An integer below 2^(64 N) as 52-bit limbs in doubles, and back (no reduction either way).
template <class P>
void to52(double (&out)[Mont52Constants<P>::L], const ff::Limbs<P::kLimbs>& x) {
  uint64_t l[Mont52Constants<P>::L];
  cuda::field::to_limbs52<Mont52Constants<P>::L>(l, x);
  for (int k = 0; k < Mont52Constants<P>::L; ++k) out[k] = double(l[k]);
}
template <class P>
ff::Limbs<P::kLimbs + 1> from52(const double (&x)[Mont52Constants<P>::L]) {
  ff::Limbs<P::kLimbs + 1> r{};
  for (int k = 0; k < Mont52Constants<P>::L; ++k) {
    EXPECT_EQ(x[k], double(uint64_t(x[k]))) << "limb " << k << " is not an integer";
    EXPECT_LT(x[k], 4503599627370496.0) << "limb " << k << " is not below 2^52";
    const uint64_t v = uint64_t(x[k]);
    const int bit = 52 * k;
    r[size_t(bit / 64)] |= v << (bit % 64);
    if (bit % 64 > 12) r[size_t(bit / 64 + 1)] |= v >> (64 - bit % 64);
  }
  return r;
}
template <class P>
ff::Limbs<P::kLimbs> below_top_limb(const ff::Limbs<P::kLimbs + 1>& x) {
  EXPECT_EQ(x[P::kLimbs], 0u);
  ff::Limbs<P::kLimbs> r{};
  for (size_t i = 0; i < P::kLimbs; ++i) r[i] = x[i];
  return r;
}

// R^-1 in the CPU field, R = 2^(52 L).
template <class H, class P>
H r52_inverse() {
  return H::from_u64(2).pow(uint64_t(52 * Mont52Constants<P>::L)).inverse();
}

TEST(Fp64Split, HalvesAreExactForRandomAndExtremeLimbs) {
  using namespace cuda::field::fp64;
  std::mt19937_64 rng(0xf64);
  std::vector<uint64_t> vals = {0, 1, 2, kMask52, kMask52 - 1, uint64_t(1) << 51, (uint64_t(1) << 51) - 1};
  for (int i = 0; i < 200; ++i) vals.push_back(rng() & kMask52);
  for (uint64_t a : vals)
    for (uint64_t b : vals) {
      uint64_t hi, lo;
      split_product(double(a), double(b), hi, lo);
      const unsigned __int128 ab = static_cast<unsigned __int128>(a) * b;
      ASSERT_EQ(hi - kBits104, uint64_t(ab >> 52)) << a << " x " << b;
      ASSERT_EQ(lo - kBits52, uint64_t(ab) & kMask52) << a << " x " << b;
    }
}

TYPED_TEST(Fp64Mont, ConstantsDescribeTheModulus) {
  using P = typename TypeParam::H::Params;
  constexpr auto K = cuda::field::mont52_constants<P>();
  constexpr int L = TypeParam::L;
  // 4p < R, and one limb fewer would not do.
  EXPECT_LE(Mont52Constants<P>::bits + 2, 52 * L);
  EXPECT_GT(Mont52Constants<P>::bits + 2, 52 * (L - 1));
  // -p^-1: p * inv = -1 mod 2^52.
  EXPECT_EQ((K.pi[0] * K.inv) & cuda::field::fp64::kMask52, cuda::field::fp64::kMask52);
  double p[L];
  to52<P>(p, ff::MontConstants<P>::p);
  for (int k = 0; k < L; ++k) EXPECT_EQ(K.p[k], p[k]) << "limb " << k;
}

TYPED_TEST(Fp64Mont, ReducedProductMatchesCpuField) {
  using H = typename TypeParam::H;
  using P = typename H::Params;
  constexpr int L = TypeParam::L;
  std::mt19937_64 rng(0x52);
  const H rinv = r52_inverse<H, P>();
  std::vector<H> vals = {H::zero(), H::one(), -H::one(), H::from_u64(2), -H::from_u64(2)};
  for (int i = 0; i < 300; ++i) vals.push_back(H::random(rng));
  for (size_t i = 0; i < vals.size(); ++i)
    for (int r = 0; r < 6; ++r) {
      const H a = vals[i], b = r < 5 ? vals[size_t(r)] : H::random(rng);
      double da[L], db[L], dc[L];
      to52<P>(da, a.to_canonical());
      to52<P>(db, b.to_canonical());
      mont_mul52<P, true>(dc, da, db);
      ASSERT_EQ(below_top_limb<P>(from52<P>(dc)), (a * b * rinv).to_canonical())
          << "a = " << a.to_hex() << ", b = " << b.to_hex();
    }
}

TYPED_TEST(Fp64Mont, LazyProductStaysBelowTwoPAndIsCongruent) {
  using H = typename TypeParam::H;
  using P = typename H::Params;
  constexpr int L = TypeParam::L;
  std::mt19937_64 rng(0x2b);
  const H rinv = r52_inverse<H, P>();
  // x + p for x in [0, p): inputs in [p, 2p), the lazy form's worst case, and their products.
  auto plus_p = [](const H& x) {
    ff::Limbs<P::kLimbs> s{};
    ff::add_to(s, x.to_canonical(), ff::MontConstants<P>::p);  // below 2^(64 N): p has a spare top bit
    double d[L];
    to52<P>(d, s);
    return std::vector<double>(d, d + L);
  };
  const ff::Limbs<P::kLimbs + 1> two_p = [] {
    ff::Limbs<P::kLimbs + 1> t{}, p{};
    for (size_t i = 0; i < P::kLimbs; ++i) p[i] = ff::MontConstants<P>::p[i];
    ff::add_to(t, p, p);
    return t;
  }();
  for (int i = 0; i < 2000; ++i) {
    const H a = i == 0 ? -H::one() : H::random(rng), b = i < 2 ? -H::one() : H::random(rng);
    double da[L], db[L], dc[L];
    const auto va = plus_p(a), vb = i % 3 == 0 ? plus_p(b) : std::vector<double>();
    for (int k = 0; k < L; ++k) da[k] = va[size_t(k)];
    if (vb.empty()) {
      to52<P>(db, b.to_canonical());
    } else {
      for (int k = 0; k < L; ++k) db[k] = vb[size_t(k)];
    }
    mont_mul52<P, false>(dc, da, db);
    const auto c = from52<P>(dc);
    ASSERT_TRUE(ff::cmp(c, two_p) < 0) << "lazy output not below 2p, i = " << i;
    ff::Limbs<P::kLimbs> reduced = below_top_limb<P>(c);
    if (ff::cmp(reduced, ff::MontConstants<P>::p) >= 0) {
      ff::Limbs<P::kLimbs> d{};
      ff::sub_to(d, reduced, ff::MontConstants<P>::p);
      reduced = d;
    }
    ASSERT_EQ(reduced, (a * b * rinv).to_canonical()) << "i = " << i;
  }
}

TYPED_TEST(Fp64Mont, ConversionsAndLongChainsMatchCpuField) {
  using H = typename TypeParam::H;
  using P = typename H::Params;
  constexpr int L = TypeParam::L;
  std::mt19937_64 rng(0xc4a1);
  for (int trial = 0; trial < 20; ++trial) {
    const H x0 = H::random(rng), y = H::random(rng);
    double x[L], dy[L];
    const auto cx = x0.to_canonical(), cy = y.to_canonical();
    cuda::field::to_mont52<P>(x, cx.data());
    cuda::field::to_mont52<P>(dy, cy.data());
    ff::Limbs<P::kLimbs> back{};
    cuda::field::from_mont52<P>(back.data(), x);
    ASSERT_EQ(back, cx);
    // The bench's loop: x <- x y, lazily, 1000 times; then reduced and converted back.
    H expect = x0;
    for (int it = 0; it < 1000; ++it) {
      mont_mul52<P, false>(x, x, dy);
      expect = expect * y;
    }
    cuda::field::from_mont52<P>(back.data(), x);
    ASSERT_EQ(back, expect.to_canonical()) << "trial " << trial;
  }
}

// The word-array product and square are Fp32's mont_mul and sqr() bit for bit (so they can stand
// in for them, as the A/B build of docs/benchmarks/gpu-field-products.md did), on edge values
// and random ones.
TYPED_TEST(Fp64Mont, WordProductAndSquareAreFp32sBitForBit) {
  using H = typename TypeParam::H;
  using P = typename H::Params;
  using D = cuda::field::Fp32<P>;
  std::mt19937_64 rng(0x3264);
  std::vector<H> vals = {H::zero(), H::one(), -H::one(), H::from_u64(2), -H::from_u64(2), H::from_u64(1) - H::one()};
  for (int i = 0; i < 400; ++i) vals.push_back(H::random(rng));
  // Stored words of all ones below p's top word, and p - 1 as a stored value.
  D ones = D::zero();
  for (int i = 0; i < D::N - 1; ++i) ones.v[i] = 0xffffffffu;
  D p_minus_1 = D::zero();
  const auto K = cuda::field::mont32_constants<P>();
  for (int i = 0; i < D::N; ++i) p_minus_1.v[i] = K.p[i];
  p_minus_1.v[0] -= 1;
  std::vector<D> dv = {ones, p_minus_1};
  for (const H& h : vals) dv.push_back(D::from_host(h));
  for (size_t i = 0; i < dv.size(); ++i)
    for (int r = 0; r < 8; ++r) {
      const D& a = dv[i];
      const D b = r < 6 ? dv[size_t(r)] : D::from_host(H::random(rng));
      D want, got;
      D::mont_mul(want.v, a.v, b.v);
      cuda::field::mont_mul_words_fp64<P>(got.v, a.v, b.v);
      ASSERT_EQ(got, want) << "i = " << i << ", r = " << r;
    }
  for (size_t i = 0; i < dv.size(); ++i) {  // the square: Fp32's sqr() (sqr_wide + redc_wide)
    D got;
    cuda::field::mont_sqr_words_fp64<P>(got.v, dv[i].v);
    ASSERT_EQ(got, dv[i].sqr()) << "square, i = " << i;
  }
}

}  // namespace
}  // namespace zkmill::test
