// SPDX-License-Identifier: MIT
// Microbenchmark for issue 16's question "does the FP64 pipe multiply faster than the IMAD
// pipe?": Montgomery products per second of the production 32-bit-limb Fp32 (all IMAD) against
// the 52-bit-limb product on the FP64 units (cuda/ff/fp64_mont.hpp), reduced and lazy, of a
// kernel running both at once (half the chains each: do the two pipes add up?), and of the
// word-array FP64 product that could take Fp32's place (limb conversions in; measured in a build
// that did, docs/benchmarks/gpu-field-products.md). Same shape as
// limb_width_bench.cuh: kChains dependent chains x <- x y per thread, the second of two launches
// timed. Thread 0's FP64 chains are checked against the CPU field (x0 y^iters); the other threads
// perturb y so that no two compute the same thing. CUDA-only; included by suite.cu.
#pragma once

#include <cstdint>
#include <random>

#include "cuda/bench/limb_width_bench.cuh"
#include "cuda/ff/fp64_mont.hpp"

namespace zkmill::cuda::limbs {

template <class P>
struct Fp64Start {
  double x[kChains][field::Mont52Constants<P>::L];  // Montgomery-52 form, below p
  double y[field::Mont52Constants<P>::L];
};

// Thread t's y: limb 0 replaced by a small value for t != 0; the value stays below 2p (the
// change is below 2^52 and y < p), the lazy product's input bound.
template <class P>
__device__ __forceinline__ void fp64_thread_y(double (&y)[field::Mont52Constants<P>::L], const Fp64Start<P>& s,
                                              uint32_t salt) {
#pragma unroll
  for (int i = 0; i < field::Mont52Constants<P>::L; ++i) y[i] = s.y[i];
  if (salt != 0) y[0] = double(salt & 0xffff);
}

template <class P, bool kReduce>
__global__ void mul52_kernel(double* out, Fp64Start<P> s, int iters) {
  constexpr int L = field::Mont52Constants<P>::L;
  const uint32_t salt = blockIdx.x * blockDim.x + threadIdx.x;
  double x[kChains][L], y[L];
  fp64_thread_y<P>(y, s, salt);
#pragma unroll
  for (int k = 0; k < kChains; ++k)
#pragma unroll
    for (int i = 0; i < L; ++i) x[k][i] = s.x[k][i];
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) field::mont_mul52<P, kReduce>(x[k], x[k], y);
  }
  if (salt == 0)
    for (int k = 0; k < kChains; ++k)
      for (int i = 0; i < L; ++i) out[k * L + i] = x[k][i];
}

// Half the chains on each pipe: Fp32 (IMAD) chains 0 .. kChains/2-1, lazy FP64 chains the rest.
template <class P>
__global__ void mul_both_kernel(double* out, Fp64Start<P> s, int iters) {
  constexpr int L = field::Mont52Constants<P>::L, H = kChains / 2;
  using F = field::Fp32<P>;
  const uint32_t salt = blockIdx.x * blockDim.x + threadIdx.x;
  F xi[H], yi = F::one().dbl() + F::one();
  yi.v[0] ^= salt & 0xff;
#pragma unroll
  for (int k = 0; k < H; ++k) xi[k] = F::one() + F::one().dbl() * F::from_words(&yi.v[0]) * yi;
  double x[H][L], y[L];
  fp64_thread_y<P>(y, s, salt);
#pragma unroll
  for (int k = 0; k < H; ++k)
#pragma unroll
    for (int i = 0; i < L; ++i) x[k][i] = s.x[H + k][i];
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < H; ++k) {
      xi[k] = xi[k] * yi;
      field::mont_mul52<P, false>(x[k], x[k], y);
    }
  }
  if (salt == 0) {
    for (int k = 0; k < H; ++k)
      for (int i = 0; i < L; ++i) out[k * L + i] = x[k][i];
    uint32_t w = 0;
    for (int k = 0; k < H; ++k) w ^= xi[k].v[0];
    out[H * L] = double(w);  // keeps the IMAD chains alive
  }
}

struct Fp64MulResult {
  // G products per second: Fp32 (IMAD), FP64 52-bit limbs reduced and lazy, both pipes at once,
  // and the word-array FP64 product (Fp32's drop-in, with its limb conversions)
  double g_mul_imad = 0, g_mul_fp64 = 0, g_mul_fp64_lazy = 0, g_mul_both = 0, g_mul_words = 0;
  bool exact = false;  // thread 0's FP64 chains equal x0 y^iters, the word-array ones Fp32's bits
};

template <class P>
Fp64MulResult compare_fp64_mul(unsigned blocks, int iters) {
  using H = ::zkmill::ff::Fp<P>;
  constexpr int L = field::Mont52Constants<P>::L;
  std::mt19937_64 rng(0xf64b);
  Fp64Start<P> s{};
  H x0[kChains], y = H::random(rng), expect[kChains];
  auto to52 = [](double(&d)[L], const H& v) {
    const auto c = v.to_canonical();
    field::to_mont52<P>(d, c.data());
  };
  to52(s.y, y);
  const H y_iters = y.pow(uint64_t(iters));
  for (int k = 0; k < kChains; ++k) {
    x0[k] = H::random(rng);
    to52(s.x[k], x0[k]);
    expect[k] = x0[k] * y_iters;
  }
  auto matches = [&](const double* got, int first, int count) {
    bool ok = true;
    for (int k = 0; k < count; ++k) {
      double v[L];
      for (int i = 0; i < L; ++i) v[i] = got[k * L + i];
      ::zkmill::ff::Limbs<P::kLimbs> c{};
      field::from_mont52<P>(c.data(), v);
      ok = ok && c == expect[first + k].to_canonical();
    }
    return ok;
  };

  Stream st;
  DeviceBuffer<uint32_t> o32(kChains * 2 * int(P::kLimbs), "fp64 bench"),
      ow(kChains * 2 * int(P::kLimbs), "fp64 bench");
  DeviceBuffer<double> o52(kChains * L + 1, "fp64 bench");
  Fp64MulResult r;
  r.exact = true;
  const double muls = double(blocks) * 256 * kChains * iters;
  std::vector<double> host(kChains * L + 1);
  auto fetch = [&] {
    ZK_CUDA_OK(cudaMemcpy(host.data(), o52.get(), host.size() * sizeof(double), cudaMemcpyDeviceToHost));
  };
  auto rate = [&](auto launch) { return launch_rate(st, muls, launch); };
  for (int rep = 0; rep < 2; ++rep) {
    r.g_mul_imad = rate([&] { mul32_kernel<P><<<blocks, 256, 0, st.get()>>>(o32.get(), iters); });
    r.g_mul_fp64 = rate([&] { mul52_kernel<P, true><<<blocks, 256, 0, st.get()>>>(o52.get(), s, iters); });
    fetch();
    r.exact = r.exact && matches(host.data(), 0, kChains);
    r.g_mul_fp64_lazy = rate([&] { mul52_kernel<P, false><<<blocks, 256, 0, st.get()>>>(o52.get(), s, iters); });
    fetch();
    r.exact = r.exact && matches(host.data(), 0, kChains);
    r.g_mul_words = rate([&] { mul32_kernel<P, true><<<blocks, 256, 0, st.get()>>>(ow.get(), iters); });
    std::vector<uint32_t> h32(kChains * 2 * P::kLimbs), hw(h32.size());
    ZK_CUDA_OK(cudaMemcpy(h32.data(), o32.get(), h32.size() * 4, cudaMemcpyDeviceToHost));
    ZK_CUDA_OK(cudaMemcpy(hw.data(), ow.get(), hw.size() * 4, cudaMemcpyDeviceToHost));
    r.exact = r.exact && h32 == hw;
    r.g_mul_both = rate([&] { mul_both_kernel<P><<<blocks, 256, 0, st.get()>>>(o52.get(), s, iters); });
    fetch();
    r.exact = r.exact && matches(host.data(), kChains / 2, kChains / 2);
  }
  return r;
}

}  // namespace zkmill::cuda::limbs
