// Instantiates the GPU G1 MSM for BLS12-381 behind its C++ entry point.
#include "cuda/msm/msm_entry.cuh"

namespace zkmill::cuda {

MsmResult msm_g1_bls12_381(const curves::Bls12381::G1Affine* points, const curves::Bls12381::Fr* scalars,
                           size_t n, curves::Bls12381::G1* out, const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::Bls12381G1>(points, scalars, n, out, options);
}

}  // namespace zkmill::cuda
