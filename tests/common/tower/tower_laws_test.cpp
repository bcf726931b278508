// SPDX-License-Identifier: MIT
// Field laws of the Fp6 and Fp12 towers, their Frobenius maps, sparse and cyclotomic products
// (typed tests per curve tower, random elements from a fixed seed).
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/tower/fp12.hpp"

namespace zkmill::test {

using namespace zkmill;

template <class T>
struct TowerCase;
template <>
struct TowerCase<tower::Bn254Tower> {
  using Curve = curves::Bn254;
};
template <>
struct TowerCase<tower::Bls12381Tower> {
  using Curve = curves::Bls12381;
};

template <class T>
class TowerLaws : public ::testing::Test {
 protected:
  using Fq = typename T::Base;
  using Fp2 = typename T::Fp2;
  using Fp6 = tower::Fp6<T>;
  using Fp12 = tower::Fp12<T>;
  std::mt19937_64 rng{20240611};
  Fp2 r2() { return Fp2::random(rng); }
  Fp6 r6() { return Fp6::random(rng); }
  Fp12 r12() { return Fp12::random(rng); }
  // An element of the cyclotomic subgroup: x^((p^6 - 1)(p^2 + 1)).
  Fp12 cyclotomic() {
    Fp12 x = r12();
    Fp12 t = x.conjugate() * x.inverse();
    return t.frobenius_map(2) * t;
  }
};

using Towers = ::testing::Types<tower::Bn254Tower, tower::Bls12381Tower>;
TYPED_TEST_SUITE(TowerLaws, Towers);

TYPED_TEST(TowerLaws, XiMatchesTheCurveAndIsANonResidue) {
  using Fp2 = typename TestFixture::Fp2;
  using Curve = typename TowerCase<TypeParam>::Curve;
  EXPECT_EQ(TypeParam::xi(), Curve::G2Params::xi());
  for (int i = 0; i < 5; ++i) {
    Fp2 a = this->r2();
    EXPECT_EQ(TypeParam::mul_by_xi(a), a * TypeParam::xi());
  }
  // xi is neither a square nor a cube in Fp2: xi^((p^2-1)/2) != 1 and xi^((p^2-1)/3) != 1.
  auto e2 = tower::detail::frobenius_exponent<typename TypeParam::Base>(2, 2);
  auto e3 = tower::detail::frobenius_exponent<typename TypeParam::Base>(2, 3);
  EXPECT_FALSE(tower::detail::pow_big(TypeParam::xi(), e2).is_one());
  EXPECT_FALSE(tower::detail::pow_big(TypeParam::xi(), e3).is_one());
}

TYPED_TEST(TowerLaws, Fp6RingLaws) {
  using Fp6 = typename TestFixture::Fp6;
  for (int i = 0; i < 10; ++i) {
    Fp6 a = this->r6(), b = this->r6(), c = this->r6();
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a + b) - b, a);
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a * a.inverse(), Fp6::one());
    EXPECT_EQ(a * Fp6::one(), a);
    EXPECT_TRUE((a - a).is_zero());
    EXPECT_EQ(-a + a, Fp6::zero());
  }
  EXPECT_TRUE(Fp6::zero().inverse().is_zero());
}

TYPED_TEST(TowerLaws, Fp6SparseAndStructuredProducts) {
  using Fp2 = typename TestFixture::Fp2;
  using Fp6 = typename TestFixture::Fp6;
  Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
  EXPECT_EQ(v * v * v, (Fp6{TypeParam::xi(), Fp2::zero(), Fp2::zero()}));
  for (int i = 0; i < 10; ++i) {
    Fp6 a = this->r6();
    Fp2 b0 = this->r2(), b1 = this->r2();
    EXPECT_EQ(a.mul_by_v(), a * v);
    EXPECT_EQ(a.mul_by_01(b0, b1), a * Fp6({b0, b1, Fp2::zero()}));
    EXPECT_EQ(a.mul_by_1(b1), a * Fp6({Fp2::zero(), b1, Fp2::zero()}));
    EXPECT_EQ(a.mul_by_fp2(b0), a * Fp6({b0, Fp2::zero(), Fp2::zero()}));
  }
}

TYPED_TEST(TowerLaws, Fp12RingLaws) {
  using Fp12 = typename TestFixture::Fp12;
  for (int i = 0; i < 10; ++i) {
    Fp12 a = this->r12(), b = this->r12(), c = this->r12();
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a + b) * c, a * c + b * c);
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a * a.inverse(), Fp12::one());
    EXPECT_EQ((a * b).inverse(), a.inverse() * b.inverse());
    EXPECT_EQ(a - b + b, a);
  }
  EXPECT_TRUE(Fp12::zero().inverse().is_zero());
}

TYPED_TEST(TowerLaws, Fp12BasisAndSparseLineProducts) {
  using Fp2 = typename TestFixture::Fp2;
  using Fp6 = typename TestFixture::Fp6;
  using Fp12 = typename TestFixture::Fp12;
  const Fp2 o = Fp2::zero();
  // w^2 = v and w^6 = xi.
  Fp12 w{Fp6::zero(), Fp6::one()};
  Fp12 v{Fp6{o, Fp2::one(), o}, Fp6::zero()};
  EXPECT_EQ(w.square(), v);
  Fp12 w6 = w.square().square() * w.square();
  EXPECT_EQ(w6, (Fp12{Fp6{TypeParam::xi(), o, o}, Fp6::zero()}));
  for (int i = 0; i < 10; ++i) {
    Fp12 a = this->r12();
    Fp2 b0 = this->r2(), b1 = this->r2(), b3 = this->r2(), b4 = this->r2();
    EXPECT_EQ(a.mul_by_034(b0, b3, b4), a * Fp12({Fp6{b0, o, o}, Fp6{b3, b4, o}}));
    EXPECT_EQ(a.mul_by_014(b0, b1, b4), a * Fp12({Fp6{b0, b1, o}, Fp6{o, b4, o}}));
  }
}

TYPED_TEST(TowerLaws, CoefficientOrderRoundTrips) {
  using Fq = typename TestFixture::Fq;
  using Fp12 = typename TestFixture::Fp12;
  std::array<Fq, 12> c;
  for (size_t i = 0; i < 12; ++i) c[i] = Fq::from_u64(100 + i);
  Fp12 x = Fp12::from_coefficients(c);
  EXPECT_EQ(x.c0.c1.c0, Fq::from_u64(102));
  EXPECT_EQ(x.c1.c0.c1, Fq::from_u64(107));
  EXPECT_EQ(x.c1.c2.c1, Fq::from_u64(111));
  size_t i = 0;
  x.for_each_coefficient([&](const Fq& f) { EXPECT_EQ(f, c[i++]); });
  EXPECT_EQ(i, 12u);
}

TYPED_TEST(TowerLaws, FrobeniusIsThePPowerMap) {
  using Fq = typename TestFixture::Fq;
  using Fp6 = typename TestFixture::Fp6;
  using Fp12 = typename TestFixture::Fp12;
  const auto& p = Fq::modulus();
  for (int i = 0; i < 2; ++i) {
    Fp6 a = this->r6();
    EXPECT_EQ(a.frobenius_map(1), a.pow(p));
    Fp12 x = this->r12();
    Fp12 xp = x.pow(p);
    EXPECT_EQ(x.frobenius_map(1), xp);
    EXPECT_EQ(x.frobenius_map(2), xp.pow(p));
  }
}

TYPED_TEST(TowerLaws, FrobeniusPowersComposeAndHaveOrderTwelve) {
  using Fp6 = typename TestFixture::Fp6;
  using Fp12 = typename TestFixture::Fp12;
  for (int i = 0; i < 3; ++i) {
    Fp12 x = this->r12();
    Fp12 y = x;
    for (unsigned k = 1; k <= 12; ++k) {
      y = y.frobenius_map(1);
      EXPECT_EQ(y, x.frobenius_map(k)) << "k = " << k;
      if (k < 12) {
        EXPECT_NE(y, x) << "k = " << k;
      }
    }
    EXPECT_EQ(y, x);
    EXPECT_EQ(x.frobenius_map(6), x.conjugate());
    EXPECT_EQ(x.frobenius_map(3).frobenius_map(3), x.frobenius_map(6));
    Fp6 a = this->r6();
    Fp6 b = a;
    for (unsigned k = 1; k <= 6; ++k) {
      b = b.frobenius_map(1);
      EXPECT_EQ(b, a.frobenius_map(k));
    }
    EXPECT_EQ(b, a);
  }
}

TYPED_TEST(TowerLaws, FrobeniusIsARingHomomorphism) {
  using Fp12 = typename TestFixture::Fp12;
  for (int i = 0; i < 5; ++i) {
    Fp12 a = this->r12(), b = this->r12();
    for (unsigned k : {1u, 2u, 3u, 5u, 7u}) {
      EXPECT_EQ((a * b).frobenius_map(k), a.frobenius_map(k) * b.frobenius_map(k));
      EXPECT_EQ((a + b).frobenius_map(k), a.frobenius_map(k) + b.frobenius_map(k));
      EXPECT_EQ(a.inverse().frobenius_map(k), a.frobenius_map(k).inverse());
    }
  }
  EXPECT_EQ(Fp12::one().frobenius_map(1), Fp12::one());
}

TYPED_TEST(TowerLaws, FrobeniusConstantsMatchTheirDefinition) {
  using Fp2 = typename TestFixture::Fp2;
  const auto& t = TypeParam::frobenius_tables();
  const Fp2 xi = TypeParam::xi();
  for (unsigned k = 1; k < 12; ++k) {
    // (xi^((p^k-1)/6))^6 = xi^(p^k - 1) = frob^k(xi) / xi
    Fp2 w6 = t.frob12_w[k].square().square() * t.frob12_w[k].square();
    Fp2 xik = (k & 1) ? xi.conjugate() : xi;
    EXPECT_EQ(w6 * xi, xik) << "k = " << k;
    if (k < 6) {
      EXPECT_EQ(t.frob6_v[k], t.frob12_w[k].square());
      EXPECT_EQ(t.frob6_v2[k], t.frob6_v[k].square());
    }
  }
  // w^(p^6) = -w: xi^((p^6-1)/6) = -1.
  EXPECT_EQ(t.frob12_w[6], -Fp2::one());
}

static_assert(tower::detail::best_wnaf(4965661367192848881ull).w == 4);
static_assert(tower::detail::best_wnaf(0xd201000000010000ull).w == 2);

TYPED_TEST(TowerLaws, CyclotomicSquaringAndPowers) {
  using Fp12 = typename TestFixture::Fp12;
  for (int i = 0; i < 5; ++i) {
    Fp12 m = this->cyclotomic();
    // In the cyclotomic subgroup: m^(p^4 - p^2 + 1) = 1, so conj(m) = m^(p^6) = m^-1.
    EXPECT_EQ(m.conjugate() * m, Fp12::one());
    EXPECT_EQ(m.frobenius_map(4) * m.frobenius_map(2).conjugate() * m, Fp12::one());
    EXPECT_EQ(m.cyclotomic_square(), m.square());
    for (uint64_t e : {1ull, 2ull, 3ull, 7ull, 0xd201000000010000ull, 4965661367192848881ull, ~0ull}) {
      EXPECT_EQ(m.cyclotomic_pow(e), m.pow(ff::Limbs<1>{e})) << e;
    }
    EXPECT_TRUE(m.cyclotomic_pow(0).is_one());
    // Compile-time exponents by width-w NAF (w = 4 for u, 2 for |x|, 5 for all-ones).
    EXPECT_EQ(m.template cyclotomic_pow_fixed<4965661367192848881ull>(), m.cyclotomic_pow(4965661367192848881ull));
    EXPECT_EQ(m.template cyclotomic_pow_fixed<0xd201000000010000ull>(), m.cyclotomic_pow(0xd201000000010000ull));
    EXPECT_EQ(m.template cyclotomic_pow_fixed<~0ull>(), m.cyclotomic_pow(~0ull));
    EXPECT_EQ(m.template cyclotomic_pow_fixed<0x9d5a3c7e1b2f4861ull>(), m.cyclotomic_pow(0x9d5a3c7e1b2f4861ull));
    EXPECT_EQ(m.template cyclotomic_pow_fixed<1>(), m);
    EXPECT_TRUE(m.template cyclotomic_pow_fixed<0>().is_one());
  }
}

}  // namespace zkmill::test
