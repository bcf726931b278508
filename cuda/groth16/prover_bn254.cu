// SPDX-License-Identifier: MIT
// GPU Groth16 prover for BN254: instantiates cuda/groth16/prove.cuh (native keys) and
// cuda/groth16/prove_zkey.cuh (snarkjs keys) in one translation unit, with the prover's own
// kernels (g16::gpu_parts); the MSM and NTT engines it runs are instantiated in
// cuda/msm/msm_g1.cu, msm_g2_<curve>*.cu and cuda/ntt/ntt.cu (extern templates), so no kernel is compiled
// here a second time.
#include "cuda/groth16/prove.cuh"
#include "cuda/groth16/prove_zkey.cuh"

namespace zkmill::cuda {

// The generic bodies (the same in both curves' units); each unit instantiates its own curve.
template <class E>
GpuResult prove_gpu(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                    const typename E::Fr& s, groth16::Proof<E>* out, GpuProveTimings* timings,
                    const GpuProveOptions& options) noexcept {
  return g16::prove_impl<E>(pk, w, r, s, out, timings, options);
}

template <class E>
GpuResult prove_gpu(const formats::ZkeyProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                    const typename E::Fr& s, groth16::Proof<E>* out, GpuProveTimings* timings,
                    const GpuProveOptions& options) noexcept {
  return g16::prove_zkey_impl<E>(pk, w, r, s, out, timings, options);
}

// This unit's curve.
using Curve = curves::Bn254;
template GpuResult prove_gpu<Curve>(const groth16::ProvingKey<Curve>&, const cs::WitnessBundle&, const Curve::Fr&,
                                    const Curve::Fr&, groth16::Proof<Curve>*, GpuProveTimings*,
                                    const GpuProveOptions&) noexcept;
template GpuResult prove_gpu<Curve>(const formats::ZkeyProvingKey<Curve>&, const cs::WitnessBundle&, const Curve::Fr&,
                                    const Curve::Fr&, groth16::Proof<Curve>*, GpuProveTimings*,
                                    const GpuProveOptions&) noexcept;

}  // namespace zkmill::cuda

namespace zkmill::cuda::g16 {
template GpuParts<curves::Bn254> gpu_parts<curves::Bn254>(
    DeviceContext&, const DeviceKeyView<curve::G1Device<curves::Bn254>>&, const cs::WitnessBundle&, uint32_t,
    GpuProveTimings&, const QuotientPlan<curves::Bn254::Fr>&,
    const pce::DeviceMatrices<curve::G1Device<curves::Bn254>::Fr>*);
}  // namespace zkmill::cuda::g16
