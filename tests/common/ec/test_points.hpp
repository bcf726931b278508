// SPDX-License-Identifier: MIT
// Test helpers: curve points in and out of the prime-order subgroup, and small-order points.
// Shared by test_ec and test_serde; cofactors are derived from the curve seeds.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <random>
#include <stdexcept>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/ec/subgroup.hpp"

namespace zkmill::test {

// A point of E with x = x0, x0 + 1, x0 + 2, ... the first x for which x^3 + b is a square
// (about half of them). The cofactor is NOT cleared, so for a group with a cofactor the
// point lies outside the prime-order subgroup with overwhelming probability.
template <class C>
ec::Affine<C> point_by_incrementing_x(typename C::Base x) {
  using Base = typename C::Base;
  for (int i = 0; i < 1000; ++i, x = x + Base::one()) {
    if (auto y = (x.square() * x + C::b()).sqrt()) return ec::Affine<C>::from_xy(x, *y);
  }
  throw std::runtime_error("no square in 1000 consecutive x");
}

template <class C, class Rng>
ec::Affine<C> random_curve_point(Rng& rng) {
  return point_by_incrementing_x<C>(C::Base::random(rng));
}

template <class C, class Rng>
ec::Affine<C> random_subgroup_point(Rng& rng) {
  return (ec::Jacobian<C>::generator() * C::Scalar::random(rng)).to_affine();
}

// sum c_i s^i for coefficients given from the top degree down (non-negative only).
template <size_t N>
ff::Limbs<N> poly_at(uint64_t s, std::initializer_list<uint64_t> coeffs_high_to_low) {
  ff::Limbs<N> acc{};
  for (uint64_t c : coeffs_high_to_low) acc = ec::subgroup_detail::add_small(ec::subgroup_detail::mul_small(acc, s), c);
  return acc;
}

// Cofactors h = #E / r of each group, derived from the curve seeds:
//   BLS12-381 G1: h1 = (x - 1)^2 / 3;
//   BLS12-381 G2: h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9
//                 (Budroni-Pintore, "Efficient hash maps to G2 on BLS curves", 2017);
//   BN254 G2:     h2 = #E'(Fq2) / r = p + t - 1 = 2p - r.
// With x = -a: 9 h2 = (a^8 + 4a^7 + 5a^6 + 4a + 13) - (4a^4 + 6a^3 + 4a^2).
inline ff::Limbs<8> bls12_381_g2_cofactor() {
  const uint64_t a = curves::Bls12381::kXAbs;
  ff::Limbs<8> pos = poly_at<8>(a, {1, 4, 5, 0, 0, 0, 0, 4, 13});
  ff::Limbs<8> neg = poly_at<8>(a, {4, 6, 4, 0, 0});
  ff::Limbs<8> d{};
  ff::sub_to(d, pos, neg);
  return ec::subgroup_detail::div_exact_small(d, 9);
}
inline ff::Limbs<4> bn254_g2_cofactor() {
  const auto& p = ff::MontConstants<ff::Bn254FqParams>::p;
  const auto& r = ff::MontConstants<ff::Bn254FrParams>::p;
  ff::Limbs<4> two_p{}, h{};
  ff::add_to(two_p, p, p);
  ff::sub_to(h, two_p, r);
  return h;
}

// A point of prime order q dividing the cofactor h. With h = q^e h' (q not dividing h'),
// [r h'] R lies in the q-Sylow subgroup; multiplying by q while the result stays non-zero
// ends on a point of order exactly q (the Sylow subgroup may be Z_q x Z_q, so [#E / q] R
// alone can vanish for every R). Verifies [q]T = O.
template <class C, size_t M, class Rng>
ec::Affine<C> torsion_point(uint64_t q, ff::Limbs<M> h, Rng& rng) {
  using J = ec::Jacobian<C>;
  int e = 0;
  for (;;) {
    ff::Limbs<M> quo{};
    ff::u128 rem = 0;
    for (size_t i = M; i-- > 0;) {
      ff::u128 cur = (rem << 64) | h[i];
      quo[i] = uint64_t(cur / q);
      rem = cur % q;
    }
    if (rem) break;
    h = quo;
    ++e;
  }
  if (e == 0) throw std::invalid_argument("q does not divide the cofactor");
  const ff::Limbs<1> ql{q};
  for (int i = 0; i < 64; ++i) {
    J t = J::from_affine(random_curve_point<C>(rng)).mul_limbs(C::Scalar::modulus()).mul_limbs(h);
    if (t.is_identity()) continue;
    for (J n = t.mul_limbs(ql); !n.is_identity(); n = n.mul_limbs(ql)) t = n;
    if (!t.mul_limbs(ql).is_identity()) throw std::logic_error("torsion point of wrong order");
    return t.to_affine();
  }
  throw std::runtime_error("no point of the requested order found");
}

// The four groups the typed point tests run over (G1 and G2 of both curves), and their fixture:
// a random generator seeded per suite, so a failure reproduces.
using AllGroups =
    ::testing::Types<curves::Bn254G1Params, curves::Bn254G2Params, curves::Bls12381G1Params, curves::Bls12381G2Params>;
template <class P, uint64_t kSeed>
class SeededGroupTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{kSeed};
};

}  // namespace zkmill::test
