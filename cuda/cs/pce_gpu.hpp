// SPDX-License-Identifier: MIT
// The PCE mat-vec on a GPU as one call (plain C++, callers built without nvcc link it): upload
// the matrices and z, a = A z, b = B z, c = C z on the device (cuda/cs/pce_spmv.cuh), download.
// The prover does not use this (it keeps the matrices resident and a, b, c on the device); it
// is the kernel's test and benchmark entry, compared with PceMatrices::multiply on the CPU.
#pragma once

#include <span>

#include "common/cs/pce_matrices.hpp"
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

}  // namespace zkmill::cuda
