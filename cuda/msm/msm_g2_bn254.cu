// SPDX-License-Identifier: MIT
// The C++ entry point of the GPU G2 MSM over BN254 (msm.hpp) and the one instantiation of that
// curve's G2 engine and kernels (pippenger::Engine over Fq2, cuda/msm/pippenger_impl.cuh) but for
// the window reduction, which msm_g2_bn254_reduce.cu instantiates: over Fq2 every point addition
// is a few thousand fully unrolled Fq products and the kernels take cicc minutes, so the engine
// is cut in two units that compile in parallel. The shared host entry is
// cuda/msm/msm_from_host.cuh; the prover and the benchmark suite link to this instantiation
// (extern template in cuda/msm/pippenger.cuh).
#include "cuda/msm/msm_from_host.cuh"
#include "cuda/msm/pippenger_impl.cuh"

namespace zkmill::cuda {

// The generic body (the same in both curves' units); each unit instantiates its own curve only.
template <class E>
MsmResult msm_g2(const typename E::G2Affine* points, const typename E::Fr* scalars, size_t n, typename E::G2* out,
                 const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::G2Device<E>>(points, scalars, n, out, options);
}

template MsmResult msm_g2<curves::Bn254>(const curves::Bn254::G2Affine*, const curves::Bn254::Fr*, size_t,
                                         curves::Bn254::G2*, const MsmOptions&) noexcept;

}  // namespace zkmill::cuda

namespace zkmill::cuda::pippenger {
// Every member defined in pippenger_impl.cuh; reduce_windows (pippenger_reduce.cuh) is not, so
// it is instantiated in msm_g2_bn254_reduce.cu only.
template class Engine<curve::G2Device<curves::Bn254>>;
}  // namespace zkmill::cuda::pippenger
