// SPDX-License-Identifier: MIT
// G1 point arithmetic for the GPU's MSM buckets (host-callable too): affine inputs and XYZZ
// ("extended Jacobian") accumulators on y^2 = x^3 + b, generic over the Fp32 base field.
//
// XYZZ represents (x, y) = (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2 (Bernstein-Lange, Explicit-Formulas
// Database, g1p/auto-shortw-xyzz). It is the usual choice for Pippenger buckets because a mixed
// addition costs 8M + 2S (madd-2008-s) against 7M + 4S in Jacobian, and with no Z*Z products
// to recompute the formulas stay short, which matters for register pressure on the GPU.
// Formulas used, all for a = 0:
//   madd-2008-s  (XYZZ += affine)     add-2008-s (XYZZ += XYZZ)
//   mdbl-2008-s-1 (2 * affine)        dbl-2008-s-1 (2 * XYZZ)
// The exceptional cases these formulas leave undefined (an operand at infinity, P == Q, P == -Q)
// are handled explicitly, so buckets stay correct with repeated or opposite points.
//
// Conventions: the point at infinity is ZZ == ZZZ == 0 in XYZZ and x == y == 0 in affine
// ((0, 0) is on neither curve since b != 0).
#pragma once

#include "cuda/ff/mont32.hpp"

namespace zkmill::cuda::curve {

template <class F>
struct AffinePt {
  F x, y;

  ZK_HD static AffinePt infinity() { return {F::zero(), F::zero()}; }
  ZK_HD bool is_infinity() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct Xyzz {
  F X, Y, ZZ, ZZZ;

  ZK_HD static Xyzz infinity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  ZK_HD bool is_infinity() const { return ZZ.is_zero(); }
  ZK_HD static Xyzz from_affine(const F& x, const F& y) { return {x, y, F::one(), F::one()}; }

  // mdbl-2008-s-1: 2 * (x, y) for an affine point. U = 2y, V = U^2, W = U V, S = x V,
  // M = 3 x^2, X3 = M^2 - 2S, Y3 = M (S - X3) - W y, ZZ3 = V, ZZZ3 = W.
  ZK_HD static Xyzz dbl_affine(const F& x, const F& y) {
    const F u = y.dbl();
    const F v = u.sqr();
    const F w = u * v;
    const F s = x * v;
    const F x2 = x.sqr();
    const F m = x2.dbl() + x2;
    Xyzz r;
    r.X = m.sqr() - s.dbl();
    r.Y = m * (s - r.X) - w * y;
    r.ZZ = v;
    r.ZZZ = w;
    return r;
  }

  // dbl-2008-s-1 (a = 0): as above with ZZ3 = V ZZ1, ZZZ3 = W ZZZ1. Infinity doubles to itself
  // (ZZ stays 0); a point with y = 0 does not occur in prime-order subgroups of odd order.
  ZK_HD Xyzz dbl() const {
    const F u = Y.dbl();
    const F v = u.sqr();
    const F w = u * v;
    const F s = X * v;
    const F x2 = X.sqr();
    const F m = x2.dbl() + x2;
    Xyzz r;
    r.X = m.sqr() - s.dbl();
    r.Y = m * (s - r.X) - w * Y;
    r.ZZ = v * ZZ;
    r.ZZZ = w * ZZZ;
    return r;
  }

  // madd-2008-s: *this += (x2, y2), the affine point not at infinity.
  ZK_HD void add_affine(const F& x2, const F& y2) {
    if (is_infinity()) {
      *this = from_affine(x2, y2);
      return;
    }
    const F u2 = x2 * ZZ;
    const F s2 = y2 * ZZZ;
    const F p = u2 - X;
    const F r = s2 - Y;
    if (p.is_zero()) {
      // Same x: either the same point (double it) or its negative (the sum is infinity).
      *this = r.is_zero() ? dbl_affine(x2, y2) : infinity();
      return;
    }
    const F pp = p.sqr();
    const F ppp = p * pp;
    const F q = X * pp;
    const F x3 = r.sqr() - ppp - q.dbl();
    Y = r * (q - x3) - Y * ppp;
    X = x3;
    ZZ = ZZ * pp;
    ZZZ = ZZZ * ppp;
  }

  // add-2008-s: *this += o.
  ZK_HD void add(const Xyzz& o) {
    if (o.is_infinity()) return;
    if (is_infinity()) {
      *this = o;
      return;
    }
    const F u1 = X * o.ZZ;
    const F u2 = o.X * ZZ;
    const F s1 = Y * o.ZZZ;
    const F s2 = o.Y * ZZZ;
    const F p = u2 - u1;
    const F r = s2 - s1;
    if (p.is_zero()) {
      *this = r.is_zero() ? dbl() : infinity();
      return;
    }
    const F pp = p.sqr();
    const F ppp = p * pp;
    const F q = u1 * pp;
    const F x3 = r.sqr() - ppp - q.dbl();
    Y = r * (q - x3) - s1 * ppp;
    X = x3;
    ZZ = ZZ * o.ZZ * pp;
    ZZZ = ZZZ * o.ZZZ * ppp;
  }
};

}  // namespace zkmill::cuda::curve
