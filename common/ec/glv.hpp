// SPDX-License-Identifier: MIT
// GLV scalar multiplication on G1 and G2 of BN254 and BLS12-381 (R. Gallant, R. Lambert,
// S. Vanstone, "Faster point multiplication on elliptic curves with efficient endomorphisms",
// CRYPTO 2001).
//
// All four groups lie on curves y^2 = x^3 + b (a = 0) over a field containing a primitive cube
// root of unity beta of Fq (for G2 over Fq2, beta in Fq acts on the x coordinate alike), so
// phi(x, y) = (beta x, y) is an automorphism of order 3. On a cyclic group of prime order r it
// is multiplication by an eigenvalue lambda with lambda^2 + lambda + 1 = 0 (mod r); of the two
// cube roots beta, beta^2 the one whose eigenvalue is the lambda below is picked on the group's
// generator at start-up (as ec/subgroup.hpp does), never typed by hand. Then
//
//   k P = k1 P + k2 phi(P)   for k = k1 + k2 lambda (mod r),  |k1|, |k2| < 2^127,
//
// and one multiplication costs about 127 shared doublings instead of 254.
//
// Decomposition (GLV section 4): {(a, b) in Z^2 : a + b lambda = 0 mod r} is a lattice of
// determinant r; v1 = (a1, b1), v2 = (a2, b2) is a reduced basis (Guide to Elliptic Curve
// Cryptography, Algorithm 3.74: the extended Euclidean algorithm on (r, lambda) stopped at
// sqrt(r)), computed offline and checked at start-up (a + b lambda = 0 for both vectors, and
// every decomposition re-checked below). Writing (k, 0) = c1 v1 + c2 v2 over Q,
//   c1 = k b2 / D,  c2 = -k b1 / D,  D = a1 b2 - a2 b1 = +-r,
// rounding c1, c2 to the nearest integers leaves (k1, k2) = (k, 0) - c1 v1 - c2 v2, a lattice
// translate of (k, 0) (so k1 + k2 lambda = k exactly) of half the basis' size.
//
// The two ~127-bit halves are recoded in width-5 NAF (signed odd digits up to 15, one non-zero
// digit in 6 on average) and evaluated by interleaving (Shamir's trick): one doubling chain,
// tables of P, 3P, .., 15P and their phi images (phi costs one Fq multiplication per point).
// Not constant time: setup scalars are public (twiddles, r1cs coefficients) or used once in
// the contributor's own process (ec/ and setup/ never see a prover's secrets).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/ec/short_weierstrass.hpp"
#include "common/ec/subgroup.hpp"

namespace zkmill::ec {

using u128 = unsigned __int128;

// A decomposed scalar: k = (-1)^neg1 k1 + (-1)^neg2 k2 lambda (mod r), k1, k2 < 2^127.
struct GlvScalar {
  u128 k1 = 0, k2 = 0;
  bool neg1 = false, neg2 = false;
};

namespace glv_detail {

// A signed basis coordinate, |v| < 2^128.
struct Signed {
  u128 mag;
  bool neg;
};

// The lattice of one scalar field: lambda and v1 = (a1, b1), v2 = (a2, b2), decimal (from the
// offline reduction described above), with the sign of D = a1 b2 - a2 b1.
struct LatticeText {
  const char* lambda;
  const char *a1, *b1, *a2, *b2;
  bool det_negative;
};

template <class Fr>
constexpr LatticeText lattice_text() {
  if constexpr (std::is_same_v<Fr, ff::Bn254Fr>)
    return {"4407920970296243842393367215006156084916469457145843978461",
            "9931322734385697763",
            "-147946756881789319000765030803803410728",
            "147946756881789319010696353538189108491",
            "9931322734385697763",
            false};
  else if constexpr (std::is_same_v<Fr, ff::Bls12381Fr>)
    // lambda = x^2 - 1 for the BLS seed x; v1 = (1, x^2), v2 = (x^2 - 1, -1), D = -r.
    return {"228988810152649578064853576960394133503", "1",  "228988810152649578064853576960394133504",
            "228988810152649578064853576960394133503", "-1", true};
  else
    static_assert(sizeof(Fr) == 0, "no GLV lattice for this scalar field");
}

inline Signed parse_signed(std::string_view s) {
  Signed v{0, false};
  if (!s.empty() && s[0] == '-') {
    v.neg = true;
    s.remove_prefix(1);
  }
  for (char c : s) v.mag = v.mag * 10 + u128(c - '0');
  return v;
}

template <class Fr>
Fr fr_from_u128(u128 v) {
  static const Fr two64 = Fr::from_u64(uint64_t(1) << 32).square();
  return Fr::from_u64(uint64_t(v >> 64)) * two64 + Fr::from_u64(uint64_t(v));
}
template <class Fr>
Fr fr_from_signed(const Signed& v) {
  const Fr m = fr_from_u128<Fr>(v.mag);
  return v.neg ? -m : m;
}

// round(k m / r) for k < r (4 limbs) and m < 2^128: the quotient is below m. Schoolbook
// binary long division of the 384-bit product; a few microseconds, far below one scalar
// multiplication, and twiddle decompositions are computed once per FFT stage.
template <class Fr>
u128 div_round(const ff::Limbs<4>& k, u128 m) {
  static_assert(Fr::C::p.size() == 4, "GLV scalar fields have 4 limbs");
  const auto& r = Fr::modulus();
  uint64_t prod[6] = {};
  const uint64_t mw[2] = {uint64_t(m), uint64_t(m >> 64)};
  for (size_t i = 0; i < 4; ++i) {
    u128 carry = 0;
    for (size_t j = 0; j < 2; ++j) {
      const u128 t = u128(k[i]) * mw[j] + prod[i + j] + carry;
      prod[i + j] = uint64_t(t);
      carry = t >> 64;
    }
    prod[i + 2] = uint64_t(carry);
  }
  ff::Limbs<4> rem{};
  u128 q = 0;
  for (size_t bit = 384; bit-- > 0;) {
    // rem = 2 rem + bit; rem < r < 2^255, so 2 rem + 1 fits in 256 bits.
    for (size_t i = 4; i-- > 1;) rem[i] = (rem[i] << 1) | (rem[i - 1] >> 63);
    rem[0] = (rem[0] << 1) | ((prod[bit / 64] >> (bit % 64)) & 1);
    q <<= 1;
    if (ff::cmp(rem, r) >= 0) {
      ff::sub_to(rem, rem, r);
      q |= 1;
    }
  }
  // Round half up: 2 rem >= r.
  ff::Limbs<4> twice = rem;
  const uint64_t carry = ff::add_to(twice, rem, rem);
  if (carry || ff::cmp(twice, r) >= 0) ++q;
  return q;
}

// |v| for a field element known to be small in absolute value (|v| < 2^127).
template <class Fr>
void to_small_signed(const Fr& v, u128& mag, bool& neg) {
  auto lim = v.to_canonical();
  neg = ff::num_bits(lim) > 127;
  if (neg) lim = (-v).to_canonical();
  if (ff::num_bits(lim) > 127) throw std::logic_error("GLV decomposition out of bounds");
  mag = (u128(lim[1]) << 64) | lim[0];
}

}  // namespace glv_detail

// The lattice of a scalar field, parsed and checked once.
template <class Fr>
struct GlvLattice {
  Fr lambda;
  glv_detail::Signed a1, b1, a2, b2;
  bool det_negative;

  static const GlvLattice& get() {
    static const GlvLattice l = [] {
      using namespace glv_detail;
      constexpr LatticeText t = lattice_text<Fr>();
      GlvLattice v{Fr::from_dec(t.lambda), parse_signed(t.a1), parse_signed(t.b1),
                   parse_signed(t.a2),     parse_signed(t.b2), t.det_negative};
      if (!(v.lambda.square() + v.lambda + Fr::one()).is_zero())
        throw std::logic_error("GLV: lambda is not a primitive cube root of unity");
      if (!(fr_from_signed<Fr>(v.a1) + fr_from_signed<Fr>(v.b1) * v.lambda).is_zero() ||
          !(fr_from_signed<Fr>(v.a2) + fr_from_signed<Fr>(v.b2) * v.lambda).is_zero())
        throw std::logic_error("GLV: basis vector outside the lattice");
      return v;
    }();
    return l;
  }
};

// k = k1 + k2 lambda with |k1|, |k2| < 2^127 (see the top of the file).
template <class Fr>
GlvScalar glv_decompose(const Fr& k) {
  using namespace glv_detail;
  const auto& L = GlvLattice<Fr>::get();
  const auto kc = k.to_canonical();
  // c1 = k b2 / D, c2 = -k b1 / D, rounded.
  Fr c1 = fr_from_u128<Fr>(div_round<Fr>(kc, L.b2.mag));
  if (L.b2.neg != L.det_negative) c1 = -c1;
  Fr c2 = fr_from_u128<Fr>(div_round<Fr>(kc, L.b1.mag));
  if (L.b1.neg == L.det_negative) c2 = -c2;
  // k2 = -(c1 b1 + c2 b2); k1 = k - k2 lambda (so the identity holds whatever the rounding).
  const Fr k2 = -(c1 * fr_from_signed<Fr>(L.b1) + c2 * fr_from_signed<Fr>(L.b2));
  const Fr k1 = k - k2 * L.lambda;
  GlvScalar s;
  to_small_signed(k1, s.k1, s.neg1);
  to_small_signed(k2, s.k2, s.neg2);
  return s;
}

// The field beta lives in: Fq for both G1 (coordinates in Fq) and G2 (coordinates in Fq2).
template <class B>
struct GlvBetaField {
  using type = B;
};
template <class Fq>
struct GlvBetaField<tower::Fp2<Fq>> {
  using type = Fq;
};

// beta in Fq with phi(P) = (beta x, y) = lambda P on the group of C (G1 or G2).
template <class C>
struct GlvEndomorphism {
  using Base = typename C::Base;
  using Beta = typename GlvBetaField<Base>::type;

  static Base scale_x(const Base& x, const Beta& beta) {
    if constexpr (std::is_same_v<Base, Beta>)
      return x * beta;
    else
      return Base{x.c0 * beta, x.c1 * beta};
  }
  static const Beta& beta() {
    static const Beta b = [] {
      const Beta w = cube_root_of_unity<Beta>();
      const Jacobian<C> g = Jacobian<C>::generator();
      const Jacobian<C> target = g.mul_limbs(GlvLattice<typename C::Scalar>::get().lambda.to_canonical());
      for (const Beta& cand : {w, w.square()})
        if (Jacobian<C>{scale_x(g.X, cand), g.Y, g.Z} == target) return cand;
      throw std::logic_error(std::string(C::kName) + ": no cube root of unity has the GLV eigenvalue");
    }();
    return b;
  }
  static Jacobian<C> phi(const Jacobian<C>& p) { return {scale_x(p.X, beta()), p.Y, p.Z}; }
};

namespace glv_detail {

constexpr int kWindow = 5;  // wNAF width: digits odd, |d| < 2^(w-1)

// Width-w NAF of v < 2^127, least significant digit first; returns the digit count.
inline size_t wnaf(u128 v, int8_t* out) {
  size_t n = 0;
  while (v) {
    int d = 0;
    if (v & 1) {
      d = int(v & ((1u << kWindow) - 1));
      if (d >= (1 << (kWindow - 1))) d -= 1 << kWindow;
      v = d > 0 ? v - u128(d) : v + u128(-d);
    }
    out[n++] = int8_t(d);
    v >>= 1;
  }
  return n;
}

}  // namespace glv_detail

// s P with s from glv_decompose (of the group order's field).
template <class C>
Jacobian<C> glv_mul(const Jacobian<C>& p, const GlvScalar& s) {
  using J = Jacobian<C>;
  using namespace glv_detail;
  if (p.is_identity()) return p;
  int8_t d1[130], d2[130];
  const size_t n1 = wnaf(s.k1, d1), n2 = wnaf(s.k2, d2);
  constexpr int kTable = 1 << (kWindow - 2);  // P, 3P, .., 15P
  J t1[kTable], t2[kTable];
  const J p1 = s.neg1 ? -p : p;
  t1[0] = p1;
  const J twice = p1.dbl();
  for (int i = 1; i < kTable; ++i) t1[i] = t1[i - 1] + twice;
  const bool flip = s.neg1 != s.neg2;  // phi(-P) = -phi(P)
  for (int i = 0; i < kTable; ++i) t2[i] = GlvEndomorphism<C>::phi(flip ? -t1[i] : t1[i]);
  J acc = J::identity();
  for (size_t i = std::max(n1, n2); i-- > 0;) {
    acc = acc.dbl();
    if (i < n1 && d1[i]) acc += d1[i] > 0 ? t1[d1[i] >> 1] : -t1[(-d1[i]) >> 1];
    if (i < n2 && d2[i]) acc += d2[i] > 0 ? t2[d2[i] >> 1] : -t2[(-d2[i]) >> 1];
  }
  return acc;
}

template <class C>
Jacobian<C> glv_mul(const Jacobian<C>& p, const typename C::Scalar& k) {
  return glv_mul(p, glv_decompose(k));
}

// *pts[i] = s_i *pts[i] for a batch of points (in place). The same interleaved wNAF as glv_mul,
// but the tables of all points are made affine together with one field inversion (Montgomery's
// trick: P. Montgomery, "Speeding the Pollard and elliptic curve methods of factorization",
// Math. Comp. 48, 1987), so every addition of the main loop is a mixed one (7M + 4S instead of
// 11M + 5S): about 10% fewer field multiplications per point for batches of a few dozen.
template <class C>
void glv_mul_batch(Jacobian<C>* const* pts, const GlvScalar* const* ks, size_t m) {
  using J = Jacobian<C>;
  using A = Affine<C>;
  using namespace glv_detail;
  constexpr size_t kTable = size_t(1) << (kWindow - 2);
  std::vector<J> tab(m * kTable);
  for (size_t i = 0; i < m; ++i) {
    const J& p = *pts[i];
    if (p.is_identity()) {
      std::fill_n(tab.begin() + ptrdiff_t(i * kTable), kTable, J::identity());
      continue;
    }
    J* t = tab.data() + i * kTable;
    t[0] = p;
    const J twice = p.dbl();
    for (size_t e = 1; e < kTable; ++e) t[e] = t[e - 1] + twice;
  }
  const std::vector<A> aff = batch_normalize<C>(tab);
  const auto& beta = GlvEndomorphism<C>::beta();
  for (size_t i = 0; i < m; ++i) {
    if (pts[i]->is_identity()) continue;
    const GlvScalar& s = *ks[i];
    int8_t d1[130], d2[130];
    const size_t n1 = wnaf(s.k1, d1), n2 = wnaf(s.k2, d2);
    // Tables of (-1)^neg1 P and phi((-1)^neg2 P): odd multiples, affine.
    A t1[kTable], t2[kTable];
    for (size_t e = 0; e < kTable; ++e) {
      const A& q = aff[i * kTable + e];
      t1[e] = s.neg1 ? -q : q;
      t2[e] = A::from_xy(GlvEndomorphism<C>::scale_x(q.x, beta), s.neg2 ? -q.y : q.y);
    }
    J acc = J::identity();
    for (size_t b = std::max(n1, n2); b-- > 0;) {
      acc = acc.dbl();
      if (b < n1 && d1[b]) acc = acc.add_mixed(d1[b] > 0 ? t1[d1[b] >> 1] : -t1[(-d1[b]) >> 1]);
      if (b < n2 && d2[b]) acc = acc.add_mixed(d2[b] > 0 ? t2[d2[b] >> 1] : -t2[(-d2[b]) >> 1]);
    }
    *pts[i] = acc;
  }
}

}  // namespace zkmill::ec
