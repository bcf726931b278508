// SPDX-License-Identifier: MIT
// Field axioms and edge values for every prime field, as typed tests instantiated per field.
#include <gtest/gtest.h>

#include <random>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"

namespace zkmill::test {

using namespace zkmill::ff;

template <class F>
class FieldLaws : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0x5eed'0000 + F::N};
  F rnd() { return F::random(rng); }
};

using Fields = ::testing::Types<Bn254Fq, Bn254Fr, Bls12381Fq, Bls12381Fr>;
TYPED_TEST_SUITE(FieldLaws, Fields);

TYPED_TEST(FieldLaws, RingAxiomsOnRandomElements) {
  using F = TypeParam;
  for (int i = 0; i < 200; ++i) {
    F a = this->rnd(), b = this->rnd(), c = this->rnd();
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), F::zero());
    EXPECT_EQ(a * F::one(), a);
    EXPECT_EQ(a.square(), a * a);
  }
}

TYPED_TEST(FieldLaws, InverseAndSqrtRoundTrip) {
  using F = TypeParam;
  for (int i = 0; i < 50; ++i) {
    F a = this->rnd();
    ASSERT_FALSE(a.is_zero());
    EXPECT_EQ(a * a.inverse(), F::one());
    F sq = a.square();
    auto r = sq.sqrt();
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(*r == a || *r == -a);
    EXPECT_EQ(sq.legendre(), 1);
  }
  EXPECT_TRUE(F::zero().inverse().is_zero());
}

TYPED_TEST(FieldLaws, NonResiduesHaveNoSquareRoot) {
  using F = TypeParam;
  F g = F::generator();
  EXPECT_EQ(g.legendre(), -1) << "the configured generator must be a quadratic non-residue";
  EXPECT_FALSE(g.sqrt().has_value());
  F a = this->rnd();
  EXPECT_FALSE((a.square() * g).sqrt().has_value());
}

TYPED_TEST(FieldLaws, EdgeValues) {
  using F = TypeParam;
  F pm1 = -F::one();
  EXPECT_EQ(pm1 + F::one(), F::zero());
  EXPECT_EQ(pm1 * pm1, F::one());
  EXPECT_EQ(F::zero() * this->rnd(), F::zero());
  // p - 1 in decimal round-trips; p itself is refused as non-canonical.
  std::string dec = pm1.to_dec();
  EXPECT_EQ(F::from_dec(dec), pm1);
  auto p = F::modulus();
  EXPECT_FALSE(F::from_canonical(p).has_value());
  EXPECT_FALSE(F::parse_dec(to_decimal(p)).has_value());
  EXPECT_FALSE(F::parse_dec("12a").has_value());
  EXPECT_FALSE(F::parse_dec("").has_value());
  EXPECT_THROW(F::from_dec("-1"), std::invalid_argument);
}

TYPED_TEST(FieldLaws, BytesRoundTripAndRejectNonCanonical) {
  using F = TypeParam;
  F a = this->rnd();
  uint8_t le[F::kBytes], be[F::kBytes];
  a.to_bytes_le(le);
  a.to_bytes_be(be);
  EXPECT_EQ(*F::from_bytes_le(le), a);
  EXPECT_EQ(*F::from_bytes_be(be), a);
  for (size_t i = 0; i < F::kBytes; ++i) EXPECT_EQ(le[i], be[F::kBytes - 1 - i]);
  a.to_mont_bytes_le(le);
  EXPECT_EQ(*F::from_mont_bytes_le(le), a);
  std::fill(le, le + F::kBytes, 0xff);
  EXPECT_FALSE(F::from_bytes_le(le).has_value());
  EXPECT_FALSE(F::from_mont_bytes_le(le).has_value());
}

TYPED_TEST(FieldLaws, RootsOfUnityHaveExactOrder) {
  using F = TypeParam;
  for (size_t k : {size_t(1), size_t(2), size_t(5), F::kTwoAdicity}) {
    if (k > F::kTwoAdicity) continue;
    F w = F::root_of_unity(k);
    F x = w;
    for (size_t i = 1; i < k; ++i) x = x.square();
    EXPECT_EQ(x, -F::one()) << "w^(2^(k-1)) must be -1 for k=" << k;
    EXPECT_EQ(x.square(), F::one());
  }
  EXPECT_THROW(F::root_of_unity(F::kTwoAdicity + 1), std::invalid_argument);
}

TEST(FieldConstants, PublishedParameters) {
  EXPECT_EQ(Bn254Fr::kTwoAdicity, 28u);
  EXPECT_EQ(Bls12381Fr::kTwoAdicity, 32u);
  EXPECT_EQ(Bn254Fq::kBits, 254u);
  EXPECT_EQ(Bls12381Fq::kBits, 381u);
  EXPECT_EQ(Bls12381Fr::kBits, 255u);
  EXPECT_EQ(to_decimal(Bn254Fr::modulus()),
            "21888242871839275222246405745257275088548364400416034343698204186575808495617");
  EXPECT_EQ(to_decimal(Bn254Fq::modulus()),
            "21888242871839275222246405745257275088696311157297823662689037894645226208583");
  EXPECT_EQ(to_decimal(Bls12381Fr::modulus()),
            "52435875175126190479447740508185965837690552500527637822603658699938581184513");
  // Montgomery constants: R^2 * R^-1 = R, i.e. from_canonical(1) is R mod p.
  EXPECT_EQ(Bn254Fr::from_u64(1), Bn254Fr::one());
  EXPECT_EQ(Bls12381Fq::from_u64(7) * Bls12381Fq::from_u64(6), Bls12381Fq::from_u64(42));
  EXPECT_EQ(Bn254Fq::from_i64(-5) + Bn254Fq::from_u64(5), Bn254Fq::zero());
}

}  // namespace zkmill::test
