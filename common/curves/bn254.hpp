// SPDX-License-Identifier: MIT
// BN254 (alt_bn128; snarkjs "bn128"): the curve as a traits struct of constants.
// E1: y^2 = x^3 + 3 over Fq (cofactor 1); E2: the sextic D-twist y^2 = x^3 + 3/(9+u)
// over Fq2. Generators as in EIP-196/197.
#pragma once

#include "common/ec/short_weierstrass.hpp"
#include "common/ff/bn254_fields.hpp"
#include "common/tower/fp2.hpp"
#include "common/util/curve_id.hpp"

namespace zkmill::curves {

struct Bn254G1Params {
  using Base = ff::Bn254Fq;
  using Scalar = ff::Bn254Fr;
  static constexpr const char* kName = "bn254 G1";
  static constexpr bool kCofactorOne = true;
  static Base b() { return Base::from_u64(3); }
  static ec::Affine<Bn254G1Params> generator() {
    return ec::Affine<Bn254G1Params>::from_xy(Base::from_u64(1), Base::from_u64(2));
  }
};

struct Bn254G2Params {
  using Base = tower::Fp2<ff::Bn254Fq>;
  using Scalar = ff::Bn254Fr;
  static constexpr const char* kName = "bn254 G2";
  static constexpr bool kCofactorOne = false;
  // The twist's non-residue xi = 9 + u; b' = 3 / xi.
  static Base xi() { return {ff::Bn254Fq::from_u64(9), ff::Bn254Fq::one()}; }
  static Base b() {
    static const Base v = Base{ff::Bn254Fq::from_u64(3), ff::Bn254Fq::zero()} * xi().inverse();
    return v;
  }
  static ec::Affine<Bn254G2Params> generator() {
    using F = ff::Bn254Fq;
    static const auto g = ec::Affine<Bn254G2Params>::from_xy(
        {F::from_dec("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
         F::from_dec("11559732032986387107991004021392285783925812861821192530917403151452391805634")},
        {F::from_dec("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
         F::from_dec("4082367875863433681332203403145435568316851327593401208105741076214120093531")});
    return g;
  }
};

struct Bn254 {
  static constexpr CurveId kId = CurveId::Bn254;
  static constexpr const char* kName = "bn254";
  using Fq = ff::Bn254Fq;
  using Fr = ff::Bn254Fr;
  using Fq2 = tower::Fp2<Fq>;
  using G1Params = Bn254G1Params;
  using G2Params = Bn254G2Params;
  using G1 = ec::Jacobian<G1Params>;
  using G2 = ec::Jacobian<G2Params>;
  using G1Affine = ec::Affine<G1Params>;
  using G2Affine = ec::Affine<G2Params>;
};

}  // namespace zkmill::curves
