// SPDX-License-Identifier: MIT
// The C++ entry points of the GPU NTT: argument checks, upload, one transform on the Engine,
// download, every failure turned into a GpuResult; instantiated for the scalar fields of
// BLS12-381 and BN254, with the one instantiation of each field's engine and kernels
// (ntt::Engine, cuda/ntt/ntt_impl.cuh) that the prover and the benchmark suite link to.
#include <string>

#include "cuda/ntt/ntt_impl.cuh"

namespace zkmill::cuda::ntt {

template class Engine<ff::Bn254Fr>;
template class Engine<ff::Bls12381Fr>;

// Body of the per-curve host entries: upload, one transform, download.
template <class HostFr>
NttResult ntt_from_host(HostFr* data, size_t n, NttDirection dir, const HostFr& shift) noexcept {
  if (n == 0 || (n & (n - 1)) != 0)
    return {GpuErrc::kInvalidArgument, "GPU NTT: size must be a power of two, got " + std::to_string(n)};
  if (data == nullptr) return {GpuErrc::kInvalidArgument, "GPU NTT: data pointer is null"};
  if (n == 1) return {};  // every direction is the identity on one element (w^0 = g^0 = 1)
  return run_guarded([&] {
    using F = typename Engine<HostFr>::F;
    int log_n = 0;
    while ((size_t(1) << log_n) < n) ++log_n;
    if (log_n < 1 || log_n > Engine<HostFr>::max_log_n())
      throw std::invalid_argument("GPU NTT: log2 size must be in [1, " + std::to_string(Engine<HostFr>::max_log_n()) +
                                  "], got " + std::to_string(log_n));
    int devices = 0;
    ZK_CUDA_OK(cudaGetDeviceCount(&devices));
    Stream stream;
    DeviceBuffer<F> in(n, "NTT input"), out(n, "NTT output");
    static_assert(sizeof(F) == sizeof(HostFr), "device Fr must have the CPU Fr's bytes");
    ZK_CUDA_OK(cudaMemcpyAsync(in.get(), data, n * sizeof(HostFr), cudaMemcpyHostToDevice, stream.get()));
    Engine<HostFr> engine(stream.get());
    engine.run(in.get(), out.get(), log_n, dir, shift);
    ZK_CUDA_OK(cudaMemcpyAsync(data, out.get(), n * sizeof(HostFr), cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
  });
}

}  // namespace zkmill::cuda::ntt

namespace zkmill::cuda {

template <class Fr>
NttResult ntt_in_place(Fr* data, size_t n, NttDirection dir, const Fr& shift) noexcept {
  return ntt::ntt_from_host(data, n, dir, shift);
}

template NttResult ntt_in_place<ff::Bls12381Fr>(ff::Bls12381Fr*, size_t, NttDirection, const ff::Bls12381Fr&) noexcept;
template NttResult ntt_in_place<ff::Bn254Fr>(ff::Bn254Fr*, size_t, NttDirection, const ff::Bn254Fr&) noexcept;

}  // namespace zkmill::cuda
