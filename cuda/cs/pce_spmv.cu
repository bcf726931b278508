// SPDX-License-Identifier: MIT
// The PCE mat-vec kernel (pce_spmv.cuh) and its one-call entry (pce_gpu.hpp), instantiated
// for the scalar fields of BN254 and BLS12-381.
#include <stdexcept>
#include <string>

#include "cuda/cs/pce_gpu.hpp"
#include "cuda/cs/pce_spmv.cuh"
#include "cuda/runtime/cuda_check.cuh"
#include "cuda/runtime/gpu_memory.cuh"

namespace zkmill::cuda::pce {
namespace {

template <class F>
struct Outputs {
  F* v[3];
};

template <class F>
__global__ void spmv_kernel(const DeviceMatrices<F> pce, const F* __restrict__ z, const Outputs<F> out) {
  const uint64_t r = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= pce.rows) return;
  const DeviceCsr& m = pce.m[blockIdx.y];
  const F one = F::one();
  F acc = F::zero();
  for (uint64_t k = m.row_ptr[r], e = m.row_ptr[r + 1]; k < e; ++k) {
    const uint32_t col = m.cols[k];
    const F v = col == 0 ? one : z[col];
    if (v.is_zero()) continue;
    const uint32_t code = m.codes[k];
    if (code == 0) {
      acc += v;
    } else if (code == 1) {
      acc -= v;
    } else {
      const F& coeff = pce.coefficients[code - 2];
      acc += v == one ? coeff : coeff * v;
    }
  }
  out.v[blockIdx.y][r] = acc;
}

}  // namespace

template <class HostFr>
void spmv(const DeviceMatrices<DeviceFr<HostFr>>& pce, const DeviceFr<HostFr>* z, DeviceFr<HostFr>* a,
          DeviceFr<HostFr>* b, DeviceFr<HostFr>* c, cudaStream_t stream) {
  if (pce.rows == 0) return;
  constexpr unsigned kThreads = 256;
  const dim3 grid(unsigned((pce.rows + kThreads - 1) / kThreads), 3);
  spmv_kernel<DeviceFr<HostFr>><<<grid, kThreads, 0, stream>>>(pce, z, Outputs<DeviceFr<HostFr>>{{a, b, c}});
  ZK_CUDA_OK_LAUNCH();
}

template void spmv<curves::Bn254::Fr>(const DeviceMatrices<DeviceFr<curves::Bn254::Fr>>&,
                                      const DeviceFr<curves::Bn254::Fr>*, DeviceFr<curves::Bn254::Fr>*,
                                      DeviceFr<curves::Bn254::Fr>*, DeviceFr<curves::Bn254::Fr>*, cudaStream_t);
template void spmv<curves::Bls12381::Fr>(const DeviceMatrices<DeviceFr<curves::Bls12381::Fr>>&,
                                         const DeviceFr<curves::Bls12381::Fr>*, DeviceFr<curves::Bls12381::Fr>*,
                                         DeviceFr<curves::Bls12381::Fr>*, DeviceFr<curves::Bls12381::Fr>*,
                                         cudaStream_t);

}  // namespace zkmill::cuda::pce

namespace zkmill::cuda {

template <class HostFr>
GpuResult pce_multiply_gpu(const cs::PceMatrices& m, std::span<const HostFr> inputs, std::span<const HostFr> aux,
                           std::span<HostFr> a, std::span<HostFr> b, std::span<HostFr> c, int device,
                           float* kernel_ms) noexcept {
  return run_guarded([&] {
    using F = pce::DeviceFr<HostFr>;
    static_assert(sizeof(F) == sizeof(HostFr), "device Fr must have the CPU Fr's bytes");
    const uint64_t rows = m.n_rows(), n_in = m.shape().n_inputs, n_aux = m.shape().n_aux;
    if (inputs.size() != n_in || aux.size() != n_aux || a.size() < rows || b.size() < rows || c.size() < rows)
      throw std::invalid_argument("GPU PCE mat-vec: the assignment or the outputs do not have the shape of " +
                                  m.shape().describe());
    const std::span<const HostFr> table = m.coefficients<HostFr>();  // PceError for another curve
    ZK_CUDA_OK(cudaSetDevice(device));
    Stream stream;
    const cudaStream_t s = stream.get();
    auto put = [&](auto& buf, const auto* src, size_t count, const char* what) {
      buf.reserve(count, what);
      if (count) ZK_CUDA_OK(cudaMemcpyAsync(buf.get(), src, count * sizeof(*src), cudaMemcpyHostToDevice, s));
    };
    DeviceBuffer<uint64_t> row_ptr[3];
    DeviceBuffer<uint32_t> cols[3], codes[3];
    pce::DeviceMatrices<F> dm;
    for (int k = 0; k < 3; ++k) {
      const auto csr = m.csr(size_t(k));
      put(row_ptr[k], csr.row_ptr.data(), csr.row_ptr.size(), "PCE row offsets");
      put(cols[k], csr.cols.data(), csr.cols.size(), "PCE columns");
      put(codes[k], csr.codes.data(), csr.codes.size(), "PCE codes");
      dm.m[k] = {row_ptr[k].get(), cols[k].get(), codes[k].get()};
    }
    DeviceBuffer<F> coeff, z, out[3];
    put(coeff, reinterpret_cast<const F*>(table.data()), table.size(), "PCE coefficients");
    dm.coefficients = coeff.get();
    dm.rows = rows;
    z.reserve(n_in + n_aux, "PCE z");
    ZK_CUDA_OK(cudaMemcpyAsync(z.get(), inputs.data(), n_in * sizeof(F), cudaMemcpyHostToDevice, s));
    if (n_aux) ZK_CUDA_OK(cudaMemcpyAsync(z.get() + n_in, aux.data(), n_aux * sizeof(F), cudaMemcpyHostToDevice, s));
    for (auto& o : out) o.reserve(rows, "PCE output");
    Event e0, e1;
    e0.record(s);
    pce::spmv<HostFr>(dm, z.get(), out[0].get(), out[1].get(), out[2].get(), s);
    e1.record(s);
    HostFr* dst[3] = {a.data(), b.data(), c.data()};
    for (int k = 0; k < 3; ++k)
      if (rows) ZK_CUDA_OK(cudaMemcpyAsync(dst[k], out[k].get(), rows * sizeof(F), cudaMemcpyDeviceToHost, s));
    ZK_CUDA_OK(cudaStreamSynchronize(s));
    if (kernel_ms) *kernel_ms = e1.since(e0);
  });
}

template GpuResult pce_multiply_gpu<curves::Bn254::Fr>(const cs::PceMatrices&, std::span<const curves::Bn254::Fr>,
                                                       std::span<const curves::Bn254::Fr>, std::span<curves::Bn254::Fr>,
                                                       std::span<curves::Bn254::Fr>, std::span<curves::Bn254::Fr>, int,
                                                       float*) noexcept;
template GpuResult pce_multiply_gpu<curves::Bls12381::Fr>(const cs::PceMatrices&, std::span<const curves::Bls12381::Fr>,
                                                          std::span<const curves::Bls12381::Fr>,
                                                          std::span<curves::Bls12381::Fr>,
                                                          std::span<curves::Bls12381::Fr>,
                                                          std::span<curves::Bls12381::Fr>, int, float*) noexcept;

}  // namespace zkmill::cuda
