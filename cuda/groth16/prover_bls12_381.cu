// GPU Groth16 prover for BLS12-381: instantiates cuda/groth16/prove.cuh (native keys) and
// cuda/groth16/prove_zkey.cuh (snarkjs keys) in one translation unit, so the kernels and
// engines are compiled once per curve.
#include "cuda/groth16/prove.cuh"
#include "cuda/groth16/prove_zkey.cuh"

namespace zkmill::cuda {

GpuResult prove_gpu_bls12_381(const groth16::ProvingKey<curves::Bls12381>& pk, const cs::WitnessBundle& w,
                              const curves::Bls12381::Fr& r, const curves::Bls12381::Fr& s,
                              groth16::Proof<curves::Bls12381>* out, GpuProveTimings* timings,
                              const GpuProveOptions& options) noexcept {
  return g16::prove_impl<curves::Bls12381>(pk, w, r, s, out, timings, options);
}

GpuResult prove_gpu_zkey_bls12_381(const formats::ZkeyProvingKey<curves::Bls12381>& pk, const cs::WitnessBundle& w,
                                   const curves::Bls12381::Fr& r, const curves::Bls12381::Fr& s,
                                   groth16::Proof<curves::Bls12381>* out, GpuProveTimings* timings,
                                   const GpuProveOptions& options) noexcept {
  return g16::prove_zkey_impl<curves::Bls12381>(pk, w, r, s, out, timings, options);
}

}  // namespace zkmill::cuda
