// SPDX-License-Identifier: MIT
// The GPU point IFFT (point_ntt.hpp; kernels in point_ntt.cuh) instantiated for G1 and G2 of
// BN254, one unit per curve so that the curves' kernels compile in parallel.
#include "cuda/ntt/point_ntt.cuh"

namespace zkmill::cuda {

template GpuResult group_ifft_gpu<curves::Bn254::G1Params>(const ec::Affine<curves::Bn254::G1Params>*,
                                                           ec::Jacobian<curves::Bn254::G1Params>*, size_t, int,
                                                           util::ThreadPool&,
                                                           const std::function<void(uint64_t)>&) noexcept;
template GpuResult group_ifft_gpu<curves::Bn254::G2Params>(const ec::Affine<curves::Bn254::G2Params>*,
                                                           ec::Jacobian<curves::Bn254::G2Params>*, size_t, int,
                                                           util::ThreadPool&,
                                                           const std::function<void(uint64_t)>&) noexcept;

}  // namespace zkmill::cuda
