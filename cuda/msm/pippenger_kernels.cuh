// SPDX-License-Identifier: MIT
// GPU Pippenger MSM, the kernels of steps 0-4 of pippenger_impl.cuh's pipeline (classify,
// digits, bounds, XYZZ accumulation) and the key's one-off conversions (image to affine,
// precomputed copies); the engine that sequences them is pippenger_impl.cuh, the batch-affine
// rounds batch_affine.cuh, the window reduction pippenger_reduce.cuh. CUDA-only; included only
// through pippenger_impl.cuh.
#pragma once

#include <cstdint>

#include "cuda/ec/xyzz_out_of_line.cuh"
#include "cuda/msm/batch_affine.cuh"
#include "cuda/msm/pippenger.cuh"

namespace zkmill::cuda::pippenger {

// CPU-layout points (HostAffineImage) to the compact affine layout the kernels read; the CPU's
// infinity flag becomes the (0, 0) encoding. Works for any coordinate field (Fq or Fq2) through
// its word count.
template <class G>
__global__ void image_to_affine_kernel(const typename G::HostImage* in, typename G::Affine* out, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using F = typename G::Fq;
  const typename G::HostImage& a = in[i];
  out[i] = a.infinity ? G::Affine::infinity() : typename G::Affine{F::from_words(a.x), F::from_words(a.y)};
}

// Precomputed copies, in place: pts[0, n) holds the points; copy j (pts[j n, (j + 1) n)) becomes
// 2^(shift j) times them, by XYZZ doublings and one inversion per copy (Fermat; a per-point
// inversion is about 1.5 x the c W' doublings it follows, and this runs once per resident key).
// Both out of line (cuda/ec/xyzz_out_of_line.cuh): inlined, this kernel alone added 50 CPU s to
// the BLS12-381 G2 unit's compile (PTX only, 137 -> 187 s).
template <class G>
__global__ void precompute_copies_kernel(typename G::Affine* pts, uint32_t n, int copies, int shift) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const typename G::Affine p = pts[i];
  if (p.is_infinity()) {
    for (int j = 1; j < copies; ++j) pts[size_t(j) * n + i] = p;
    return;
  }
  typename G::Bucket q = G::Bucket::from_affine(p.x, p.y);
  ZK_NO_UNROLL
  for (int j = 1; j < copies; ++j) {
    ZK_NO_UNROLL
    for (int k = 0; k < shift; ++k) q = curve::dbl_out_of_line(q);
    // The subgroup has odd prime order, so a multiple of a finite point is never infinity.
    pts[size_t(j) * n + i] = curve::affine_out_of_line(q);
  }
}

// Bit-aware split: idx_other[i] = idx_one[i] = i, with flags saying which list keeps i (scalars
// are fully reduced Montgomery words, so 0 and 1 are recognised without a multiplication; the
// lists are then compacted in place by cub::DeviceSelect::Flagged, preserving order).
template <class Fr>
__global__ void classify_kernel(const Fr* scalars, uint32_t n, uint32_t* idx_other, uint8_t* is_other,
                                uint32_t* idx_one, uint8_t* is_one) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Fr s = scalars[i];
  const bool one = s == Fr::one();
  idx_other[i] = i;
  idx_one[i] = i;
  is_other[i] = !one && !s.is_zero();
  is_one[i] = one;
}

// Digits of the scalars listed in idx (the non-0/1 ones); values carry the original index, in
// the copy that holds the digit's window when the points are precomputed (plan.copies > 1).
template <class Fr>
__global__ void digits_kernel(const Fr* scalars, const uint32_t* idx, MsmPlan plan, uint32_t* keys, uint32_t* vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= plan.n) return;
  const uint32_t src = idx[i];
  const Fr s = scalars[src].to_canonical();
  uint32_t carry = 0;
  for (int w = 0; w < plan.scalar_windows; ++w) {
    bool neg = false;
    const uint32_t mag = signed_digit(s.v, w, plan.c, carry, neg);
    int j = 0, wp = 0;
    copy_of_window(plan, w, j, wp);
    uint32_t key = 0, val = 0;
    digit_key(plan, wp, mag, neg, src + uint32_t(j) * plan.stride, key, val);
    const size_t at = size_t(w) * plan.n + i;
    keys[at] = key;
    vals[at] = val;
  }
}

// start[b] / end[b] of bucket b's run in the sorted keys (both pre-zeroed: empty = [0, 0)).
static __global__ void bucket_bounds_kernel(const uint32_t* keys, uint32_t total, uint32_t nb, uint32_t* start,
                                            uint32_t* end) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= total) return;
  const uint32_t key = keys[k];
  if (key >= nb) return;  // zero digits (sentinel)
  if (k == 0 || keys[k - 1] != key) start[key] = k;
  if (k + 1 == total || keys[k + 1] != key) end[key] = k + 1;
}

static __global__ void end_to_count_kernel(const uint32_t* start, uint32_t* end_count, uint32_t nb) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nb) end_count[b] -= start[b];
}

// nch[b] = ceil(count[b] / chunk) for b < nb, nch[nb] = 0 (so the exclusive scan's last entry
// is the total number of chunks).
static __global__ void chunk_counts_kernel(const uint32_t* count, uint32_t nb, uint32_t chunk, uint32_t* nch) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > nb) return;
  nch[b] = b < nb ? (count[b] + chunk - 1) / chunk : 0u;
}

// Level 1: thread j sums chunk j of its bucket's points (signed, affine) into an XYZZ partial;
// with vals == nullptr the points are read in order (an array of batch-affine sums).
template <class G>
__global__ void __launch_bounds__(kAccThreads)
    accumulate_points_kernel(const uint32_t* in_start, const uint32_t* in_count, const uint32_t* out_off, uint32_t nb,
                             uint32_t chunk, uint32_t max_chunks, const uint32_t* vals,
                             const typename G::Affine* points, typename G::Bucket* out) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= max_chunks || j >= out_off[nb]) return;
  const uint32_t b = owner_of(out_off, nb, j);
  const uint32_t first = in_start[b] + (j - out_off[b]) * chunk;
  const uint32_t stop = min(first + chunk, in_start[b] + in_count[b]);
  typename G::Bucket acc = G::Bucket::infinity();
  for (uint32_t q = first; q < stop; ++q) {
    const typename G::Affine p = round_input<G>(vals, points, q);  // vals == nullptr: points[q]
    if (!p.is_infinity()) acc.add_affine(p.x, p.y);                // the point at infinity contributes nothing
  }
  out[j] = acc;
}

// Later levels: thread j sums chunk j of its bucket's contiguous XYZZ partials.
template <class G>
__global__ void __launch_bounds__(kAccThreads)
    accumulate_partials_kernel(const uint32_t* in_start, const uint32_t* in_count, const uint32_t* out_off, uint32_t nb,
                               uint32_t chunk, uint32_t max_chunks, const typename G::Bucket* in,
                               typename G::Bucket* out) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= max_chunks || j >= out_off[nb]) return;
  const uint32_t b = owner_of(out_off, nb, j);
  const uint32_t first = in_start[b] + (j - out_off[b]) * chunk;
  const uint32_t stop = min(first + chunk, in_start[b] + in_count[b]);
  typename G::Bucket acc = in[first];
  for (uint32_t q = first + 1; q < stop; ++q) acc.add(in[q]);
  out[j] = acc;
}

// Dense bucket array from the last level (every count is 0 or 1 there).
template <class G>
__global__ void gather_buckets_kernel(const uint32_t* start, const uint32_t* count, uint32_t nb,
                                      const typename G::Bucket* partials, typename G::Bucket* buckets) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nb) return;
  buckets[b] = count[b] ? partials[start[b]] : G::Bucket::infinity();
}

}  // namespace zkmill::cuda::pippenger
