// SPDX-License-Identifier: MIT
// Microbenchmark for issue 6's question "32-bit or 64-bit limbs?" on the card: Montgomery
// multiplication throughput of the production 32-bit-limb Fp32 (PTX carry chains, IMAD) against
// a plain 64-bit-limb CIOS (mul.lo.u64 / __umul64hi, carries by comparison), same modulus, same
// Montgomery radix R = 2^(64 L), so both must return identical bits (checked). Hopper has no
// 64-bit integer multiplier: the compiler emulates each 64x64 product with several 32-bit IMADs,
// which is what this measures. CUDA-only; included by suite.cu.
#pragma once

#include <cstdint>

#include "cuda/ff/fp64_mont.hpp"
#include "cuda/ff/mont32.hpp"
#include "cuda/runtime/gpu_memory.cuh"

namespace zkmill::cuda::limbs {

template <class P>
struct Mont64Constants {
  uint64_t p[P::kLimbs];
  uint64_t inv;  // -p^-1 mod 2^64
};
// Copied from the CPU's MontConstants into a plain struct that device code can fold into
// immediates (as mont32_constants does for the 32-bit limbs).
template <class P>
constexpr Mont64Constants<P> mont64_constants() {
  Mont64Constants<P> k{};
  for (size_t i = 0; i < P::kLimbs; ++i) k.p[i] = ::zkmill::ff::MontConstants<P>::p[i];
  k.inv = ::zkmill::ff::MontConstants<P>::inv;
  return k;
}

// out = a b R^-1 mod p with L 64-bit limbs (CIOS, Koc-Acar-Kaliski 1996), fully reduced.
template <class P>
__device__ __forceinline__ void mont_mul64(uint64_t (&out)[P::kLimbs], const uint64_t (&a)[P::kLimbs],
                                           const uint64_t (&b)[P::kLimbs]) {
  constexpr int L = int(P::kLimbs);
  constexpr auto C = mont64_constants<P>();
  uint64_t t[L + 2];
#pragma unroll
  for (int i = 0; i < L + 2; ++i) t[i] = 0;
#pragma unroll
  for (int i = 0; i < L; ++i) {
    uint64_t c = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) {  // t += a * b_i
      uint64_t lo = a[j] * b[i], hi = __umul64hi(a[j], b[i]);
      lo += t[j];
      hi += lo < t[j];
      lo += c;
      hi += lo < c;
      t[j] = lo;
      c = hi;
    }
    t[L] += c;
    t[L + 1] = t[L] < c;
    const uint64_t m = t[0] * C.inv;  // t += m p, then t >>= 64
    uint64_t lo = m * C.p[0];
    c = __umul64hi(m, C.p[0]) + ((lo + t[0]) < lo);
#pragma unroll
    for (int j = 1; j < L; ++j) {
      lo = m * C.p[j];
      uint64_t hi = __umul64hi(m, C.p[j]);
      lo += t[j];
      hi += lo < t[j];
      lo += c;
      hi += lo < c;
      t[j - 1] = lo;
      c = hi;
    }
    t[L - 1] = t[L] + c;
    t[L] = t[L + 1] + (t[L - 1] < c);
  }
  uint64_t d[L], borrow = 0;  // conditional subtraction of p
#pragma unroll
  for (int j = 0; j < L; ++j) {
    const uint64_t x = t[j] - C.p[j];
    const uint64_t nb = (t[j] < C.p[j]) | ((x < borrow) & 1u);
    d[j] = x - borrow;
    borrow = nb;
  }
  const bool keep = t[L] == 0 && borrow;  // t < p
#pragma unroll
  for (int j = 0; j < L; ++j) out[j] = keep ? t[j] : d[j];
}

constexpr int kChains = 4;  // independent multiplications in flight per thread

// G products per second of one launch on `st` doing `muls` products (events around it, launch
// errors checked). Every microbenchmark of this folder times its kernels through it.
template <class Launch>
double launch_rate(Stream& st, double muls, Launch launch) {
  Event a, b;
  a.record(st.get());
  launch();
  ZK_CUDA_OK_LAUNCH();
  b.record(st.get());
  return muls / double(b.since(a)) / 1e6;
}

// The chains' common start: y = 3 with its low word salted by the thread (so that no two threads
// compute the same chains), x_k = 1 + 2 y0 * y from the unsalted y0. Every microbenchmark of this
// folder that compares its chains across kernels starts them here, so equal products give equal
// words.
template <class F>
__device__ __forceinline__ void chain_start(F (&x)[kChains], F& y, uint32_t salt) {
  y = F::one().dbl() + F::one();
#pragma unroll
  for (int k = 0; k < kChains; ++k) x[k] = F::one() + F::one().dbl() * F::from_words(&y.v[0]) * y;
  y.v[0] ^= salt & 0xff;
}

// x_k <- x_k * y, `iters` times, for kChains chains; thread 0 of block 0 writes its results.
// The product is Fp32's IMAD one, or with kFp64 the FP64 word product that could take its
// place (cuda/bench/fp64_mul_bench.cuh): the same bits.
template <class P, bool kFp64 = false>
__global__ void mul32_kernel(uint32_t* out, int iters) {
  using F = field::Fp32<P>;
  F x[kChains], y;
  const uint32_t salt = blockIdx.x * blockDim.x + threadIdx.x;
  chain_start(x, y, salt);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
      if constexpr (kFp64) {
        field::mont_mul_words_fp64<P>(x[k].v, x[k].v, y.v);
      } else {
        x[k] = x[k] * y;
      }
    }
  }
  if (salt == 0)
    for (int k = 0; k < kChains; ++k)
      for (int i = 0; i < F::N; ++i) out[k * F::N + i] = x[k].v[i];
}

template <class P>
__global__ void mul64_kernel(uint32_t* out, int iters) {
  using F = field::Fp32<P>;  // only to start from the same values as mul32_kernel
  constexpr int L = int(P::kLimbs);
  F x0[kChains], y0;
  const uint32_t salt = blockIdx.x * blockDim.x + threadIdx.x;
  chain_start(x0, y0, salt);
  uint64_t x[kChains][L], y[L];
#pragma unroll
  for (int i = 0; i < L; ++i) {
    y[i] = uint64_t(y0.v[2 * i]) | (uint64_t(y0.v[2 * i + 1]) << 32);
#pragma unroll
    for (int k = 0; k < kChains; ++k) x[k][i] = uint64_t(x0[k].v[2 * i]) | (uint64_t(x0[k].v[2 * i + 1]) << 32);
  }
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) mont_mul64<P>(x[k], x[k], y);
  }
  if (salt == 0)
    for (int k = 0; k < kChains; ++k)
      for (int i = 0; i < L; ++i) {
        out[k * 2 * L + 2 * i] = uint32_t(x[k][i]);
        out[k * 2 * L + 2 * i + 1] = uint32_t(x[k][i] >> 32);
      }
}

struct LimbWidthResult {
  double g_mul_32 = 0, g_mul_64 = 0;  // G multiplications per second
  bool same_bits = false;
};

// Both kernels on `blocks` x 256 threads; the second of two launches of each is timed.
template <class P>
LimbWidthResult compare_limb_widths(unsigned blocks, int iters) {
  constexpr int N = 2 * int(P::kLimbs);
  Stream st;
  DeviceBuffer<uint32_t> o32(kChains * N, "limb bench"), o64(kChains * N, "limb bench");
  LimbWidthResult r;
  const double muls = double(blocks) * 256 * kChains * iters;
  for (int rep = 0; rep < 2; ++rep) {
    r.g_mul_32 = launch_rate(st, muls, [&] { mul32_kernel<P><<<blocks, 256, 0, st.get()>>>(o32.get(), iters); });
    r.g_mul_64 = launch_rate(st, muls, [&] { mul64_kernel<P><<<blocks, 256, 0, st.get()>>>(o64.get(), iters); });
  }
  uint32_t h32[kChains * N], h64[kChains * N];
  ZK_CUDA_OK(cudaMemcpy(h32, o32.get(), sizeof h32, cudaMemcpyDeviceToHost));
  ZK_CUDA_OK(cudaMemcpy(h64, o64.get(), sizeof h64, cudaMemcpyDeviceToHost));
  r.same_bits = true;
  for (int i = 0; i < kChains * N; ++i) r.same_bits = r.same_bits && h32[i] == h64[i];
  return r;
}

}  // namespace zkmill::cuda::limbs
