// SPDX-License-Identifier: MIT
// GPU number-theoretic transform over a scalar field Fr: the engine's interface (CUDA-only).
// The kernels and the definitions of the members that launch them are in ntt_impl.cuh, which
// only ntt.cu includes: it instantiates the engine for both scalar fields, and the prover and
// the benchmark suite link to those instantiations (the extern template declarations at the
// end), so the NTT kernels are compiled once per build. Conventions and method: ntt_impl.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"
#include "cuda/ff/mont32.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/runtime/gpu_memory.cuh"

namespace zkmill::cuda::ntt {

constexpr int kTileLog = 10;   // elements per shared-memory tile: 2^10 (32 KB of Fr)
constexpr int kPowLoLog = 12;  // split of an exponent into hi / lo table indices
constexpr uint32_t kPowLo = 1u << kPowLoLog;

// One engine per scalar field; keeps the twiddle and coset tables of the largest size seen.
template <class HostFr>
class Engine {
 public:
  using F = field::Fp32<typename HostFr::Params>;

  explicit Engine(cudaStream_t stream) : stream_(stream) {}

  static int max_log_n() { return int(HostFr::kTwoAdicity) < 30 ? int(HostFr::kTwoAdicity) : 30; }

  // d_out = transform(d_in); both hold 2^log_n elements and must not overlap. `shift` is the
  // coset's g for the coset directions (ignored by the others).
  void run(const F* d_in, F* d_out, int log_n, NttDirection dir, const HostFr& shift = HostFr::generator());

 private:
  // Coset tables of one shift (layout in coset_tables).
  struct CosetTables {
    HostFr shift;
    size_t hi_count;
    DeviceBuffer<F> pow;
  };

  // w_lo[i] = x^i (i < 2^12), w_hi[h] = x^(h 2^12) (h < hi_count), computed on the host.
  static std::vector<F> pow_tables(const HostFr& x, size_t hi_count) {
    std::vector<F> t(kPowLo + hi_count);
    HostFr p = HostFr::one();
    for (uint32_t i = 0; i < kPowLo; ++i, p *= x) t[i] = F::from_host(p);
    const HostFr step = p;  // x^(2^12)
    HostFr q = HostFr::one();
    for (size_t h = 0; h < hi_count; ++h, q *= step) t[kPowLo + h] = F::from_host(q);
    return t;
  }

  // The twiddle table for transforms up to 2^log_n (computed on the device).
  void ensure_twiddles(int log_n);

  // hi-table entries of the coset tables for 2^log_n (an exponent j < n is hi 2^12 + lo).
  static size_t pow_hi_count(int log_n) { return log_n > kPowLoLog ? size_t(1) << (log_n - kPowLoLog) : 1; }

  // Coset tables of one shift g, layout [g^i (2^12)] [g^-i (2^12)] [g^(h 2^12) (hi)] [g^-(h 2^12) (hi)]
  // with hi = pow_hi_count(log_n). Kept per shift (a process proving both key formats uses
  // two shifts) and rebuilt, larger, when a bigger transform needs more hi entries; the
  // reference returned stays valid until the next call.
  const CosetTables& coset_tables(int log_n, const HostFr& g) {
    const size_t hi_count = pow_hi_count(log_n);
    CosetTables* slot = nullptr;
    for (auto& c : cosets_)
      if (c.shift == g) slot = &c;
    if (slot != nullptr && slot->hi_count >= hi_count) return *slot;
    if (slot == nullptr) slot = &cosets_.emplace_back(CosetTables{g, 0, {}});
    const std::vector<F> fwd = pow_tables(g, hi_count), inv = pow_tables(g.inverse(), hi_count);
    std::vector<F> host;
    host.reserve(2 * fwd.size());
    host.insert(host.end(), fwd.begin(), fwd.begin() + kPowLo);
    host.insert(host.end(), inv.begin(), inv.begin() + kPowLo);
    host.insert(host.end(), fwd.begin() + kPowLo, fwd.end());
    host.insert(host.end(), inv.begin() + kPowLo, inv.end());
    slot->pow = DeviceBuffer<F>(host.size(), "NTT coset tables");
    ZK_CUDA_OK(cudaMemcpyAsync(slot->pow.get(), host.data(), host.size() * sizeof(F), cudaMemcpyHostToDevice, stream_));
    ZK_CUDA_OK(cudaStreamSynchronize(stream_));
    slot->hi_count = hi_count;
    return *slot;
  }

  cudaStream_t stream_;
  DeviceBuffer<F> tw_;
  int tw_log_ = 0;
  std::vector<CosetTables> cosets_;
};

// Instantiated once each, in ntt.cu.
extern template class Engine<ff::Bn254Fr>;
extern template class Engine<ff::Bls12381Fr>;

}  // namespace zkmill::cuda::ntt
