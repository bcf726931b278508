// SPDX-License-Identifier: MIT
// BLS12-381 (Bowe 2017; Filecoin's and zcash's curve; snarkjs "bls12381") as a traits
// struct. E1: y^2 = x^3 + 4 over Fq; E2: the M-twist y^2 = x^3 + 4(1 + u) over Fq2.
// Both groups have cofactors, so subgroup membership must be checked on decode.
#pragma once

#include "common/ec/short_weierstrass.hpp"
#include "common/ff/bls12_381_fields.hpp"
#include "common/tower/fp2.hpp"
#include "common/util/curve_id.hpp"

namespace zkmill::curves {

struct Bls12381G1Params {
  using Base = ff::Bls12381Fq;
  using Scalar = ff::Bls12381Fr;
  static constexpr const char* kName = "bls12-381 G1";
  static constexpr bool kCofactorOne = false;
  static Base b() { return Base::from_u64(4); }
  static ec::Affine<Bls12381G1Params> generator() {
    static const auto g = ec::Affine<Bls12381G1Params>::from_xy(
        Base::from_canonical_unchecked(ff::from_hex<6>(
            "0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")),
        Base::from_canonical_unchecked(ff::from_hex<6>(
            "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")));
    return g;
  }
};

struct Bls12381G2Params {
  using Base = tower::Fp2<ff::Bls12381Fq>;
  using Scalar = ff::Bls12381Fr;
  static constexpr const char* kName = "bls12-381 G2";
  static constexpr bool kCofactorOne = false;
  // The twist's non-residue xi = 1 + u; b' = 4 xi.
  static Base xi() { return {ff::Bls12381Fq::one(), ff::Bls12381Fq::one()}; }
  static Base b() { return {ff::Bls12381Fq::from_u64(4), ff::Bls12381Fq::from_u64(4)}; }
  static ec::Affine<Bls12381G2Params> generator() {
    using F = ff::Bls12381Fq;
    auto h = [](const char* s) { return F::from_canonical_unchecked(ff::from_hex<6>(s)); };
    static const auto g = ec::Affine<Bls12381G2Params>::from_xy(
        {h("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
         h("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
        {h("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
         h("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")});
    return g;
  }
};

struct Bls12381 {
  static constexpr CurveId kId = CurveId::Bls12_381;
  static constexpr const char* kName = "bls12-381";
  using Fq = ff::Bls12381Fq;
  using Fr = ff::Bls12381Fr;
  using Fq2 = tower::Fp2<Fq>;
  using G1Params = Bls12381G1Params;
  using G2Params = Bls12381G2Params;
  using G1 = ec::Jacobian<G1Params>;
  using G2 = ec::Jacobian<G2Params>;
  using G1Affine = ec::Affine<G1Params>;
  using G2Affine = ec::Affine<G2Params>;
  // The BLS parameter x = -0xd201000000010000 (|x| and its sign), used by the pairing.
  static constexpr uint64_t kXAbs = 0xd201000000010000ull;
  static constexpr bool kXNegative = true;
};

}  // namespace zkmill::curves
