// SPDX-License-Identifier: MIT
// A circuit's PCE matrices resident on a device (CUDA-only), in the device's key cache beside
// the proving keys and under the same byte budget and LRU (context.cuh): a prove worker that
// proves witness-only bundles uploads the matrices once, then computes each partition's a, b, c
// on the device (cuda/cs/pce_spmv.cuh) from the z it uploads anyway for the MSMs.
#pragma once

#include <memory>
#include <string>

#include "common/cs/pce_matrices.hpp"
#include "cuda/cs/pce_spmv.cuh"
#include "cuda/groth16/context.cuh"

namespace zkmill::cuda::g16 {

template <class F>
struct PceEntry final : KeyEntryBase {
  DeviceBuffer<uint64_t> row_ptr[3];
  DeviceBuffer<uint32_t> cols[3], codes[3];
  DeviceBuffer<F> coefficients;
  uint64_t rows = 0;

  pce::DeviceMatrices<F> view() const {
    pce::DeviceMatrices<F> v;
    for (int m = 0; m < 3; ++m) v.m[m] = {row_ptr[m].get(), cols[m].get(), codes[m].get()};
    v.coefficients = coefficients.get();
    v.rows = rows;
    return v;
  }
};

// The key-cache id of a circuit's matrices: the curve and the file's content id.
inline std::string pce_cache_id(const char* curve, const cs::PceMatrices& m) {
  return std::string(curve) + "|pce|" + cs::short_hex(m.id()) + "|" + std::to_string(m.image_bytes());
}

// Device bytes the matrices take resident.
inline uint64_t pce_resident_bytes(const cs::PceMatrices& m, size_t elem_bytes) {
  const uint64_t rows = m.n_rows();
  return 3 * (rows + 1) * sizeof(uint64_t) + m.nnz() * 2 * sizeof(uint32_t) + m.header().n_coeffs * elem_bytes;
}

// Uploads the matrices through the pinned pool on the copy stream and waits for it. HostFr is
// the scalar field of the file's curve (PceMatrices checks it).
template <class HostFr>
std::unique_ptr<PceEntry<pce::DeviceFr<HostFr>>> upload_pce(DeviceContext& ctx, const cs::PceMatrices& m,
                                                            const std::string& id) {
  using F = pce::DeviceFr<HostFr>;
  static_assert(sizeof(F) == sizeof(HostFr), "device Fr must have the CPU Fr's bytes");
  auto e = std::make_unique<PceEntry<F>>();
  e->id = id;
  e->bytes = pce_resident_bytes(m, sizeof(F));
  e->rows = m.n_rows();
  const cudaStream_t cp = ctx.copy.get();
  for (int k = 0; k < 3; ++k) {
    const cs::PceMatrices::Csr csr = m.csr(size_t(k));
    e->row_ptr[k].reserve(csr.row_ptr.size(), "resident PCE row offsets");
    e->cols[k].reserve(csr.cols.size(), "resident PCE columns");
    e->codes[k].reserve(csr.codes.size(), "resident PCE codes");
    ctx.pinned.upload(e->row_ptr[k].get(), csr.row_ptr.data(), csr.row_ptr.size(), cp);
    ctx.pinned.upload(e->cols[k].get(), csr.cols.data(), csr.cols.size(), cp);
    ctx.pinned.upload(e->codes[k].get(), csr.codes.data(), csr.codes.size(), cp);
  }
  const std::span<const HostFr> table = m.coefficients<HostFr>();
  e->coefficients.reserve(table.size(), "resident PCE coefficients");
  ctx.pinned.upload(reinterpret_cast<HostFr*>(e->coefficients.get()), table.data(), table.size(), cp);
  ZK_CUDA_OK(cudaStreamSynchronize(cp));
  return e;
}

}  // namespace zkmill::cuda::g16
