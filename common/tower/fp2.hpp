// SPDX-License-Identifier: MIT
// Quadratic extension Fp2 = Fp[u] / (u^2 + 1). Both BN254 and BLS12-381 build their tower
// on u^2 = -1 (p = 3 mod 4 makes -1 a non-residue), so the non-residue is fixed here.
// Same interface as ff::Fp so curve code is generic over the coordinate field.
#pragma once

#include <optional>
#include <random>

#include "common/ff/mont_field.hpp"

namespace zkmill::tower {

template <class Fq>
struct Fp2 {
  using Base = Fq;
  Fq c0, c1;  // c0 + c1*u

  static Fp2 zero() { return {Fq::zero(), Fq::zero()}; }
  static Fp2 one() { return {Fq::one(), Fq::zero()}; }
  template <class Rng>
  static Fp2 random(Rng& rng) {
    return {Fq::random(rng), Fq::random(rng)};
  }

  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }

  friend Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp2 operator-() const { return {-c0, -c1}; }
  // Karatsuba: 3 base multiplications.
  friend Fp2 operator*(const Fp2& a, const Fp2& b) {
    Fq v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
  Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  Fp2 mul_base(const Fq& s) const { return {c0 * s, c1 * s}; }

  // Complex squaring: (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u.
  Fp2 square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  Fp2 conjugate() const { return {c0, -c1}; }
  // The p-power Frobenius on Fp2 is conjugation (u^p = -u for p = 3 mod 4).
  Fp2 frobenius() const { return conjugate(); }
  Fq norm() const { return c0.square() + c1.square(); }
  // 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2); zero maps to zero.
  Fp2 inverse() const {
    Fq n = norm().inverse();
    return {c0 * n, -(c1 * n)};
  }

  template <size_t M>
  Fp2 pow(const ff::Limbs<M>& e) const {
    Fp2 r = one();
    for (size_t i = ff::num_bits(e); i-- > 0;) {
      r = r.square();
      if (ff::bit(e, i)) r *= *this;
    }
    return r;
  }

  // A square root via the norm: if a = x^2 then N(a) = N(x)^2, so with n = sqrt(N(a)),
  // x0^2 = (c0 ± n)/2 for the sign that gives a square, and x1 = c1 / (2 x0).
  // Returns nullopt when a is not a square. (Either root may be returned.)
  std::optional<Fp2> sqrt() const {
    if (is_zero()) return zero();
    Fq two_inv = Fq::from_u64(2).inverse();
    if (c1.is_zero()) {
      if (auto r = c0.sqrt()) return Fp2{*r, Fq::zero()};
      if (auto r = (-c0).sqrt()) return Fp2{Fq::zero(), *r};
      return std::nullopt;
    }
    auto n = norm().sqrt();
    if (!n) return std::nullopt;
    auto x0 = ((c0 + *n) * two_inv).sqrt();
    if (!x0) x0 = ((c0 - *n) * two_inv).sqrt();
    if (!x0 || x0->is_zero()) return std::nullopt;
    Fp2 x{*x0, c1 * (x0->dbl()).inverse()};
    if (x.square() != *this) return std::nullopt;
    return x;
  }

  // Lexicographic "sign" used by the zcash/IETF encodings: compares c1 first, then c0,
  // against (p-1)/2 (true = the larger of the pair {y, -y}).
  bool lexicographically_largest() const {
    auto big = [](const Fq& x) { return ff::cmp(x.to_canonical(), Fq::C::half_p_minus_1) > 0; };
    if (!c1.is_zero()) return big(c1);
    return big(c0);
  }
};

}  // namespace zkmill::tower
