// SPDX-License-Identifier: MIT
// Extended Jacobian "XYZZ" point coordinates for y^2 = x^3 + b: the MSM's bucket representation.
// Formulas: Explicit-Formulas Database (Bernstein-Lange),
// g1p/auto/shortw/xyzz, due to Sutherland 2008: add-2008-s, madd-2008-s, dbl-2008-s-1,
// mdbl-2008-s-1 (https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html).
//
// A point is (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ and ZZ^3 = ZZZ^2 (that is, ZZ = Z^2,
// ZZZ = Z^3 for some Z != 0). ZZ = 0 encodes the identity (canonically X = Y = 1, ZZ = ZZZ = 0).
// Keeping Z^2 and Z^3 separately makes the mixed addition 8M + 2S (Jacobian madd-2007-bl:
// 7M + 4S, but with several extra additions) and the full addition 12M + 2S, which is why
// Pippenger buckets live here. All EFD formulas are incomplete; the special cases P = Q
// (fall back to doubling), P = -Q (identity) and identity inputs are dispatched explicitly.
#pragma once

#include "common/ec/short_weierstrass.hpp"

namespace zkmill::ec {

template <class C>
struct XYZZ {
  using Base = typename C::Base;
  using AffineT = Affine<C>;
  using JacobianT = Jacobian<C>;

  Base X = Base::one(), Y = Base::one(), ZZ = Base::zero(), ZZZ = Base::zero();

  static XYZZ identity() { return {}; }
  bool is_identity() const { return ZZ.is_zero(); }

  static XYZZ from_affine(const AffineT& p) {
    if (p.infinity) return identity();
    return {p.x, p.y, Base::one(), Base::one()};
  }
  // (X, Y, Z) Jacobian, x = X/Z^2, y = Y/Z^3  ->  (X, Y, Z^2, Z^3).
  static XYZZ from_jacobian(const JacobianT& p) {
    if (p.is_identity()) return identity();
    Base zz = p.Z.square();
    return {p.X, p.Y, zz, zz * p.Z};
  }

  // To Jacobian without an inversion: Z' = ZZ*ZZZ, X' = X*ZZ*ZZZ^2, Y' = Y*ZZ^3*ZZZ^2, since
  // X'/Z'^2 = X/ZZ and Y'/Z'^3 = Y/ZZZ (this does not even rely on ZZ^3 = ZZZ^2).
  JacobianT to_jacobian() const {
    if (is_identity()) return JacobianT::identity();
    JacobianT r;
    r.Z = ZZ * ZZZ;
    Base t = r.Z * ZZZ;  // ZZ * ZZZ^2
    r.X = X * t;
    r.Y = Y * t * ZZ.square();
    return r;
  }
  // One inversion: i = 1/(ZZ*ZZZ), then 1/ZZ = i*ZZZ and 1/ZZZ = i*ZZ.
  AffineT to_affine() const {
    if (is_identity()) return AffineT::identity();
    Base i = (ZZ * ZZZ).inverse();
    return AffineT::from_xy(X * (i * ZZZ), Y * (i * ZZ));
  }

  // Y^2 ZZ^3 = X^3 ZZZ^2 + b ZZ^3 ZZZ^2 (the curve equation scaled by ZZ^3 ZZZ^2), plus the
  // coordinate invariant ZZ^3 = ZZZ^2.
  bool is_on_curve() const {
    if (is_identity()) return true;
    Base zz3 = ZZ.square() * ZZ, zzz2 = ZZZ.square();
    return zz3 == zzz2 && Y.square() * zz3 == (X.square() * X + C::b() * zz3) * zzz2;
  }

  // Same projective class: X1 ZZ2 = X2 ZZ1 and Y1 ZZZ2 = Y2 ZZZ1.
  friend bool operator==(const XYZZ& p, const XYZZ& q) {
    if (p.is_identity() || q.is_identity()) return p.is_identity() == q.is_identity();
    return p.X * q.ZZ == q.X * p.ZZ && p.Y * q.ZZZ == q.Y * p.ZZZ;
  }
  friend bool operator!=(const XYZZ& p, const XYZZ& q) { return !(p == q); }
  XYZZ operator-() const { return {X, -Y, ZZ, ZZZ}; }

  // dbl-2008-s-1 with a = 0: U = 2Y, V = U^2, W = U V, S = X V, M = 3 X^2,
  // X3 = M^2 - 2S, Y3 = M (S - X3) - W Y, ZZ3 = V ZZ, ZZZ3 = W ZZZ.  6M + 3S.
  // A 2-torsion point (Y = 0) gives V = 0, hence ZZ3 = 0: the identity, as it should.
  XYZZ dbl() const {
    if (is_identity()) return *this;
    Base U = Y.dbl(), V = U.square(), W = U * V, S = X * V;
    Base x2 = X.square(), M = x2.dbl() + x2;
    XYZZ r;
    r.X = M.square() - S.dbl();
    r.Y = M * (S - r.X) - W * Y;
    r.ZZ = V * ZZ;
    r.ZZZ = W * ZZZ;
    return r;
  }

  // mdbl-2008-s-1 (input with ZZ = ZZZ = 1): as dbl-2008-s-1 with ZZ3 = V, ZZZ3 = W.  4M + 3S.
  // neg doubles -q instead (y -> -y flips U and W, so only the sign of Y3 and ZZZ3 changes).
  static XYZZ dbl_affine(const AffineT& q, bool neg = false) {
    if (q.infinity) return identity();
    Base y = neg ? -q.y : q.y;
    Base U = y.dbl(), V = U.square(), W = U * V, S = q.x * V;
    Base x2 = q.x.square(), M = x2.dbl() + x2;
    XYZZ r;
    r.X = M.square() - S.dbl();
    r.Y = M * (S - r.X) - W * y;
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }

  // madd-2008-s, in place: this += q (or this -= q when neg). With q = (x2, y2):
  // U2 = x2 ZZ1, S2 = y2 ZZZ1, P = U2 - X1, R = S2 - Y1, PP = P^2, PPP = P PP, Q = X1 PP,
  // X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.  8M + 2S.
  // P = 0 means equal x: R = 0 is the doubling case, otherwise q = -this and the sum is O.
  XYZZ& add_mixed(const AffineT& q, bool neg = false) {
    if (q.infinity) return *this;
    if (is_identity()) {
      *this = from_affine(q);
      if (neg) Y = -Y;
      return *this;
    }
    Base U2 = q.x * ZZ, S2 = q.y * ZZZ;
    Base P = U2 - X;
    Base R = neg ? -(S2 + Y) : S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero()) return *this = dbl_affine(q, neg);
      return *this = identity();
    }
    Base PP = P.square(), PPP = P * PP, Q = X * PP;
    X = R.square() - PPP - Q.dbl();
    Y = R * (Q - X) - Y * PPP;
    ZZ *= PP;
    ZZZ *= PPP;
    return *this;
  }
  XYZZ& operator+=(const AffineT& q) { return add_mixed(q, false); }
  XYZZ& operator-=(const AffineT& q) { return add_mixed(q, true); }

  // add-2008-s: U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1,
  // PP = P^2, PPP = P PP, Q = U1 PP, X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP,
  // ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP.  12M + 2S.
  XYZZ& operator+=(const XYZZ& q) {
    if (q.is_identity()) return *this;
    if (is_identity()) return *this = q;
    Base U1 = X * q.ZZ, U2 = q.X * ZZ, S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
    Base P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero()) return *this = dbl();
      return *this = identity();
    }
    Base PP = P.square(), PPP = P * PP, Q = U1 * PP;
    X = R.square() - PPP - Q.dbl();
    Y = R * (Q - X) - S1 * PPP;
    ZZ = ZZ * q.ZZ * PP;
    ZZZ = ZZZ * q.ZZZ * PPP;
    return *this;
  }
  friend XYZZ operator+(XYZZ p, const XYZZ& q) { return p += q; }
  friend XYZZ operator+(XYZZ p, const AffineT& q) { return p += q; }
  friend XYZZ operator-(XYZZ p, const XYZZ& q) { return p += -q; }
};

}  // namespace zkmill::ec
