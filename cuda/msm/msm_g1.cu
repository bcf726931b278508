// SPDX-License-Identifier: MIT
// The C++ entry point of the GPU G1 MSM (msm.hpp) and the one instantiation of the G1 engine
// and its kernels (pippenger::Engine, cuda/msm/pippenger_impl.cuh and pippenger_reduce.cuh)
// for BN254 and BLS12-381; the shared host entry is cuda/msm/msm_from_host.cuh. The prover and
// the benchmark suite link to these (extern template in cuda/msm/pippenger.cuh). Both curves
// in one unit: measured with scripts/build-times.sh, one unit per curve cost 158 CPU seconds
// against 128 for this one (a CUDA unit's fixed cost, the headers through cudafe++, cicc and
// the host compiler, is ~25 s), and neither half is near the longest unit of the build.
#include "cuda/msm/msm_from_host.cuh"
#include "cuda/msm/pippenger_impl.cuh"
#include "cuda/msm/pippenger_reduce.cuh"

namespace zkmill::cuda {

template <class E>
MsmResult msm_g1(const typename E::G1Affine* points, const typename E::Fr* scalars, size_t n, typename E::G1* out,
                 const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::G1Device<E>>(points, scalars, n, out, options);
}

template MsmResult msm_g1<curves::Bn254>(const curves::Bn254::G1Affine*, const curves::Bn254::Fr*, size_t,
                                         curves::Bn254::G1*, const MsmOptions&) noexcept;
template MsmResult msm_g1<curves::Bls12381>(const curves::Bls12381::G1Affine*, const curves::Bls12381::Fr*, size_t,
                                            curves::Bls12381::G1*, const MsmOptions&) noexcept;

}  // namespace zkmill::cuda

namespace zkmill::cuda::pippenger {
template class Engine<curve::Bn254G1>;
template class Engine<curve::Bls12381G1>;
}  // namespace zkmill::cuda::pippenger
