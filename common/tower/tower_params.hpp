// SPDX-License-Identifier: MIT
// Tower parameters (Fp2 and the sextic non-residue xi) per curve, and the start-up computation
// of the Frobenius constants xi^((p^k - 1)/d) from the modulus alone (nothing typed by hand).
//
// Both towers are built the same way (Beuchat et al., "High-speed software implementation of
// the optimal ate pairing over Barreto-Naehrig curves", Pairing 2010, section 3):
//   Fp2  = Fq[u]  / (u^2 + 1)
//   Fp6  = Fp2[v] / (v^3 - xi)     xi = 9 + u (BN254), 1 + u (BLS12-381)
//   Fp12 = Fp6[w] / (w^2 - v)      so w^6 = xi.
// xi is neither a square nor a cube in Fp2, which makes both extensions irreducible.
//
// A tower params struct T gives
//   using Base (= Fq), using Fp2, static Fp2 xi(), static Fp2 mul_by_xi(const Fp2&),
//   static constexpr uint64_t kXiC0 (xi = kXiC0 + u).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "common/tower/fp2.hpp"

namespace zkmill::tower {

namespace detail {

// Little-endian limb vectors for the handful of big exponents the tower needs at start-up
// (p^k - 1 reaches 11 * 381 bits). Not constant time; only ever used on public constants.
using BigNat = std::vector<uint64_t>;

inline void trim(BigNat& a) {
  while (!a.empty() && a.back() == 0) a.pop_back();
}

inline BigNat mul(const BigNat& a, const BigNat& b) {
  BigNat r(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      ff::u128 t = ff::u128(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    r[i + b.size()] = carry;
  }
  trim(r);
  return r;
}

// a - s for a small s <= a.
inline BigNat sub_small(BigNat a, uint64_t s) {
  for (size_t i = 0; i < a.size() && s; ++i) {
    uint64_t before = a[i];
    a[i] -= s;
    s = before < s ? 1 : 0;
  }
  trim(a);
  return a;
}

// a / d for a small d; `exact` asserts that d | a (the callers divide p^k - 1 by 2, 3 or 6).
inline BigNat div_small(BigNat a, uint64_t d) {
  ff::u128 rem = 0;
  for (size_t i = a.size(); i-- > 0;) {
    ff::u128 cur = (rem << 64) | a[i];
    a[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  if (rem != 0) throw std::logic_error("tower: Frobenius exponent is not an integer");
  trim(a);
  return a;
}

// p^k as a BigNat.
template <class Fq>
BigNat modulus_power(unsigned k) {
  const auto& p = Fq::modulus();
  BigNat pv(p.begin(), p.end());
  trim(pv);
  BigNat r{1};
  for (unsigned i = 0; i < k; ++i) r = mul(r, pv);
  return r;
}

// (p^k - 1) / d.
template <class Fq>
BigNat frobenius_exponent(unsigned k, uint64_t d) {
  return div_small(sub_small(modulus_power<Fq>(k), 1), d);
}

// Left-to-right square-and-multiply by a BigNat exponent (any type with one/square/*).
template <class F>
F pow_big(const F& x, const BigNat& e) {
  F r = F::one();
  for (size_t i = 64 * e.size(); i-- > 0;) {
    r = r.square();
    if ((e[i / 64] >> (i % 64)) & 1) r = r * x;
  }
  return r;
}

// c * x for a compile-time constant c by a double-and-add chain (9x = 2(2(2x)) + x).
template <uint64_t C, class F>
F mul_small(const F& x) {
  if constexpr (C == 0) {
    return F::zero();
  } else if constexpr (C == 1) {
    return x;
  } else {
    F r = mul_small<C / 2>(x).dbl();
    if constexpr (C & 1) r = r + x;
    return r;
  }
}

}  // namespace detail

// xi = XiC0 + u over Fp2 = Fq[u]/(u^2 + 1).
template <class Fq, uint64_t XiC0>
struct TowerParams {
  using Base = Fq;
  using Fp2 = tower::Fp2<Fq>;
  static constexpr uint64_t kXiC0 = XiC0;

  static Fp2 xi() { return {Fq::from_u64(XiC0), Fq::one()}; }
  // (a0 + a1 u)(c + u) = (c a0 - a1) + (a0 + c a1) u, with c a small constant: additions only.
  static Fp2 mul_by_xi(const Fp2& a) {
    return {detail::mul_small<XiC0>(a.c0) - a.c1, a.c0 + detail::mul_small<XiC0>(a.c1)};
  }

  // The Frobenius constants of the tower, computed once on first use and cached:
  //   v^(p^k) = v * xi^((p^k - 1)/3),   w^(p^k) = w * xi^((p^k - 1)/6).
  // frob6_v[k] = xi^((p^k-1)/3), frob6_v2[k] = xi^(2(p^k-1)/3) for k = 0..5 (v, v^2 terms);
  // frob12_w[k] = xi^((p^k-1)/6) for k = 0..11 (the w term of Fp12).
  struct FrobeniusTables {
    Fp2 frob6_v[6], frob6_v2[6], frob12_w[12];
  };
  static const FrobeniusTables& frobenius_tables() {
    static const FrobeniusTables t = [] {
      FrobeniusTables r;
      r.frob6_v[0] = r.frob6_v2[0] = r.frob12_w[0] = Fp2::one();
      for (unsigned k = 1; k < 12; ++k) {
        r.frob12_w[k] = detail::pow_big(xi(), detail::frobenius_exponent<Fq>(k, 6));
        if (k < 6) {
          auto e3 = detail::frobenius_exponent<Fq>(k, 3);
          r.frob6_v[k] = detail::pow_big(xi(), e3);
          r.frob6_v2[k] = detail::pow_big(xi(), detail::mul(e3, {2}));
        }
      }
      return r;
    }();
    return t;
  }
};

using Bn254Tower = TowerParams<ff::Bn254Fq, 9>;
using Bls12381Tower = TowerParams<ff::Bls12381Fq, 1>;

}  // namespace zkmill::tower
