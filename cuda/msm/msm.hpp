// SPDX-License-Identifier: MIT
// Public entry points of the GPU multi-scalar multiplication over G1 and G2 (BN254 and
// BLS12-381).
// Plain C++: callers built without nvcc include this and link zk_cuda. Inputs are the CPU's own
// types (points affine, scalars in Montgomery form): their bytes are uploaded unchanged.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "cuda/runtime/gpu_result.hpp"

namespace zkmill::cuda {

// How the points of a bucket are summed (cuda/msm/batch_affine.cuh): XYZZ mixed additions (10
// products each) or rounds of affine pair additions sharing one inversion per round (about 6).
// kAuto picks by size (cuda/msm/accumulation.cpp), unless the environment variable
// ZKMILL_GPU_MSM_ACCUMULATE (xyzz | affine) says otherwise; the others force one (tests, tuning).
enum class MsmAccumulation { kAuto, kXyzz, kBatchAffine };

// How one batch-affine round runs (cuda/msm/batch_affine.cuh): up / inversion / down kernels with
// each thread's slots contiguous or interleaved across its block. kAuto:
// ZKMILL_GPU_MSM_AFFINE_ROUND, else the measured default of the group (cuda/msm/accumulation.cpp);
// the others force one (tests, tuning). (A fused one-kernel round was measured 2-4x slower and
// removed: cuda/bench/NOTES-batch-affine.md, "Fused and interleaved rounds".)
enum class MsmAffineRound { kAuto, kContiguous, kInterleaved };

struct MsmOptions {
  int window_bits = 0;  // 0: chosen from n (at most 16); 2..22 forces a width (tests, tuning)
  MsmAccumulation accumulation = MsmAccumulation::kAuto;
  MsmAffineRound affine_round = MsmAffineRound::kAuto;
  // Cap on the device bytes the batch-affine rounds hold at once (tests, tuning: a small cap cuts
  // the buckets and the 1-scalar sum into more slices); 0: the default (cuda/msm/accumulation.hpp).
  uint64_t affine_budget_bytes = 0;
  // Precomputed copies of the points (fixed bases; pippenger_plan.hpp): t copies cut the windows
  // with their own buckets from W to ceil(W / t), for t times the points' device memory; t >= W
  // leaves one window. 0: ZKMILL_GPU_MSM_PRECOMPUTE, else off; 1: off. Here the copies are made
  // per call (tests, measurements); the prover keeps them with its resident keys. With copies,
  // window_bits = 0 takes the width chosen for them (pippenger::precompute_window).
  int precompute = 0;
};

// out = sum_i scalars[i] * points[i], for E = curves::Bn254 or curves::Bls12381 (defined and
// instantiated once per curve in msm_g1.cu / msm_g2_<curve>.cu). Points at infinity and zero
// scalars are allowed; scalars equal to 0 or 1 cost no window work (bit-aware: a witness of
// mostly bits costs about one addition per 1-scalar). `out` is written only on success. Never
// throws: a missing GPU, an out-of-memory device or any CUDA failure comes back as a GpuResult
// whose message says what failed and where.
template <class E>
MsmResult msm_g1(const typename E::G1Affine* points, const typename E::Fr* scalars, size_t n, typename E::G1* out,
                 const MsmOptions& options = {}) noexcept;

// The same over G2 (points over Fq2, the CPU's ec::Affine<G2Params> as they are in memory).
template <class E>
MsmResult msm_g2(const typename E::G2Affine* points, const typename E::Fr* scalars, size_t n, typename E::G2* out,
                 const MsmOptions& options = {}) noexcept;

}  // namespace zkmill::cuda
