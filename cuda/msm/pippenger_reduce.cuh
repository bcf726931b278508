// SPDX-License-Identifier: MIT
// Step 5 of the GPU Pippenger MSM (pippenger_impl.cuh), the window reduction: its two kernels and
// Engine::reduce_windows; CUDA-only. A header of its own so that a group's engine can be
// instantiated in two translation units that compile in parallel: over Fq2 (G2) these kernels
// hold most of the engine's point additions (each a few thousand fully unrolled Fq products),
// so msm_g2_<curve>_reduce.cu instantiates reduce_windows alone and msm_g2_<curve>.cu the rest.
// The G1 units, small enough either way, include both headers.
#pragma once

#include "cuda/msm/pippenger.cuh"

namespace zkmill::cuda::pippenger {

// The reduction's additions go through one out-of-line body per group. Inlined, each XYZZ
// addition over Fq2 is thousands of unrolled Fq products, and the five call sites below made
// these units the slowest of the whole build (cicc alone: 211 s for BLS12-381 G2 on dev-2c).
// The reduction runs (2^c / G) (G + log2 K) additions per window, not one per point, so a call
// per addition is noise beside the accumulation.
template <class B>
__device__ __noinline__ void reduce_add(B& acc, const B& p) {
  acc.add(p);
}

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
    reduce_add(r, base[j]);
    reduce_add(s, r);
  }
  tri[t] = s;
  run[t] = r;
}

// Block (w, o): o = 0 sums T_g over all groups of window w; o = 1 + k sums R_g over the groups
// whose index has bit k set. Strided per-thread sums, then a tree in shared memory.
template <class G>
__global__ void __launch_bounds__(kReduceThreads)
    window_sums_kernel(const typename G::Bucket* tri, const typename G::Bucket* run, MsmPlan plan,
                       typename G::Bucket* sums) {
  using B = typename G::Bucket;
  __shared__ B sm[kReduceThreads];
  const int per = plan.sums_per_window();
  const uint32_t w = blockIdx.x / per;
  const int o = int(blockIdx.x % per);
  const uint32_t k = plan.groups();
  B acc = B::infinity();
  for (uint32_t g = threadIdx.x; g < k; g += kReduceThreads) {
    if (o == 0)
      reduce_add(acc, tri[size_t(w) * k + g]);
    else if ((g >> (o - 1)) & 1u)
      reduce_add(acc, run[size_t(w) * k + g]);
  }
  sm[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = kReduceThreads / 2; stride > 0; stride >>= 1) {
    if (int(threadIdx.x) < stride) {
      B a = sm[threadIdx.x];
      reduce_add(a, sm[threadIdx.x + stride]);
      sm[threadIdx.x] = a;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = sm[0];
}

// Per window: group running sums, then 1 + log2 K points per window into sums_[0 .. nsums).
template <class G>
void Engine<G>::reduce_windows(uint32_t nsums) {
  const MsmPlan& p = s_->plan;
  const uint32_t groups = uint32_t(p.windows) * p.groups();
  tri_.reserve(groups, "MSM group sums");
  run_.reserve(groups, "MSM group sums");
  bucket_groups_kernel<G>
      <<<blocks_for(groups, kAccThreads), kAccThreads, 0, stream_>>>(buckets_.get(), p, tri_.get(), run_.get());
  ZK_CUDA_OK_LAUNCH();
  window_sums_kernel<G><<<nsums, kReduceThreads, 0, stream_>>>(tri_.get(), run_.get(), p, sums_.get());
  ZK_CUDA_OK_LAUNCH();
}

}  // namespace zkmill::cuda::pippenger
