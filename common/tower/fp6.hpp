// SPDX-License-Identifier: MIT
// Cubic extension Fp6 = Fp2[v] / (v^3 - xi), generic over a tower params struct T
// (see tower_params.hpp). Elements are c0 + c1 v + c2 v^2 with c_i in Fp2.
// Formulas: Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and squaring on
// pairing-friendly fields" (eprint 2006/471): Karatsuba multiplication (6 Fp2 mults) and
// Chung-Hasan SQR2 squaring (2 mults + 3 squarings); inversion as in Scott,
// "Implementing cryptographic pairings" (2007), section 3.2.
#pragma once

#include <cstddef>
#include <span>

#include "common/tower/tower_params.hpp"

namespace zkmill::tower {

template <class T>
struct Fp6 {
  using Params = T;
  using Fp2 = typename T::Fp2;
  using Base = typename T::Base;
  Fp2 c0, c1, c2;  // c0 + c1 v + c2 v^2

  static Fp6 zero() { return {Fp2::zero(), Fp2::zero(), Fp2::zero()}; }
  static Fp6 one() { return {Fp2::one(), Fp2::zero(), Fp2::zero()}; }
  template <class Rng>
  static Fp6 random(Rng& rng) {
    return {Fp2::random(rng), Fp2::random(rng), Fp2::random(rng)};
  }

  bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
  friend bool operator==(const Fp6& a, const Fp6& b) { return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2; }
  friend bool operator!=(const Fp6& a, const Fp6& b) { return !(a == b); }

  friend Fp6 operator+(const Fp6& a, const Fp6& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend Fp6 operator-(const Fp6& a, const Fp6& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  Fp6 operator-() const { return {-c0, -c1, -c2}; }
  Fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  Fp6& operator-=(const Fp6& b) { return *this = *this - b; }
  Fp6& operator*=(const Fp6& b) { return *this = *this * b; }

  // Karatsuba over v^3 = xi: with t_i = a_i b_i,
  //   c0 = t0 + xi((a1 + a2)(b1 + b2) - t1 - t2)
  //   c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2
  //   c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1.
  friend Fp6 operator*(const Fp6& a, const Fp6& b) {
    Fp2 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1, t2 = a.c2 * b.c2;
    return {t0 + T::mul_by_xi((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2),
            (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + T::mul_by_xi(t2), (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1};
  }

  // Chung-Hasan SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2;
  //   c0 = s0 + xi s3,  c1 = s1 + xi s4,  c2 = s1 + s2 + s3 - s0 - s4.
  Fp6 square() const {
    Fp2 s0 = c0.square(), s1 = (c0 * c1).dbl(), s2 = (c0 - c1 + c2).square();
    Fp2 s3 = (c1 * c2).dbl(), s4 = c2.square();
    return {s0 + T::mul_by_xi(s3), s1 + T::mul_by_xi(s4), s1 + s2 + s3 - s0 - s4};
  }

  // a * v = xi a2 + a0 v + a1 v^2 (the Fp12 layer multiplies by v, its quadratic non-residue).
  Fp6 mul_by_v() const { return {T::mul_by_xi(c2), c0, c1}; }
  Fp6 mul_by_fp2(const Fp2& s) const { return {c0 * s, c1 * s, c2 * s}; }
  Fp6 mul_by_base(const Base& s) const { return {c0.mul_base(s), c1.mul_base(s), c2.mul_base(s)}; }

  // Sparse a * (b0 + b1 v), 5 Fp2 mults (Karatsuba with b2 = 0):
  //   c0 = t0 + xi((a1 + a2) b1 - t1),  c1 = (a0 + a1)(b0 + b1) - t0 - t1,  c2 = (a0 + a2) b0 - t0 + t1.
  Fp6 mul_by_01(const Fp2& b0, const Fp2& b1) const {
    Fp2 t0 = c0 * b0, t1 = c1 * b1;
    return {t0 + T::mul_by_xi((c1 + c2) * b1 - t1), (c0 + c1) * (b0 + b1) - t0 - t1, (c0 + c2) * b0 - t0 + t1};
  }
  // Sparse a * (b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2, 3 Fp2 mults.
  Fp6 mul_by_1(const Fp2& b1) const { return {T::mul_by_xi(c2 * b1), c0 * b1, c1 * b1}; }

  // With A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1, C = a1^2 - a0 a2 (the adjugate row),
  // a * (A + B v + C v^2) = a0 A + xi(a2 B + a1 C) =: N in Fp2, so a^-1 = (A + B v + C v^2) / N.
  // Zero maps to zero.
  Fp6 inverse() const {
    Fp2 A = c0.square() - T::mul_by_xi(c1 * c2);
    Fp2 B = T::mul_by_xi(c2.square()) - c0 * c1;
    Fp2 C = c1.square() - c0 * c2;
    Fp2 n = (c0 * A + T::mul_by_xi(c2 * B + c1 * C)).inverse();
    return {A * n, B * n, C * n};
  }

  // x -> x^(p^k): each Fp2 coefficient goes through its own Frobenius (conjugation for odd k),
  // and v^(p^k) = v xi^((p^k - 1)/3), (v^2)^(p^k) = v^2 xi^(2(p^k - 1)/3) (constants computed at
  // start-up in T::frobenius_tables()). Any k >= 0; the map has order 6 on Fp6.
  Fp6 frobenius_map(unsigned k) const {
    k %= 6;
    if (k == 0) return *this;
    const auto& tab = T::frobenius_tables();
    Fp2 a0 = c0, a1 = c1, a2 = c2;
    if (k & 1) {
      a0 = a0.conjugate();
      a1 = a1.conjugate();
      a2 = a2.conjugate();
    }
    return {a0, a1 * tab.frob6_v[k], a2 * tab.frob6_v2[k]};
  }

  // Square-and-multiply by a little-endian limb exponent (variable time; public exponents).
  Fp6 pow(std::span<const uint64_t> e) const {
    Fp6 r = one();
    for (size_t i = 64 * e.size(); i-- > 0;) {
      r = r.square();
      if ((e[i / 64] >> (i % 64)) & 1) r *= *this;
    }
    return r;
  }
  template <size_t M>
  Fp6 pow(const ff::Limbs<M>& e) const {
    return pow(std::span<const uint64_t>(e.data(), M));
  }
};

}  // namespace zkmill::tower
