// SPDX-License-Identifier: MIT
// Quadratic extension Fp12 = Fp6[w] / (w^2 - v), generic over a tower params struct T; the
// pairing target group GT lives in its cyclotomic subgroup. Elements are c0 + c1 w, c_i in Fp6.
// Coefficient order (the one the test vectors and serialisation use, identical to @noble/curves):
//   c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c0.c2.c1, c1.c0.c0, ..., c1.c2.c1
// i.e. the value sum_{i,j,l} c_i.c_j.c_l * w^i v^j u^l with v = w^2, v^3 = xi, u^2 = -1.
// Formulas: Karatsuba multiplication and complex squaring (Devegili et al., eprint 2006/471);
// cyclotomic squaring of Granger and Scott, "Faster squaring in the cyclotomic subgroup of
// sixth degree extensions" (PKC 2010, eprint 2009/565); sparse products with the line functions
// of Aranha, Karabina, Longa, Gebotys, Lopez, "Faster explicit formulas for computing pairings
// over ordinary curves" (Eurocrypt 2011, eprint 2010/526).
#pragma once

#include <cstddef>
#include <span>

#include "common/tower/fp6.hpp"

namespace zkmill::tower {

namespace detail {

// Width-w non-adjacent form of k (least significant digit first): odd digits in
// (-2^(w-1), 2^(w-1)), each followed by at least w-1 zeros.
struct WNaf {
  int8_t d[72] = {};
  size_t n = 0;
  unsigned w = 2;
  size_t nonzero = 0;
};
constexpr WNaf wnaf(uint64_t e, unsigned w) {
  WNaf r;
  r.w = w;
  ff::u128 k = e;
  const int64_t full = int64_t(1) << w, half = full / 2;
  while (k) {
    int64_t z = 0;
    if (k & 1) {
      z = int64_t(k & ff::u128(full - 1));
      if (z >= half) z -= full;
      k = z >= 0 ? k - ff::u128(z) : k + ff::u128(-z);
      ++r.nonzero;
    }
    r.d[r.n++] = int8_t(z);
    k >>= 1;
  }
  return r;
}
// The window minimising multiplications: (nonzero - 1) in the loop plus 2^(w-2) - 1 to
// precompute the odd powers (the extra squaring for x^2 counted as one more).
constexpr WNaf best_wnaf(uint64_t e) {
  WNaf best = wnaf(e, 2);
  size_t best_cost = best.nonzero - 1;
  for (unsigned w = 3; w <= 5; ++w) {
    WNaf c = wnaf(e, w);
    size_t cost = c.nonzero - 1 + (size_t(1) << (w - 2));
    if (cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace detail

template <class T>
struct Fp12 {
  using Params = T;
  using Fp2 = typename T::Fp2;
  using Fp6 = tower::Fp6<T>;
  using Base = typename T::Base;
  Fp6 c0, c1;  // c0 + c1 w

  static Fp12 zero() { return {Fp6::zero(), Fp6::zero()}; }
  static Fp12 one() { return {Fp6::one(), Fp6::zero()}; }
  template <class Rng>
  static Fp12 random(Rng& rng) {
    return {Fp6::random(rng), Fp6::random(rng)};
  }

  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend bool operator==(const Fp12& a, const Fp12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend bool operator!=(const Fp12& a, const Fp12& b) { return !(a == b); }

  friend Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp12 operator-() const { return {-c0, -c1}; }
  Fp12 dbl() const { return {c0.dbl(), c1.dbl()}; }
  Fp12& operator+=(const Fp12& b) { return *this = *this + b; }
  Fp12& operator-=(const Fp12& b) { return *this = *this - b; }
  Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  // Karatsuba over w^2 = v: c0 = a0 b0 + v a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1.
  friend Fp12 operator*(const Fp12& a, const Fp12& b) {
    Fp6 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 + t1.mul_by_v(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }

  // Complex squaring: with t = a0 a1, c0 = (a0 + a1)(a0 + v a1) - t - v t, c1 = 2t.
  Fp12 square() const {
    Fp6 t = c0 * c1;
    Fp6 s = (c0 + c1) * (c0 + c1.mul_by_v());
    return {s - t - t.mul_by_v(), t.dbl()};
  }

  // x^(p^6) = c0 - c1 w (w^(p^6) = -w since w is not in Fp6); on the cyclotomic subgroup,
  // where every pairing value lives after the easy part, this is the inverse.
  Fp12 conjugate() const { return {c0, -c1}; }

  // (a0 + a1 w)^-1 = (a0 - a1 w) / (a0^2 - v a1^2). Zero maps to zero.
  Fp12 inverse() const {
    Fp6 n = (c0.square() - c1.square().mul_by_v()).inverse();
    return {c0 * n, -(c1 * n)};
  }

  // x -> x^(p^k) for any k: Fp6 Frobenius on both halves, and w^(p^k) = w xi^((p^k - 1)/6),
  // the constant computed at start-up in T::frobenius_tables(). Order 12 on Fp12.
  Fp12 frobenius_map(unsigned k) const {
    k %= 12;
    if (k == 0) return *this;
    if (k == 6) return conjugate();
    return {c0.frobenius_map(k), c1.frobenius_map(k).mul_by_fp2(T::frobenius_tables().frob12_w[k])};
  }

  // Sparse product with a line of a D-type twist (BN254): the line has non-zero coefficients
  // only at 1, w and w^3, i.e. at slots 0, 3, 4 of the 0..5 list (c0.c0, c0.c1, c0.c2, c1.c0,
  // c1.c1, c1.c2). So b = b0 + (b3 + b4 v) w with b0, b3, b4 in Fp2; Karatsuba over w:
  //   a0 b0 (3 mults), a1 (b3 + b4 v) (5), (a0 + a1)((b0 + b3) + b4 v) (5): 13 Fp2 mults.
  Fp12 mul_by_034(const Fp2& b0, const Fp2& b3, const Fp2& b4) const {
    Fp6 t0 = c0.mul_by_fp2(b0);
    Fp6 t1 = c1.mul_by_01(b3, b4);
    Fp6 s = (c0 + c1).mul_by_01(b0 + b3, b4);
    return {t0 + t1.mul_by_v(), s - t0 - t1};
  }

  // Sparse product with a line of an M-type twist (BLS12-381), scaled by w^3 so that its
  // non-zero coefficients sit at 1, v = w^2 and v w = w^3: slots 0, 1, 4.
  // b = (b0 + b1 v) + (b4 v) w; Karatsuba over w: 5 + 3 + 5 = 13 Fp2 mults.
  Fp12 mul_by_014(const Fp2& b0, const Fp2& b1, const Fp2& b4) const {
    Fp6 t0 = c0.mul_by_01(b0, b1);
    Fp6 t1 = c1.mul_by_1(b4);
    Fp6 s = (c0 + c1).mul_by_01(b0, b1 + b4);
    return {t0 + t1.mul_by_v(), s - t0 - t1};
  }

  // Granger-Scott cyclotomic squaring. With s = w^3 (s^2 = xi), Fp4 = Fp2[s] and
  //   x = A0 + A1 w + A2 w^2,  A0 = c0.c0 + c1.c1 s,  A1 = c1.c0 + c0.c2 s,  A2 = c0.c1 + c1.c2 s,
  // an element of the cyclotomic subgroup (x^(p^4 - p^2 + 1) = 1, so conj(x) = x^-1) squares as
  //   x^2 = (3 A0^2 - 2 conj(A0)) + (3 s A2^2 + 2 conj(A1)) w + (3 A1^2 - 2 conj(A2)) w^2,
  // with conj(a + b s) = a - b s. Three Fp4 squarings = 9 Fp2 squarings (vs 12 mults generic).
  // Only valid on the cyclotomic subgroup (after the easy part of the final exponentiation).
  Fp12 cyclotomic_square() const {
    auto fp4_square = [](const Fp2& a, const Fp2& b, Fp2& re, Fp2& im) {
      // (a + b s)^2 = (a^2 + xi b^2) + ((a + b)^2 - a^2 - b^2) s
      Fp2 a2 = a.square(), b2 = b.square();
      re = a2 + T::mul_by_xi(b2);
      im = (a + b).square() - a2 - b2;
    };
    Fp2 t0, t1, t2, t3, t4, t5;
    fp4_square(c0.c0, c1.c1, t0, t1);                                                     // A0^2
    fp4_square(c1.c0, c0.c2, t2, t3);                                                     // A1^2
    fp4_square(c0.c1, c1.c2, t4, t5);                                                     // A2^2
    Fp2 t5xi = T::mul_by_xi(t5);                                                          // s A2^2 = xi t5 + t4 s
    auto three_minus_two = [](const Fp2& t, const Fp2& z) { return (t - z).dbl() + t; };  // 3t - 2z
    auto three_plus_two = [](const Fp2& t, const Fp2& z) { return (t + z).dbl() + t; };   // 3t + 2z
    Fp12 r;
    r.c0.c0 = three_minus_two(t0, c0.c0);   // 3 A0^2 - 2 conj(A0), 1-part
    r.c1.c1 = three_plus_two(t1, c1.c1);    //                      s-part
    r.c1.c0 = three_plus_two(t5xi, c1.c0);  // 3 s A2^2 + 2 conj(A1), 1-part
    r.c0.c2 = three_minus_two(t4, c0.c2);   //                        s-part
    r.c0.c1 = three_minus_two(t2, c0.c1);   // 3 A1^2 - 2 conj(A2), 1-part
    r.c1.c2 = three_plus_two(t3, c1.c2);    //                      s-part
    return r;
  }

  // x^e on the cyclotomic subgroup for a 64-bit e, by signed-binary (NAF) digits: the
  // inverse is the free conjugate there, so digit -1 costs what +1 does.
  Fp12 cyclotomic_pow(uint64_t e) const {
    if (e == 0) return one();
    // NAF digits, least significant first (at most 65 for a 64-bit e).
    int8_t naf[66];
    size_t n = 0;
    ff::u128 k = e;
    while (k) {
      int8_t d = 0;
      if (k & 1) {
        d = (k & 3) == 3 ? -1 : 1;
        k = d == 1 ? k - 1 : k + 1;
      }
      naf[n++] = d;
      k >>= 1;
    }
    Fp12 inv = conjugate();
    Fp12 r = naf[n - 1] > 0 ? *this : inv;
    for (size_t i = n - 1; i-- > 0;) {
      r = r.cyclotomic_square();
      if (naf[i] > 0) r *= *this;
      if (naf[i] < 0) r *= inv;
    }
    return r;
  }

  // x^E on the cyclotomic subgroup for a compile-time E (the curve parameter in the final
  // exponentiation), by width-w NAF with the odd powers x, x^3, ..., x^(2^(w-1) - 1)
  // precomputed; w is picked at compile time to minimise multiplications (w = 4 for the
  // dense BN254 u: 16 products instead of 23 with plain NAF; w = 2, plain NAF, for the sparse
  // BLS12-381 |x|). Negative digits use conjugates, free on this subgroup.
  template <uint64_t E>
  Fp12 cyclotomic_pow_fixed() const {
    if constexpr (E == 0) {
      return one();
    } else {
      constexpr detail::WNaf W = detail::best_wnaf(E);
      constexpr size_t kOdd = size_t(1) << (W.w - 2);
      Fp12 odd[kOdd];
      odd[0] = *this;
      if constexpr (kOdd > 1) {
        Fp12 x2 = cyclotomic_square();
        for (size_t i = 1; i < kOdd; ++i) odd[i] = odd[i - 1] * x2;
      }
      Fp12 r = odd[W.d[W.n - 1] / 2];  // the top digit is positive
      for (size_t i = W.n - 1; i-- > 0;) {
        r = r.cyclotomic_square();
        int d = W.d[i];
        if (d > 0) r *= odd[d / 2];
        if (d < 0) r *= odd[-d / 2].conjugate();
      }
      return r;
    }
  }

  // Square-and-multiply by a little-endian limb exponent (variable time; tests and public
  // exponents only; generic, valid on all of Fp12).
  Fp12 pow(std::span<const uint64_t> e) const {
    Fp12 r = one();
    for (size_t i = 64 * e.size(); i-- > 0;) {
      r = r.square();
      if ((e[i / 64] >> (i % 64)) & 1) r *= *this;
    }
    return r;
  }
  template <size_t M>
  Fp12 pow(const ff::Limbs<M>& e) const {
    return pow(std::span<const uint64_t>(e.data(), M));
  }

  // The 12 Fq coefficients in the documented order (c0.c0.c0 first), and back.
  static Fp12 from_coefficients(std::span<const Base, 12> a) {
    Fp12 r;
    size_t i = 0;
    for (Fp6* h : {&r.c0, &r.c1})
      for (Fp2* q : {&h->c0, &h->c1, &h->c2}) {
        q->c0 = a[i++];
        q->c1 = a[i++];
      }
    return r;
  }
  template <class F>
  void for_each_coefficient(F&& f) const {
    for (const Fp6* h : {&c0, &c1})
      for (const Fp2* q : {&h->c0, &h->c1, &h->c2}) {
        f(q->c0);
        f(q->c1);
      }
  }
};

}  // namespace zkmill::tower
