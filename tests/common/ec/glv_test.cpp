// SPDX-License-Identifier: MIT
// GLV (common/ec/glv.hpp) and 4-dimensional GLS (common/ec/gls4.hpp, G2) scalar multiplication
// against plain double-and-add (Jacobian::mul_limbs) on G1 and G2 of both curves: random scalars and points, the edge
// scalars 0, 1, -1, 2, lambda, r - 1, powers of two and roots of unity (the setup's
// twiddles), and the decomposition's identity k = k1 + k2 lambda and its bound 2^127.
#include "common/ec/glv.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/ec/gls4.hpp"
#include "tests/common/ec/test_points.hpp"

namespace zkmill::test {

using namespace zkmill;

template <class P>
class Glv : public ::testing::Test {
 protected:
  std::mt19937_64 rng{20261201};
};
using GlvGroups =
    ::testing::Types<curves::Bn254G1Params, curves::Bn254G2Params, curves::Bls12381G1Params, curves::Bls12381G2Params>;
TYPED_TEST_SUITE(Glv, GlvGroups);

// Scalars where decompositions and recodings have their edge cases.
template <class Fr, class Rng>
std::vector<Fr> edge_and_random_scalars(Rng& rng, int randoms) {
  const Fr lambda = ec::GlvLattice<Fr>::get().lambda;
  std::vector<Fr> v = {Fr::zero(),
                       Fr::one(),
                       -Fr::one(),  // r - 1
                       Fr::from_u64(2),
                       -Fr::from_u64(2),
                       Fr::from_u64(15),
                       Fr::from_u64(16),
                       Fr::from_u64(17),
                       lambda,
                       -lambda,
                       lambda + Fr::one(),
                       lambda.square(),
                       Fr::from_u64(2).pow(126),
                       Fr::from_u64(2).pow(127),
                       Fr::from_u64(2).pow(128),
                       Fr::from_u64(2).pow(200),
                       Fr::from_u64(1024).inverse(),  // the IFFT's 1/n
                       Fr::root_of_unity(10),
                       Fr::root_of_unity(10).inverse(),
                       Fr::root_of_unity_max()};
  for (int i = 0; i < randoms; ++i) v.push_back(Fr::random(rng));
  return v;
}

template <class Fr>
Fr recompose(const ec::GlvScalar& s) {
  const Fr k1 = ec::glv_detail::fr_from_u128<Fr>(s.k1), k2 = ec::glv_detail::fr_from_u128<Fr>(s.k2);
  return (s.neg1 ? -k1 : k1) + (s.neg2 ? -k2 : k2) * ec::GlvLattice<Fr>::get().lambda;
}

TYPED_TEST(Glv, DecompositionIsExactAndShort) {
  using Fr = typename TypeParam::Scalar;
  for (const Fr& k : edge_and_random_scalars<Fr>(this->rng, 2000)) {
    const auto s = ec::glv_decompose(k);
    EXPECT_EQ(recompose<Fr>(s), k) << k.to_dec();
    EXPECT_LT(s.k1, ec::u128(1) << 127) << k.to_dec();
    EXPECT_LT(s.k2, ec::u128(1) << 127) << k.to_dec();
    if (k.is_zero()) {
      EXPECT_TRUE(s.k1 == 0 && s.k2 == 0);
    }
  }
}

TYPED_TEST(Glv, EndomorphismIsLambdaOnRandomPoints) {
  using J = ec::Jacobian<TypeParam>;
  const auto& lambda = ec::GlvLattice<typename TypeParam::Scalar>::get().lambda;
  for (int i = 0; i < 4; ++i) {
    const J p = J::from_affine(random_subgroup_point<TypeParam>(this->rng));
    EXPECT_EQ(ec::GlvEndomorphism<TypeParam>::phi(p), p.mul_limbs(lambda.to_canonical()));
    EXPECT_TRUE(ec::GlvEndomorphism<TypeParam>::phi(p).is_on_curve());
  }
}

TYPED_TEST(Glv, MatchesDoubleAndAdd) {
  using J = ec::Jacobian<TypeParam>;
  using Fr = typename TypeParam::Scalar;
  const auto scalars = edge_and_random_scalars<Fr>(this->rng, 24);
  for (size_t i = 0; i < scalars.size(); ++i) {
    // A point with Z != 1 (a sum), so the Jacobian formulas see general inputs.
    const J p = J::from_affine(random_subgroup_point<TypeParam>(this->rng)) + J::generator();
    const J want = p.mul_limbs(scalars[i].to_canonical());
    const J got = ec::glv_mul(p, scalars[i]);
    EXPECT_EQ(got, want) << "scalar " << scalars[i].to_dec();
    EXPECT_TRUE(got.is_on_curve());
  }
  // The identity times anything, and k P + (r - k) P = O.
  EXPECT_TRUE(ec::glv_mul(J::identity(), Fr::random(this->rng)).is_identity());
  const J g = J::generator();
  const Fr k = Fr::random(this->rng);
  EXPECT_TRUE((ec::glv_mul(g, k) + ec::glv_mul(g, -k)).is_identity());
}

TYPED_TEST(Glv, BatchMatchesDoubleAndAdd) {
  using J = ec::Jacobian<TypeParam>;
  using Fr = typename TypeParam::Scalar;
  const auto scalars = edge_and_random_scalars<Fr>(this->rng, 12);
  std::vector<J> pts, want;
  std::vector<ec::GlvScalar> ks;
  for (size_t i = 0; i < scalars.size(); ++i) {
    // Every fifth point is the identity; one point repeats (equal table entries across points).
    J p = i % 5 == 3 ? J::identity() : J::from_affine(random_subgroup_point<TypeParam>(this->rng)).dbl();
    if (i == 7) p = pts[1];
    pts.push_back(p);
    want.push_back(p.mul_limbs(scalars[i].to_canonical()));
    ks.push_back(ec::glv_decompose(scalars[i]));
  }
  std::vector<J*> pp;
  std::vector<const ec::GlvScalar*> kp;
  for (size_t i = 0; i < pts.size(); ++i) {
    pp.push_back(&pts[i]);
    kp.push_back(&ks[i]);
  }
  ec::glv_mul_batch<TypeParam>(pp.data(), kp.data(), pts.size());
  for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(pts[i], want[i]) << "scalar " << scalars[i].to_dec();
  ec::glv_mul_batch<TypeParam>(pp.data(), kp.data(), 0);  // an empty batch is fine
}

template <class P>
class Gls4 : public ::testing::Test {
 protected:
  std::mt19937_64 rng{20261202};
};
using G2Groups = ::testing::Types<curves::Bn254G2Params, curves::Bls12381G2Params>;
TYPED_TEST_SUITE(Gls4, G2Groups);

TYPED_TEST(Gls4, DecompositionIsExactAndShort) {
  using Fr = typename TypeParam::Scalar;
  const auto& L = ec::Gls4Lattice<TypeParam>::get();
  for (const Fr& k : edge_and_random_scalars<Fr>(this->rng, 2000)) {
    const auto s = ec::gls4_decompose<TypeParam>(k);
    Fr sum = Fr::zero();
    for (int i = 0; i < 4; ++i) {
      const Fr ki = ec::glv_detail::fr_from_u128<Fr>(s.k[i]);
      sum += (s.neg[i] ? -ki : ki) * L.mu_pow[i];
      EXPECT_LT(s.k[i], ec::u128(1) << 67) << k.to_dec();
    }
    EXPECT_EQ(sum, k) << k.to_dec();
  }
}

TYPED_TEST(Gls4, MatchesDoubleAndAdd) {
  using J = ec::Jacobian<TypeParam>;
  using Fr = typename TypeParam::Scalar;
  // psi acts as mu on random points (the decomposition's premise).
  const auto& L = ec::Gls4Lattice<TypeParam>::get();
  const J q = J::from_affine(random_subgroup_point<TypeParam>(this->rng));
  EXPECT_EQ(ec::psi(q), q.mul_limbs(L.mu_pow[1].to_canonical()));
  const auto scalars = edge_and_random_scalars<Fr>(this->rng, 16);
  std::vector<J> pts, want;
  std::vector<ec::Gls4Scalar> ks;
  for (size_t i = 0; i < scalars.size(); ++i) {
    J p = i % 7 == 5 ? J::identity() : J::from_affine(random_subgroup_point<TypeParam>(this->rng)) + J::generator();
    pts.push_back(p);
    want.push_back(p.mul_limbs(scalars[i].to_canonical()));
    ks.push_back(ec::gls4_decompose<TypeParam>(scalars[i]));
    EXPECT_EQ(ec::fast_mul(p, scalars[i]), want.back()) << "scalar " << scalars[i].to_dec();
  }
  std::vector<J*> pp;
  std::vector<const ec::Gls4Scalar*> kp;
  for (size_t i = 0; i < pts.size(); ++i) {
    pp.push_back(&pts[i]);
    kp.push_back(&ks[i]);
  }
  ec::gls4_mul_batch<TypeParam>(pp.data(), kp.data(), pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(pts[i], want[i]) << "scalar " << scalars[i].to_dec();
    EXPECT_TRUE(pts[i].is_on_curve());
  }
}

}  // namespace zkmill::test
