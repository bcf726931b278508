// Instantiates the GPU G1 MSM for BN254 behind its C++ entry point.
#include "cuda/msm/msm_entry.cuh"

namespace zkmill::cuda {

MsmResult msm_g1_bn254(const curves::Bn254::G1Affine* points, const curves::Bn254::Fr* scalars, size_t n,
                       curves::Bn254::G1* out, const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::Bn254G1>(points, scalars, n, out, options);
}

}  // namespace zkmill::cuda
