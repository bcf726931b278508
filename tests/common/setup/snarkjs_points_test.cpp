// SPDX-License-Identifier: MIT
// setup/snarkjs_points.hpp: WasmF1m (wasmcurves' F1m on raw words) agrees with the field on
// canonical inputs and wraps as wasmcurves does on words >= q; ffjs_sub_affine is the group
// difference for valid points and differs from the mod-q difference for raw words where a wrap
// occurs (the zkey new circuit-hash case).
#include "common/setup/snarkjs_points.hpp"

#include <gtest/gtest.h>

#include <random>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"

using namespace zkmill;

namespace {

template <class E>
class SnarkjsPoints : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0x5eed'0fe5};
};
using Curves = ::testing::Types<curves::Bn254, curves::Bls12381>;
TYPED_TEST_SUITE(SnarkjsPoints, Curves);

TYPED_TEST(SnarkjsPoints, WasmF1mIsTheFieldOnCanonicalWords) {
  using G1 = typename TypeParam::G1Params;
  using Fq = typename G1::Base;
  using F = setup::WasmF1m<Fq>;
  for (int k = 0; k < 200; ++k) {
    const Fq a = Fq::random(this->rng), b = Fq::random(this->rng);
    EXPECT_EQ(F::reduce(F::mul(a.v, b.v)), a * b);
    EXPECT_EQ(F::reduce(F::add(a.v, b.v)), a + b);
    EXPECT_EQ(F::reduce(F::sub(a.v, b.v)), a - b);
  }
}

TYPED_TEST(SnarkjsPoints, WasmF1mWrapsOnWordsAboveQ) {
  using G1 = typename TypeParam::G1Params;
  using Fq = typename G1::Base;
  using F = setup::WasmF1m<Fq>;
  typename F::L all{}, q1 = F::q(), zero{};
  all.fill(~uint64_t(0));  // 2^(64N) - 1
  q1[0] += 1;              // q + 1
  // 0 - (2^(64N) - 1): borrow, 1 + q wraps to q + 1, which is 1 mod q, not -(2^(64N) - 1) mod q.
  EXPECT_EQ(F::sub(zero, all), q1);
  EXPECT_NE(F::reduce(F::sub(zero, all)), Fq::zero() - F::reduce(all));
  // (2^(64N) - 1) + (2^(64N) - 1): carry, minus q mod 2^(64N).
  typename F::L expect{};
  F::sub_raw(expect, all, F::q());
  F::add_raw(expect, expect, all);
  EXPECT_EQ(F::add(all, all), expect);
  // mul stays congruent on any words.
  EXPECT_EQ(F::reduce(F::mul(all, all)), F::reduce(all) * F::reduce(all));
}

TYPED_TEST(SnarkjsPoints, SubAffineOfValidPointsIsTheGroupDifference) {
  using G1 = typename TypeParam::G1Params;
  using J = ec::Jacobian<G1>;
  using Lem = serde::snarkjs::Lem<G1>;
  using Fr = typename TypeParam::Fr;
  for (int k = 0; k < 20; ++k) {
    const auto p = (J::generator() * Fr::random(this->rng)).to_affine();
    const auto q = (J::generator() * Fr::random(this->rng)).to_affine();
    uint8_t bp[Lem::kSize], bq[Lem::kSize], bz[Lem::kSize] = {};
    Lem::encode(p, bp);
    Lem::encode(q, bq);
    EXPECT_EQ(setup::ffjs_sub_affine<G1>(bp, bq).to_affine(), (J::from_affine(p) - J::from_affine(q)).to_affine());
    EXPECT_EQ(setup::ffjs_sub_affine<G1>(bp, bp).to_affine(), ec::Affine<G1>::identity());
    EXPECT_EQ(setup::ffjs_sub_affine<G1>(bz, bq).to_affine(), (-q));
    EXPECT_EQ(setup::ffjs_sub_affine<G1>(bp, bz).to_affine(), p);
  }
}

}  // namespace
