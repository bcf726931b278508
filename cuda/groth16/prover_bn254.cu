// GPU Groth16 prover for BN254: instantiates cuda/groth16/prove.cuh.
#include "cuda/groth16/prove.cuh"

namespace zkmill::cuda {

GpuResult prove_gpu_bn254(const groth16::ProvingKey<curves::Bn254>& pk, const cs::WitnessBundle& w,
                          const curves::Bn254::Fr& r, const curves::Bn254::Fr& s, groth16::Proof<curves::Bn254>* out,
                          GpuProveTimings* timings, const GpuProveOptions& options) noexcept {
  return g16::prove_impl<curves::Bn254>(pk, w, r, s, out, timings, options);
}

}  // namespace zkmill::cuda
