// SPDX-License-Identifier: MIT
// Optimal ate pairing properties on both curves (typed tests): bilinearity, non-degeneracy,
// r-torsion of GT, multi-Miller loops, prepared G2 points, product checks, and the exact power
// of the reduced pairing that the final exponentiation computes.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "common/pairing/engine.hpp"

namespace zkmill::test {

using namespace zkmill;
using tower::detail::BigNat;

namespace {

// Schoolbook long division by shifting (test-only; ~5000-bit numbers).
BigNat shl1(const BigNat& a) {
  BigNat r(a.size() + 1, 0);
  for (size_t i = 0; i < a.size(); ++i) {
    r[i] |= a[i] << 1;
    r[i + 1] |= a[i] >> 63;
  }
  tower::detail::trim(r);
  return r;
}
int cmp(const BigNat& a, const BigNat& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
BigNat sub(BigNat a, const BigNat& b) {  // a >= b
  uint64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t bi = i < b.size() ? b[i] : 0;
    ff::u128 d = ff::u128(a[i]) - bi - borrow;
    a[i] = uint64_t(d);
    borrow = uint64_t(d >> 64) & 1;
  }
  tower::detail::trim(a);
  return a;
}
// Returns a / b, requiring b | a.
BigNat div_exact(const BigNat& a, const BigNat& b) {
  BigNat q, rem;
  for (size_t i = 64 * a.size(); i-- > 0;) {
    rem = shl1(rem);
    if ((a[i / 64] >> (i % 64)) & 1) {
      if (rem.empty()) rem.push_back(0);
      rem[0] |= 1;
    }
    q = shl1(q);
    if (cmp(rem, b) >= 0) {
      rem = sub(rem, b);
      if (q.empty()) q.push_back(0);
      q[0] |= 1;
    }
  }
  EXPECT_TRUE(rem.empty()) << "division is not exact";
  return q;
}
template <size_t N>
BigNat big(const ff::Limbs<N>& a) {
  BigNat r(a.begin(), a.end());
  tower::detail::trim(r);
  return r;
}

template <class Curve>
BigNat gt_power_k();
// k = 2u(6u^2 + 3u + 1) for BN254 (pairing_traits.hpp).
template <>
BigNat gt_power_k<curves::Bn254>() {
  uint64_t u = pairing::PairingTraits<curves::Bn254>::kU;
  BigNat U{u};
  // 6u^2 + 3u + 1 = 3u(2u + 1) + 1
  BigNat two_u_plus_1 = tower::detail::mul(U, {2});
  two_u_plus_1[0] += 1;  // 2u is even: no carry
  BigNat s = tower::detail::mul(tower::detail::mul(U, {3}), two_u_plus_1);
  s[0] += 1;  // 3u(2u+1) is even: no carry
  return tower::detail::mul(tower::detail::mul(U, {2}), s);
}
template <>
BigNat gt_power_k<curves::Bls12381>() {
  return {3};
}

}  // namespace

template <class Curve>
class PairingProps : public ::testing::Test {
 protected:
  using E = pairing::Engine<Curve>;
  using GT = typename E::GT;
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  using G1A = typename Curve::G1Affine;
  using G2A = typename Curve::G2Affine;
  std::mt19937_64 rng{77};
  Fr rnd() { return Fr::random(rng); }
  static G1A g1(const Fr& a) { return (G1::generator() * a).to_affine(); }
  static G2A g2(const Fr& a) { return (G2::generator() * a).to_affine(); }
  static GT gt_pow(const GT& x, const Fr& a) { return x.pow(a.to_canonical()); }
};

using Curves = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(PairingProps, Curves);

TYPED_TEST(PairingProps, NonDegenerateAndOfOrderR) {
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto e = E::pairing(TypeParam::G1Params::generator(), TypeParam::G2Params::generator());
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(Fr::modulus()).is_one());
  // In the cyclotomic subgroup: conj(e) = e^-1.
  EXPECT_EQ(e * e.conjugate(), E::GT::one());
}

TYPED_TEST(PairingProps, Bilinearity) {
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  auto P = TypeParam::G1Params::generator();
  auto Q = TypeParam::G2Params::generator();
  auto e = E::pairing(P, Q);
  for (int i = 0; i < 2; ++i) {
    Fr a = this->rnd(), b = this->rnd();
    auto eab = E::pairing(this->g1(a), this->g2(b));
    EXPECT_EQ(eab, this->gt_pow(e, a * b));
    EXPECT_EQ(eab, E::pairing(this->g1(a * b), Q));
    EXPECT_EQ(eab, E::pairing(P, this->g2(a * b)));
    // e(P1 + P2, Q) = e(P1, Q) e(P2, Q)
    auto P1 = this->g1(a), P2 = this->g1(b);
    auto sum = (TestFixture::G1::from_affine(P1) + TestFixture::G1::from_affine(P2)).to_affine();
    EXPECT_EQ(E::pairing(sum, Q), E::pairing(P1, Q) * E::pairing(P2, Q));
  }
  EXPECT_EQ(E::pairing(this->g1(Fr::from_u64(2)), Q), e.square());
}

TYPED_TEST(PairingProps, NegationInverts) {
  using E = typename TestFixture::E;
  auto P = this->g1(this->rnd());
  auto Q = this->g2(this->rnd());
  EXPECT_EQ(E::pairing(P, Q) * E::pairing(-P, Q), E::GT::one());
  EXPECT_EQ(E::pairing(P, -Q), E::pairing(-P, Q));
  EXPECT_EQ(E::pairing(P, -Q), E::pairing(P, Q).conjugate());
}

TYPED_TEST(PairingProps, IdentityGivesOne) {
  using E = typename TestFixture::E;
  auto P = this->g1(this->rnd());
  auto Q = this->g2(this->rnd());
  EXPECT_TRUE(E::pairing(TestFixture::G1A::identity(), Q).is_one());
  EXPECT_TRUE(E::pairing(P, TestFixture::G2A::identity()).is_one());
  std::vector<typename E::Pair> none;
  EXPECT_TRUE(E::multi_miller_loop(none).is_one());
  EXPECT_TRUE(E::pairing_product_is_one(none));
}

TYPED_TEST(PairingProps, MultiMillerLoopIsTheProduct) {
  using E = typename TestFixture::E;
  std::vector<typename E::Pair> pairs;
  typename E::GT prod = E::GT::one();
  for (int i = 0; i < 4; ++i) {
    pairs.push_back({this->g1(this->rnd()), this->g2(this->rnd())});
    prod *= E::pairing(pairs.back().first, pairs.back().second);
  }
  pairs.push_back({TestFixture::G1A::identity(), this->g2(this->rnd())});  // contributes 1
  EXPECT_EQ(E::final_exponentiation(E::multi_miller_loop(pairs)), prod);
  // Miller values themselves multiply too (before the final exponentiation).
  typename E::GT ml = E::GT::one();
  for (const auto& [p, q] : pairs) ml *= E::miller_loop(p, q);
  EXPECT_EQ(E::final_exponentiation(ml), prod);
}

TYPED_TEST(PairingProps, PreparedG2MatchesAffine) {
  using E = typename TestFixture::E;
  auto P = this->g1(this->rnd()), P2 = this->g1(this->rnd());
  auto Q = this->g2(this->rnd()), Q2 = this->g2(this->rnd());
  auto prep = E::prepare(Q), prep2 = E::prepare(Q2);
  EXPECT_EQ(prep.lines.size(), E::kLineCount);
  EXPECT_EQ(E::miller_loop(P, prep), E::miller_loop(P, Q));
  EXPECT_EQ(E::pairing(P, prep), E::pairing(P, Q));
  std::vector<typename E::PreparedPair> pp{{P, &prep}, {P2, &prep2}};
  std::vector<typename E::Pair> ap{{P, Q}, {P2, Q2}};
  EXPECT_EQ(E::multi_miller_loop(pp), E::multi_miller_loop(ap));
  EXPECT_TRUE(E::prepare(TestFixture::G2A::identity()).infinity);
}

TYPED_TEST(PairingProps, PairingProductIsOne) {
  using E = typename TestFixture::E;
  using Fr = typename TestFixture::Fr;
  Fr a = this->rnd(), b = this->rnd();
  auto P = this->g1(this->rnd());
  auto Q = this->g2(this->rnd());
  auto aP = (TestFixture::G1::from_affine(P) * a).to_affine();
  auto aQ = (TestFixture::G2::from_affine(Q) * a).to_affine();
  std::vector<typename E::Pair> ok{{aP, Q}, {-P, aQ}};
  EXPECT_TRUE(E::pairing_product_is_one(ok));
  std::vector<typename E::Pair> bad{{aP, Q}, {-P, (TestFixture::G2::from_affine(Q) * b).to_affine()}};
  EXPECT_FALSE(E::pairing_product_is_one(bad));
  std::vector<typename E::Pair> single{{P, Q}};
  EXPECT_FALSE(E::pairing_product_is_one(single));
  // The Groth16 shape: e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) with A = alpha + ...
  Fr al = this->rnd(), be = this->rnd(), ga = this->rnd(), de = this->rnd(), l = this->rnd(), c = this->rnd();
  // choose A, B with ab = al*be + l*ga + c*de
  Fr bb = this->rnd();
  Fr aa = (al * be + l * ga + c * de) * bb.inverse();
  auto prep_beta = E::prepare(this->g2(be)), prep_gamma = E::prepare(this->g2(ga)),
       prep_delta = E::prepare(this->g2(de));
  auto prep_B = E::prepare(this->g2(bb));
  std::vector<typename E::PreparedPair> g16{
      {-this->g1(aa), &prep_B}, {this->g1(al), &prep_beta}, {this->g1(l), &prep_gamma}, {this->g1(c), &prep_delta}};
  EXPECT_TRUE(E::pairing_product_is_one(g16));
  g16[2].first = this->g1(l + Fr::one());
  EXPECT_FALSE(E::pairing_product_is_one(g16));
}

// final_exponentiation(f) = f^(k (p^12 - 1)/r) exactly, k as documented in pairing_traits.hpp.
TYPED_TEST(PairingProps, FinalExponentiationIsTheDocumentedPower) {
  using E = typename TestFixture::E;
  using Fq = typename TypeParam::Fq;
  using Fr = typename TypeParam::Fr;
  BigNat p12m1 = tower::detail::sub_small(tower::detail::modulus_power<Fq>(12), 1);
  BigNat exact = div_exact(p12m1, big(Fr::modulus()));
  BigNat full = tower::detail::mul(exact, gt_power_k<TypeParam>());
  auto f = E::miller_loop(this->g1(this->rnd()), this->g2(this->rnd()));
  EXPECT_EQ(E::final_exponentiation(f), f.pow(std::span<const uint64_t>(full)));
  // and on an arbitrary non-zero element, not only on Miller values
  auto x = E::GT::random(this->rng);
  EXPECT_EQ(E::final_exponentiation(x), x.pow(std::span<const uint64_t>(full)));
}

}  // namespace zkmill::test
