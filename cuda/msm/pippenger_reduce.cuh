// SPDX-License-Identifier: MIT
// Step 5 of the GPU Pippenger MSM (pippenger_impl.cuh), the window reduction: its two kernels and
// Engine::reduce_windows; CUDA-only. A header of its own so that a group's engine can be
// instantiated in two translation units that compile in parallel: over Fq2 (G2) these kernels
// hold most of the engine's point additions (each a few thousand fully unrolled Fq products),
// so msm_g2_<curve>_reduce.cu instantiates reduce_windows alone and msm_g2_<curve>.cu the rest.
// The G1 units, small enough either way, include both headers. The reduction's additions are out
// of line (cuda/ec/xyzz_out_of_line.cuh says why): it runs (2^c / G) (G + log2 K) additions per
// window, not one per point, so a call per addition is noise beside the accumulation.
#pragma once

#include <algorithm>

#include "cuda/ec/xyzz_out_of_line.cuh"
#include "cuda/msm/pippenger.cuh"

namespace zkmill::cuda::pippenger {

// Thread (w, g): running sums over the G buckets of group g, top down: R_g = sum S, T_g = sum j S.
template <class G>
__global__ void __launch_bounds__(kAccThreads) bucket_groups_kernel(const typename G::Bucket* buckets, MsmPlan plan,
                                                                    typename G::Bucket* tri, typename G::Bucket* run) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t k = plan.groups();
  if (t >= uint32_t(plan.windows) * k) return;
  const uint32_t w = t / k, g = t % k;
  const uint32_t gsize = uint32_t(1) << plan.group_bits;
  const typename G::Bucket* base = buckets + size_t(w) * plan.buckets + size_t(g) * gsize;
  typename G::Bucket r = G::Bucket::infinity(), s = G::Bucket::infinity();
  for (uint32_t j = gsize; j-- > 0;) {
    curve::add_out_of_line(r, base[j]);
    curve::add_out_of_line(s, r);
  }
  tri[t] = s;
  run[t] = r;
}

// Blocks (w, o, s), s < split: o = 0 sums T_g over the groups of window w; o = 1 + k sums R_g
// over the groups whose index has bit k set; each of the `split` blocks of an output takes every
// split-th stretch of kReduceThreads groups. Strided per-thread sums, then a tree in shared
// memory; the block's sum goes to sums[blockIdx.x] (split > 1: partials, summed by a second
// launch of this kernel over a plan of one group per partial).
template <class G>
__global__ void __launch_bounds__(kReduceThreads)
    window_sums_kernel(const typename G::Bucket* tri, const typename G::Bucket* run, MsmPlan plan, uint32_t split,
                       typename G::Bucket* sums) {
  using B = typename G::Bucket;
  __shared__ B sm[kReduceThreads];
  const int per = plan.sums_per_window();
  const uint32_t out = blockIdx.x / split, part = blockIdx.x % split;
  const uint32_t w = out / per;
  const int o = int(out % per);
  const uint32_t k = plan.groups();
  B acc = B::infinity();
  for (uint32_t g = part * kReduceThreads + threadIdx.x; g < k; g += split * kReduceThreads) {
    if (o == 0)
      curve::add_out_of_line(acc, tri[size_t(w) * k + g]);
    else if ((g >> (o - 1)) & 1u)
      curve::add_out_of_line(acc, run[size_t(w) * k + g]);
  }
  sm[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = kReduceThreads / 2; stride > 0; stride >>= 1) {
    if (int(threadIdx.x) < stride) {
      B a = sm[threadIdx.x];
      curve::add_out_of_line(a, sm[threadIdx.x + stride]);
      sm[threadIdx.x] = a;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = sm[0];
}

// Per window: group running sums, then 1 + log2 K points per window into sums_[0 .. nsums).
// With few windows (precomputed copies: W' = 1 or 2) there are only nsums = W' (1 + log2 K)
// outputs of up to 2^16 groups each: one block per output left 17 blocks of the card's 132 SMs
// busy, each thread summing ~500 groups in a row (5 ms of a 60 ms BN254 2^24 MSM at W' = 1,
// c = 20; 19 of 140 ms at BLS12-381). Each output is then cut over `split` blocks (about 256
// blocks in all) whose partials a second launch sums; with the plain W (>= 12 windows at the
// automatic widths) split stays 1, the launch as before.
template <class G>
void Engine<G>::reduce_windows(uint32_t nsums) {
  const MsmPlan& p = s_->plan;
  const uint32_t groups = uint32_t(p.windows) * p.groups();
  tri_.reserve(groups, "MSM group sums");
  run_.reserve(groups, "MSM group sums");
  bucket_groups_kernel<G>
      <<<blocks_for(groups, kAccThreads), kAccThreads, 0, stream_>>>(buckets_.get(), p, tri_.get(), run_.get());
  ZK_CUDA_OK_LAUNCH();
  constexpr uint32_t kBlocks = 256;
  const uint32_t split =
      std::max(1u, std::min(kBlocks / std::max(nsums, 1u), (p.groups() + kReduceThreads - 1) / kReduceThreads));
  if (split == 1) {
    window_sums_kernel<G><<<nsums, kReduceThreads, 0, stream_>>>(tri_.get(), run_.get(), p, 1, sums_.get());
    ZK_CUDA_OK_LAUNCH();
    return;
  }
  // The partials (ones_[1]: free once the 1-scalar sum is queued) as nsums "windows" of `split`
  // groups of one bucket each, one output per window: the second launch sums each output's row.
  ones_[1].reserve(size_t(nsums) * split, "MSM window partial sums");
  window_sums_kernel<G>
      <<<nsums * split, kReduceThreads, 0, stream_>>>(tri_.get(), run_.get(), p, split, ones_[1].get());
  ZK_CUDA_OK_LAUNCH();
  MsmPlan rows;
  rows.windows = int(nsums);
  rows.buckets = split;
  rows.group_bits = 0;
  rows.group_count_bits = 0;
  window_sums_kernel<G><<<nsums, kReduceThreads, 0, stream_>>>(ones_[1].get(), ones_[1].get(), rows, 1, sums_.get());
  ZK_CUDA_OK_LAUNCH();
}

}  // namespace zkmill::cuda::pippenger
