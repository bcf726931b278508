// Public entry points of the GPU multi-scalar multiplication over G1 and G2 (BN254 and
// BLS12-381).
// Plain C++: callers built without nvcc include this and link zk_cuda. Inputs are the CPU's own
// types (points affine, scalars in Montgomery form): their bytes are uploaded unchanged.
#pragma once

#include <cstddef>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "cuda/runtime/gpu_result.hpp"

namespace zkmill::cuda {

struct MsmOptions {
  int window_bits = 0;  // 0: chosen from n (at most 16); 2..22 forces a width (tests, tuning)
};

// out = sum_i scalars[i] * points[i]. Points at infinity and zero scalars are allowed. `out` is
// written only on success. Never throws: a missing GPU, an out-of-memory device or any CUDA
// failure comes back as a GpuResult whose message says what failed and where.
MsmResult msm_g1_bls12_381(const curves::Bls12381::G1Affine* points, const curves::Bls12381::Fr* scalars,
                           size_t n, curves::Bls12381::G1* out, const MsmOptions& options = {}) noexcept;
MsmResult msm_g1_bn254(const curves::Bn254::G1Affine* points, const curves::Bn254::Fr* scalars, size_t n,
                       curves::Bn254::G1* out, const MsmOptions& options = {}) noexcept;

// The same over G2 (points over Fq2, the CPU's ec::Affine<G2Params> as they are in memory).
MsmResult msm_g2_bls12_381(const curves::Bls12381::G2Affine* points, const curves::Bls12381::Fr* scalars, size_t n,
                           curves::Bls12381::G2* out, const MsmOptions& options = {}) noexcept;
MsmResult msm_g2_bn254(const curves::Bn254::G2Affine* points, const curves::Bn254::Fr* scalars, size_t n,
                       curves::Bn254::G2* out, const MsmOptions& options = {}) noexcept;

}  // namespace zkmill::cuda
