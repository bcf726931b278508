// SPDX-License-Identifier: MIT
// Public entry of the GPU inverse FFT over elliptic-curve points, the transform of
// `powersoftau prepare phase2` (common/setup/prepare_phase2.hpp): for 2^k points P_j,
//   Q_i = n^-1 sum_j w^(-ij) P_j,  w = formats::snarkjs_root_of_unity<Fr>(k),
// the same group elements as the CPU's setup::group_ifft (so, affine and encoded, the same
// bytes as snarkjs). Plain C++: callers built without nvcc include this and link zk_cuda.
// Method and costs: cuda/ntt/point_ntt.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "common/ec/short_weierstrass.hpp"
#include "common/util/thread_pool.hpp"
#include "cuda/runtime/gpu_result.hpp"

namespace zkmill::cuda {

// out[i] = Q_i for in[0 .. n), n = in.size() = out.size() a power of two (1 <= n <= 2^30);
// points at infinity allowed. `progress(m)` is called from this thread after each stage with
// the scalar multiplications that stage did (setup::group_ifft_cost(n) in all), for a
// progress bar. `pool` computes the twiddles' GLV decompositions on the host. Runs on CUDA
// device `device`. Never throws; on failure `out` is unspecified.
// C: the G1Params or G2Params of curves::Bn254 or curves::Bls12381 (instantiated for all four
// in point_ntt_bn254.cu and point_ntt_bls12_381.cu).
template <class C>
GpuResult group_ifft_gpu(const ec::Affine<C>* in, ec::Jacobian<C>* out, size_t n, int device, util::ThreadPool& pool,
                         const std::function<void(uint64_t)>& progress) noexcept;

}  // namespace zkmill::cuda
