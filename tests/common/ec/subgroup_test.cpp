// SPDX-License-Identifier: MIT
// Tests that the fast subgroup checks (common/ec/subgroup.hpp) agree with the naive [r]P = O.
// Inputs: random members, random non-members, small-order torsion points, members plus torsion.
#include "common/ec/subgroup.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "tests/common/ec/test_points.hpp"

namespace zkmill::test {

using namespace zkmill;
using curves::Bls12381G1Params;
using curves::Bls12381G2Params;
using curves::Bn254G1Params;
using curves::Bn254G2Params;

template <class P>
class Subgroup : public SeededGroupTest<P, 20240611> {};
TYPED_TEST_SUITE(Subgroup, AllGroups);

TYPED_TEST(Subgroup, AgreesWithNaiveOnMembers) {
  using J = ec::Jacobian<TypeParam>;
  EXPECT_TRUE(ec::is_in_subgroup(ec::Affine<TypeParam>::identity()));
  EXPECT_TRUE(ec::is_in_subgroup(J::identity()));
  EXPECT_TRUE(ec::is_in_subgroup(TypeParam::generator()));
  for (int i = 0; i < 8; ++i) {
    auto p = random_subgroup_point<TypeParam>(this->rng);
    ASSERT_TRUE(J::from_affine(p).is_in_subgroup_naive());
    EXPECT_TRUE(ec::is_in_subgroup(p));
    // Jacobian input with Z != 1 takes the same path.
    EXPECT_TRUE(ec::is_in_subgroup(J::from_affine(p).dbl() + J::generator()));
  }
}

TYPED_TEST(Subgroup, AgreesWithNaiveOnRandomCurvePoints) {
  using J = ec::Jacobian<TypeParam>;
  int outside = 0;
  for (int i = 0; i < 8; ++i) {
    auto p = random_curve_point<TypeParam>(this->rng);
    ASSERT_TRUE(p.is_on_curve());
    bool naive = J::from_affine(p).is_in_subgroup_naive();
    EXPECT_EQ(ec::is_in_subgroup(p), naive) << ec::SubgroupTest<TypeParam>::kMethod;
    outside += !naive;
  }
  // With a cofactor, points made without clearing it are (overwhelmingly) outside G.
  EXPECT_EQ(outside, TypeParam::kCofactorOne ? 0 : 8);
}

TYPED_TEST(Subgroup, RejectsPointsOffTheCurve) {
  auto p = TypeParam::generator();
  p.y = p.y + TypeParam::Base::one();
  ASSERT_FALSE(p.is_on_curve());
  EXPECT_FALSE(ec::is_in_subgroup(p));
}

// Small-order points: every prime factor of each cofactor gets a point T of that order;
// the fast test must reject T and G + T, as the naive one does.
template <class C, size_t M, class Rng>
void check_torsion(uint64_t q, const ff::Limbs<M>& h, Rng& rng) {
  using J = ec::Jacobian<C>;
  auto t = torsion_point<C>(q, h, rng);
  EXPECT_FALSE(J::from_affine(t).is_in_subgroup_naive()) << q;
  EXPECT_FALSE(ec::is_in_subgroup(t)) << C::kName << " order " << q;
  J g_plus_t = J::from_affine(random_subgroup_point<C>(rng)).add_mixed(t);
  EXPECT_FALSE(g_plus_t.is_in_subgroup_naive());
  EXPECT_FALSE(ec::is_in_subgroup(g_plus_t)) << C::kName << " G + T, order " << q;
}

TEST(SubgroupTorsion, Bls12381G1AllCofactorPrimes) {
  std::mt19937_64 rng(7);
  // h1 = (x - 1)^2 / 3 = 3 * 11^2 * 10177^2 * 859267^2 * 52437899^2.
  for (uint64_t q : {3ull, 11ull, 10177ull, 859267ull, 52437899ull})
    check_torsion<Bls12381G1Params>(q, ec::subgroup_detail::kBlsG1Cofactor, rng);
}

TEST(SubgroupTorsion, Bls12381G2SmallCofactorPrimes) {
  std::mt19937_64 rng(8);
  // h2 = 13^2 * 23^2 * 2713 * 11953 * 262069 * (a 136-digit prime) * ...: the small primes.
  for (uint64_t q : {13ull, 23ull, 2713ull, 11953ull, 262069ull})
    check_torsion<Bls12381G2Params>(q, bls12_381_g2_cofactor(), rng);
}

TEST(SubgroupTorsion, Bn254G2SmallCofactorPrime) {
  std::mt19937_64 rng(9);
  // h2 = 2p - r = 10069 * (a 73-digit number).
  check_torsion<Bn254G2Params>(10069, bn254_g2_cofactor(), rng);
}

TEST(SubgroupTorsion, CofactorsAreExact) {
  // [h r] R = O for any R on the curve, and [h] R is in the subgroup.
  std::mt19937_64 rng(10);
  auto r1 = random_curve_point<Bls12381G1Params>(rng);
  auto j1 = ec::Jacobian<Bls12381G1Params>::from_affine(r1).mul_limbs(ec::subgroup_detail::kBlsG1Cofactor);
  EXPECT_TRUE(j1.is_in_subgroup_naive());
  EXPECT_TRUE(ec::is_in_subgroup(j1));
  auto r2 = random_curve_point<Bls12381G2Params>(rng);
  auto j2 = ec::Jacobian<Bls12381G2Params>::from_affine(r2).mul_limbs(bls12_381_g2_cofactor());
  EXPECT_TRUE(j2.is_in_subgroup_naive());
  EXPECT_TRUE(ec::is_in_subgroup(j2));
  auto r3 = random_curve_point<Bn254G2Params>(rng);
  auto j3 = ec::Jacobian<Bn254G2Params>::from_affine(r3).mul_limbs(bn254_g2_cofactor());
  EXPECT_TRUE(j3.is_in_subgroup_naive());
  EXPECT_TRUE(ec::is_in_subgroup(j3));
}

TEST(Endomorphisms, CubeRootAndEigenvalues) {
  using Fq = ff::Bls12381Fq;
  Fq w = ec::cube_root_of_unity<Fq>();
  EXPECT_FALSE(w.is_one());
  EXPECT_TRUE((w * w * w).is_one());
  using S1 = ec::SubgroupTest<Bls12381G1Params>;
  std::mt19937_64 rng(11);
  auto p = ec::Jacobian<Bls12381G1Params>::from_affine(random_subgroup_point<Bls12381G1Params>(rng));
  // phi has order 3 on E, phi^2 + phi + 1 = 0 on G1.
  EXPECT_EQ(S1::phi(S1::phi(S1::phi(p))), p);
  EXPECT_TRUE((S1::phi(S1::phi(p)) + S1::phi(p) + p).is_identity());
}

template <class C>
void check_psi(uint64_t seed) {
  using J = ec::Jacobian<C>;
  std::mt19937_64 rng(seed);
  // psi maps E' to itself, is a group homomorphism, and agrees on affine and Jacobian input.
  auto a = J::from_affine(random_curve_point<C>(rng));
  auto b = J::from_affine(random_curve_point<C>(rng));
  EXPECT_TRUE(ec::psi(a).is_on_curve());
  EXPECT_EQ(ec::psi(a + b), ec::psi(a) + ec::psi(b));
  EXPECT_EQ(ec::psi(a.dbl()).to_affine(), ec::SubgroupTest<C>::psi()(a.dbl().to_affine()));
  // On G2, the image of the p-power Frobenius, psi acts as [p]: check psi = [p], psi^2 = [p^2].
  auto g = J::from_affine(random_subgroup_point<C>(rng));
  auto pg = g.mul_limbs(C::Base::Base::modulus());
  EXPECT_EQ(ec::psi(g), pg);
  EXPECT_EQ(ec::psi(ec::psi(g)), pg.mul_limbs(C::Base::Base::modulus()));
}

TEST(Endomorphisms, PsiIsFrobeniusOnG2) {
  check_psi<Bls12381G2Params>(12);
  check_psi<Bn254G2Params>(13);
}

TEST(Endomorphisms, MethodsAreNamed) {
  EXPECT_STREQ(ec::SubgroupTest<Bn254G1Params>::kMethod, "cofactor 1 (on-curve suffices)");
  EXPECT_NE(std::string(ec::SubgroupTest<Bls12381G1Params>::kMethod).find("phi"), std::string::npos);
  EXPECT_NE(std::string(ec::SubgroupTest<Bls12381G2Params>::kMethod).find("psi"), std::string::npos);
  EXPECT_NE(std::string(ec::SubgroupTest<Bn254G2Params>::kMethod).find("psi"), std::string::npos);
}

// Informational: fast test vs [r]P = O on members (printed, not asserted).
TYPED_TEST(Subgroup, ReportsSpeedupOverNaive) {
  using J = ec::Jacobian<TypeParam>;
  std::vector<J> pts;
  for (int i = 0; i < 16; ++i) pts.push_back(J::from_affine(random_subgroup_point<TypeParam>(this->rng)));
  ec::is_in_subgroup(pts[0]);  // one-time constant set-up outside the timing
  auto time = [&](auto&& f) {  // best of 3 passes: the build machine is shared
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      for (const auto& p : pts) EXPECT_TRUE(f(p));
      auto us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, us / double(pts.size()));
    }
    return best;
  };
  double fast = time([](const J& p) { return ec::is_in_subgroup(p); });
  double naive = time([](const J& p) { return p.is_in_subgroup_naive(); });
  std::printf("  %s: %.1f us fast (%s) vs %.1f us naive\n", TypeParam::kName, fast,
              ec::SubgroupTest<TypeParam>::kMethod, naive);
}

}  // namespace zkmill::test
