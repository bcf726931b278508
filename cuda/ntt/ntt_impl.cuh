// SPDX-License-Identifier: MIT
// GPU number-theoretic transform over a scalar field Fr: the kernels and the definitions of the
// engine members that launch them (interface: ntt.cuh); CUDA-only, included only by ntt.cu.
//
// Convention (the CPU's, so results compare element for element): natural order in and out,
//   forward:       e_k = sum_j a_j w^(jk),            w = Fr::root_of_unity(log n)
//   inverse:       a_j = n^-1 sum_k e_k w^(-jk)
//   coset forward: e_k = sum_j a_j (g w^k)^j,          g = Fr::generator() unless given
//   coset inverse: a_j = g^-j n^-1 sum_k e_k w^(-jk).
// The coset shift g is an argument of Engine::run: the native prover takes the multiplicative
// generator, the snarkjs (.zkey) prover a primitive 2n-th root of unity (its odd coset).
//
// Method: iterative radix-2 Cooley-Tukey DIT (bit-reversed input, natural output), with the
// log n stages grouped into passes that each run up to 10 stages on a 1024-element tile in
// shared memory, so a 2^24 transform reads and writes device memory 3 times instead of 24
// (the "high-radix" schedule; cf. Bailey, "FFTs in external or hierarchical memory", 1990).
// A pass that starts at stage s0 > 0 owns the elements whose indices differ only in bits
// [s0, s0 + k); it also takes 4 consecutive low indices so each load is a 128-byte run.
// Everything else is folded into the passes to save memory round trips:
//  - the bit-reversal permutation is the first pass's gather (each Fr is one 32-byte sector,
//    so the scattered reads waste no bandwidth);
//  - the inverse uses inverse_DFT(a) = forward_DFT(a') / n with a'_j = a_(-j mod n) (substitute
//    j -> -j), i.e. a negated gather index and the 1/n factor in the same gather;
//  - coset scaling by g^j (forward, on input) and g^-j (inverse, on output) multiply by
//    hi[j >> 12] * lo[j & 4095] from two small tables instead of a table of n powers.
// Twiddles: stage s uses w_(2^(s+1))^j for j < 2^s, stored contiguously per stage (stage s at
// offset 2^s - 1, n - 1 entries in all); the stage tables do not depend on n, so the table for
// the largest size serves every smaller one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/ntt/ntt.cuh"

namespace zkmill::cuda::ntt {

enum class Gather : int {
  kInPlace = 0,  // not the first pass: read and write dst
  kForward,      // bit-reversed gather
  kCoset,        // bit-reversed gather times g^j
  kInverse,      // negated bit-reversed gather times n^-1
};

template <class F>
struct PassArgs {
  uint32_t log_n;
  uint32_t s0;       // first stage of this pass
  uint32_t k;        // stages in this pass
  uint32_t lo_bits;  // log2 of the consecutive low indices a tile takes (0 on the first pass)
  Gather gather;
  bool post_scale;  // multiply the output by g^-j (last pass of a coset inverse)
  F scale;          // n^-1 for Gather::kInverse
};

// x^e for e < 2^(kPowLoLog + hi_bits), from lo[i] = x^i (i < 2^kPowLoLog) and hi[h] = x^(h 2^kPowLoLog).
template <class F>
__device__ __forceinline__ F table_pow(const F* lo, const F* hi, uint64_t e) {
  return hi[e >> kPowLoLog] * lo[e & (kPowLo - 1)];
}

template <class F>
__global__ void twiddles_kernel(F* tw, uint32_t log_max, uint64_t count, const F* w_lo, const F* w_hi) {
  const uint64_t q = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= count) return;
  const uint32_t s = 63 - __clzll(q + 1);  // stage: q lies in [2^s - 1, 2^(s+1) - 1)
  const uint64_t j = q + 1 - (uint64_t(1) << s);
  // w_(2^(s+1))^j = w_(2^log_max)^(j 2^(log_max - 1 - s)).
  tw[q] = table_pow(w_lo, w_hi, j << (log_max - 1 - s));
}

template <class F>
__global__ void __launch_bounds__(1 << (kTileLog - 1))
    ntt_pass_kernel(const F* src, F* dst, const F* tw, PassArgs<F> a, const F* g_lo, const F* g_hi, const F* ginv_lo,
                    const F* ginv_hi) {
  __shared__ F sm[1 << kTileLog];
  const uint32_t tile_log = a.k + a.lo_bits;
  const uint32_t half = 1u << (tile_log - 1);
  const uint32_t lo_mask = (1u << a.lo_bits) - 1;
  const uint32_t lo_groups_log = a.s0 - a.lo_bits;
  const uint64_t tb = blockIdx.x;
  const uint64_t lo_base = (tb & ((uint64_t(1) << lo_groups_log) - 1)) << a.lo_bits;
  const uint64_t hi = tb >> lo_groups_log;
  const uint64_t n = uint64_t(1) << a.log_n;
  auto global_index = [&](uint32_t e) -> uint64_t {
    return (hi << (a.s0 + a.k)) | (uint64_t(e >> a.lo_bits) << a.s0) | (lo_base + (e & lo_mask));
  };

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const uint32_t e = threadIdx.x + uint32_t(r) * half;
    const uint64_t gi = global_index(e);
    F x;
    if (a.gather == Gather::kInPlace) {
      x = dst[gi];
    } else {
      uint64_t from = __brevll(gi) >> (64 - a.log_n);
      if (a.gather == Gather::kInverse) from = (n - from) & (n - 1);
      x = src[from];
      if (a.gather == Gather::kCoset) x = x * table_pow(g_lo, g_hi, from);
      if (a.gather == Gather::kInverse) x = x * a.scale;
    }
    sm[e] = x;
  }
  __syncthreads();

  for (uint32_t st = 0; st < a.k; ++st) {
    const uint32_t q = threadIdx.x;
    const uint32_t lo_off = q & lo_mask;
    const uint32_t mp = q >> a.lo_bits;
    const uint32_t low = mp & ((1u << st) - 1);
    const uint32_t mid0 = ((mp >> st) << (st + 1)) | low;
    const uint32_t e0 = (mid0 << a.lo_bits) | lo_off;
    const uint32_t e1 = e0 + (1u << (st + a.lo_bits));
    const uint32_t s = a.s0 + st;
    const uint64_t j = (uint64_t(low) << a.s0) + lo_base + lo_off;  // index of e0 modulo 2^s
    const F w = tw[(uint64_t(1) << s) - 1 + j];
    const F u = sm[e0];
    const F v = sm[e1] * w;
    sm[e0] = u + v;
    sm[e1] = u - v;
    __syncthreads();
  }

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const uint32_t e = threadIdx.x + uint32_t(r) * half;
    const uint64_t gi = global_index(e);
    F x = sm[e];
    if (a.post_scale) x = x * table_pow(ginv_lo, ginv_hi, gi);
    dst[gi] = x;
  }
}

template <class HostFr>
void Engine<HostFr>::run(const F* d_in, F* d_out, int log_n, NttDirection dir, const HostFr& shift) {
  if (log_n < 1 || log_n > max_log_n())
    throw std::invalid_argument("GPU NTT: log2 size must be in [1, " + std::to_string(max_log_n()) + "], got " +
                                std::to_string(log_n));
  if (d_in == d_out) throw std::invalid_argument("GPU NTT: input and output must be distinct buffers");
  ensure_twiddles(log_n);
  const bool coset = dir == NttDirection::kCosetForward || dir == NttDirection::kCosetInverse;
  const CosetTables* ct = coset ? &coset_tables(log_n, shift) : nullptr;
  const bool inverse = dir == NttDirection::kInverse || dir == NttDirection::kCosetInverse;
  PassArgs<F> a{};
  a.log_n = uint32_t(log_n);
  a.gather = inverse ? Gather::kInverse : (coset ? Gather::kCoset : Gather::kForward);
  a.scale = inverse ? F::from_host(HostFr::from_u64(uint64_t(1) << log_n).inverse()) : F::one();
  const F* g_lo = coset ? ct->pow.get() : nullptr;
  const F* g_hi = coset ? ct->pow.get() + 2 * kPowLo : nullptr;
  const F* ginv_lo = coset ? ct->pow.get() + kPowLo : nullptr;
  const F* ginv_hi = coset ? ct->pow.get() + 2 * kPowLo + ct->hi_count : nullptr;
  uint32_t s0 = 0;
  while (s0 < uint32_t(log_n)) {
    a.s0 = s0;
    a.lo_bits = s0 == 0 ? 0u : (s0 < 2 ? s0 : 2u);
    a.k = std::min<uint32_t>(uint32_t(log_n) - s0, uint32_t(kTileLog) - a.lo_bits);
    a.post_scale = dir == NttDirection::kCosetInverse && s0 + a.k == uint32_t(log_n);
    const uint32_t tile_log = a.k + a.lo_bits;
    const uint64_t blocks = uint64_t(1) << (uint32_t(log_n) - tile_log);
    ntt_pass_kernel<F><<<unsigned(blocks), 1u << (tile_log - 1), 0, stream_>>>(d_in, d_out, tw_.get(), a, g_lo, g_hi,
                                                                               ginv_lo, ginv_hi);
    ZK_CUDA_OK_LAUNCH();
    a.gather = Gather::kInPlace;
    s0 += a.k;
  }
}

template <class HostFr>
void Engine<HostFr>::ensure_twiddles(int log_n) {
  if (log_n <= tw_log_) return;
  const size_t hi_count = log_n - 1 > kPowLoLog ? size_t(1) << (log_n - 1 - kPowLoLog) : 1;
  const std::vector<F> host = pow_tables(HostFr::root_of_unity(size_t(log_n)), hi_count);
  DeviceBuffer<F> tables(host.size(), "NTT twiddle seeds");
  ZK_CUDA_OK(cudaMemcpyAsync(tables.get(), host.data(), host.size() * sizeof(F), cudaMemcpyHostToDevice, stream_));
  const uint64_t count = (uint64_t(1) << log_n) - 1;
  tw_ = DeviceBuffer<F>(count, "NTT twiddles");
  twiddles_kernel<F><<<unsigned((count + 255) / 256), 256, 0, stream_>>>(tw_.get(), uint32_t(log_n), count,
                                                                         tables.get(), tables.get() + kPowLo);
  ZK_CUDA_OK_LAUNCH();
  ZK_CUDA_OK(cudaStreamSynchronize(stream_));  // `tables` and `host` go out of scope
  tw_log_ = log_n;
}

}  // namespace zkmill::cuda::ntt
