// SPDX-License-Identifier: MIT
// The C++ entry point of the GPU G1 MSM over BN254 (msm.hpp) and the one instantiation of that
// curve's G1 engine and kernels (pippenger::Engine, cuda/msm/pippenger_impl.cuh); the shared
// host entry is cuda/msm/msm_from_host.cuh. One unit per curve and group, so the four engines
// compile in parallel and none twice (the prover and the benchmark suite link to these).
#include "cuda/msm/msm_from_host.cuh"
#include "cuda/msm/pippenger_impl.cuh"
#include "cuda/msm/pippenger_reduce.cuh"

namespace zkmill::cuda {

// The generic body (the same in both curves' units); each unit instantiates its own curve only.
template <class E>
MsmResult msm_g1(const typename E::G1Affine* points, const typename E::Fr* scalars, size_t n, typename E::G1* out,
                 const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::G1Device<E>>(points, scalars, n, out, options);
}

template MsmResult msm_g1<curves::Bn254>(const curves::Bn254::G1Affine*, const curves::Bn254::Fr*, size_t,
                                         curves::Bn254::G1*, const MsmOptions&) noexcept;

}  // namespace zkmill::cuda

namespace zkmill::cuda::pippenger {
template class Engine<curve::G1Device<curves::Bn254>>;
}  // namespace zkmill::cuda::pippenger
