// SPDX-License-Identifier: MIT
// The GPU Groth16 prover's entry points (cuda/groth16/prover.hpp, zkey_prover.hpp) defined once
// for every curve, and ZKMILL_INSTANTIATE_GPU_PROVER(Curve), which each per-curve unit
// (prover_<curve>.cu) expands for its own curve. One unit per curve keeps the prover's kernels
// (g16::gpu_parts) compiling in parallel; the MSM and NTT engines they run are instantiated in
// cuda/msm/msm_g1.cu, msm_g2_<curve>*.cu and cuda/ntt/ntt.cu (extern templates), so no kernel is
// compiled in a prover unit a second time.
#pragma once

#include "cuda/groth16/prove.cuh"
#include "cuda/groth16/prove_zkey.cuh"

namespace zkmill::cuda {

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

}  // namespace zkmill::cuda

// Explicit instantiations of both entry points and of the prover's device part for Curve.
#define ZKMILL_INSTANTIATE_GPU_PROVER(Curve)                                                                         \
  namespace zkmill::cuda {                                                                                           \
  template GpuResult prove_gpu<Curve>(const groth16::ProvingKey<Curve>&, const cs::WitnessBundle&, const Curve::Fr&, \
                                      const Curve::Fr&, groth16::Proof<Curve>*, GpuProveTimings*,                    \
                                      const GpuProveOptions&) noexcept;                                              \
  template GpuResult prove_gpu<Curve>(const formats::ZkeyProvingKey<Curve>&, const cs::WitnessBundle&,               \
                                      const Curve::Fr&, const Curve::Fr&, groth16::Proof<Curve>*, GpuProveTimings*,  \
                                      const GpuProveOptions&) noexcept;                                              \
  }                                                                                                                  \
  namespace zkmill::cuda::g16 {                                                                                      \
  template GpuParts<Curve> gpu_parts<Curve>(DeviceContext&, const DeviceKeyView<curve::G1Device<Curve>>&,            \
                                            const cs::WitnessBundle&, uint32_t, GpuProveTimings&,                    \
                                            const QuotientPlan<Curve::Fr>&, GpuHPlacement,                           \
                                            const pce::DeviceMatrices<curve::G1Device<Curve>::Fr>*);                 \
  }
