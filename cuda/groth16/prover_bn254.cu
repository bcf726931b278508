// GPU Groth16 prover for BN254: instantiates cuda/groth16/prove.cuh (native keys) and
// cuda/groth16/prove_zkey.cuh (snarkjs keys) in one translation unit, so the kernels and
// engines are compiled once per curve.
#include "cuda/groth16/prove.cuh"
#include "cuda/groth16/prove_zkey.cuh"

namespace zkmill::cuda {

GpuResult prove_gpu_bn254(const groth16::ProvingKey<curves::Bn254>& pk, const cs::WitnessBundle& w,
                          const curves::Bn254::Fr& r, const curves::Bn254::Fr& s, groth16::Proof<curves::Bn254>* out,
                          GpuProveTimings* timings, const GpuProveOptions& options) noexcept {
  return g16::prove_impl<curves::Bn254>(pk, w, r, s, out, timings, options);
}

GpuResult prove_gpu_zkey_bn254(const formats::ZkeyProvingKey<curves::Bn254>& pk, const cs::WitnessBundle& w,
                               const curves::Bn254::Fr& r, const curves::Bn254::Fr& s,
                               groth16::Proof<curves::Bn254>* out, GpuProveTimings* timings,
                               const GpuProveOptions& options) noexcept {
  return g16::prove_zkey_impl<curves::Bn254>(pk, w, r, s, out, timings, options);
}

}  // namespace zkmill::cuda
