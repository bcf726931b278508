// The C++ entry points of the GPU G1 MSM (msm.hpp), instantiated for BLS12-381 and BN254; the
// shared host entry is cuda/msm/msm_from_host.cuh, the kernels are templates in pippenger.cuh.
#include "cuda/msm/msm_from_host.cuh"

namespace zkmill::cuda {

MsmResult msm_g1_bls12_381(const curves::Bls12381::G1Affine* points, const curves::Bls12381::Fr* scalars,
                           size_t n, curves::Bls12381::G1* out, const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::Bls12381G1>(points, scalars, n, out, options);
}

MsmResult msm_g1_bn254(const curves::Bn254::G1Affine* points, const curves::Bn254::Fr* scalars, size_t n,
                       curves::Bn254::G1* out, const MsmOptions& options) noexcept {
  return pippenger::msm_from_host<curve::Bn254G1>(points, scalars, n, out, options);
}

}  // namespace zkmill::cuda
