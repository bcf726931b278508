// SPDX-License-Identifier: MIT
// Window-size planning for the MSM, and the explicit instantiations for G1/G2 of both curves.
//
// The model. One window task over k points with B = 2^{c-1} buckets costs about
//   k (1 - 2^-c) A + B R
// in "units" of one base-field multiplication of the ff layer (squarings count as one; the
// additions, branches and loads of a formula are folded in), where 2^-c is the chance of a zero
// digit, A is the cost of one bucket addition and R that of one bucket in the running-sum
// reduction. R depends on the bucket occupancy occ = 1 - exp(-k / B): "sum += running" is a full
// XYZZ addition for every bucket, "running += bucket" only for non-empty ones.
//   XYZZ buckets:         A = 12.6 (madd-2008-s: 8M + 2S + 6 additions), R = 12.5 (1 + occ)
//   batch-affine buckets: A = 10.4 + 400/K (chord 2M + 1S, Montgomery's trick 3M, and one
//                         ~1.5 b-multiplication inversion per batch of K), R = 12.5 + 10 occ
// The XYZZ constants and R were fitted to instruction counts (cachegrind, one thread, BN254 G1,
// n = 2^12..2^16, c = 8..15, portable C++ field; the fit is within 10% and has the same argmin
// c). Re-counted with the MULX/ADX field (a multiplication drops from ~390 to ~160
// instructions, additions do not, so A and R grow by ~15% in units): same argmins (c = 10, 11-12
// and 13 at 2^12, 2^14, 2^16) and batch-affine still 12%, 18% and 22% fewer instructions than
// XYZZ there. By instruction count a batch-affine addition is ~7.6 units (-40%, portable
// field), but its wall time is not: on the Xeon used for the MSM report it saves 0-25% at
// n = 2^16, c = 13 (runs vary by +-15% there) and nothing at 2^12, so A is calibrated to those
// timings, conservatively (presumably the serial prefix-product
// chain of the batch inversion runs at multiplication latency while madds into different buckets
// overlap; neither machine exposes hardware counters to confirm it).
// With W = ceil((b + 1) / c) windows split into `chunks` point ranges, the W * chunks equal
// tasks run on T threads in ceil(W chunks / T) rounds, so the wall time is modelled as
//   ceil(W chunks / T) (task cost) + W (c D + 30)
// (the last term: the serial Horner combination, D = 7 for a Jacobian doubling, plus the
// conversion and chunk sums per window), minimised over c in [1, 16] and chunks in [1, 4T].
// Cache: once a task's bucket array outgrows about one L2 (1 MiB), every point addition pays
// kCachePenalty units per doubling of the array (a random bucket access misses). Without this
// term the model would take c = 16 from 2^16 points on, which measured 28% (BN254) and 92%
// (BLS12-381) slower than c = 13 at 2^16.
// For T = 1 and XYZZ the argmin tracks the classical c ~ ln(n) + 2 within one bit; with T = 2
// the model also sees that an even window count avoids an idle half round.
//
// kAuto considers batch-affine only for c >= kMinBatchAffineC (below that a batch collides too
// often: at c <= 9 it measured slower than XYZZ) and with at least kMinBatchesPerTask full
// batches per task.
#include "common/msm/pippenger.hpp"

#include <algorithm>
#include <cmath>

#include "common/msm/pippenger_impl.hpp"

namespace zkmill::msm {

namespace {

constexpr double kXyzzAdd = 12.6, kFullAdd = 12.5;
constexpr double kAffineAdd = 10.4, kInversion = 400, kAffineBucketAdd = 10;
constexpr double kDouble = 7, kPerWindow = 30;
constexpr double kCachePenalty = 2.5;    // units per point per doubling of the bucket array
constexpr double kCacheBytes = 1 << 20;  // beyond about one L2 of buckets, misses show
constexpr unsigned kMinBatchAffineC = 10;
constexpr size_t kMinBatchesPerTask = 4;

double model(size_t n, size_t bits, size_t coord_bytes, size_t threads, unsigned c, unsigned chunks, Accumulation acc) {
  const bool affine = acc == Accumulation::kBatchAffine;
  const unsigned W = num_windows(bits, c);
  const double k = double(n) / chunks, buckets = double(size_t(1) << (c - 1));
  const double occ = 1 - std::exp(-k / buckets);
  // An affine bucket is (x, y, flag) plus a 4-byte batch stamp; an XYZZ bucket is 4 coordinates.
  const double bucket_bytes = buckets * (affine ? 2.0 * double(coord_bytes) + 12 : 4.0 * double(coord_bytes));
  const double cache = kCachePenalty * std::max(0.0, std::log2(bucket_bytes / kCacheBytes));
  const double add = (affine ? kAffineAdd + kInversion / double(detail::default_batch(c)) : kXyzzAdd) + cache;
  const double bucket = kFullAdd + occ * (affine ? kAffineBucketAdd : kFullAdd);
  const double per_task = k * (1 - std::ldexp(1.0, -int(c))) * add + buckets * bucket;
  const size_t rounds = (size_t(W) * chunks + threads - 1) / threads;
  return double(rounds) * per_task + double(W) * (c * kDouble + kPerWindow);
}

bool batch_affine_viable(size_t n, unsigned c, unsigned chunks) {
  return c >= kMinBatchAffineC && n / chunks >= kMinBatchesPerTask * detail::default_batch(c);
}

}  // namespace

double plan_cost(const WindowPlan& plan, size_t n, size_t scalar_bits, size_t coord_bytes, size_t threads) {
  return model(n, scalar_bits, coord_bytes, std::max<size_t>(threads, 1), plan.c, plan.chunks, plan.accumulation);
}

WindowPlan plan_windows(size_t n, size_t scalar_bits, size_t coord_bytes, size_t threads, unsigned window_bits,
                        Accumulation accumulation) {
  threads = std::max<size_t>(threads, 1);
  const unsigned c_lo = window_bits ? window_bits : 1;
  const unsigned c_hi = window_bits ? window_bits : kMaxWindowBits;
  const unsigned max_chunks = unsigned(std::clamp<size_t>(std::min(4 * threads, n), 1, 1024));
  WindowPlan best;
  double best_cost = HUGE_VAL;
  for (unsigned c = c_lo; c <= c_hi; ++c) {
    for (unsigned chunks = 1; chunks <= max_chunks; ++chunks) {
      for (Accumulation acc : {Accumulation::kXyzz, Accumulation::kBatchAffine}) {
        if (accumulation != Accumulation::kAuto && acc != accumulation) continue;
        if (accumulation == Accumulation::kAuto && acc == Accumulation::kBatchAffine &&
            !batch_affine_viable(n, c, chunks))
          continue;
        double cost = model(n, scalar_bits, coord_bytes, threads, c, chunks, acc);
        if (cost < best_cost) {
          best_cost = cost;
          best = {c, num_windows(scalar_bits, c), chunks, acc};
        }
      }
    }
  }
  return best;
}

namespace detail {
ZKMILL_MSM_INSTANTIATE(, curves::Bn254G1Params);
ZKMILL_MSM_INSTANTIATE(, curves::Bn254G2Params);
ZKMILL_MSM_INSTANTIATE(, curves::Bls12381G1Params);
ZKMILL_MSM_INSTANTIATE(, curves::Bls12381G2Params);
}  // namespace detail

}  // namespace zkmill::msm
