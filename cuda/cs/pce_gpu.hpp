// SPDX-License-Identifier: MIT
// The PCE mat-vec and the witness unpack on a GPU as one call each (plain C++, callers built
// without nvcc link them): upload, run the kernel (cuda/cs/pce_spmv.cuh, witness_unpack.cuh),
// download. The prover does not use these (it keeps the matrices resident and z, a, b, c on
// the device); they are the kernels' test and benchmark entries, compared with
// PceMatrices::multiply and WitnessBundle::unpack_aux on the CPU.
#pragma once

#include <span>

#include "common/cs/pce_matrices.hpp"
#include "common/cs/witness_bundle.hpp"
#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "cuda/runtime/gpu_result.hpp"

namespace zkmill::cuda {

// a, b, c must hold at least m.n_rows() elements (rows past it are left alone); inputs and aux
// have the matrices' shape (kInvalidArgument otherwise). `kernel_ms`, when given, receives the
// mat-vec's device time (CUDA events), uploads excluded.
template <class HostFr>
GpuResult pce_multiply_gpu(const cs::PceMatrices& m, std::span<const HostFr> inputs, std::span<const HostFr> aux,
                           std::span<HostFr> a, std::span<HostFr> b, std::span<HostFr> c, int device = 0,
                           float* kernel_ms = nullptr) noexcept;

extern template GpuResult pce_multiply_gpu<curves::Bn254::Fr>(
    const cs::PceMatrices&, std::span<const curves::Bn254::Fr>, std::span<const curves::Bn254::Fr>,
    std::span<curves::Bn254::Fr>, std::span<curves::Bn254::Fr>, std::span<curves::Bn254::Fr>, int, float*) noexcept;
extern template GpuResult pce_multiply_gpu<curves::Bls12381::Fr>(const cs::PceMatrices&,
                                                                 std::span<const curves::Bls12381::Fr>,
                                                                 std::span<const curves::Bls12381::Fr>,
                                                                 std::span<curves::Bls12381::Fr>,
                                                                 std::span<curves::Bls12381::Fr>,
                                                                 std::span<curves::Bls12381::Fr>, int, float*) noexcept;

// The aux of witness-only bundle `w` (n_aux elements into `out`), unpacked on the device;
// `kernel_ms`, when given, receives the unpack's device time, transfers excluded.
template <class HostFr>
GpuResult unpack_aux_gpu(const cs::WitnessBundle& w, std::span<HostFr> out, int device = 0,
                         float* kernel_ms = nullptr) noexcept;

extern template GpuResult unpack_aux_gpu<curves::Bn254::Fr>(const cs::WitnessBundle&, std::span<curves::Bn254::Fr>, int,
                                                            float*) noexcept;
extern template GpuResult unpack_aux_gpu<curves::Bls12381::Fr>(const cs::WitnessBundle&,
                                                               std::span<curves::Bls12381::Fr>, int, float*) noexcept;

}  // namespace zkmill::cuda
