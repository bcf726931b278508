// SPDX-License-Identifier: MIT
// One level of Karatsuba (Karatsuba and Ofman, 1962) for the double-width product of two N-word
// integers, N even, on the carry-chain primitives: three (N/2)-word products instead of one
// N-word schoolbook, i.e. 3 N^2 / 4 lo/hi IMAD pairs instead of N^2 (108 vs 144 for BLS12-381's
// N = 12, 48 vs 64 for BN254's N = 8), paid for with ~7 N additions (IADD3 and LOP3 on the ALU
// pipe, which the IMAD-bound product leaves partly idle). Measured on the H200 (2026-12-05,
// docs/benchmarks/gpu-field-products.md) it does not pay: reduced by redc_wide it runs 1.03-1.04x
// the CIOS product but slower than the plain SOS one (1.08-1.11x), which Fp32 uses, and in Fq2's
// wide products it made G2 MSMs 8-13% slower (ptxas turns part of the additions into IMADs, and
// the half sums' registers most likely cost occupancy; not profiled). Kept with its test for
// the bench row that asks again on other cards (`zkmill_gpu_bench --ceilings 1`, karatsuba_mul).
//
// With h = N / 2, B = 2^(32 h), a = a1 B + a0 and b = b1 B + b0:
//   a b = v0 + (v1 - v0 - v2) B + v2 B^2,  v0 = a0 b0,  v2 = a1 b1,  v1 = (a0 + a1)(b0 + b1).
// v0 and v2 fill the low and high halves of the result directly (each below B^2). The sums
// a0 + a1 = sa + ca B and b0 + b1 = sb + cb B carry one bit each (ca, cb in {0, 1}), so
//   v1 = sa sb + (ca sb + cb sa) B + ca cb B^2 < 2^(64 h + 2)   (N + 1 words),
// formed as the h-word product plus the two masked additions at word h and the top bit. The
// middle term m = v1 - v0 - v2 = a0 b1 + a1 b0 is non-negative and below 2^(64 h + 1), so it
// fits N + 1 words and neither subtraction borrows out; adding m at word h of the result cannot
// carry out of word 2N - 1 because the total is a b < 2^(64 N).
#pragma once

#include <cstdint>

#include "cuda/ff/carry_chain.hpp"

namespace zkmill::cuda::field {

// t = a * b exactly, for any a, b < 2^(32 N) (N even, N >= 4): what Fp32::mul_wide computes.
template <int N>
ZK_HD void mul_wide_karatsuba(uint32_t (&t)[2 * N], const uint32_t (&a)[N], const uint32_t (&b)[N]) {
  static_assert(N % 2 == 0 && N >= 4, "one Karatsuba level splits an even number of words");
  constexpr int H = N / 2;
  Carry cy;
  // sa + ca B = a0 + a1, sb + cb B = b0 + b1 (ca, cb as masks: 0 or ~0).
  uint32_t sa[H], sb[H];
  sa[0] = add_cc(a[0], a[H], cy);
  ZK_UNROLL
  for (int i = 1; i < H; ++i) sa[i] = addc_cc(a[i], a[H + i], cy);
  const uint32_t ca = 0u - addc(0, 0, cy);
  sb[0] = add_cc(b[0], b[H], cy);
  ZK_UNROLL
  for (int i = 1; i < H; ++i) sb[i] = addc_cc(b[i], b[H + i], cy);
  const uint32_t cb = 0u - addc(0, 0, cy);

  // v0 = a0 b0 into t[0, N), v2 = a1 b1 into t[N, 2N): row i of each adds at word i of its half
  // (mul_row's bound as in mul_wide: the word a row ends on is still 0 when it starts).
  ZK_UNROLL
  for (int i = 0; i < 2 * N; ++i) t[i] = 0;
  ZK_UNROLL
  for (int i = 0; i < H; ++i) mul_row<H>(t + i, a, b[i], cy);
  ZK_UNROLL
  for (int i = 0; i < H; ++i) mul_row<H>(t + N + i, a + H, b[H + i], cy);

  // m = sa sb, then + (ca sb + cb sa) B + ca cb B^2: v1, N + 1 words.
  uint32_t m[N + 1];
  ZK_UNROLL
  for (int i = 0; i <= N; ++i) m[i] = 0;
  ZK_UNROLL
  for (int i = 0; i < H; ++i) mul_row<H>(m + i, sa, sb[i], cy);
  m[H] = add_cc(m[H], sb[0] & ca, cy);
  ZK_UNROLL
  for (int i = 1; i < H; ++i) m[H + i] = addc_cc(m[H + i], sb[i] & ca, cy);
  m[N] = addc(0, ca & cb & 1u, cy);  // v1's top word: ca cb plus the carry, at most 3 after the next add
  m[H] = add_cc(m[H], sa[0] & cb, cy);
  ZK_UNROLL
  for (int i = 1; i < H; ++i) m[H + i] = addc_cc(m[H + i], sa[i] & cb, cy);
  m[N] = addc(m[N], 0, cy);

  // m -= v0, m -= v2 (the result a0 b1 + a1 b0 >= 0: no borrow out of word N).
  m[0] = sub_cc(m[0], t[0], cy);
  ZK_UNROLL
  for (int i = 1; i < N; ++i) m[i] = subc_cc(m[i], t[i], cy);
  m[N] = subc(m[N], 0, cy);
  m[0] = sub_cc(m[0], t[N], cy);
  ZK_UNROLL
  for (int i = 1; i < N; ++i) m[i] = subc_cc(m[i], t[N + i], cy);
  m[N] = subc(m[N], 0, cy);

  // t += m B: words H .. H + N take m, the carry runs up to word 2N - 1 (no carry out).
  t[H] = add_cc(t[H], m[0], cy);
  ZK_UNROLL
  for (int i = 1; i <= N; ++i) t[H + i] = addc_cc(t[H + i], m[i], cy);
  ZK_UNROLL
  for (int i = H + N + 1; i < 2 * N - 1; ++i) t[i] = addc_cc(t[i], 0, cy);
  t[2 * N - 1] = addc(t[2 * N - 1], 0, cy);
}

}  // namespace zkmill::cuda::field
