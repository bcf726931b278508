// SPDX-License-Identifier: MIT
// The bucket-method MSM itself (declared in pippenger.hpp; instantiated in pippenger.cpp).
//
// For Q = sum_{i<n} s_i P_i with b-bit scalars and window c (Pippenger 1976; signed digits as in
// Bernstein et al., Ed25519, CHES 2011), write s_i = sum_{w<W} d_{i,w} 2^{cw} with
// |d_{i,w}| <= 2^{c-1} (signed_digits.hpp). Then
//   Q = sum_w 2^{cw} S_w,   S_w = sum_i d_{i,w} P_i,
// each window sum S_w comes from 2^{c-1} buckets (buckets.hpp), and the S_w are combined by
// Horner's rule, Q = (((S_{W-1}) 2^c + S_{W-2}) 2^c + ...) + S_0, i.e. c doublings per window.
// Cost about W (n A + 2^{c-1} R) field multiplications, A and R the per-point and per-bucket
// costs, minimised over c by plan_windows().
//
// Steps:
//  1. Classify (parallel over blocks of points): identity bases and zero scalars are dropped,
//     scalars 1 and -1 are added/subtracted into a per-block XYZZ accumulator (the common witness
//     values; sending them through the buckets would cost W additions each and would pile
//     every one of them into bucket 1 of window 0). The rest ("general") are counted per block.
//  2. Recode (parallel over blocks): each general scalar leaves Montgomery form once
//     (to_canonical) and is recoded into W signed digits, stored window-major
//     digits[w * m + j] for the j-th general point, with idx[j] its position in the input.
//  3. Window tasks (parallel): task (w, chunk) accumulates window w over one contiguous chunk of
//     the general points into its own buckets and reduces them to a partial window sum.
//     chunks > 1 only when the planner finds it pays (more threads than windows, or an odd
//     tail of windows).
//  4. Combine serially in a fixed order (chunks in order, windows by Horner), add the +-1
//     accumulators, convert to Jacobian. Every step is a deterministic function of the input
//     and the plan, so the result never depends on thread timing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/msm/buckets.hpp"
#include "common/msm/pippenger.hpp"
#include "common/msm/straus.hpp"

namespace zkmill::msm::detail {

// Default batch-affine batch K: the inversion (about 1.5 b field multiplications for a b-bit
// field) is shared by K additions, but a point meets a busy bucket with probability
// (pending additions) / (buckets), and collisions cost deferrals and XYZZ overflows. Measured
// (instruction counts, BN254 G1, n = 2^12..2^16): the best K is about half the bucket count up
// to c = 13 and flat from 1024 on; 2048 and more lose again (collisions, and the K-element
// scratch arrays leave L1/L2).
inline size_t default_batch(unsigned c) {
  size_t buckets = size_t(1) << (c - 1);
  return std::clamp<size_t>(buckets / 2, 64, 1024);
}

// Points up to which the MSM may take the Straus path (0. below), and general points up to
// which it always does.
inline constexpr size_t kStrausMaxPoints = 64, kStrausAlways = 16;

template <class C>
ec::Jacobian<C> pippenger(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                          util::ThreadPool& pool, const MsmConfig& cfg) {
  using Scalar = typename C::Scalar;
  using XYZZT = ec::XYZZ<C>;
  using JacobianT = ec::Jacobian<C>;

  if (bases.size() != scalars.size()) size_mismatch("bases != scalars", bases.size(), scalars.size());
  if (cfg.window_bits > kMaxWindowBits) throw std::invalid_argument("msm: window_bits above 16");
  const size_t n = bases.size();
  if (n == 0) return JacobianT::identity();
  if (n > std::numeric_limits<uint32_t>::max()) throw std::invalid_argument("msm: more than 2^32 - 1 points");

  // 0. A few points: one interleaved GLV chain (straus.hpp) instead of the buckets, whose fixed
  // per-window cost dominates there. Up to 16 general points always (even on many threads the
  // windows' dispatch costs more); up to 64 when there is no other thread to spread windows on
  // (a farm worker's proving thread). The same sum, so the choice never changes a result. A
  // configuration that fixes the buckets' parameters (tests, benchmarks) gets the buckets.
  const bool tuned = cfg.window_bits != 0 || cfg.accumulation != Accumulation::kAuto || cfg.batch_size != 0;
  if (n <= kStrausMaxPoints && !tuned) {
    const Scalar minus_one = -Scalar::one();
    const bool fast = cfg.small_scalar_fast_path;
    uint32_t general[kStrausMaxPoints];
    size_t m = 0;
    XYZZT units;
    for (size_t i = 0; i < n; ++i) {
      const Scalar& s = scalars[i];
      if (bases[i].infinity || s.is_zero()) continue;
      if (fast && s.is_one())
        units.add_mixed(bases[i], false);
      else if (fast && s == minus_one)
        units.add_mixed(bases[i], true);
      else
        general[m++] = uint32_t(i);
    }
    if (m <= kStrausAlways || pool.size() == 1)
      return straus_glv<C>(bases, scalars, std::span<const uint32_t>(general, m)) + units.to_jacobian();
  }

  // 1. Classify.
  constexpr size_t kBlock = 4096;
  const size_t nblocks = (n + kBlock - 1) / kBlock;
  const Scalar minus_one = -Scalar::one();
  const bool fast = cfg.small_scalar_fast_path;
  auto kind = [&](size_t i) -> int {  // 0: skip, 1: +1, 2: -1, 3: general
    const Scalar& s = scalars[i];
    if (bases[i].infinity || s.is_zero()) return 0;
    if (fast && s.is_one()) return 1;
    if (fast && s == minus_one) return 2;
    return 3;
  };
  std::vector<size_t> offset(nblocks + 1, 0);
  std::vector<XYZZT> unit_sum(nblocks);
  pool.run_tasks(nblocks, [&](size_t blk) {
    size_t count = 0;
    XYZZT acc;
    for (size_t i = blk * kBlock, e = std::min(n, i + kBlock); i < e; ++i) {
      switch (kind(i)) {
        case 1:
          acc.add_mixed(bases[i], false);
          break;
        case 2:
          acc.add_mixed(bases[i], true);
          break;
        case 3:
          ++count;
          break;
        default:
          break;
      }
    }
    offset[blk + 1] = count;
    unit_sum[blk] = acc;
  });
  for (size_t b = 0; b < nblocks; ++b) offset[b + 1] += offset[b];
  const size_t m = offset[nblocks];

  XYZZT units;
  for (const XYZZT& u : unit_sum) units += u;
  if (m == 0) return units.to_jacobian();

  // 2. Recode.
  const WindowPlan plan =
      plan_windows(m, Scalar::kBits, sizeof(typename C::Base), pool.size(), cfg.window_bits, cfg.accumulation);
  const unsigned c = plan.c, W = plan.windows, chunks = plan.chunks;
  std::vector<uint32_t> idx(m);
  std::vector<uint16_t> digits(size_t(W) * m);
  pool.run_tasks(nblocks, [&](size_t blk) {
    size_t o = offset[blk];
    if (o == offset[blk + 1]) return;
    for (size_t i = blk * kBlock, e = std::min(n, i + kBlock); i < e; ++i) {
      if (kind(i) != 3) continue;
      idx[o] = uint32_t(i);
      recode_signed(scalars[i].to_canonical(), c, W, &digits[o], m);
      ++o;
    }
  });

  // 3. Window tasks.
  const size_t batch = cfg.batch_size ? cfg.batch_size : default_batch(c);
  std::vector<XYZZT> partial(size_t(W) * chunks);
  pool.run_tasks(partial.size(), [&](size_t t) {
    size_t w = t / chunks, ch = t % chunks;
    WindowInput<C> in{bases.data(), idx.data(), digits.data() + w * m, m * ch / chunks, m * (ch + 1) / chunks};
    partial[t] = plan.accumulation == Accumulation::kBatchAffine ? window_sum_batch_affine(in, c, batch)
                                                                 : window_sum_xyzz(in, c);
  });

  // 4. Combine: Horner over the windows, in Jacobian (dbl-2009-l is cheaper than XYZZ doubling).
  JacobianT acc = JacobianT::identity();
  for (size_t w = W; w-- > 0;) {
    if (!acc.is_identity())
      for (unsigned k = 0; k < c; ++k) acc = acc.dbl();
    XYZZT s;
    for (size_t ch = 0; ch < chunks; ++ch) s += partial[w * chunks + ch];
    acc += s.to_jacobian();
  }
  return acc + units.to_jacobian();
}

// Explicit instantiation (EXTERN empty) or its extern declaration (EXTERN = extern) for group C.
#define ZKMILL_MSM_INSTANTIATE(EXTERN, C)                                                                           \
  EXTERN template ec::Jacobian<C> pippenger<C>(std::span<const ec::Affine<C>>, std::span<const typename C::Scalar>, \
                                               util::ThreadPool&, const MsmConfig&)

}  // namespace zkmill::msm::detail
