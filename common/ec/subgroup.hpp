// SPDX-License-Identifier: MIT
// Prime-order subgroup membership tests for G1/G2 of BN254 and BLS12-381 via endomorphisms.
//
// A point P of E(Fq) (or of the twist E'(Fq2)) lies in the order-r subgroup G iff [r]P = O;
// that costs a full 255-bit scalar multiplication (Jacobian::is_in_subgroup_naive). Both
// curves have cheap endomorphisms whose eigenvalue on G is a small polynomial in the curve
// seed, and for these curves the eigenvalue relation alone already characterises G:
//
//   BLS12-381 G1  phi(x, y) = (beta x, y), beta a primitive cube root of unity in Fq:
//                 P in G1  <=>  phi(P) = -[x^2] P
//   BLS12-381 G2  psi = untwist o Frobenius o twist:   P in G2  <=>  psi(P) = [x] P
//                 (both: M. Scott, "A note on group membership tests for G1, G2 and GT on BLS
//                 pairing-friendly curves", ePrint 2021/1130; the same two tests are EIP-2537's
//                 "fast subgroup checks")
//   BN254 G1      cofactor 1: every point on the curve is in G1.
//   BN254 G2      psi as above, eigenvalue p = t - 1 = 6u^2 (mod r):  P in G2 <=> psi(P) = [6u^2] P
//                 (El Housni, Guillevic, Piellard, "Co-factor clearing and subgroup membership
//                 testing on pairing-friendly curves", ePrint 2022/352; applied to BN254 in
//                 Sanso-Liang, "Fast G2 subgroup check in BN254", ethresear.ch 2022), checked
//                 in its 64-bit form [u+1]P + psi([u]P) + psi^2([u]P) = psi^3([2u]P)
//                 (Dai-Lin-Zhao-Zhou, ePrint 2022/348, valid as u != 4 mod 13 and u != 92
//                 mod 97), half the cost; the naive [r]P = O stays available for cross-checks.
//
// x = -0xd201000000010000 is the BLS12-381 seed, u = 4965661367192848881 the BN254 seed.
// Every endomorphism constant (beta, the two psi coefficients, the choice between beta and
// beta^2) is computed once at start-up from the field and curve definitions and checked
// against the generator; none is typed by hand. The seeds themselves are checked at
// compile time against the moduli they define (static_asserts below).
//
// Contract: is_in_subgroup(P) also checks that P is on the curve (cheap), so it may be
// called on untrusted decoded points; the fast relations are only meaningful on E.
#pragma once

#include <stdexcept>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/ec/short_weierstrass.hpp"

namespace zkmill::ec {

namespace subgroup_detail {

// Small constexpr multi-precision helpers, used to derive and verify constants.
template <size_t N>
constexpr ff::Limbs<N> mul_small(const ff::Limbs<N>& a, uint64_t m) {
  ff::Limbs<N> r{};
  uint64_t carry = 0;
  for (size_t i = 0; i < N; ++i) {
    ff::u128 t = ff::u128(a[i]) * m + carry;
    r[i] = uint64_t(t);
    carry = uint64_t(t >> 64);
  }
  if (carry) throw std::overflow_error("mul_small overflow");
  return r;
}
template <size_t N>
constexpr ff::Limbs<N> add_small(const ff::Limbs<N>& a, uint64_t m) {
  ff::Limbs<N> b{};
  b[0] = m;
  ff::Limbs<N> r{};
  if (ff::add_to(r, a, b)) throw std::overflow_error("add_small overflow");
  return r;
}
template <size_t N>
constexpr ff::Limbs<N> sub_small(const ff::Limbs<N>& a, uint64_t m) {
  ff::Limbs<N> b{};
  b[0] = m;
  ff::Limbs<N> r{};
  if (ff::sub_to(r, a, b)) throw std::underflow_error("sub_small underflow");
  return r;
}
// a / d for a known to be a multiple of d (schoolbook division by one limb).
template <size_t N>
constexpr ff::Limbs<N> div_exact_small(const ff::Limbs<N>& a, uint64_t d) {
  ff::Limbs<N> q{};
  ff::u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    ff::u128 cur = (rem << 64) | a[i];
    q[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  if (rem) throw std::invalid_argument("div_exact_small: not a multiple");
  return q;
}
// Horner evaluation of c4 s^4 + c3 s^3 + c2 s^2 + c1 s + c0 (non-negative coefficients).
template <size_t N>
constexpr ff::Limbs<N> quartic(uint64_t s, uint64_t c4, uint64_t c3, uint64_t c2, uint64_t c1, uint64_t c0) {
  ff::Limbs<N> acc{};
  acc[0] = c4;
  for (uint64_t c : {c3, c2, c1, c0}) acc = add_small(mul_small(acc, s), c);
  return acc;
}

// ---- BN254: u, and 6u^2 = t - 1, the eigenvalue p mod r of psi on G2 (trace t = 6u^2 + 1).
inline constexpr uint64_t kBn254U = 4965661367192848881ull;
static_assert(quartic<4>(kBn254U, 36, 36, 24, 6, 1) == ff::MontConstants<ff::Bn254FqParams>::p,
              "BN254: p = 36u^4 + 36u^3 + 24u^2 + 6u + 1");
static_assert(quartic<4>(kBn254U, 36, 36, 18, 6, 1) == ff::MontConstants<ff::Bn254FrParams>::p,
              "BN254: r = 36u^4 + 36u^3 + 18u^2 + 6u + 1");
inline constexpr ff::Limbs<2> kBn254SixUSquared = [] {
  ff::u128 v = ff::u128(kBn254U) * kBn254U * 6;  // 6u^2 < 2^127
  return ff::Limbs<2>{uint64_t(v), uint64_t(v >> 64)};
}();

// ---- BLS12-381: |x|, with x = -|x|.
inline constexpr uint64_t kBlsXAbs = curves::Bls12381::kXAbs;
static_assert(curves::Bls12381::kXNegative, "the BLS12-381 seed is negative");
// r = x^4 - x^2 + 1 (even powers: the sign of x does not matter).
static_assert(
    [] {
      ff::Limbs<4> r{};
      ff::sub_to(r, quartic<4>(kBlsXAbs, 1, 0, 0, 0, 0), quartic<4>(kBlsXAbs, 0, 0, 1, 0, 0));
      return add_small(r, 1) == ff::MontConstants<ff::Bls12381FrParams>::p;
    }(),
    "BLS12-381: r = x^4 - x^2 + 1");
// p = (x - 1)^2 r / 3 + x; with x = -|x|: (|x| + 1)^2 r / 3 - |x|.
static_assert(
    [] {
      ff::Limbs<6> r{};
      for (size_t i = 0; i < 4; ++i) r[i] = ff::MontConstants<ff::Bls12381FrParams>::p[i];
      ff::Limbs<6> v = div_exact_small(mul_small(mul_small(r, kBlsXAbs + 1), kBlsXAbs + 1), 3);
      return sub_small(v, kBlsXAbs) == ff::MontConstants<ff::Bls12381FqParams>::p;
    }(),
    "BLS12-381: p = (x - 1)^2 (x^4 - x^2 + 1) / 3 + x");
// The G1 cofactor h1 = (x - 1)^2 / 3 (tests use it to build small-order points).
inline constexpr ff::Limbs<2> kBlsG1Cofactor =
    div_exact_small(mul_small(ff::Limbs<2>{kBlsXAbs + 1, 0}, kBlsXAbs + 1), 3);

template <class P>
constexpr ff::Limbs<P::kLimbs> p_minus_1_over(uint64_t d) {
  return div_exact_small(ff::MontConstants<P>::p_minus_1, d);
}

}  // namespace subgroup_detail

// A primitive cube root of unity in Fq: g^((p-1)/3) for g a generator of Fq^* (p = 1 mod 3).
template <class Fq>
Fq cube_root_of_unity() {
  static const Fq w = [] {
    Fq b = Fq::generator().pow(subgroup_detail::p_minus_1_over<typename Fq::Params>(3));
    if (b.is_one() || !(b.square() * b).is_one()) throw std::logic_error("no primitive cube root of unity");
    return b;
  }();
  return w;
}

// psi = untwist o Frobenius o twist on a sextic twist E'(Fq2): y^2 = x^3 + b' of E: y^2 = x^3 + b.
// With w^6 = xi in Fq12:
//   D-type (b' = b / xi), untwist (x, y) -> (x w^2, y w^3):
//        psi(x, y) = (conj(x) xi^((p-1)/3), conj(y) xi^((p-1)/2));
//   M-type (b' = b xi),  untwist (x, y) -> (x / w^2, y / w^3):
//        psi(x, y) = (conj(x) xi^(-(p-1)/3), conj(y) xi^(-(p-1)/2)).
// (w^(p-1) generates the Fq2 factors since w^p = w xi^((p-1)/6).) The twist type is read
// off the traits (b', xi and E's b) rather than stated, and both formulas agree on Jacobian
// coordinates since conjugation is a field automorphism: psi(X, Y, Z) = (cx X^p, cy Y^p, Z^p).
template <class C>
struct TwistFrobenius {
  using F2 = typename C::Base;
  using Fq = typename F2::Base;
  F2 cx, cy;

  static TwistFrobenius make(const Fq& b_of_e) {
    const F2 xi = C::xi(), b1{b_of_e, Fq::zero()};
    const bool d_type = C::b() * xi == b1, m_type = C::b() == b1 * xi;
    if (d_type == m_type) throw std::logic_error(std::string(C::kName) + ": twist is neither D- nor M-type");
    F2 e3 = xi.pow(subgroup_detail::p_minus_1_over<typename Fq::Params>(3));
    F2 e2 = xi.pow(Fq::C::half_p_minus_1);
    if (m_type) {
      e3 = e3.inverse();
      e2 = e2.inverse();
    }
    return {e3, e2};
  }
  Jacobian<C> operator()(const Jacobian<C>& p) const {
    return {cx * p.X.conjugate(), cy * p.Y.conjugate(), p.Z.conjugate()};
  }
  Affine<C> operator()(const Affine<C>& p) const {
    if (p.infinity) return p;
    return Affine<C>::from_xy(cx * p.x.conjugate(), cy * p.y.conjugate());
  }
};

// The generic fallback: [r]P = O (or nothing to check when the cofactor is 1). Each
// specialisation names its method in kMethod for logs and docs.
template <class C>
struct SubgroupTest {
  static constexpr const char* kMethod = C::kCofactorOne ? "cofactor 1 (on-curve suffices)" : "naive [r]P = O";
  static bool check(const Jacobian<C>& p) {
    if constexpr (C::kCofactorOne)
      return true;
    else
      return p.is_in_subgroup_naive();
  }
};

template <>
struct SubgroupTest<curves::Bn254G1Params> {
  static constexpr const char* kMethod = "cofactor 1 (on-curve suffices)";
  static bool check(const Jacobian<curves::Bn254G1Params>&) { return true; }
};

// BLS12-381 G1: phi(P) = -[x^2]P. Of the two primitive cube roots beta, beta^2 the one whose
// eigenvalue on G1 is -x^2 (the other gives x^2 - 1) is picked on the generator.
template <>
struct SubgroupTest<curves::Bls12381G1Params> {
  using G = curves::Bls12381G1Params;
  using J = Jacobian<G>;
  static constexpr const char* kMethod = "GLV endomorphism phi(P) = -[x^2]P (Scott 2021/1130)";

  static J x_squared_times(const J& p) {
    const ff::Limbs<1> x_abs{subgroup_detail::kBlsXAbs};
    return p.mul_limbs(x_abs).mul_limbs(x_abs);  // [x^2]P = [|x|]([|x|]P)
  }
  static const typename G::Base& beta() {
    static const typename G::Base b = [] {
      const auto w = cube_root_of_unity<typename G::Base>();
      const J g = J::generator(), target = -x_squared_times(g);
      for (const auto& cand : {w, w.square()})
        if (J{cand * g.X, g.Y, g.Z} == target) return cand;
      throw std::logic_error("bls12-381 G1: no cube root of unity has eigenvalue -x^2 on the generator");
    }();
    return b;
  }
  static J phi(const J& p) { return {beta() * p.X, p.Y, p.Z}; }
  static bool check(const J& p) { return (phi(p) + x_squared_times(p)).is_identity(); }
};

// BLS12-381 G2: psi(P) = [x]P = -[|x|]P.
template <>
struct SubgroupTest<curves::Bls12381G2Params> {
  using G = curves::Bls12381G2Params;
  using J = Jacobian<G>;
  static constexpr const char* kMethod = "untwist-Frobenius-twist psi(P) = [x]P (Scott 2021/1130)";

  static J x_times(const J& p) { return -p.mul_limbs(ff::Limbs<1>{subgroup_detail::kBlsXAbs}); }
  static const TwistFrobenius<G>& psi() {
    static const TwistFrobenius<G> v = [] {
      auto f = TwistFrobenius<G>::make(curves::Bls12381G1Params::b());
      const J g = J::generator();
      if (!f(g).is_on_curve() || f(g) != x_times(g))
        throw std::logic_error("bls12-381 G2: psi does not act as [x] on the generator");
      return f;
    }();
    return v;
  }
  static bool check(const J& p) { return psi()(p) == x_times(p); }
};

// BN254 G2: psi(P) = [6u^2]P.
template <>
struct SubgroupTest<curves::Bn254G2Params> {
  using G = curves::Bn254G2Params;
  using J = Jacobian<G>;
  static constexpr const char* kMethod =
      "untwist-Frobenius-twist psi(P) = [6u^2]P (El Housni et al. 2022/352), as [u+1]P + psi([u]P) + "
      "psi^2([u]P) = psi^3([2u]P) (Dai et al. 2022/348)";

  static J eigen_times(const J& p) { return p.mul_limbs(subgroup_detail::kBn254SixUSquared); }
  static const TwistFrobenius<G>& psi() {
    static const TwistFrobenius<G> v = [] {
      auto f = TwistFrobenius<G>::make(curves::Bn254G1Params::b());
      const J g = J::generator();
      if (!f(g).is_on_curve() || f(g) != eigen_times(g))
        throw std::logic_error("bn254 G2: psi does not act as [6u^2] on the generator");
      return f;
    }();
    return v;
  }
  // Dai-Lin-Zhao-Zhou's 64-bit form of the same test (valid for BN254: u = 0 mod 13, u = 49
  // mod 97): one 63-bit multiplication instead of the 127-bit [6u^2], half the doublings. A
  // proof's B is checked so once per verification, ~0.08 ms of the coordinator's ~1.5 ms.
  static_assert(subgroup_detail::kBn254U % 13 != 4 && subgroup_detail::kBn254U % 97 != 92,
                "the 64-bit G2 test needs u != 4 mod 13 and u != 92 mod 97");
  static bool check(const J& p) {
    const auto& f = psi();
    const J up = p.mul_limbs(ff::Limbs<1>{subgroup_detail::kBn254U});  // [u]P
    const J psi_up = f(up);
    return up + p + psi_up + f(psi_up) == f(f(f(up.dbl())));
  }
};

// P on the curve and in the prime-order subgroup (the identity counts as a member).
template <class C>
bool is_in_subgroup(const Jacobian<C>& p) {
  return p.is_on_curve() && SubgroupTest<C>::check(p);
}
template <class C>
bool is_in_subgroup(const Affine<C>& p) {
  return p.is_on_curve() && SubgroupTest<C>::check(Jacobian<C>::from_affine(p));
}

// psi on a G2 point of either curve (also useful to pairing and cofactor-clearing code).
template <class C>
Jacobian<C> psi(const Jacobian<C>& p) {
  return SubgroupTest<C>::psi()(p);
}

}  // namespace zkmill::ec
