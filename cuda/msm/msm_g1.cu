// SPDX-License-Identifier: MIT
// The C++ entry point of the GPU G1 MSM (msm.hpp), instantiated for BLS12-381 and BN254; the
// shared host entry is cuda/msm/msm_from_host.cuh, the kernels are templates in pippenger.cuh.
#include "cuda/msm/msm_from_host.cuh"

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
