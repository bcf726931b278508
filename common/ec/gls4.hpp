// SPDX-License-Identifier: MIT
// Four-dimensional GLS scalar multiplication on G2 of BN254 and BLS12-381 (S. Galbraith,
// X. Lin, M. Scott, "Endomorphisms for faster elliptic curve cryptography on a large class of
// curves", EUROCRYPT 2009; S. Galbraith, M. Scott, "Exponentiation in pairing-friendly groups
// using homomorphisms", Pairing 2008).
//
// On G2 the untwist-Frobenius-twist map psi (ec/subgroup.hpp) acts as multiplication by
// mu = 6u^2 (BN254) or mu = x (BLS12-381), a primitive 12th root of unity mod r, so
// mu^4 - mu^2 + 1 = 0 and Z[mu] has rank 4:
//
//   k P = k0 P + k1 psi(P) + k2 psi^2(P) + k3 psi^3(P)   for k = sum k_i mu^i (mod r),
//
// with |k_i| < 2^66: about 66 shared doublings instead of GLV's 127 (ec/glv.hpp) or 254.
//
// Decomposition (as GLV's, one dimension up): {v in Z^4 : sum v_i mu^i = 0 mod r} is a lattice
// of determinant r; B below is an LLL-reduced basis (entries below 2^64; for BLS12-381 the
// obvious one from x mu^i - mu^(i+1) = 0 and x^4 - x^2 + 1 = r). Writing (k, 0, 0, 0) = c B,
// c_j = k adj(B)_(j,0) / det B, and (k_i) = (k, 0, 0, 0) - floor(c) B is a lattice translate, so
// sum k_i mu^i = k whatever the rounding; floor(c_j) is taken as (k g_j) >> 320 with
// g_j = floor(2^320 |adj_(j,0)| / r) (offline), off by at most one, which keeps |k_i| < 2^67.
// The basis vectors are checked against mu at start-up and every decomposition's bound at run
// time, so a wrong constant fails loudly instead of computing a wrong point.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/ec/glv.hpp"

namespace zkmill::ec {

// k = sum (-1)^neg_i k_i mu^i (mod r), k_i < 2^67.
struct Gls4Scalar {
  u128 k[4] = {};
  bool neg[4] = {};
};

namespace gls4_detail {

struct LatticeText {
  int64_t sign[4][4];  // signs of the basis entries (-1, 0 or 1)
  uint64_t mag[4][4];  // |B_(j,i)|
  const char* g[4];    // g_j, decimal
  bool c_neg[4];       // sign of adj_(j,0) / det B
};

template <class C>
constexpr LatticeText lattice_text() {
  if constexpr (std::is_same_v<C, curves::Bn254G2Params>) {
    constexpr uint64_t a = 9931322734385697763ull, b = 4965661367192848881ull;
    return {{{1, 0, 1, 1}, {1, 1, -1, 1}, {1, 1, 1, -1}, {1, -1, -1, -1}},
            {{a, 0, a - 1, 1}, {a - 1, b + 1, b, b}, {b + 1, b, b, a - 1}, {a, b, b + 1, b}},
            {"71691928425115657353212067621333158480271791341846541562066240022958130644795",
             "71691928425115657338774528867931613015400450013818096733255888418560393973286",
             "969158499126791950428397481025724903154",
             "71691928425115657353212067621333158479787212092283145586900834304535428838655"},
            {false, false, false, false}};
  } else if constexpr (std::is_same_v<C, curves::Bls12381G2Params>) {
    constexpr uint64_t x = curves::Bls12381::kXAbs;
    return {{{1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 1}, {1, 0, -1, -1}},
            {{x, 1, 0, 0}, {0, x, 1, 0}, {0, 0, x, 1}, {1, 0, 1, x}},
            {"141153445067181066543250295207170720817874988904824842954709672868215257228353",
             "9327910103978480611326912367295635473572743420250193510439", "616420710571336237627063923535270999487",
             "40735222379470272380"},
            {false, true, false, false}};
  } else {
    static_assert(sizeof(C) == 0, "no GLS lattice for this group");
  }
}

// The eigenvalue of psi on G2 (ec/subgroup.hpp checks psi against it on the generator).
template <class C>
typename C::Scalar psi_eigenvalue() {
  using Fr = typename C::Scalar;
  if constexpr (std::is_same_v<C, curves::Bn254G2Params>) {
    const Fr u = Fr::from_u64(subgroup_detail::kBn254U);
    return Fr::from_u64(6) * u * u;
  } else {
    return -Fr::from_u64(curves::Bls12381::kXAbs);  // x < 0
  }
}

// (k g) >> 320 for k < r (4 limbs) and g < 2^320 (5 limbs); the result is below 2^192.
inline ff::Limbs<4> mul_shift_320(const ff::Limbs<4>& k, const ff::Limbs<5>& g) {
  uint64_t prod[9] = {};
  for (size_t i = 0; i < 4; ++i) {
    u128 carry = 0;
    for (size_t j = 0; j < 5; ++j) {
      const u128 t = u128(k[i]) * g[j] + prod[i + j] + carry;
      prod[i + j] = uint64_t(t);
      carry = t >> 64;
    }
    prod[i + 5] = uint64_t(carry);
  }
  return {prod[5], prod[6], prod[7], prod[8]};
}

}  // namespace gls4_detail

template <class C>
struct Gls4Lattice {
  using Fr = typename C::Scalar;
  Fr mu_pow[4];  // mu^0 .. mu^3
  Fr b[4][4];    // the basis, as field elements
  ff::Limbs<5> g[4];
  bool c_neg[4];

  static const Gls4Lattice& get() {
    static const Gls4Lattice l = [] {
      constexpr auto t = gls4_detail::lattice_text<C>();
      Gls4Lattice v{};
      v.mu_pow[0] = Fr::one();
      for (int i = 1; i < 4; ++i) v.mu_pow[i] = v.mu_pow[i - 1] * gls4_detail::psi_eigenvalue<C>();
      for (int j = 0; j < 4; ++j) {
        Fr dot = Fr::zero();
        for (int i = 0; i < 4; ++i) {
          const Fr m = Fr::from_u64(t.mag[j][i]);
          v.b[j][i] = t.sign[j][i] < 0 ? -m : t.sign[j][i] > 0 ? m : Fr::zero();
          dot += v.b[j][i] * v.mu_pow[i];
        }
        if (!dot.is_zero()) throw std::logic_error(std::string(C::kName) + ": GLS basis vector outside the lattice");
        const auto g = ff::parse_decimal<5>(t.g[j]);
        if (!g) throw std::logic_error("GLS: bad rounding constant");
        v.g[j] = *g;
        v.c_neg[j] = t.c_neg[j];
      }
      return v;
    }();
    return l;
  }
};

// k = sum k_i mu^i with |k_i| < 2^67 (see the top of the file).
template <class C>
Gls4Scalar gls4_decompose(const typename C::Scalar& k) {
  using Fr = typename C::Scalar;
  const auto& L = Gls4Lattice<C>::get();
  const auto kc = k.to_canonical();
  Fr c[4];
  for (int j = 0; j < 4; ++j) {
    c[j] = Fr::from_canonical_unchecked(gls4_detail::mul_shift_320(kc, L.g[j]));
    if (L.c_neg[j]) c[j] = -c[j];
  }
  Fr ki[4];
  Fr rest = Fr::zero();
  for (int i = 1; i < 4; ++i) {
    ki[i] = Fr::zero();
    for (int j = 0; j < 4; ++j) ki[i] -= c[j] * L.b[j][i];
    rest += ki[i] * L.mu_pow[i];
  }
  ki[0] = k - rest;
  Gls4Scalar s;
  for (int i = 0; i < 4; ++i) {
    auto lim = ki[i].to_canonical();
    s.neg[i] = ff::num_bits(lim) > 67;
    if (s.neg[i]) lim = (-ki[i]).to_canonical();
    if (ff::num_bits(lim) > 67) throw std::logic_error("GLS decomposition out of bounds");
    s.k[i] = (u128(lim[1]) << 64) | lim[0];
  }
  return s;
}

// *pts[i] = s_i *pts[i] for a batch of G2 points, as glv_mul_batch (affine tables made with one
// inversion per batch, mixed additions) with four tables: odd multiples of P and their images
// under psi, psi^2, psi^3 (psi on an affine point: two Fq2 multiplications).
template <class C>
void gls4_mul_batch(Jacobian<C>* const* pts, const Gls4Scalar* const* ks, size_t m) {
  using J = Jacobian<C>;
  using A = Affine<C>;
  constexpr size_t kTable = size_t(1) << (glv_detail::kWindow - 2);
  std::vector<J> tab(m * kTable);
  for (size_t i = 0; i < m; ++i) {
    const J& p = *pts[i];
    J* t = tab.data() + i * kTable;
    if (p.is_identity()) {
      std::fill_n(t, kTable, J::identity());
      continue;
    }
    t[0] = p;
    const J twice = p.dbl();
    for (size_t e = 1; e < kTable; ++e) t[e] = t[e - 1] + twice;
  }
  const std::vector<A> aff = batch_normalize<C>(tab);
  const auto& psi = SubgroupTest<C>::psi();
  for (size_t i = 0; i < m; ++i) {
    if (pts[i]->is_identity()) continue;
    const Gls4Scalar& s = *ks[i];
    int8_t d[4][72];
    size_t n[4], top = 0;
    for (int c = 0; c < 4; ++c) top = std::max(top, n[c] = glv_detail::wnaf(s.k[c], d[c]));
    A t[4][kTable];
    for (size_t e = 0; e < kTable; ++e) {
      A q = aff[i * kTable + e];
      for (int c = 0; c < 4; ++c) {
        if (c > 0) q = psi(q);
        t[c][e] = s.neg[c] ? -q : q;
      }
    }
    J acc = J::identity();
    for (size_t b = top; b-- > 0;) {
      acc = acc.dbl();
      for (int c = 0; c < 4; ++c) {
        if (b >= n[c] || !d[c][b]) continue;
        const int v = d[c][b];
        acc = acc.add_mixed(v > 0 ? t[c][v >> 1] : -t[c][(-v) >> 1]);
      }
    }
    *pts[i] = acc;
  }
}

// The fastest multiplication by a full-size scalar each group has: GLS-4 on G2, GLV on G1.
template <class C>
struct FastMul {
  using Dec = GlvScalar;
  static Dec decompose(const typename C::Scalar& k) { return glv_decompose(k); }
  static void batch(Jacobian<C>* const* pts, const Dec* const* ks, size_t m) { glv_mul_batch<C>(pts, ks, m); }
};
template <class C>
requires std::is_same_v<C, curves::Bn254G2Params> || std::is_same_v<C, curves::Bls12381G2Params>
struct FastMul<C> {
  using Dec = Gls4Scalar;
  static Dec decompose(const typename C::Scalar& k) { return gls4_decompose<C>(k); }
  static void batch(Jacobian<C>* const* pts, const Dec* const* ks, size_t m) { gls4_mul_batch<C>(pts, ks, m); }
};

// s P through FastMul (one point).
template <class C>
Jacobian<C> fast_mul(const Jacobian<C>& p, const typename C::Scalar& k) {
  const auto d = FastMul<C>::decompose(k);
  Jacobian<C> r = p;
  Jacobian<C>* rp = &r;
  const auto* dp = &d;
  FastMul<C>::batch(&rp, &dp, 1);
  return r;
}

}  // namespace zkmill::ec
