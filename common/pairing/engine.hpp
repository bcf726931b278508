// SPDX-License-Identifier: MIT
// The optimal ate pairing e: G1 x G2 -> GT (a subgroup of Fp12^*), one generic engine driven by
// PairingTraits<Curve> (pairing_traits.hpp) for BN254 and BLS12-381:
//   Engine<curves::Bn254>, Engine<curves::Bls12381>  (aliases Bn254Pairing, Bls12381Pairing).
//
// Miller loop: Q stays on the twist E'(Fp2) in homogeneous projective coordinates (X : Y : Z),
// x = X/Z, y = Y/Z, and every doubling/addition step emits the line through T (and Q) as
// three Fp2 coefficients (cy, cx, c), independent of P. The line value at P = (xP, yP) is
//   D-twist (BN254, psi(x, y) = (x w^2, y w^3)):      cy yP + (cx xP) w + c w^3
//   M-twist (BLS12-381, psi(x, y) = (x/w^2, y/w^3)):  (c + (cx xP) v) + (cy yP) v w   (times w^3)
// i.e. a sparse Fp12 element multiplied in by mul_by_034 / mul_by_014. Dropped factors (2YZ,
// -1, w^3) lie in proper subfields and vanish in the final exponentiation.
// Step formulas (Costello, Lange, Naehrig, "Faster pairing computations on curves with
// high-degree twists", PKC 2010; Aranha, Karabina, Longa, Gebotys, Lopez, eprint 2010/526,
// section 4), with b' the twist's coefficient:
//   doubling:  B = Y^2, C = Z^2, E = 3b'C, F = 3E, H = (Y+Z)^2 - B - C;
//              (X, Y, Z) <- (2XY(B - F), (B + F)^2 - 12E^2, 4BH)   [ALGLL's point times 4]
//              line (cy, cx, c) = (-H, 3X^2, E - B)
//   addition of an affine Q = (xQ, yQ):  t = Y - yQ Z, l = X - xQ Z, C = t^2, D = l^2,
//              E = l D, F = Z C, G = X D, H = E + F - 2G;
//              (X, Y, Z) <- (l H, t(G - H) - Y E, Z E);  line = (l, -t, t xQ - l yQ).
// Because the lines do not depend on P, G2 points can be prepared once (PreparedG2): Groth16
// verification reuses the fixed vk points [gamma]2, [delta]2 (and [beta]2).
//
// Final exponentiation: f^((p^6 - 1)(p^2 + 1)) (easy part: conj(f)/f, then m^(p^2) m), then the
// curve's hard part. GT values equal e(P, Q)^k for the fixed k documented in
// pairing_traits.hpp, matching snarkjs and @noble/curves bit for bit.
//
// Inputs are trusted to lie in G1 and G2 (subgroup checks belong to the decoders); a pair with
// the point at infinity on either side contributes 1.
#pragma once

#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/pairing/pairing_traits.hpp"

namespace zkmill::pairing {

template <class Curve>
struct Engine {
  using Traits = PairingTraits<Curve>;
  using Tower = typename Traits::Tower;
  using Fq = typename Curve::Fq;
  using Fq2 = typename Curve::Fq2;
  using GT = tower::Fp12<Tower>;
  using G1Affine = typename Curve::G1Affine;
  using G2Affine = typename Curve::G2Affine;
  static_assert(std::is_same_v<Fq2, typename Tower::Fp2>, "tower and curve disagree on Fp2");

  // One line: value at P is placed as described above.
  struct LineCoeffs {
    Fq2 cy, cx, c;
  };

  // All line coefficients of the Miller loop for one G2 point, in loop order.
  struct PreparedG2 {
    std::vector<LineCoeffs> lines;
    bool infinity = true;
  };

  using Pair = std::pair<G1Affine, G2Affine>;
  using PreparedPair = std::pair<G1Affine, const PreparedG2*>;

  static PreparedG2 prepare(const G2Affine& q) {
    PreparedG2 out;
    if (q.is_identity()) return out;
    out.infinity = false;
    out.lines.reserve(kLineCount);
    Proj t{q.x, q.y, Fq2::one()};
    G2Affine neg_q = -q;
    for (size_t i = 1; i < Traits::kLoop.n; ++i) {
      out.lines.push_back(double_step(t));
      int8_t d = Traits::kLoop.d[i];
      if (d != 0) out.lines.push_back(add_step(t, d > 0 ? q : neg_q));
    }
    if constexpr (Traits::kBnFrobeniusSteps) {
      // Q1 = pi(Q), Q2 = -pi^2(Q) on the twist: with w^(p^k) = w om_k, om_k = xi^((p^k-1)/6),
      // pi^k(x w^2, y w^3) = (x^(p^k) om_k^2 w^2, y^(p^k) om_k^3 w^3).
      const auto& tab = Tower::frobenius_tables();
      const Fq2 &om1 = tab.frob12_w[1], &om2 = tab.frob12_w[2];
      G2Affine q1 = G2Affine::from_xy(q.x.conjugate() * om1.square(), q.y.conjugate() * om1.square() * om1);
      G2Affine q2 = G2Affine::from_xy(q.x * om2.square(), -(q.y * om2.square() * om2));
      out.lines.push_back(add_step(t, q1));
      out.lines.push_back(add_step(t, q2));
    }
    return out;
  }

  // prod_i f_{loop, Q_i}(P_i) with one shared chain of Fp12 squarings.
  static GT multi_miller_loop(std::span<const PreparedPair> pairs) {
    struct Active {
      Fq xp, yp;
      const LineCoeffs* lines;
    };
    std::vector<Active> act;
    act.reserve(pairs.size());
    for (const auto& [p, q] : pairs)
      if (!p.is_identity() && q != nullptr && !q->infinity) act.push_back({p.x, p.y, q->lines.data()});
    GT f = GT::one();
    if (act.empty()) return f;
    size_t k = 0;
    auto apply = [&] {
      for (const auto& a : act) f = mul_by_line(f, a.lines[k], a.xp, a.yp);
      ++k;
    };
    for (size_t i = 1; i < Traits::kLoop.n; ++i) {
      if (i > 1) f = f.square();
      apply();
      if (Traits::kLoop.d[i] != 0) apply();
    }
    if constexpr (Traits::kBnFrobeniusSteps) {
      apply();
      apply();
    }
    if constexpr (Traits::kLoopNegative) f = f.conjugate();
    return f;
  }

  static GT multi_miller_loop(std::span<const Pair> pairs) {
    std::vector<PreparedG2> prepared;
    prepared.reserve(pairs.size());
    std::vector<PreparedPair> pp;
    pp.reserve(pairs.size());
    for (const auto& [p, q] : pairs) prepared.push_back(prepare(q));
    for (size_t i = 0; i < pairs.size(); ++i) pp.push_back({pairs[i].first, &prepared[i]});
    return multi_miller_loop(std::span<const PreparedPair>(pp));
  }

  static GT miller_loop(const G1Affine& p, const PreparedG2& q) {
    PreparedPair one{p, &q};
    return multi_miller_loop(std::span<const PreparedPair>(&one, 1));
  }
  static GT miller_loop(const G1Affine& p, const G2Affine& q) { return miller_loop(p, prepare(q)); }

  // f^((p^12 - 1)/r * k), k as in pairing_traits.hpp. f must be non-zero (any Miller value is).
  static GT final_exponentiation(const GT& f) {
    GT t = f.conjugate() * f.inverse();  // f^(p^6 - 1): now in the norm-1 subgroup
    t = t.frobenius_map(2) * t;          // ^(p^2 + 1): now in the cyclotomic subgroup
    return Traits::hard_part(t);
  }

  static GT pairing(const G1Affine& p, const G2Affine& q) { return final_exponentiation(miller_loop(p, q)); }
  static GT pairing(const G1Affine& p, const PreparedG2& q) { return final_exponentiation(miller_loop(p, q)); }

  // prod_i e(P_i, Q_i) == 1, with one multi-Miller loop and one final exponentiation (the
  // Groth16 check e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) is of this form).
  static bool pairing_product_is_one(std::span<const Pair> pairs) {
    return final_exponentiation(multi_miller_loop(pairs)).is_one();
  }
  static bool pairing_product_is_one(std::span<const PreparedPair> pairs) {
    return final_exponentiation(multi_miller_loop(pairs)).is_one();
  }

  // Number of lines a PreparedG2 holds: one per doubling, one per non-zero digit, plus two.
  static constexpr size_t kLineCount = [] {
    size_t n = 0;
    for (size_t i = 1; i < Traits::kLoop.n; ++i) n += Traits::kLoop.d[i] != 0 ? 2 : 1;
    return n + (Traits::kBnFrobeniusSteps ? 2 : 0);
  }();

 private:
  struct Proj {
    Fq2 X, Y, Z;
  };

  // 3 b' for the doubling step, b' = G2Params::b() the twist coefficient.
  static const Fq2& three_b() {
    static const Fq2 v = [] {
      Fq2 b = Curve::G2Params::b();
      return b.dbl() + b;
    }();
    return v;
  }

  static LineCoeffs double_step(Proj& t) {
    const Fq2 &X = t.X, &Y = t.Y, &Z = t.Z;
    Fq2 B = Y.square(), C = Z.square();
    Fq2 E = three_b() * C;
    Fq2 F = E.dbl() + E;
    Fq2 H = (Y + Z).square() - B - C;
    Fq2 X2 = X.square();
    LineCoeffs l{-H, X2.dbl() + X2, E - B};
    Fq2 BF = B + F;
    Fq2 E2 = E.square();
    Proj r;
    r.X = (X * Y).dbl() * (B - F);
    r.Y = BF.square() - (E2.dbl() + E2).dbl().dbl();
    r.Z = (B * H).dbl().dbl();
    t = r;
    return l;
  }

  static LineCoeffs add_step(Proj& t, const G2Affine& q) {
    Fq2 th = t.Y - q.y * t.Z;
    Fq2 la = t.X - q.x * t.Z;
    Fq2 C = th.square(), D = la.square();
    Fq2 E = la * D, F = t.Z * C, G = t.X * D;
    Fq2 H = E + F - G.dbl();
    LineCoeffs l{la, -th, th * q.x - la * q.y};
    Proj r;
    r.X = la * H;
    r.Y = th * (G - H) - t.Y * E;
    r.Z = t.Z * E;
    t = r;
    return l;
  }

  static GT mul_by_line(const GT& f, const LineCoeffs& l, const Fq& xp, const Fq& yp) {
    if constexpr (Traits::kDTwist) {
      return f.mul_by_034(l.cy.mul_base(yp), l.cx.mul_base(xp), l.c);
    } else {
      return f.mul_by_014(l.c, l.cx.mul_base(xp), l.cy.mul_base(yp));
    }
  }
};

using Bn254Pairing = Engine<curves::Bn254>;
using Bls12381Pairing = Engine<curves::Bls12381>;

}  // namespace zkmill::pairing
