// SPDX-License-Identifier: MIT
// Signed c-bit window recoding of scalars for the bucket method, and the window-size planner.
//
// A canonical scalar k < 2^b is written k = sum_{w<W} d_w 2^{cw} with signed digits
// d_w in [-2^{c-1} + 1, 2^{c-1}] (Bernstein, Duif, Lange, Schwabe, Yang, "High-speed
// high-security signatures" (Ed25519), CHES 2011, sec. 4: the radix-2^c signed recoding).
// Left to right over the windows with a carry: t = (bits c*w .. c*w+c-1 of k) + carry;
// if t > 2^{c-1} then d = t - 2^c and carry = 1, else d = t and carry = 0. Since |d| <= 2^{c-1},
// Pippenger needs only 2^{c-1} buckets (bucket |d| - 1) and the base is negated when d < 0;
// negation on a short Weierstrass curve is free, so this halves the buckets for nothing.
// W = ceil((b + 1) / c) windows: the top window then holds at most c - 1 bits of k, so its
// t <= 2^{c-1} never produces a carry out of the last window.
//
// Storage: one uint16 per digit. The digit set {-2^{c-1}+1, ..., 2^{c-1}} is a complete residue
// system mod 2^c, hence for c <= 16 the code d mod 2^16 is unique; decoding reads it as int16
// and maps -2^15 back to +2^15 (only reachable when c = 16). Zero digits (code 0) are skipped,
// which keeps small scalars (bits, bytes, the common witness values) almost free in the upper
// windows; a recoding with an added offset would lose this.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/ff/bigint.hpp"

namespace zkmill::msm {

inline constexpr unsigned kMaxWindowBits = 16;  // uint16 digit codes

// Bits [pos, pos + c) of k (c <= 16), zero beyond the top limb.
template <size_t N>
inline uint32_t window_bits(const ff::Limbs<N>& k, size_t pos, unsigned c) {
  size_t limb = pos / 64, sh = pos % 64;
  if (limb >= N) return 0;
  uint64_t v = k[limb] >> sh;
  if (sh + c > 64 && limb + 1 < N) v |= k[limb + 1] << (64 - sh);
  return uint32_t(v & ((uint64_t(1) << c) - 1));
}

inline uint16_t encode_digit(int32_t d) { return uint16_t(d); }
inline int32_t decode_digit(uint16_t code) {
  int32_t d = int16_t(code);
  return d == INT16_MIN ? 32768 : d;
}

// Writes the W signed digits of k to out[0], out[stride], ..., out[(W-1) stride].
template <size_t N>
inline void recode_signed(const ff::Limbs<N>& k, unsigned c, unsigned windows, uint16_t* out, size_t stride) {
  const uint32_t half = uint32_t(1) << (c - 1), full = uint32_t(1) << c;
  uint32_t carry = 0;
  for (unsigned w = 0; w < windows; ++w) {
    uint32_t t = window_bits(k, size_t(w) * c, c) + carry;
    int32_t d;
    if (t > half) {
      d = int32_t(t) - int32_t(full);
      carry = 1;
    } else {
      d = int32_t(t);
      carry = 0;
    }
    out[size_t(w) * stride] = encode_digit(d);
  }
}

// Number of windows for b-bit scalars and window c (see the header comment).
inline constexpr unsigned num_windows(size_t scalar_bits, unsigned c) {
  return unsigned((scalar_bits + 1 + c - 1) / c);
}

// How bucket contents are accumulated.
enum class Accumulation {
  kAuto,         // the planner picks (batch-affine for large inputs, XYZZ otherwise)
  kXyzz,         // mixed additions into XYZZ buckets (madd-2008-s, 8M + 2S each)
  kBatchAffine,  // affine buckets, additions batched through Montgomery's inversion trick
};

// A schedule for one MSM: window size, window count, how many point chunks each window is split
// into (tasks = windows * chunks), and the accumulation method.
struct WindowPlan {
  unsigned c = 0;
  unsigned windows = 0;
  unsigned chunks = 1;
  Accumulation accumulation = Accumulation::kXyzz;
};

// Picks c (and chunks, and the accumulation when `accumulation` is kAuto) minimising
//   ceil(windows * chunks / threads) * (n / chunks * A + 2^{c-1} * R)   (+ the serial combination)
// with A, R the per-point and per-bucket costs of the accumulation (pippenger.cpp), over c in
// [1, 16] and chunks in [1, 4 threads]. `window_bits` != 0 forces c, a non-kAuto `accumulation`
// forces the method. Defined in pippenger.cpp.
// coord_bytes: size of one base-field coordinate (32 BN254 G1, 48 BLS12-381 G1, twice that
// for G2), for the bucket array's cache footprint.
WindowPlan plan_windows(size_t n, size_t scalar_bits, size_t coord_bytes, size_t threads, unsigned window_bits = 0,
                        Accumulation accumulation = Accumulation::kAuto);

// The model cost of a plan (exposed for the benchmark's window table).
double plan_cost(const WindowPlan& plan, size_t n, size_t scalar_bits, size_t coord_bytes, size_t threads);

}  // namespace zkmill::msm
