// SPDX-License-Identifier: MIT
// The quadratic extension Fp2 = Fp[u] / (u^2 + 1) over the GPU's 32-bit-limb Fp32 (host-callable
// too): the coordinate field of G2 on BN254 and BLS12-381, both of which take u^2 = -1 (p = 3 mod
// 4 makes -1 a non-residue), exactly as the CPU's tower::Fp2 (common/tower/fp2.hpp). An element
// c0 + c1 u is stored as two Fp32, so its bytes equal the CPU Fq2's (static_asserted in
// cuda/ec/device_group.hpp against the real CPU type) and G2 points move with plain copies too.
//
// Costs, in base-field multiplications (the only expensive operation):
//   mul: Karatsuba, 3:  v0 = a0 b0, v1 = a1 b1, c0 = v0 - v1, c1 = (a0 + a1)(b0 + b1) - v0 - v1,
//        with lazy reduction (Aranha et al., EUROCRYPT 2011): the three products are kept as
//        double-width integers and only c0 and c1 are Montgomery-reduced, 2 reductions instead
//        of 3 (for N = 8 limbs 3 x 64 + 2 x 72 = 336 lo/hi IMAD pairs instead of 3 x 136 = 408)
//   sqr: complex squaring, 2: c0 = (a0 + a1)(a0 - a1), c1 = 2 a0 a1
// Results are fully reduced because every Fp32 operation returns values below p.
#pragma once

#include <cstdint>

#include "common/tower/fp2.hpp"
#include "cuda/ff/mont32.hpp"

namespace zkmill::cuda::field {

template <class F>
struct Fp2 {
  using Base = F;
  using Host = ::zkmill::tower::Fp2<typename F::Host>;
  static constexpr int kWords = 2 * F::kWords;  // 32-bit words of the whole element

  F c0, c1;  // c0 + c1 u

  ZK_HD static Fp2 zero() { return {F::zero(), F::zero()}; }
  ZK_HD static Fp2 one() { return {F::one(), F::zero()}; }
  ZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  ZK_HD friend bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  ZK_HD friend bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }

  ZK_HD friend Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  ZK_HD friend Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  ZK_HD Fp2 operator-() const { return {-c0, -c1}; }
  ZK_HD Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }

  // Karatsuba with lazy reduction (see the header comment): 3 wide products, 2 reductions.
  // Bounds, with a_i, b_i < p and R = 2^(32N) > 2p (Fp32's static_assert on p's top limb):
  //   v0, v1 < p^2; t = v0 + v1 < 2p^2 < R^2 (2N words);
  //   c0: v0 - v1 (+ p^2 when negative) < p^2 < p R;
  //   a0 + a1, b0 + b1 < 2p < R (N words, unreduced); s = (a0 + a1)(b0 + b1) < 4p^2 < R^2;
  //   c1: s - t = a0 b1 + a1 b0, in [0, 2p^2) and 2p^2 < p R.
  // redc_wide needs T < p R and returns a fully reduced value, so both halves equal the
  // three-Montgomery-product Karatsuba's. Order: v0 and v1 die (into d and t) before s is
  // formed, so at most three wide values (v0, v1, d while the two chains run; then t and s) are
  // live at once besides the inputs, not four.
  ZK_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) {
    static_assert(2 * F::kBits < 2 * 32 * F::N, "p^2 must fit 2N words");
    uint32_t v0[F::kWide], v1[F::kWide], t[F::kWide], d[F::kWide];
    F::mul_wide(v0, a.c0.v, b.c0.v);
    F::mul_wide(v1, a.c1.v, b.c1.v);
    F::sub_wide_mod_p2(d, v0, v1);
    add_words<F::kWide>(t, v0, v1);
    Fp2 r;
    F::redc_wide(r.c0.v, d);
    uint32_t sa[F::N], sb[F::N], s[F::kWide];
    add_words<F::N>(sa, a.c0.v, a.c1.v);  // < 2p: unreduced
    add_words<F::N>(sb, b.c0.v, b.c1.v);
    F::mul_wide(s, sa, sb);
    sub_words<F::kWide, false>(s, s, t);  // s >= t
    F::redc_wide(r.c1.v, s);
    return r;
  }
  ZK_HD Fp2 sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  ZK_HD Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  ZK_HD Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  ZK_HD Fp2& operator*=(const Fp2& b) { return *this = *this * b; }

  // 1 / (c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2); zero maps to zero. Setup work only (one
  // base-field Fermat inversion). The norm is two wide squares reduced once: c0^2 + c1^2 <
  // 2p^2 < p R (2N words), redc_wide's bound.
  ZK_HD Fp2 inverse() const {
    uint32_t s0[F::kWide], s1[F::kWide];
    F::sqr_wide(s0, c0.v);
    F::sqr_wide(s1, c1.v);
    add_words<F::kWide>(s0, s0, s1);
    F norm;
    F::redc_wide(norm.v, s0);
    const F n = norm.inverse();
    return {c0 * n, -(c1 * n)};
  }

  // From kWords little-endian words laid out as the CPU stores the element (c0, then c1).
  ZK_HD static Fp2 from_words(const uint32_t* w) { return {F::from_words(w), F::from_words(w + F::kWords)}; }

  static Fp2 from_host(const Host& x) { return {F::from_host(x.c0), F::from_host(x.c1)}; }
  Host to_host() const { return {c0.to_host(), c1.to_host()}; }
};

}  // namespace zkmill::cuda::field
