// SPDX-License-Identifier: MIT
// The witness unpack kernels (witness_unpack.cuh) and their one-call test entry
// (pce_gpu.hpp: unpack_aux_gpu), instantiated for the scalar fields of BN254 and BLS12-381.
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <string>

#include "cuda/cs/pce_gpu.hpp"
#include "cuda/cs/witness_unpack.cuh"
#include "cuda/runtime/cuda_check.cuh"
#include "cuda/runtime/gpu_memory.cuh"

namespace zkmill::cuda::pce {
namespace {

constexpr unsigned kThreads = 256;

unsigned blocks_for(uint64_t n) { return unsigned((n + kThreads - 1) / kThreads); }

// Scratch layout: counts[map_words], ranks[map_words], then cub's temporary storage.
size_t words_bytes(uint64_t map_words) { return (2 * map_words * sizeof(uint64_t) + 255) & ~size_t(255); }

__global__ void popcount_kernel(const uint64_t* __restrict__ map, uint64_t words, uint64_t* __restrict__ counts) {
  const uint64_t w = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w < words) counts[w] = uint64_t(__popcll(static_cast<unsigned long long>(map[w])));
}

template <class F>
__global__ void unpack_kernel(const DevicePackedAux<F> p, const uint64_t* __restrict__ ranks, F* __restrict__ out) {
  const uint64_t j = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= p.n_aux) return;
  uint64_t bit_index = j;  // no map: every aux is a bit
  if (p.map_words != 0) {
    const uint64_t word = static_cast<uint64_t>(p.map[j >> 6]);
    const unsigned k = unsigned(j & 63);
    const uint64_t rank = ranks[j >> 6] + uint64_t(__popcll(static_cast<unsigned long long>(word & ((1ull << k) - 1))));
    if ((word >> k) & 1) {
      out[j] = p.full[rank];
      return;
    }
    bit_index = j - rank;
  }
  out[j] = (p.bits[bit_index >> 6] >> (bit_index & 63)) & 1 ? F::one() : F::zero();
}

size_t scan_temp_bytes(uint64_t map_words) {
  if (map_words == 0) return 0;
  size_t bytes = 0;
  ZK_CUDA_OK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const uint64_t*>(nullptr),
                                           static_cast<uint64_t*>(nullptr), map_words));
  return bytes;
}

}  // namespace

template <class HostFr>
size_t unpack_aux_scratch_bytes(uint64_t map_words) {
  return map_words == 0 ? 0 : words_bytes(map_words) + scan_temp_bytes(map_words);
}

template <class HostFr>
void unpack_aux(const DevicePackedAux<DeviceFr<HostFr>>& p, DeviceFr<HostFr>* out, void* scratch, cudaStream_t stream) {
  using F = DeviceFr<HostFr>;
  if (p.n_aux == 0) return;
  if (p.map_words == 0 && p.n_full == p.n_aux) {  // every aux whole: the packed form is z's aux
    ZK_CUDA_OK(cudaMemcpyAsync(out, p.full, p.n_aux * sizeof(F), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  uint64_t* ranks = nullptr;
  if (p.map_words != 0) {
    auto* counts = static_cast<uint64_t*>(scratch);
    ranks = counts + p.map_words;
    popcount_kernel<<<blocks_for(p.map_words), kThreads, 0, stream>>>(p.map, p.map_words, counts);
    ZK_CUDA_OK_LAUNCH();
    size_t temp_bytes = scan_temp_bytes(p.map_words);
    void* temp = static_cast<char*>(scratch) + words_bytes(p.map_words);
    ZK_CUDA_OK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, static_cast<const uint64_t*>(counts), ranks, p.map_words,
                                             stream));
  }
  unpack_kernel<F><<<blocks_for(p.n_aux), kThreads, 0, stream>>>(p, ranks, out);
  ZK_CUDA_OK_LAUNCH();
}

template size_t unpack_aux_scratch_bytes<curves::Bn254::Fr>(uint64_t);
template size_t unpack_aux_scratch_bytes<curves::Bls12381::Fr>(uint64_t);
template void unpack_aux<curves::Bn254::Fr>(const DevicePackedAux<DeviceFr<curves::Bn254::Fr>>&,
                                            DeviceFr<curves::Bn254::Fr>*, void*, cudaStream_t);
template void unpack_aux<curves::Bls12381::Fr>(const DevicePackedAux<DeviceFr<curves::Bls12381::Fr>>&,
                                               DeviceFr<curves::Bls12381::Fr>*, void*, cudaStream_t);

}  // namespace zkmill::cuda::pce

namespace zkmill::cuda {

template <class HostFr>
GpuResult unpack_aux_gpu(const cs::WitnessBundle& w, std::span<HostFr> out, int device, float* kernel_ms) noexcept {
  return run_guarded([&] {
    using F = pce::DeviceFr<HostFr>;
    static_assert(sizeof(F) == sizeof(HostFr), "device Fr must have the CPU Fr's bytes");
    if (w.kind() != cs::BundleKind::Witness)
      throw std::invalid_argument("GPU witness unpack: the bundle is not witness-only");
    if (out.size() != w.n_aux())
      throw std::invalid_argument("GPU witness unpack: output of " + std::to_string(out.size()) + " elements for " +
                                  std::to_string(w.n_aux()) + " aux values");
    const auto full = w.aux<HostFr>();  // a witness bundle's Aux section: the whole values (BundleError: curve)
    const auto map = w.packed(cs::PackedMap::Full), bits = w.packed(cs::PackedMap::Bits);
    ZK_CUDA_OK(cudaSetDevice(device));
    Stream stream;
    const cudaStream_t s = stream.get();
    DeviceBuffer<F> d_full, d_out;
    DeviceBuffer<uint64_t> d_map, d_bits;
    DeviceBuffer<unsigned char> scratch;
    auto put = [&](auto& buf, const auto* src, size_t count, const char* what) {
      buf.reserve(count, what);
      if (count) ZK_CUDA_OK(cudaMemcpyAsync(buf.get(), src, count * sizeof(*src), cudaMemcpyHostToDevice, s));
    };
    put(d_full, reinterpret_cast<const F*>(full.data()), full.size(), "witness whole values");
    put(d_map, map.data(), map.size(), "witness full map");
    put(d_bits, bits.data(), bits.size(), "witness bits");
    scratch.reserve(pce::unpack_aux_scratch_bytes<HostFr>(map.size()), "witness unpack scratch");
    d_out.reserve(w.n_aux(), "witness aux");
    const pce::DevicePackedAux<F> p{d_full.get(), d_map.get(), d_bits.get(), w.n_aux(), full.size(), map.size()};
    Event e0, e1;
    e0.record(s);
    pce::unpack_aux<HostFr>(p, d_out.get(), scratch.get(), s);
    e1.record(s);
    if (!out.empty())
      ZK_CUDA_OK(cudaMemcpyAsync(out.data(), d_out.get(), out.size() * sizeof(F), cudaMemcpyDeviceToHost, s));
    ZK_CUDA_OK(cudaStreamSynchronize(s));
    if (kernel_ms) *kernel_ms = e1.since(e0);
  });
}

template GpuResult unpack_aux_gpu<curves::Bn254::Fr>(const cs::WitnessBundle&, std::span<curves::Bn254::Fr>, int,
                                                     float*) noexcept;
template GpuResult unpack_aux_gpu<curves::Bls12381::Fr>(const cs::WitnessBundle&, std::span<curves::Bls12381::Fr>, int,
                                                        float*) noexcept;

}  // namespace zkmill::cuda
