// SPDX-License-Identifier: MIT
// XYZZ coordinates (common/ec/xyzz.hpp) against the Jacobian reference, for all four groups.
#include "common/ec/xyzz.hpp"

#include <gtest/gtest.h>

#include <random>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"

namespace zkmill::test {

using namespace zkmill;

template <class P>
class XyzzTest : public ::testing::Test {
 protected:
  using J = ec::Jacobian<P>;
  using A = ec::Affine<P>;
  using X = ec::XYZZ<P>;
  using Fr = typename P::Scalar;
  std::mt19937_64 rng{0x7979'2008};
  J rnd() { return J::generator() * Fr::random(rng); }
  // A random point in XYZZ with a non-trivial ZZ (as produced by previous additions).
  X rnd_xyzz() { return X::from_jacobian(rnd()); }
};

using Groups =
    ::testing::Types<curves::Bn254G1Params, curves::Bn254G2Params, curves::Bls12381G1Params, curves::Bls12381G2Params>;
TYPED_TEST_SUITE(XyzzTest, Groups);

TYPED_TEST(XyzzTest, ConversionsRoundTrip) {
  using J = typename TestFixture::J;
  using X = typename TestFixture::X;
  using A = typename TestFixture::A;
  for (int i = 0; i < 5; ++i) {
    J p = this->rnd();
    X x = X::from_jacobian(p);
    EXPECT_TRUE(x.is_on_curve());
    EXPECT_EQ(x.to_jacobian(), p);
    EXPECT_EQ(x.to_affine(), p.to_affine());
    EXPECT_EQ(X::from_affine(p.to_affine()), x);
    EXPECT_TRUE(x.to_jacobian().is_on_curve());
  }
  EXPECT_TRUE(X::identity().is_identity());
  EXPECT_TRUE(X::from_affine(A::identity()).is_identity());
  EXPECT_TRUE(X::from_jacobian(J::identity()).is_identity());
  EXPECT_TRUE(X::identity().to_jacobian().is_identity());
  EXPECT_TRUE(X::identity().to_affine().is_identity());
  EXPECT_TRUE(X::identity().is_on_curve());
}

TYPED_TEST(XyzzTest, MixedAdditionMatchesJacobian) {
  using J = typename TestFixture::J;
  using X = typename TestFixture::X;
  for (int i = 0; i < 10; ++i) {
    J q = this->rnd();
    X a = this->rnd_xyzz();
    J aj = a.to_jacobian();
    auto qa = q.to_affine();
    X s = a;
    s += qa;
    EXPECT_EQ(s.to_jacobian(), aj.add_mixed(qa));
    EXPECT_TRUE(s.is_on_curve());
    X d = a;
    d -= qa;
    EXPECT_EQ(d.to_jacobian(), aj - q);
    EXPECT_TRUE(d.is_on_curve());
  }
}

TYPED_TEST(XyzzTest, MixedAdditionSpecialCases) {
  using J = typename TestFixture::J;
  using X = typename TestFixture::X;
  using A = typename TestFixture::A;
  for (int i = 0; i < 4; ++i) {
    J p = this->rnd();
    A pa = p.to_affine();
    X x = X::from_jacobian(p);  // ZZ != 1, so the equal-x tests go through the projective compare
    X t = x;
    EXPECT_EQ((t += pa).to_jacobian(), p.dbl());  // P + P: doubling
    t = x;
    EXPECT_TRUE((t -= pa).is_identity());  // P - P
    t = x;
    EXPECT_TRUE((t += (-pa)).is_identity());  // P + (-P)
    t = -x;
    EXPECT_EQ((t -= pa).to_jacobian(), -p.dbl());  // -P - P
    t = x;
    EXPECT_EQ((t += A::identity()), x);  // P + O
    t = X::identity();
    EXPECT_EQ((t += pa).to_jacobian(), p);  // O + P
    t = X::identity();
    EXPECT_EQ((t -= pa).to_jacobian(), -p);  // O - P
    EXPECT_EQ(X::dbl_affine(pa).to_jacobian(), p.dbl());
    EXPECT_EQ(X::dbl_affine(pa, true).to_jacobian(), -p.dbl());
    EXPECT_TRUE(X::dbl_affine(A::identity()).is_identity());
  }
}

TYPED_TEST(XyzzTest, FullAdditionAndDoubling) {
  using X = typename TestFixture::X;
  for (int i = 0; i < 10; ++i) {
    X a = this->rnd_xyzz(), b = this->rnd_xyzz(), c = this->rnd_xyzz();
    EXPECT_EQ((a + b).to_jacobian(), a.to_jacobian() + b.to_jacobian());
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a.dbl().to_jacobian(), a.to_jacobian().dbl());
    EXPECT_TRUE(a.dbl().is_on_curve());
    EXPECT_TRUE((a + b).is_on_curve());
    // Special cases of add-2008-s: equal points in different representatives, negatives, O.
    X a2 = X::from_jacobian(a.to_jacobian().dbl() - a.to_jacobian());
    EXPECT_EQ(a + a2, a.dbl());
    EXPECT_TRUE((a + (-a2)).is_identity());
    EXPECT_TRUE((a - a).is_identity());
    EXPECT_EQ(a + X::identity(), a);
    EXPECT_EQ(X::identity() + a, a);
    EXPECT_TRUE(X::identity().dbl().is_identity());
  }
  EXPECT_TRUE((X::identity() + X::identity()).is_identity());
}

TYPED_TEST(XyzzTest, LongChainAgreesWithJacobian) {
  using J = typename TestFixture::J;
  using X = typename TestFixture::X;
  J g = this->rnd();
  auto ga = g.to_affine();
  X x;
  J j = J::identity();
  for (int i = 0; i < 40; ++i) {
    if (i % 7 == 3) {
      x = x.dbl();
      j = j.dbl();
    } else if (i % 5 == 4) {
      x -= ga;
      j = j - g;
    } else {
      x += ga;
      j = j.add_mixed(ga);
    }
    ASSERT_EQ(x.to_jacobian(), j) << "step " << i;
  }
  EXPECT_TRUE(x.is_on_curve());
}

}  // namespace zkmill::test
