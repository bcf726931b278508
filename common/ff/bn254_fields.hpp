// SPDX-License-Identifier: MIT
// The two prime fields of BN254 (alt_bn128, "bn128" in snarkjs): the base field Fq and the
// scalar field Fr. Values from EIP-196 / the curve's definition with u = 4965661367192848881:
//   q = 36u^4 + 36u^3 + 24u^2 + 6u + 1,  r = 36u^4 + 36u^3 + 18u^2 + 6u + 1.
#pragma once

#include "common/ff/mont_field.hpp"

namespace zkmill::ff {

struct Bn254FqParams {
  static constexpr size_t kLimbs = 4;
  static constexpr const char* kName = "bn254 Fq";
  static constexpr const char* kModulusHex = "0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47";
  static constexpr uint64_t kGenerator = 3;  // smallest quadratic non-residue, generates Fq^*
};

struct Bn254FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr const char* kName = "bn254 Fr";
  static constexpr const char* kModulusHex = "0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001";
  static constexpr uint64_t kGenerator = 5;  // generates Fr^*; two-adicity 28
};

using Bn254Fq = Fp<Bn254FqParams>;
using Bn254Fr = Fp<Bn254FrParams>;

}  // namespace zkmill::ff
