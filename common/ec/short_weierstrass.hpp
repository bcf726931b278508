// SPDX-License-Identifier: MIT
// Short Weierstrass curves y^2 = x^3 + b (a = 0, true for G1 and G2 of both curves),
// generic over the coordinate field (Fq or Fq2). A curve is a params struct C giving
//   using Base (coordinate field), using Scalar (the group-order field Fr),
//   static Base b(), static Affine<C> generator(), static const char* name,
//   static constexpr bool kCofactorOne (true when every curve point is in the group).
// Formulas from the Explicit-Formulas Database (Bernstein-Lange): dbl-2009-l,
// add-2007-bl, madd-2007-bl, for Jacobian coordinates (x, y) = (X/Z^2, Y/Z^3).
#pragma once

#include <span>
#include <vector>

#include "common/ff/mont_field.hpp"

namespace zkmill::ec {

template <class C>
struct Affine {
  using Base = typename C::Base;
  Base x, y;
  bool infinity = true;

  static Affine identity() { return {}; }
  static Affine from_xy(const Base& x, const Base& y) { return {x, y, false}; }
  bool is_identity() const { return infinity; }
  bool is_on_curve() const { return infinity || y.square() == x.square() * x + C::b(); }
  Affine operator-() const { return infinity ? *this : Affine{x, -y, false}; }
  friend bool operator==(const Affine& a, const Affine& b) {
    if (a.infinity || b.infinity) return a.infinity == b.infinity;
    return a.x == b.x && a.y == b.y;
  }
  friend bool operator!=(const Affine& a, const Affine& b) { return !(a == b); }
};

template <class C>
struct Jacobian {
  using Base = typename C::Base;
  using Scalar = typename C::Scalar;
  using AffineT = Affine<C>;
  Base X = Base::zero(), Y = Base::one(), Z = Base::zero();

  static Jacobian identity() { return {}; }
  static Jacobian generator() { return from_affine(C::generator()); }
  static Jacobian from_affine(const AffineT& p) {
    if (p.infinity) return identity();
    return {p.x, p.y, Base::one()};
  }
  bool is_identity() const { return Z.is_zero(); }

  AffineT to_affine() const {
    if (is_identity()) return AffineT::identity();
    Base zi = Z.inverse(), zi2 = zi.square();
    return AffineT::from_xy(X * zi2, Y * zi2 * zi);
  }

  // Y^2 = X^3 + b Z^6.
  bool is_on_curve() const {
    if (is_identity()) return true;
    Base z2 = Z.square(), z6 = z2.square() * z2;
    return Y.square() == X.square() * X + C::b() * z6;
  }

  // Equality of projective classes: X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3.
  friend bool operator==(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity() || q.is_identity()) return p.is_identity() == q.is_identity();
    Base z1 = p.Z.square(), z2 = q.Z.square();
    return p.X * z2 == q.X * z1 && p.Y * z2 * q.Z == q.Y * z1 * p.Z;
  }
  friend bool operator!=(const Jacobian& p, const Jacobian& q) { return !(p == q); }
  Jacobian operator-() const { return {X, -Y, Z}; }

  // dbl-2009-l: 2M + 5S.
  Jacobian dbl() const {
    if (is_identity()) return *this;
    Base A = X.square(), B = Y.square(), Cc = B.square();
    Base D = ((X + B).square() - A - Cc).dbl();
    Base E = A.dbl() + A, F = E.square();
    Jacobian r;
    r.X = F - D.dbl();
    r.Y = E * (D - r.X) - Cc.dbl().dbl().dbl();
    r.Z = (Y * Z).dbl();
    return r;
  }

  // add-2007-bl: 11M + 5S; falls back to doubling when the points are equal.
  friend Jacobian operator+(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity()) return q;
    if (q.is_identity()) return p;
    Base z1z1 = p.Z.square(), z2z2 = q.Z.square();
    Base u1 = p.X * z2z2, u2 = q.X * z1z1;
    Base s1 = p.Y * q.Z * z2z2, s2 = q.Y * p.Z * z1z1;
    Base h = u2 - u1, rr = (s2 - s1).dbl();
    if (h.is_zero()) return rr.is_zero() ? p.dbl() : identity();
    Base i = h.dbl().square(), j = h * i, v = u1 * i;
    Jacobian r;
    r.X = rr.square() - j - v.dbl();
    r.Y = rr * (v - r.X) - (s1 * j).dbl();
    r.Z = ((p.Z + q.Z).square() - z1z1 - z2z2) * h;
    return r;
  }

  // madd-2007-bl (q has Z = 1): 7M + 4S.
  Jacobian add_mixed(const AffineT& q) const {
    if (q.infinity) return *this;
    if (is_identity()) return from_affine(q);
    Base z1z1 = Z.square();
    Base u2 = q.x * z1z1, s2 = q.y * Z * z1z1;
    Base h = u2 - X, rr = (s2 - Y).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : identity();
    Base hh = h.square(), i = hh.dbl().dbl(), j = h * i, v = X * i;
    Jacobian r;
    r.X = rr.square() - j - v.dbl();
    r.Y = rr * (v - r.X) - (Y * j).dbl();
    r.Z = (Z + h).square() - z1z1 - hh;
    return r;
  }

  Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }
  friend Jacobian operator-(const Jacobian& p, const Jacobian& q) { return p + (-q); }

  // Double-and-add over a little-endian limb integer (not constant time: used on public
  // data, setup and tests; secret scalars in the prover go through the MSM).
  template <size_t M>
  Jacobian mul_limbs(const ff::Limbs<M>& k) const {
    Jacobian r = identity();
    for (size_t i = ff::num_bits(k); i-- > 0;) {
      r = r.dbl();
      if (ff::bit(k, i)) r += *this;
    }
    return r;
  }
  Jacobian operator*(const Scalar& s) const { return mul_limbs(s.to_canonical()); }

  // [r]P = O, with r the group order (the scalar field's modulus).
  bool is_in_subgroup_naive() const { return mul_limbs(Scalar::modulus()).is_identity(); }
};

// Montgomery's trick: all points to affine with one field inversion.
template <class C>
std::vector<Affine<C>> batch_normalize(std::span<const Jacobian<C>> pts) {
  using Base = typename C::Base;
  std::vector<Base> zs(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) zs[i] = pts[i].Z;
  ff::batch_inverse(zs.data(), zs.size());
  std::vector<Affine<C>> out(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].is_identity()) continue;
    Base zi2 = zs[i].square();
    out[i] = Affine<C>::from_xy(pts[i].X * zi2, pts[i].Y * zi2 * zs[i]);
  }
  return out;
}

}  // namespace zkmill::ec
