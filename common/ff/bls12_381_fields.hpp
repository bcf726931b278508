// SPDX-License-Identifier: MIT
// The two prime fields of BLS12-381 (Bowe, "BLS12-381: New zk-SNARK Elliptic Curve
// Construction", 2017) with x = -0xd201000000010000:
//   q = (x - 1)^2 (x^4 - x^2 + 1) / 3 + x,  r = x^4 - x^2 + 1.
#pragma once

#include "common/ff/mont_field.hpp"

namespace zkmill::ff {

struct Bls12381FqParams {
  static constexpr size_t kLimbs = 6;
  static constexpr const char* kName = "bls12-381 Fq";
  static constexpr const char* kModulusHex =
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
  static constexpr uint64_t kGenerator = 2;  // generates Fq^*
};

struct Bls12381FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr const char* kName = "bls12-381 Fr";
  static constexpr const char* kModulusHex = "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
  static constexpr uint64_t kGenerator = 7;  // generates Fr^*; two-adicity 32
};

using Bls12381Fq = Fp<Bls12381FqParams>;
using Bls12381Fr = Fp<Bls12381FrParams>;

}  // namespace zkmill::ff
