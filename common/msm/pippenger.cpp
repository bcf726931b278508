// Window-size planning for the MSM, and the explicit instantiations for G1/G2 of both curves.
//
// The model. One window task over k points with B = 2^{c-1} buckets costs about
//   k (1 - 2^-c) A + B R
// base-field multiplications ("units"; a squaring counts as one, and the additions, branches
// and loads of a formula are folded in), where 2^-c is the chance of a zero digit, A is the cost
// of one bucket addition and R that of one bucket in the running-sum reduction. R depends on the
// bucket occupancy occ = 1 - exp(-k / B): "sum += running" is a full XYZZ addition for every
// bucket, "running += bucket" only for non-empty ones. Fitted to instruction counts (cachegrind,
// single thread, BN254 G1, n = 2^12..2^16, c = 8..15; one unit = one Fq multiplication of the
// ff layer, ~390 instructions for BN254, ~920 for BLS12-381):
//   XYZZ buckets:         A = 12.6 (madd-2008-s: 8M + 2S + 6 additions), R = 12.5 (1 + occ)
//   batch-affine buckets: A = 7.6 + 400/K (chord 2M + 1S, Montgomery's trick 3M, and one ~1.5 b
//                         multiplication inversion per batch of K), R = 12.5 + 10 occ
// The fit is within 10% over that grid and has the same argmin c. With W = ceil((b + 1) / c)
// windows split into `chunks` point ranges, the W * chunks equal tasks run on T threads in
// ceil(W chunks / T) rounds, so the wall time is modelled as
//   ceil(W chunks / T) (task cost) + W (c D + 30)
// (the last term: the serial Horner combination, D = 7 for a Jacobian doubling, plus the
// conversion and chunk sums per window), minimised over c in [1, 16] and chunks in [1, 4T].
// The classical c ~ ln(n) + 2 is close for XYZZ but batch-affine, with its cheaper additions,
// prefers about one bit more at small n. With T = 2 the model also sees that an even window
// count avoids an idle half round.
//
// Measured (instructions, BN254 G1, one thread): batch-affine saves 17% at 2^12 (c = 10), 25%
// at 2^14 (c = 11) and 29% at 2^16 (c = 13) over XYZZ at its own best c; at c <= 9 the two are
// even (too many collisions per batch), so kAuto considers batch-affine only for
// c >= kMinBatchAffineC with at least kMinBatchesPerTask full batches per task.
#include "common/msm/pippenger.hpp"

#include <algorithm>
#include <cmath>

#include "common/msm/pippenger_impl.hpp"

namespace zkmill::msm {

namespace {

constexpr double kXyzzAdd = 12.6, kFullAdd = 12.5;
constexpr double kAffineAdd = 7.6, kInversion = 400, kAffineBucketAdd = 10;
constexpr double kDouble = 7, kPerWindow = 30;
constexpr unsigned kMinBatchAffineC = 10;
constexpr size_t kMinBatchesPerTask = 4;

double model(size_t n, size_t bits, size_t threads, unsigned c, unsigned chunks, Accumulation acc) {
  const bool affine = acc == Accumulation::kBatchAffine;
  const unsigned W = num_windows(bits, c);
  const double k = double(n) / chunks, buckets = double(size_t(1) << (c - 1));
  const double occ = 1 - std::exp(-k / buckets);
  const double add = affine ? kAffineAdd + kInversion / double(detail::default_batch(c)) : kXyzzAdd;
  const double bucket = kFullAdd + occ * (affine ? kAffineBucketAdd : kFullAdd);
  const double per_task = k * (1 - std::ldexp(1.0, -int(c))) * add + buckets * bucket;
  const size_t rounds = (size_t(W) * chunks + threads - 1) / threads;
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
