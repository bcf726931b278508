// SPDX-License-Identifier: MIT
// One affine point addition P1 + P2 on y^2 = x^3 + b whose inversion is done elsewhere (host or
// device): the batch-affine MSM rounds (cuda/msm/batch_affine.cuh) compute every pair's
// denominator, invert them all at once by Montgomery's trick, then finish each sum. Every case
// is exact, so a round needs no side path for the exceptional pairs:
//   O + Q = Q, P + O = P (O, the point at infinity, stored as (0, 0): on neither curve, b != 0);
//   P + (-P) = O;                         denominator 1 for these three;
//   P + P: lambda = 3 x1^2 / (2 y1)        (the tangent; y1 != 0 in a group of odd order);
//   else:  lambda = (y2 - y1) / (x2 - x1) (the chord);
//   then x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1 (3 products with the chord).
// Generic over the coordinate field (Fq for G1, Fq2 for G2); host-callable, so the host tests
// check it against the CPU's group law.
#pragma once

#include "cuda/ec/xyzz.hpp"

namespace zkmill::cuda::curve {

// A pair's kind, from the two points alone (so the up and down kernels agree).
enum class PairKind : uint8_t { kAdd, kDouble, kFirst, kSecond, kInfinity };

template <class A>
ZK_HD PairKind pair_kind(const A& p1, const A& p2) {
  if (p1.is_infinity()) return PairKind::kSecond;  // O + Q = Q (Q may be O too)
  if (p2.is_infinity()) return PairKind::kFirst;
  if (p1.x != p2.x) return PairKind::kAdd;
  return p1.y == p2.y ? PairKind::kDouble : PairKind::kInfinity;  // P + P, or P + (-P) = O
}

template <class A>
ZK_HD auto pair_denominator(const A& p1, const A& p2, PairKind k) {
  using F = decltype(p1.x);
  if (k == PairKind::kAdd) return p2.x - p1.x;
  if (k == PairKind::kDouble) return p1.y.dbl();
  return F::one();
}

// p1 + p2 given inv = 1 / pair_denominator(p1, p2).
template <class A>
ZK_HD A pair_sum(const A& p1, const A& p2, PairKind k, const decltype(p1.x)& inv) {
  using F = decltype(p1.x);
  switch (k) {
    case PairKind::kFirst:
      return p1;
    case PairKind::kSecond:
      return p2;
    case PairKind::kInfinity:
      return A::infinity();
    default:
      break;
  }
  F lambda;
  if (k == PairKind::kAdd) {
    lambda = (p2.y - p1.y) * inv;
  } else {
    const F xx = p1.x.sqr();
    lambda = (xx.dbl() + xx) * inv;
  }
  const F x3 = lambda.sqr() - p1.x - p2.x;  // p2.x == p1.x for the doubling
  return A{x3, lambda * (p1.x - x3) - p1.y};
}

}  // namespace zkmill::cuda::curve
