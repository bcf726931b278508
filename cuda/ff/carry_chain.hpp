// SPDX-License-Identifier: MIT
// 32-bit carry-chain primitives: PTX add/sub/mad with the condition-code carry flag on the
// device, and a bit-exact emulation on the host, so every multi-precision routine built on them
// runs unchanged (and is unit-tested) on a machine without a GPU.
//
// PTX semantics (PTX ISA, "Extended-Precision Integer Arithmetic Instructions"): an instruction
// with `.cc` writes the carry (or, for sub, the borrow) into CC.CF; a `c`-prefixed one (addc,
// subc, madc) reads it. The carry is implicit machine state, so each chain below must be an
// uninterrupted sequence of these calls: the asm statements are `volatile` so that the front
// end neither reorders nor drops them (the same discipline as NVIDIA's CGBN chain_t); ptxas
// itself models CC as a register dependency. On the host the flag lives in a Carry object
// passed by reference; on the device that object is never touched and is optimised away.
#pragma once

#include <cstdint>

#include "cuda/runtime/host_device.hpp"

namespace zkmill::cuda::field {

// Host-side stand-in for CC.CF (0 or 1). Unused on the device.
struct Carry {
  uint32_t cf = 0;
};

#if defined(__CUDA_ARCH__)
#define ZK_CHAIN_ASM(...) asm volatile(__VA_ARGS__)
#endif

// d = a + b, CF = carry out.
ZK_HD uint32_t add_cc(uint32_t a, uint32_t b, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  uint64_t s = uint64_t(a) + b;
  k.cf = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// d = a + b + CF, CF = carry out.
ZK_HD uint32_t addc_cc(uint32_t a, uint32_t b, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  uint64_t s = uint64_t(a) + b + k.cf;
  k.cf = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// d = a + b + CF (carry out discarded: the caller has proved there is none).
ZK_HD uint32_t addc(uint32_t a, uint32_t b, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  return uint32_t(uint64_t(a) + b + k.cf);
#endif
}

// d = a - b, CF = borrow out.
ZK_HD uint32_t sub_cc(uint32_t a, uint32_t b, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  k.cf = a < b ? 1u : 0u;
  return a - b;
#endif
}

// d = a - b - CF, CF = borrow out.
ZK_HD uint32_t subc_cc(uint32_t a, uint32_t b, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  uint64_t need = uint64_t(b) + k.cf;
  uint32_t d = uint32_t(uint64_t(a) - need);
  k.cf = uint64_t(a) < need ? 1u : 0u;
  return d;
#endif
}

// d = a - b - CF (borrow out discarded). subc(0, 0) turns the borrow into a 0 / ~0 mask.
ZK_HD uint32_t subc(uint32_t a, uint32_t b, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("subc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  return uint32_t(uint64_t(a) - b - k.cf);
#endif
}

// d = lo32(a*b) + c, CF = carry out.
ZK_HD uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  uint64_t s = uint64_t(uint32_t(uint64_t(a) * b)) + c;
  k.cf = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// d = lo32(a*b) + c + CF, CF = carry out.
ZK_HD uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  uint64_t s = uint64_t(uint32_t(uint64_t(a) * b)) + c + k.cf;
  k.cf = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// d = hi32(a*b) + c, CF = carry out.
ZK_HD uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  uint64_t s = ((uint64_t(a) * b) >> 32) + c;
  k.cf = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// d = hi32(a*b) + c + CF, CF = carry out.
ZK_HD uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  uint64_t s = ((uint64_t(a) * b) >> 32) + c + k.cf;
  k.cf = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// d = hi32(a*b) + c + CF (carry out discarded).
ZK_HD uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c, [[maybe_unused]] Carry& k) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  ZK_CHAIN_ASM("madc.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  return uint32_t(((uint64_t(a) * b) >> 32) + c + k.cf);
#endif
}

// One product row of L >= 1 words: t[0..L] += a[0..L-1] * b, the low half of a_j b at limb j
// and the high half at j + 1, the even j in one chain and the odd j in a second (the layout of
// mont32.hpp's header: no limb takes two products in one chain). The caller proves that the
// row's total fits L + 1 words; each chain adds a part of it, so the partial sum fits too and
// the carry out of t[L] is 0 in both chains (dropped). Fp32's mont_mul and mul_wide run it
// with L = N, the squaring's off-diagonal rows (Fp32::sqr_wide) with L = N - 1 down to 1.
template <int L>
ZK_HD void mul_row(uint32_t* t, const uint32_t* a, uint32_t b, Carry& cy) {
  static_assert(L >= 1, "a row has at least one word");
  if constexpr (L == 1) {
    t[0] = mad_lo_cc(a[0], b, t[0], cy);
    t[1] = madc_hi(a[0], b, t[1], cy);
  } else {
    // Even chain: the pairs (lo at j, hi at j + 1) that end below limb L, then the top limb.
    t[0] = mad_lo_cc(a[0], b, t[0], cy);
    t[1] = madc_hi_cc(a[0], b, t[1], cy);
    ZK_UNROLL
    for (int j = 2; j + 1 < L; j += 2) {
      t[j] = madc_lo_cc(a[j], b, t[j], cy);
      t[j + 1] = madc_hi_cc(a[j], b, t[j + 1], cy);
    }
    if constexpr (L % 2 == 0) {
      t[L] = addc(t[L], 0, cy);
    } else {
      t[L - 1] = madc_lo_cc(a[L - 1], b, t[L - 1], cy);
      t[L] = madc_hi(a[L - 1], b, t[L], cy);
    }
    // Odd chain.
    t[1] = mad_lo_cc(a[1], b, t[1], cy);
    ZK_UNROLL
    for (int j = 1; j + 2 < L; j += 2) {
      t[j + 1] = madc_hi_cc(a[j], b, t[j + 1], cy);
      t[j + 2] = madc_lo_cc(a[j + 2], b, t[j + 2], cy);
    }
    if constexpr (L % 2 == 0) {
      t[L] = madc_hi(a[L - 1], b, t[L], cy);
    } else {
      t[L - 1] = madc_hi_cc(a[L - 2], b, t[L - 1], cy);
      t[L] = addc(t[L], 0, cy);
    }
  }
}

// Multi-word chains over little-endian arrays of M >= 2 words, each one uninterrupted chain of
// the primitives above (the Fp32 routines and Fp2's lazy product are built from these).
// r = a + b; the carry out of the top word is dropped: every caller's bound rules it out.
template <int M>
ZK_HD void add_words(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  Carry cy;
  r[0] = add_cc(a[0], b[0], cy);
  ZK_UNROLL
  for (int i = 1; i < M - 1; ++i) r[i] = addc_cc(a[i], b[i], cy);
  r[M - 1] = addc(a[M - 1], b[M - 1], cy);
}

// r = a + (b & mask): adds b back, or nothing, without a branch (mask ~0 or 0).
template <int M>
ZK_HD void add_words_masked(uint32_t* r, const uint32_t* a, const uint32_t* b, uint32_t mask) {
  Carry cy;
  r[0] = add_cc(a[0], b[0] & mask, cy);
  ZK_UNROLL
  for (int i = 1; i < M - 1; ++i) r[i] = addc_cc(a[i], b[i] & mask, cy);
  r[M - 1] = addc(a[M - 1], b[M - 1] & mask, cy);
}

// r = a - b mod 2^(32M). With kBorrowMask the borrow out becomes the result, ~0 when a < b and
// 0 otherwise; without it the caller guarantees a >= b and 0 is returned.
template <int M, bool kBorrowMask = true>
ZK_HD uint32_t sub_words(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  Carry cy;
  r[0] = sub_cc(a[0], b[0], cy);
  ZK_UNROLL
  for (int i = 1; i < M - 1; ++i) r[i] = subc_cc(a[i], b[i], cy);
  if constexpr (kBorrowMask) {
    r[M - 1] = subc_cc(a[M - 1], b[M - 1], cy);
    return subc(0, 0, cy);
  } else {
    r[M - 1] = subc(a[M - 1], b[M - 1], cy);
    return 0;
  }
}

}  // namespace zkmill::cuda::field
