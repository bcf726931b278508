// SPDX-License-Identifier: MIT
// Group laws, generators and orders for G1 and G2 of both curves (typed tests per group).
#include <gtest/gtest.h>

#include <random>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/ec/fixed_base.hpp"

namespace zkmill::test {

using namespace zkmill;

template <class P>
class GroupLaws : public ::testing::Test {
 protected:
  using J = ec::Jacobian<P>;
  using Fr = typename P::Scalar;
  std::mt19937_64 rng{1234};
  J rnd() { return J::generator() * Fr::random(rng); }
};

using Groups =
    ::testing::Types<curves::Bn254G1Params, curves::Bn254G2Params, curves::Bls12381G1Params, curves::Bls12381G2Params>;
TYPED_TEST_SUITE(GroupLaws, Groups);

TYPED_TEST(GroupLaws, GeneratorOnCurveAndOfOrderR) {
  using J = typename TestFixture::J;
  auto g = TypeParam::generator();
  EXPECT_TRUE(g.is_on_curve());
  EXPECT_TRUE(J::generator().is_in_subgroup_naive());
  EXPECT_FALSE(J::generator().is_identity());
}

TYPED_TEST(GroupLaws, AdditionLaws) {
  using J = typename TestFixture::J;
  for (int i = 0; i < 10; ++i) {
    J a = this->rnd(), b = this->rnd(), c = this->rnd();
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a + a, a.dbl());
    EXPECT_TRUE((a - a).is_identity());
    EXPECT_EQ(a + J::identity(), a);
    EXPECT_EQ(a.add_mixed(b.to_affine()), a + b);
    EXPECT_EQ(a.add_mixed(a.to_affine()), a.dbl());
    EXPECT_TRUE(a.add_mixed((-a).to_affine()).is_identity());
    EXPECT_TRUE((a + b).is_on_curve());
    EXPECT_TRUE(a.to_affine().is_on_curve());
  }
}

TYPED_TEST(GroupLaws, ScalarMultiplicationIsAHomomorphism) {
  using J = typename TestFixture::J;
  using Fr = typename TestFixture::Fr;
  for (int i = 0; i < 5; ++i) {
    Fr x = Fr::random(this->rng), y = Fr::random(this->rng);
    J g = J::generator();
    EXPECT_EQ(g * x + g * y, g * (x + y));
    EXPECT_EQ((g * x) * y, g * (x * y));
  }
  EXPECT_TRUE((J::generator() * Fr::zero()).is_identity());
  EXPECT_EQ(J::generator() * (-Fr::one()), -J::generator());
}

TYPED_TEST(GroupLaws, BatchNormalizeMatchesOneByOne) {
  using J = typename TestFixture::J;
  std::vector<J> pts;
  for (int i = 0; i < 9; ++i) pts.push_back(i == 4 ? J::identity() : this->rnd());
  auto aff = ec::batch_normalize<TypeParam>(pts);
  for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(aff[i], pts[i].to_affine());
}

TYPED_TEST(GroupLaws, FixedBaseTableMatchesDoubleAndAdd) {
  using J = typename TestFixture::J;
  using Fr = typename TestFixture::Fr;
  J base = this->rnd();
  ec::FixedBaseTable<TypeParam> table(base, 5);
  std::vector<Fr> ks = {Fr::zero(), Fr::one(), -Fr::one()};
  for (int i = 0; i < 6; ++i) ks.push_back(Fr::random(this->rng));
  for (const auto& k : ks) EXPECT_EQ(table.mul(k), base * k);
  auto batch = table.batch_mul(ks);
  for (size_t i = 0; i < ks.size(); ++i) EXPECT_EQ(batch[i], (base * ks[i]).to_affine());
}

}  // namespace zkmill::test
