// SPDX-License-Identifier: MIT
// The C++ entry point of the GPU G2 MSM over BLS12-381 (msm.hpp) and the one instantiation of that
// curve's G2 kernels (G2Engine, cuda/msm/g2_engine.cuh); the shared host entry is
// cuda/msm/msm_from_host.cuh, the kernels are templates in pippenger.cuh.
#include "cuda/msm/g2_engine_impl.cuh"
#include "cuda/msm/msm_from_host.cuh"

namespace zkmill::cuda {

// The generic body (the same in both curves' units); each unit instantiates its own curve only.
template <class E>
MsmResult msm_g2(const typename E::G2Affine* points, const typename E::Fr* scalars, size_t n, typename E::G2* out,
                 const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::G2Device<E>>(points, scalars, n, out, options);
}

template MsmResult msm_g2<curves::Bls12381>(const curves::Bls12381::G2Affine*, const curves::Bls12381::Fr*, size_t,
                                            curves::Bls12381::G2*, const MsmOptions&) noexcept;

}  // namespace zkmill::cuda

namespace zkmill::cuda::pippenger {
template class G2Engine<curves::Bls12381>;
}  // namespace zkmill::cuda::pippenger
