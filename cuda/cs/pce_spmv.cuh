// SPDX-License-Identifier: MIT
// The PCE mat-vec on the device (CUDA-only): a = A z, b = B z, c = C z from a circuit's
// recorded constraint matrices (common/cs/pce_matrices.hpp) held in device memory, so a prove
// worker that receives a witness-only bundle uploads z alone and never ships a, b, c over PCIe
// (three n-element vectors: 12 GiB for a 130M-constraint partition).
//
// The matrices are used as the file stores them: CSR per matrix, a 32-bit column into
// z = (inputs || aux) and a 32-bit code per entry (0: +1, 1: -1, k >= 2: coefficient table
// entry k - 2). One thread per row, the three matrices in blockIdx.y. Terms on a zero value
// are skipped and a coefficient times a one is the coefficient: PoRep's witness is nearly all
// bits, so most terms cost an addition or nothing, and only a row's whole values need a
// Montgomery product. Column 0 is the constant ONE whatever z[0] holds, as on the CPU. Field
// addition is exact, so the result equals PceMatrices::multiply bit for bit.
//
// The kernels are instantiated once, in pce_spmv.cu, for both curves' scalar fields.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "cuda/ff/mont32.hpp"

namespace zkmill::cuda::pce {

// One matrix in device memory (rows + 1 offsets; cols and codes of its entries).
struct DeviceCsr {
  const uint64_t* row_ptr = nullptr;
  const uint32_t* cols = nullptr;
  const uint32_t* codes = nullptr;
};

// A, B, C of one circuit in device memory, and the coefficient table (Montgomery form, the
// host's bytes; null when the table is empty).
template <class F>
struct DeviceMatrices {
  DeviceCsr m[3];
  const F* coefficients = nullptr;
  uint64_t rows = 0;
};

// The device field of a host scalar field (same bytes).
template <class HostFr>
using DeviceFr = field::Fp32<typename HostFr::Params>;

// Queues a = A z, b = B z, c = C z (rows 0 .. rows-1 of each; nothing else written) on
// `stream`. z holds n_inputs + n_aux elements; every column of the matrices is below that
// (the file's validation checked it on the host).
template <class HostFr>
void spmv(const DeviceMatrices<DeviceFr<HostFr>>& pce, const DeviceFr<HostFr>* z, DeviceFr<HostFr>* a,
          DeviceFr<HostFr>* b, DeviceFr<HostFr>* c, cudaStream_t stream);

extern template void spmv<curves::Bn254::Fr>(const DeviceMatrices<DeviceFr<curves::Bn254::Fr>>&,
                                             const DeviceFr<curves::Bn254::Fr>*, DeviceFr<curves::Bn254::Fr>*,
                                             DeviceFr<curves::Bn254::Fr>*, DeviceFr<curves::Bn254::Fr>*, cudaStream_t);
extern template void spmv<curves::Bls12381::Fr>(const DeviceMatrices<DeviceFr<curves::Bls12381::Fr>>&,
                                                const DeviceFr<curves::Bls12381::Fr>*, DeviceFr<curves::Bls12381::Fr>*,
                                                DeviceFr<curves::Bls12381::Fr>*, DeviceFr<curves::Bls12381::Fr>*,
                                                cudaStream_t);

}  // namespace zkmill::cuda::pce
