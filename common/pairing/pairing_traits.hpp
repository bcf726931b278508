// SPDX-License-Identifier: MIT
// Curve-specific half of the optimal ate pairing: Miller loop length and signs, twist type,
// and the hard part of the final exponentiation, for BN254 and BLS12-381 (engine.hpp is the
// generic half). Everything here is derived from the curve parameter (u or x) at compile time.
//
// Which power of the reduced pairing GT values are. The reduced Tate/ate exponent is
// (p^12 - 1)/r = (p^6 - 1)(p^2 + 1) * (p^4 - p^2 + 1)/r. The x-based chains below raise the
// "hard" factor (p^4 - p^2 + 1)/r to a fixed multiple k of it, k coprime to r, so the result
// is e(P, Q)^k: still a non-degenerate bilinear pairing, and exactly the value that snarkjs
// (ffjavascript/wasmcurves) and @noble/curves output, which is what matters for the
// vk_alphabeta_12 field of snarkjs verification keys and for our cross-check vectors:
//   BN254:     k = 2u(6u^2 + 3u + 1)  (Fuentes-Castaneda, Knapp, Rodriguez-Henriquez,
//              "Faster hashing to G2", SAC 2011, section 6 / eprint 2011/297)
//   BLS12-381: k = 3                  (3(p^4 - p^2 + 1)/r = (x-1)^2 (x+p)(x^2+p^2-1) + 3;
//              Hayashida, Hayasaka, Teruya, eprint 2020/875, and the classic BLS12 chain)
// tests/common/pairing/ checks both identities against a plain square-and-multiply by
// k (p^12 - 1)/r, and the vectors against @noble/curves.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/tower/fp12.hpp"

namespace zkmill::pairing {

// Digits of the Miller loop scalar, most significant first, each in {-1, 0, 1}; d[0] = 1.
struct LoopDigits {
  std::array<int8_t, 80> d{};
  size_t n = 0;
};

// Non-adjacent form of k: fewest non-zero digits, hence fewest addition steps.
constexpr LoopDigits naf_digits(ff::u128 k) {
  int8_t lsb_first[80] = {};
  size_t n = 0;
  while (k) {
    int8_t z = 0;
    if (k & 1) {
      z = (k & 3) == 3 ? -1 : 1;
      k = z == 1 ? k - 1 : k + 1;
    }
    lsb_first[n++] = z;
    k >>= 1;
  }
  LoopDigits r;
  r.n = n;
  for (size_t i = 0; i < n; ++i) r.d[i] = lsb_first[n - 1 - i];
  return r;
}

// Plain binary digits of k (used where NAF saves nothing: |x| of BLS12-381 is already sparse).
constexpr LoopDigits binary_digits(ff::u128 k) {
  size_t n = 0;
  for (ff::u128 t = k; t; t >>= 1) ++n;
  LoopDigits r;
  r.n = n;
  for (size_t i = 0; i < n; ++i) r.d[i] = int8_t((k >> (n - 1 - i)) & 1);
  return r;
}

template <class Curve>
struct PairingTraits;

// BN254: optimal ate (Vercauteren, "Optimal pairings", IEEE TIT 2010) with loop 6u + 2 and two
// extra line steps through pi(Q) and -pi^2(Q); D-type sextic twist y^2 = x^3 + 3/xi.
template <>
struct PairingTraits<curves::Bn254> {
  using Tower = tower::Bn254Tower;
  using GT = tower::Fp12<Tower>;
  static constexpr uint64_t kU = 4965661367192848881ull;  // the BN parameter u (> 0)
  static constexpr bool kDTwist = true;
  static constexpr bool kLoopNegative = false;
  static constexpr bool kBnFrobeniusSteps = true;
  static constexpr LoopDigits kLoop = naf_digits(ff::u128(6) * kU + 2);

  // m^(l0 + l1 p + l2 p^2 + l3 p^3) for m in the cyclotomic subgroup, with (FKR 2011)
  //   l0 = 12u^3 + 12u^2 + 6u + 1,  l1 = 12u^3 + 6u^2 + 4u,
  //   l2 = 12u^3 + 6u^2 + 6u,       l3 = 12u^3 + 6u^2 + 4u - 1,
  // whose sum is 2u(6u^2 + 3u + 1)(p^4 - p^2 + 1)/r (an identity of integers). Built from
  // m^u, m^(u^2), m^(u^3) (three 63-bit cyclotomic exponentiations, width-4 NAF), then
  //   L = m^l1 = m^(12u^3) m^(6u^2) m^(4u),  K = m^l2 = L m^(2u),
  //   N = m^l0 = K m^(6u^2) m,  T = m^l3 = L conj(m),  result = N L^p K^(p^2) T^(p^3).
  static GT hard_part(const GT& m) {
    GT a = m.template cyclotomic_pow_fixed<kU>();  // m^u
    GT b = a.template cyclotomic_pow_fixed<kU>();  // m^(u^2)
    GT c = b.template cyclotomic_pow_fixed<kU>();  // m^(u^3)
    GT a2 = a.cyclotomic_square();
    GT a4 = a2.cyclotomic_square();
    GT b2 = b.cyclotomic_square();
    GT b6 = b2 * b2.cyclotomic_square();
    GT c4 = c.cyclotomic_square().cyclotomic_square();
    GT c12 = c4 * c4.cyclotomic_square();
    GT L = c12 * b6 * a4;
    GT K = L * a2;
    GT N = K * b6 * m;
    GT T = L * m.conjugate();
    return N * L.frobenius_map(1) * K.frobenius_map(2) * T.frobenius_map(3);
  }
};

// BLS12-381: optimal ate with loop |x| = 0xd201000000010000 and x < 0, so the Miller value is
// conjugated at the end (f_{-n} = 1/(f_n v_n), vertical lines die in the final exponentiation,
// and 1/f = conj(f) up to an Fp6 factor that dies too). M-type twist y^2 = x^3 + 4 xi.
template <>
struct PairingTraits<curves::Bls12381> {
  using Tower = tower::Bls12381Tower;
  using GT = tower::Fp12<Tower>;
  static constexpr uint64_t kXAbs = curves::Bls12381::kXAbs;
  static_assert(curves::Bls12381::kXNegative, "the chains below assume x < 0");
  static constexpr bool kDTwist = false;
  static constexpr bool kLoopNegative = true;
  static constexpr bool kBnFrobeniusSteps = false;
  static constexpr LoopDigits kLoop = binary_digits(kXAbs);

  // m^x for m in the cyclotomic subgroup: x = -|x| and m^-1 = conj(m).
  static GT pow_x(const GT& m) { return m.template cyclotomic_pow_fixed<kXAbs>().conjugate(); }

  // m^((x-1)^2 (x+p)(x^2+p^2-1) + 3) = m^(3 (p^4 - p^2 + 1)/r), five exponentiations by x:
  //   t0 = m^(x-1)^2 = ((m^x conj m)^x) conj(m^x conj m)
  //   t1 = t0^(x+p) = t0^x t0^p
  //   t2 = t1^(x^2+p^2-1) = (t1^x)^x t1^(p^2) conj(t1)
  //   result = t2 m^2 m.
  static GT hard_part(const GT& m) {
    GT t0 = pow_x(m) * m.conjugate();
    t0 = pow_x(t0) * t0.conjugate();
    GT t1 = pow_x(t0) * t0.frobenius_map(1);
    GT t2 = pow_x(pow_x(t1)) * t1.frobenius_map(2) * t1.conjugate();
    return t2 * m.cyclotomic_square() * m;
  }
};

}  // namespace zkmill::pairing
