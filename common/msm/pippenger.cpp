// Window-size planning for the MSM, and the explicit instantiations for G1/G2 of both curves.
//
// The model. One window task over k points with 2^{c-1} buckets costs about
//   k A + 2^{c-1} R
// base-field multiplications, A per point (bucket addition) and R per bucket (running-sum
// reduction: one bucket addition into the running sum plus one full XYZZ addition into the
// total). Counting an S as an M:
//   XYZZ buckets:         A = 10 (madd-2008-s, 8M + 2S),  R = 28 (two add-2008-s, 12M + 2S each)
//   batch-affine buckets: A = 7  (chord 2M + 1S, Montgomery trick 3M, inversion share, deferrals)
//                         R = 24 (madd-2008-s + add-2008-s)
// With W = ceil((b + 1) / c) windows split into `chunks` point ranges, the W * chunks equal
// tasks run on T threads in ceil(W * chunks / T) rounds, so the wall time is modelled as
//   ceil(W chunks / T) (n / chunks A + 2^{c-1} R) + W (c D + 30)
// (the last term: the serial Horner combination, D = 7 for a Jacobian doubling, plus the
// conversion and chunk sums per window). The minimum over c in [1, 16] and chunks in [1, 4T]
// is taken. The classical estimate c ~ log2(n) - log2(log2(n)) (or ln n + 2) falls out of the
// first term for T = 1; the model also sees that with T = 2 an even window count avoids an idle
// half round. Measured optima (bench_msm, see the MSM report) match the model within one bit.
//
// Batch-affine needs enough points per task to amortise its inversions (one per batch) and
// enough buckets for collisions in a batch to stay rare, so kAuto only considers it for
// c >= kMinBatchAffineC and at least kMinBatchesPerTask full batches per task.
#include "common/msm/pippenger.hpp"

#include <algorithm>
#include <cmath>

#include "common/msm/pippenger_impl.hpp"

namespace zkmill::msm {

namespace {

constexpr double kXyzzAdd = 10, kXyzzBucket = 28;
constexpr double kAffineAdd = 7, kAffineBucket = 24;
constexpr double kDouble = 7, kPerWindow = 30;
constexpr unsigned kMinBatchAffineC = 10;
constexpr size_t kMinBatchesPerTask = 8;

double model(size_t n, size_t bits, size_t threads, unsigned c, unsigned chunks, Accumulation acc) {
  const double add = acc == Accumulation::kBatchAffine ? kAffineAdd : kXyzzAdd;
  const double bucket = acc == Accumulation::kBatchAffine ? kAffineBucket : kXyzzBucket;
  const unsigned W = num_windows(bits, c);
  const size_t rounds = (size_t(W) * chunks + threads - 1) / threads;
  const double per_task = double(n) / chunks * add + double(size_t(1) << (c - 1)) * bucket;
  return double(rounds) * per_task + double(W) * (c * kDouble + kPerWindow);
}

bool batch_affine_viable(size_t n, unsigned c, unsigned chunks) {
  return c >= kMinBatchAffineC && n / chunks >= kMinBatchesPerTask * detail::default_batch(c);
}

}  // namespace

double plan_cost(const WindowPlan& plan, size_t n, size_t scalar_bits, size_t threads) {
  return model(n, scalar_bits, std::max<size_t>(threads, 1), plan.c, plan.chunks, plan.accumulation);
}

WindowPlan plan_windows(size_t n, size_t scalar_bits, size_t threads, unsigned window_bits, Accumulation accumulation) {
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
        double cost = model(n, scalar_bits, threads, c, chunks, acc);
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
