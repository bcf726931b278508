// The C++ entry point of the GPU G2 MSM over BLS12-381 (msm.hpp) and the one instantiation of that
// curve's G2 kernels (G2Engine, cuda/msm/g2_engine.cuh); the shared host entry is
// cuda/msm/msm_from_host.cuh, the kernels are templates in pippenger.cuh.
#include "cuda/msm/g2_engine_impl.cuh"
#include "cuda/msm/msm_from_host.cuh"

namespace zkmill::cuda {

MsmResult msm_g2_bls12_381(const curves::Bls12381::G2Affine* points, const curves::Bls12381::Fr* scalars, size_t n,
                           curves::Bls12381::G2* out, const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::Bls12381G2>(points, scalars, n, out, options);
}

}  // namespace zkmill::cuda

namespace zkmill::cuda::pippenger {
template class G2Engine<curves::Bls12381>;
}  // namespace zkmill::cuda::pippenger
