// SPDX-License-Identifier: MIT
// The arithmetic of the GPU Pippenger MSM that does not depend on CUDA: window choice, signed
// digit recoding, the bucket-chunk search and the final combination of window sums. Shared by
// the kernels (cuda/msm/pippenger.cuh) and by a host model of the whole pipeline in the tests,
// which is how the algorithm is checked on machines without a GPU.
//
// Method (Pippenger 1976; the bucket method as in Bernstein et al., "Faster batch forgery
// identification", 2012): scalars are cut into W windows of c bits and recoded into signed
// digits d in [-2^(c-1), 2^(c-1)] (a digit above 2^(c-1) becomes d - 2^c and carries one into
// the next window), which halves the buckets: |d| selects one of B = 2^(c-1) buckets and the
// sign negates the point. Window w's sum is sum_b b * S_b; the result is sum_w 2^(cw) * that.
//
// Bucket-sum reduction: buckets of a window are cut into K groups of G consecutive buckets
// (|d| = gG + j, j = 1..G). Then sum_b b S_b = sum_g T_g + G * sum_g g R_g with R_g the group's
// plain sum and T_g = sum_j j S_{gG+j} (a running sum inside the group), and
// sum_g g R_g = sum_k 2^k (sum of R_g over the g whose bit k is set). Every one of those sums is
// a parallel reduction; only 1 + log2 K points per window come back to the host, which does the
// few dozen doublings that remain (a short serial tail is faster on one CPU core than on one
// GPU thread).
//
// Precomputed copies (fixed bases: a proving key's points never change): a point set P_i may be
// stored as t copies Q_{j,i} = 2^(c W' j) P_i, j < t, W' = ceil(W / t), laid out copy after copy
// (t * stride points). Window w = j W' + w' of scalar i then goes to point j * stride + i at
// window w': the MSM is an ordinary one over t * stride points with W' windows (W' bucket sets,
// W' reductions, W' windows to combine); the digits per scalar stay W. Everything after the
// digit step is unchanged, and t = 1 is the plain MSM.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/runtime/host_device.hpp"

namespace zkmill::cuda::pippenger {

struct MsmPlan {
  uint32_t n = 0;              // scalars (points per copy that carry a digit)
  int scalar_bits = 0;         // bit length of the scalar field's modulus
  int c = 0;                   // window width in bits
  int scalar_windows = 0;      // W = floor(bits / c) + 1 digits per scalar: the top one absorbs the last carry
  int copies = 1;              // t precomputed copies of the points (1: none)
  uint32_t stride = 0;         // points per copy (copy j of point i is point j * stride + i)
  int windows = 0;             // W' = ceil(W / t) windows with their own buckets, reduction and combination
  int bucket_bits = 0;         // c - 1
  uint32_t buckets = 0;        // B = 2^(c-1) buckets per window (|d| = 1 .. B)
  uint32_t total_buckets = 0;  // W' * B
  int key_bits = 0;            // sort key width: bucket_bits + bit_width(W) (zero digits sort last)
  int group_bits = 0;          // log2 G
  int group_count_bits = 0;    // log2 K, K = B / G
  uint32_t chunk = 0;          // first accumulation level: at most this many points per thread
  uint32_t chunk2 = 0;         // later levels: at most this many partial sums per thread

  ZK_HD uint32_t groups() const { return buckets >> group_bits; }
  ZK_HD uint64_t digits() const { return uint64_t(scalar_windows) * n; }
  ZK_HD uint32_t sentinel() const { return uint32_t(windows) << bucket_bits; }
  ZK_HD int sums_per_window() const { return 1 + group_count_bits; }
};

// Relative cost of window width c in field multiplications: W windows, each with n mixed
// additions (madd-2008-s: 10 multiplications) and about 2B general additions (14) for the
// bucket reduction. The sort is linear in W * n too and is folded into the first term.
inline double window_cost(uint64_t n, int bits, int c) {
  const double w = double(bits / c + 1);
  return w * (10.0 * double(n) + 28.0 * double(uint64_t(1) << (c - 1)));
}

// A precomputed point set: `copies` copies of `n` points made for window width c (copy j holds
// 2^(c * ceil(W / copies) * j) times the points; precompute_shift). copies = 1: plain points.
struct PointCopies {
  int copies = 1;
  int c = 0;
  uint32_t n = 0;
};

// W for width c, and the doublings between consecutive copies (c W').
inline int scalar_windows_for(int scalar_bits, int c) { return scalar_bits / c + 1; }
inline int copy_windows(int scalar_bits, int c, int copies) {
  const int w = scalar_windows_for(scalar_bits, c);
  return (w + copies - 1) / copies;
}
inline int precompute_shift(int scalar_bits, int c, int copies) {
  return copies <= 1 ? 0 : c * copy_windows(scalar_bits, c, copies);
}

constexpr int kMaxAutoWindow = 16;
// From this many windowed points on, the automatic width is kLargeWindow instead.
constexpr size_t kLargeWindowFrom = size_t(1) << 26;
constexpr int kLargeWindow = 20;

// `c_override` = 0 picks c by window_cost (at most kMaxAutoWindow; kLargeWindow from
// kLargeWindowFrom points); otherwise it is used as
// given (tests force small windows to make buckets large). n must be below 2^31: the sign
// shares the point index word.
//
// With precomputed copies (pc.copies > 1) the width is theirs (c_override is ignored), the
// copies must number at most W (the caller clamps: precompute_copies) and t * pc.n must stay
// below 2^31 (the sign shares the point index word); n (the scalars) must be at most pc.n.
inline MsmPlan make_plan(size_t n, int scalar_bits, int c_override = 0, const PointCopies& pc = {}) {
  if (n >= (size_t(1) << 31)) throw std::invalid_argument("GPU MSM: at most 2^31 - 1 points per call");
  const bool pre = pc.copies > 1;
  if (pre) {
    c_override = pc.c;
    if (pc.c < 2 || pc.c > 22)
      throw std::invalid_argument("GPU MSM: precomputed copies for window bits " + std::to_string(pc.c) +
                                  ", outside [2, 22]");
    if (pc.copies > scalar_windows_for(scalar_bits, pc.c))
      throw std::invalid_argument("GPU MSM: " + std::to_string(pc.copies) + " precomputed copies for " +
                                  std::to_string(scalar_windows_for(scalar_bits, pc.c)) + " windows");
    if (uint64_t(pc.copies) * pc.n >= (uint64_t(1) << 31))
      throw std::invalid_argument("GPU MSM: " + std::to_string(pc.copies) + " precomputed copies of " +
                                  std::to_string(pc.n) + " points are 2^31 or more points (the limit of one call)");
    if (n > pc.n)
      throw std::invalid_argument("GPU MSM: " + std::to_string(n) + " scalars for " + std::to_string(pc.n) +
                                  " precomputed points");
  }
  if (c_override != 0 && (c_override < 2 || c_override > 22))
    throw std::invalid_argument("GPU MSM: window bits must be in [2, 22], got " + std::to_string(c_override));
  MsmPlan p;
  p.n = uint32_t(n);
  p.scalar_bits = scalar_bits;
  if (c_override) {
    p.c = c_override;
  } else if (n >= kLargeWindowFrom) {
    // From 2^26 points on, c = 20 (H200, 2026-12-02, docs/benchmarks.md "window width 20 from
    // 2^26 points"): with 2^7..2^8 points per bucket the imbalance that made c > 16 lose at
    // 2^22..2^24 is gone, and W = 13 instead of 16 cuts the additions and the sort by 19%. G1
    // c = 16 -> 20 at 2^27: BN254 498 -> 443 ms, BLS12-381 1119 -> 979; at 2^26: 252 -> 240, 559
    // -> 518; at 2^25 c = 16 was still best (128 vs 140, 281 vs 284). Above 2^27 not measured.
    p.c = kLargeWindow;
  } else {
    // Automatic widths stop at 16. Measured on the H200 (cuda/bench/NOTES.md, 2026-11-30): the
    // cost model's c = 17..20 at 2^22..2^24 ran 10-25% slower than c = 16 on both curves,
    // because with 32-64 points per bucket the per-bucket chunks vary in length (warp imbalance
    // in the accumulation) and the bucket reduction grows 16x; the model counts neither.
    p.c = 2;
    for (int c = 3; c <= kMaxAutoWindow; ++c)
      if (window_cost(n, scalar_bits, c) < window_cost(n, scalar_bits, p.c)) p.c = c;
  }
  p.scalar_windows = scalar_windows_for(scalar_bits, p.c);
  p.copies = pre ? pc.copies : 1;
  p.stride = pre ? pc.n : uint32_t(n);
  p.windows = copy_windows(scalar_bits, p.c, p.copies);
  p.bucket_bits = p.c - 1;
  p.buckets = uint32_t(1) << p.bucket_bits;
  p.total_buckets = uint32_t(p.windows) * p.buckets;
  p.key_bits = p.bucket_bits + int(std::bit_width(uint32_t(p.windows)));
  if (p.digits() >= (uint64_t(1) << 32)) throw std::invalid_argument("GPU MSM: too many points for one call");
  // About 2^16 group threads in all keeps the GPU busy without long serial running sums.
  int kb = 0;
  while (kb < p.bucket_bits && (uint64_t(p.windows) << (kb + 1)) <= (uint64_t(1) << 16)) ++kb;
  p.group_count_bits = kb;
  p.group_bits = p.bucket_bits - kb;
  // One accumulation thread per chunk of at most 64 points: short enough that the last wave
  // of threads is not a long tail, long enough that partial sums stay few.
  p.chunk = 64;
  p.chunk2 = 16;
  return p;
}

// Bits [off, off + c) of a little-endian multi-limb integer (c <= 22, off + c may pass the top).
template <int N>
ZK_HD uint32_t extract_bits(const uint32_t (&s)[N], int off, int c) {
  const int limb = off >> 5, sh = off & 31;
  uint32_t v = limb < N ? s[limb] >> sh : 0u;
  if (sh != 0 && sh + c > 32 && limb + 1 < N) v |= s[limb + 1] << (32 - sh);
  return v & ((uint32_t(1) << c) - 1);
}

// Signed recoding of window w, given the carry from window w-1 (updated in place).
// Returns |d| in [0, 2^(c-1)] and sets `neg` when d < 0.
template <int N>
ZK_HD uint32_t signed_digit(const uint32_t (&s)[N], int w, int c, uint32_t& carry, bool& neg) {
  const uint32_t raw = extract_bits(s, w * c, c) + carry;
  const uint32_t half = uint32_t(1) << (c - 1);
  if (raw > half) {
    carry = 1;
    neg = true;
    return (uint32_t(1) << c) - raw;
  }
  carry = 0;
  neg = false;
  return raw;
}

// Width for precomputed copies of n points, t of them asked for (t = 1: the plain choice):
// kPrecomputeLargeWindow from kPrecomputeLargeFrom points, else window_cost with the reduction
// paid W' = ceil(W / t) times instead of W, up to kMaxAutoWindow. Measured on the H200 with t = W
// (cuda/bench/NOTES.md, "Precomputed copies"): at 2^24 c = 20 beat 16 and 22 on both curves (the
// accumulation -13..-17% against plain c = 16); at 2^20 and 2^22 c = 16 beat 20 and 22 (buckets
// of 26-104 points: XYZZ, no batch-affine rounds to gain from).
constexpr size_t kPrecomputeLargeFrom = size_t(1) << 24;
constexpr int kPrecomputeLargeWindow = 20;
inline int precompute_window(size_t n, int scalar_bits, int t) {
  if (t <= 1) return make_plan(n, scalar_bits).c;
  if (n >= kPrecomputeLargeFrom) return kPrecomputeLargeWindow;
  auto cost = [&](int c) {
    return 10.0 * double(scalar_windows_for(scalar_bits, c)) * double(n) +
           28.0 * double(copy_windows(scalar_bits, c, t)) * double(uint64_t(1) << (c - 1));
  };
  int best = 2;
  for (int c = 3; c <= kMaxAutoWindow; ++c)
    if (cost(c) < cost(best)) best = c;
  return best;
}

// The copies actually made for t asked at width c: the fewest that give the windows t gives,
// W' = ceil(W / t), i.e. ceil(W / W') (at most W: t >= W is one window; 13 windows and t = 11
// is W' = 2, which 7 copies give), at least 1.
inline int precompute_copies(int scalar_bits, int c, int t) {
  if (t <= 1) return 1;
  const int wp = copy_windows(scalar_bits, c, t);
  return (scalar_windows_for(scalar_bits, c) + wp - 1) / wp;
}

// The copies of n points for t asked: width c when given (non-zero), else the one chosen for
// copies (precompute_window); the fewest copies that give t's windows. t <= 1: plain points.
inline PointCopies copies_for(size_t n, int scalar_bits, int t, int c = 0) {
  PointCopies pc;
  if (t <= 1) return pc;
  pc.c = c != 0 ? c : precompute_window(n, scalar_bits, t);
  pc.copies = precompute_copies(scalar_bits, pc.c, t);
  pc.n = uint32_t(std::min<size_t>(n, UINT32_MAX));
  return pc;
}

// Scalar window w (of W) to (copy j, window w' of W') under plan p.
ZK_HD void copy_of_window(const MsmPlan& p, int w, int& j, int& wp) {
  j = w / p.windows;
  wp = w - j * p.windows;
}

// The sort key and value of one digit: key = w * B + (|d| - 1), or the sentinel for d = 0;
// value = point index with the sign in bit 31.
ZK_HD void digit_key(const MsmPlan& p, int w, uint32_t mag, bool neg, uint32_t index, uint32_t& key, uint32_t& val) {
  key = mag == 0 ? p.sentinel() : ((uint32_t(w) << p.bucket_bits) | (mag - 1));
  val = index | (neg ? 0x80000000u : 0u);
}

// The largest b in [0, count) with off[b] <= j, for a non-decreasing off[] with off[0] = 0:
// which bucket owns chunk j when off[] is the exclusive scan of per-bucket chunk counts. A
// caller that knows the answer is >= lo (with off[lo] <= j) passes it to search only above it.
ZK_HD uint32_t owner_of(const uint32_t* off, uint32_t count, uint32_t j, uint32_t lo = 0) {
  uint32_t hi = count;  // invariant: off[lo] <= j, and hi is past the answer
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (off[mid] <= j)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// Host: the MSM from the per-window sums the device returns, `sums` holding for each window w
// (sums_per_window() entries) first sum_g T_g, then for k = 0 .. log2 K - 1 the sum of R_g over
// g with bit k set. Horner over windows: 2^c * (...) + window_sum.
template <class Jac>
Jac combine_windows(const MsmPlan& p, const Jac* sums) {
  Jac res = Jac::identity();
  for (int w = p.windows - 1; w >= 0; --w) {
    if (w != p.windows - 1)
      for (int i = 0; i < p.c; ++i) res = res.dbl();
    const Jac* s = sums + size_t(w) * size_t(p.sums_per_window());
    Jac acc = Jac::identity();
    for (int k = p.group_count_bits - 1; k >= 0; --k) acc = acc.dbl() + s[1 + k];
    for (int i = 0; i < p.group_bits; ++i) acc = acc.dbl();
    res += acc + s[0];
  }
  return res;
}

}  // namespace zkmill::cuda::pippenger
