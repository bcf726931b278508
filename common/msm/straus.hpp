// SPDX-License-Identifier: MIT
// The MSM of a few points: Straus's interleaving ("Shamir's trick", E. G. Straus, "Addition
// chains of vectors", Amer. Math. Monthly 71, 1964) over GLV-decomposed scalars (ec/glv.hpp).
//
// Pippenger's bucket method pays, per window of c bits, one bucket reduction of about 2^c
// additions whatever the number of points m, and ceil(255 / c) windows: for m of a few dozen
// that fixed part dominates (at m = 8 about 80 windows of ~20 additions each, ~1,700 group
// operations). Here every scalar k_i = k_i1 + k_i2 lambda (|k_ij| < 2^127) is recoded in
// width-5 NAF and all 2m half-scalars share one chain of ~127 doublings, each adding its
// non-zero digits (one in six on average) from a table of odd multiples P, 3P, .., 15P of its
// point and their images phi(P) = (beta x, y); the m tables are made affine with one inversion
// (Montgomery's trick), so every addition of the chain is a mixed one. At m = 8: ~127
// doublings + ~350 mixed additions + the tables (~64 additions) ~ 550 operations, a third of
// the buckets'. Small MSMs are what every proof has (the public inputs' share of A, B1, B2, a
// tiny circuit's whole MSMs), so this is the prover's fixed cost per proof.
//
// Serial: the caller (pippenger) takes this path only for a few points, where the bucket
// method's parallel windows would not pay for their dispatch. Not constant time, like the
// bucket method (the digits steer the additions).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "common/ec/glv.hpp"

namespace zkmill::msm::detail {

// sum_j scalars[idx[j]] * bases[idx[j]] over the m listed points (none at infinity, no zero
// scalar), by interleaved width-5 NAF of the GLV halves.
template <class C>
ec::Jacobian<C> straus_glv(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                           std::span<const uint32_t> idx) {
  using J = ec::Jacobian<C>;
  using A = ec::Affine<C>;
  using ec::glv_detail::kWindow;
  constexpr size_t kTable = size_t(1) << (kWindow - 2);  // P, 3P, .., 15P
  const size_t m = idx.size();
  if (m == 0) return J::identity();
  // Odd multiples of every point, made affine together.
  std::vector<J> tab(m * kTable);
  for (size_t j = 0; j < m; ++j) {
    J* t = tab.data() + j * kTable;
    t[0] = J::from_affine(bases[idx[j]]);
    const J twice = t[0].dbl();
    for (size_t e = 1; e < kTable; ++e) t[e] = t[e - 1] + twice;
  }
  const std::vector<A> aff = ec::batch_normalize<C>(tab);
  // Each point's two digit strings with their tables: (-1)^neg1 P's multiples and phi of
  // (-1)^neg2 P's.
  struct Half {
    int8_t digits[130];
    size_t n = 0;
    const A* table = nullptr;
  };
  std::vector<A> phi_tab(m * kTable);
  std::vector<A> neg_tab(m * kTable);
  std::vector<Half> halves(2 * m);
  const auto& beta = ec::GlvEndomorphism<C>::beta();
  size_t top = 0;
  for (size_t j = 0; j < m; ++j) {
    const ec::GlvScalar s = ec::glv_decompose(scalars[idx[j]]);
    for (size_t e = 0; e < kTable; ++e) {
      const A& q = aff[j * kTable + e];
      neg_tab[j * kTable + e] = s.neg1 ? -q : q;
      phi_tab[j * kTable + e] = A::from_xy(ec::GlvEndomorphism<C>::scale_x(q.x, beta), s.neg2 ? -q.y : q.y);
    }
    Half& h1 = halves[2 * j];
    Half& h2 = halves[2 * j + 1];
    h1.n = ec::glv_detail::wnaf(s.k1, h1.digits);
    h1.table = neg_tab.data() + j * kTable;
    h2.n = ec::glv_detail::wnaf(s.k2, h2.digits);
    h2.table = phi_tab.data() + j * kTable;
    top = std::max({top, h1.n, h2.n});
  }
  J acc = J::identity();
  for (size_t b = top; b-- > 0;) {
    acc = acc.dbl();
    for (const Half& h : halves) {
      if (b >= h.n) continue;
      const int d = h.digits[b];
      if (d > 0)
        acc = acc.add_mixed(h.table[d >> 1]);
      else if (d < 0)
        acc = acc.add_mixed(-h.table[(-d) >> 1]);
    }
  }
  return acc;
}

}  // namespace zkmill::msm::detail

namespace zkmill::msm {

// sum_i scalars[i] * bases[i] by straus_glv, serially, on the calling thread: for sums of a few
// terms outside the prover, e.g. a verifier's commitment to the public inputs (one GLV chain
// for all inputs instead of a 254-bit double-and-add for each). Sizes must match.
template <class C>
ec::Jacobian<C> straus_msm(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars) {
  if (bases.size() != scalars.size()) throw std::invalid_argument("straus_msm: bases and scalars differ in count");
  std::vector<uint32_t> idx;
  idx.reserve(bases.size());
  for (size_t i = 0; i < bases.size(); ++i)
    if (!bases[i].infinity && !scalars[i].is_zero()) idx.push_back(uint32_t(i));
  return detail::straus_glv<C>(bases, scalars, idx);
}

}  // namespace zkmill::msm
