// SPDX-License-Identifier: MIT
// Microbenchmark for issue 16's "field arithmetic at the card's limit": does one Karatsuba level
// (cuda/ff/karatsuba.hpp) make the Montgomery product faster on the card? It trades a quarter of
// the product half's IMAD pairs (the pipe the product is bound by, NOTES-fp64.md) for ~7 N ALU
// additions. Three ways to the same bits, each kChains dependent chains x <- x y per thread as in
// limb_width_bench.cuh: Fp32's CIOS mont_mul (the product until 2026-12-05), the separated form
// (mul_wide, then redc_wide: SOS, Fp32's operator* since the first run of this bench) and
// Karatsuba's wide product, then redc_wide. Every thread's chains are
// compared across the three (they must be equal word for word). CUDA-only; included by suite.cu.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/bench/limb_width_bench.cuh"
#include "cuda/ff/karatsuba.hpp"

namespace zkmill::cuda::limbs {

enum class WideMul { kCios, kSos, kKaratsuba };

template <class P, WideMul kMode>
__global__ void mul_forms_kernel(uint32_t* out, int iters) {
  using F = field::Fp32<P>;
  F x[kChains], y;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  chain_start(x, y, tid);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
      if constexpr (kMode == WideMul::kCios) {
        F::mont_mul(x[k].v, x[k].v, y.v);
      } else if constexpr (kMode == WideMul::kSos) {
        x[k] = x[k] * y;  // Fp32's product: mul_wide, then redc_wide
      } else {
        uint32_t w[2 * F::N];
        field::mul_wide_karatsuba<F::N>(w, x[k].v, y.v);
        F::redc_wide(x[k].v, w);
      }
    }
  }
  // Every thread writes one word of its chains' sum, so that no chain is dead code and the three
  // forms can be compared thread by thread.
  uint32_t acc = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k)
#pragma unroll
    for (int i = 0; i < F::N; ++i) acc = acc * 0x9e3779b1u + x[k].v[i];
  out[tid] = acc;
}

struct WideMulResult {
  double g_cios = 0, g_sos = 0, g_karatsuba = 0;  // G products per second
  bool same_bits = false;                         // the three forms agree in every thread
};

template <class P>
WideMulResult compare_wide_mul_forms(unsigned blocks, int iters) {
  const size_t threads = size_t(blocks) * 256;
  Stream st;
  DeviceBuffer<uint32_t> o(threads * 3, "karatsuba bench");
  WideMulResult r;
  const double muls = double(threads) * kChains * iters;
  auto rate = [&](auto launch) { return launch_rate(st, muls, launch); };
  for (int rep = 0; rep < 2; ++rep) {  // the second of two launches of each is kept
    r.g_cios = rate([&] { mul_forms_kernel<P, WideMul::kCios><<<blocks, 256, 0, st.get()>>>(o.get(), iters); });
    r.g_sos = rate([&] { mul_forms_kernel<P, WideMul::kSos><<<blocks, 256, 0, st.get()>>>(o.get() + threads, iters); });
    r.g_karatsuba = rate(
        [&] { mul_forms_kernel<P, WideMul::kKaratsuba><<<blocks, 256, 0, st.get()>>>(o.get() + 2 * threads, iters); });
  }
  std::vector<uint32_t> h(threads * 3);
  ZK_CUDA_OK(cudaMemcpy(h.data(), o.get(), h.size() * 4, cudaMemcpyDeviceToHost));
  r.same_bits = true;
  for (size_t t = 0; t < threads; ++t)
    r.same_bits = r.same_bits && h[t] == h[threads + t] && h[t] == h[2 * threads + t];
  return r;
}

}  // namespace zkmill::cuda::limbs
