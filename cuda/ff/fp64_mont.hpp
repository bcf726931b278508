// SPDX-License-Identifier: MIT
// Montgomery multiplication on the FP64 units: 52-bit limbs held in doubles (host-callable too).
//
// Why: the production product (cuda/ff/mont32.hpp) is all IMAD, and Hopper issues IMAD on one
// pipe at 64 lanes a clock per SM, half the SM's issue rate; the FP64 pipe (DFMA, DADD) is a
// second pipe of the same width, idle in every MSM kernel. A 52 x 52-bit product through two
// DFMAs holds 2.6x the bit-products of a 32 x 32-bit IMAD pair, so the same modular product
// costs fewer issues on the FP64 pipe than on the IMAD pipe (issue 16's last lever; the
// counts are in cuda/bench/NOTES-fp64.md). Measured on the H200 (2026-12-05,
// docs/benchmarks/gpu-field-products.md) it is not faster: 0.82x the IMAD product on BLS12-381,
// 1.05-1.12x on BN254 alone but slower in every MSM (registers), and the two pipes do not add up.
// So only the microbenchmark uses it (cuda/bench/fp64_mul_bench.cuh, `--ceilings 1`: the same
// question on any other card); a build option that put mont_mul_words_fp64 in Fp32's place was
// measured and removed (commit 6217541 has it).
//
// The split of one limb product (the scheme of Emmart, Zheng and Weems, "Faster modular
// exponentiation using double precision floating point arithmetic on the GPU", ARITH 2018,
// written here for round-down so that no part is negative). With a, b integers in [0, 2^52):
//   s  = fma_rd(a, b, 2^104)     = 2^104 + h 2^52,  h = floor(a b / 2^52)   (ulp at 2^104 is 2^52)
//   n  = (2^104 + 2^52) - s      = (1 - h) 2^52                            (exact: representable)
//   lo = fma(a, b, n)            = 2^52 + l,  l = a b - h 2^52 in [0, 2^52) (exact: ulp 1 there)
// Only the first operation rounds. Both results have a fixed exponent, so their IEEE bit patterns
// are the integers bits(2^104) + h and bits(2^52) + l: h and l are read with no conversion by
// adding the patterns into 64-bit column sums and taking the constant biases off once (every
// bias is a multiple of 2^52, so a column's low 52 bits are right at every moment, which is
// what the reduction's m_i needs). Montgomery reduction by product scanning (montgomery_fips).
//
// Radix R = 2^(52 L) with L the least limb count for which 4p < R, so that inputs below 2p give
// an output below 2p (ab + mp < 4p^2 + R p < 2 R p): the lazy form needs no final subtraction;
// kReduce = true subtracts p once more and returns the canonical limbs (< p). Values are not in
// the CPU's Montgomery form (R differs); to_mont52 / from_mont52 convert canonical integers.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/ff/mont_field.hpp"  // its GCC unroll pragma is off under nvcc
#include "cuda/ff/carry_chain.hpp"
#include "cuda/runtime/host_device.hpp"

namespace zkmill::cuda::field {

namespace fp64 {

inline constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;
inline constexpr double kTwo52 = 4503599627370496.0;                   // 2^52
inline constexpr double kTwo104 = 20282409603651670423947251286016.0;  // 2^104
inline constexpr double kTwo104Plus52 = kTwo104 + kTwo52;              // exact: 53 significant bits
inline constexpr uint64_t kBits52 = uint64_t(1023 + 52) << 52;         // IEEE pattern of 2^52
inline constexpr uint64_t kBits104 = uint64_t(1023 + 104) << 52;       // IEEE pattern of 2^104

ZK_HD uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return uint64_t(__double_as_longlong(x));
#else
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

ZK_HD double from_bits(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// An integer in [0, 2^52) as a double, by its bit pattern (no I2F conversion on the device).
ZK_HD double limb_to_double(uint64_t x) { return from_bits(x | kBits52) - kTwo52; }

// The split above: *hi = bits(2^104) + floor(ab / 2^52), *lo = bits(2^52) + (ab mod 2^52).
// The host has no rounding-mode-per-instruction FMA, so it forms s from the exact product (the
// one rounded step, emulated as cuda/ff/carry_chain.hpp emulates the carry flag); the other two
// operations are exact and run as real IEEE operations on both sides.
ZK_HD void split_product(double a, double b, uint64_t& hi, uint64_t& lo) {
#if defined(__CUDA_ARCH__)
  const double s = __fma_rd(a, b, kTwo104);
  hi = bits_of(s);
  lo = bits_of(__fma_rn(a, b, kTwo104Plus52 - s));
#else
  const unsigned __int128 ab = static_cast<unsigned __int128>(uint64_t(a)) * uint64_t(b);
  hi = kBits104 + uint64_t(ab >> 52);
  const double s = from_bits(hi);
  lo = bits_of(__builtin_fma(a, b, kTwo104Plus52 - s));
#endif
}

}  // namespace fp64

template <class P>
struct Mont52Constants {
  static constexpr int bits = int(::zkmill::ff::num_bits(::zkmill::ff::MontConstants<P>::p));
  static constexpr int L = (bits + 2 + 51) / 52;  // least L with 4p < 2^(52 L)
  double p[L];                                    // p's 52-bit limbs as doubles
  uint64_t pi[L];                                 // and as integers
  uint64_t inv;                                   // -p^-1 mod 2^52
  uint64_t bias[2 * L];                           // what the bit patterns add to each column
  uint64_t r2[L];                                 // R^2 mod p (R = 2^(52 L)), 52-bit limbs
  uint32_t pw[2 * P::kLimbs];                     // p as 32-bit words (Fp32's layout)
};

// The 52-bit limbs of a 64-bit-limb integer (compile time or host).
template <int L, size_t N>
constexpr void to_limbs52(uint64_t (&out)[L], const ::zkmill::ff::Limbs<N>& x) {
  for (int k = 0; k < L; ++k) {
    uint64_t v = 0;
    for (int b = 0; b < 52; ++b) {
      const size_t bit = size_t(52 * k + b);
      if (bit / 64 < N && (x[bit / 64] >> (bit % 64)) & 1) v |= uint64_t(1) << b;
    }
    out[k] = v;
  }
}

template <class P>
constexpr Mont52Constants<P> mont52_constants() {
  using C = ::zkmill::ff::MontConstants<P>;
  constexpr int L = Mont52Constants<P>::L;
  Mont52Constants<P> k{};
  to_limbs52<L>(k.pi, C::p);
  for (int i = 0; i < L; ++i) k.p[i] = double(k.pi[i]);  // exact: below 2^52
  k.inv = C::inv & fp64::kMask52;                        // -p^-1 mod 2^64, reduced mod 2^52
  // Column k takes the lo parts of the products (i, j) with i + j = k and the hi parts of those
  // with i + j + 1 = k, once for a b and once for m p: count(s) pairs in [0, L)^2 sum to s.
  auto count = [](int s) { return (s < 0 || s > 2 * L - 2) ? 0 : (s < L ? s + 1 : 2 * L - 1 - s); };
  for (int c = 0; c < 2 * L; ++c)
    k.bias[c] = 2 * uint64_t(count(c)) * fp64::kBits52 + 2 * uint64_t(count(c - 1)) * fp64::kBits104;
  to_limbs52<L>(k.r2, C::pow2_mod_p(size_t(2 * 52 * L)));
  for (size_t i = 0; i < P::kLimbs; ++i) {
    k.pw[2 * i] = uint32_t(C::p[i]);
    k.pw[2 * i + 1] = uint32_t(C::p[i] >> 32);
  }
  return k;
}

// a b + M p, M = sum m_i 2^(52 i) chosen so that the low 52 (L - 1) + kLastBits bits cancel:
// L - 1 full reduction steps and a last one of kLastBits bits (52 for R = 2^(52 L), fewer for
// Fp32's R = 2^(32 N) below). Product scanning (Koc, Acar, Kaliski 1996, FIPS): column c takes
// the lo parts of its products a_i b_j and m_i p_j (i + j = c) and the hi parts of column c - 1's,
// so two 64-bit sums are live, not 2L: the MSM kernels keep several field elements live beside
// the product (the separated, row-by-row order measured 72 -> 248 registers in a BLS12-381 round
// kernel, this one 140). Each lo/hi pair of a column goes in one three-input add (IADD3 +
// IADD3.X). m_c is formed as soon as column c lacks only m_c p_0. v receives columns
// L - 1 .. 2L - 1 normalised to 52 bits.
template <class P, int kLastBits, bool kSquare = false>
ZK_HD void montgomery_fips(uint64_t (&v)[Mont52Constants<P>::L + 1], const double (&a)[Mont52Constants<P>::L],
                           const double (&b)[Mont52Constants<P>::L]) {
  using namespace fp64;
  constexpr int L = Mont52Constants<P>::L;
  constexpr Mont52Constants<P> K = mont52_constants<P>();
  static_assert(kLastBits > 0 && kLastBits <= 52, "a reduction step takes at most a limb");
  double m[L];
  uint64_t cur = 0 - K.bias[0], next;
  ZK_UNROLL
  for (int c = 0; c < 2 * L; ++c) {
    next = c + 1 < 2 * L ? 0 - K.bias[c + 1] : 0;
    ZK_UNROLL
    for (int i = 0; i < L; ++i) {  // a constant trip count, so that nvcc unrolls it first
      if (i > c || c - i >= L) continue;
      // A square forms a_i a_j once for i < j and adds its patterns twice (twice the bias too,
      // as the two products of a b would add); the m p products as for any product.
      const bool ab = !kSquare || i <= c - i, twice = kSquare && i < c - i;
      const bool mp = i < c || c >= L;  // m_i known for i < c (and every i from column L on)
      uint64_t hi = 0, lo = 0, hi2 = 0, lo2 = 0;
      if (ab) split_product(a[i], b[c - i], hi, lo);
      if (mp) split_product(m[i], K.p[c - i], hi2, lo2);
      cur += lo + (twice ? lo : 0) + lo2;
      next += hi + (twice ? hi : 0) + hi2;
    }
    if (c < L) {  // cur's low 52 bits are exact (the biases still owed are multiples of 2^52)
      constexpr uint64_t kLastMask = (uint64_t(1) << kLastBits) - 1;
      m[c] = limb_to_double((cur * K.inv) & (c + 1 < L ? kMask52 : kLastMask));
      uint64_t hi, lo;
      split_product(m[c], K.p[0], hi, lo);
      cur += lo;
      next += hi;
    }
    if (c >= L - 1) v[c - L + 1] = cur & kMask52;
    next += cur >> 52;  // column c is complete and unbiased: its carry goes up
    cur = next;
  }
}

// out = a b R^-1 mod p, R = 2^(52 L). Inputs: limbs integers in [0, 2^52), values below 2p.
// Output below 2p (kReduce = false) or below p. `out` may alias `a` or `b`.
template <class P, bool kReduce>
ZK_HD void mont_mul52(double (&out)[Mont52Constants<P>::L], const double (&a)[Mont52Constants<P>::L],
                      const double (&b)[Mont52Constants<P>::L]) {
  using namespace fp64;
  constexpr int L = Mont52Constants<P>::L;
  constexpr Mont52Constants<P> K = mont52_constants<P>();
  uint64_t v[L + 1];
  montgomery_fips<P, 52>(v, a, b);  // column L - 1 is 0: the result is columns L .. 2L - 1
  uint64_t r[L];
  ZK_UNROLL
  for (int k = 0; k < L; ++k) r[k] = v[k + 1];
  if constexpr (kReduce) {
    uint64_t d[L], borrow = 0;  // borrow is 0 or 1
    ZK_UNROLL
    for (int k = 0; k < L; ++k) {
      const uint64_t x = r[k] - K.pi[k] - borrow;
      d[k] = x & kMask52;
      borrow = x >> 63;
    }
    const bool keep = borrow != 0;  // r < p
    ZK_UNROLL
    for (int k = 0; k < L; ++k) r[k] = keep ? r[k] : d[k];
  }
  ZK_UNROLL
  for (int k = 0; k < L; ++k) out[k] = limb_to_double(r[k]);
}

// Fp32's product (cuda/ff/mont32.hpp) on the FP64 pipe: the same N = 2 kLimbs 32-bit words in
// and out, the same radix R = 2^(32 N), so the result is mont_mul's bit for bit and the two can
// replace each other anywhere. 32 N is not a multiple of 52 (384 = 7 x 52 + 20, 256 = 4 x 52 +
// 48), so the reduction takes L - 1 full steps and a last one of the remaining E bits; the
// result is then the columns from L - 1 on, shifted right by E. M < R and a, b < p give
// (a b + M p) / R < p^2 / R + p < 2p: one conditional subtraction, on the words.
template <class P>
struct WordsOnFp64 {
  static constexpr int N = 2 * int(P::kLimbs);
  static constexpr int L = Mont52Constants<P>::L;
  static constexpr int E = 32 * N - 52 * (L - 1);  // bits of the last reduction step
  static_assert(E > 0 && E < 52, "the radix must end inside the last limb");
};

// Bits [52 k, 52 k + 52) of a little-endian word array, as doubles (limbs past the top are 0).
template <int N, int L>
ZK_HD void words_to_limbs52(double (&d)[L], const uint32_t (&w)[N]) {
  ZK_UNROLL
  for (int k = 0; k < L; ++k) {
    const int bit = 52 * k, q = bit / 32, o = bit % 32;
    const uint64_t w0 = w[q], w1 = q + 1 < N ? w[q + 1] : 0, w2 = q + 2 < N ? w[q + 2] : 0;
    uint64_t x = ((w1 << 32) | w0) >> o;
    if (o > 12) x |= w2 << (64 - o);
    d[k] = fp64::limb_to_double(x & fp64::kMask52);
  }
}

template <class P, bool kSquare>
ZK_HD void words_fp64(uint32_t (&out)[2 * P::kLimbs], const uint32_t (&a)[2 * P::kLimbs],
                      const uint32_t (&b)[2 * P::kLimbs]) {
  using namespace fp64;
  using W = WordsOnFp64<P>;
  constexpr int N = W::N, L = W::L, E = W::E, U = L + 1;  // U limbs of the result, from column L - 1
  constexpr auto K = mont52_constants<P>();
  double da[L], db[L];
  words_to_limbs52<N, L>(da, a);
  if constexpr (kSquare) {
    ZK_UNROLL
    for (int k = 0; k < L; ++k) db[k] = da[k];
  } else {
    words_to_limbs52<N, L>(db, b);
  }
  uint64_t v[U];  // columns L - 1 .. 2L - 1, normalised
  montgomery_fips<P, E, kSquare>(v, da, db);
  uint32_t r[N];  // word k: bits [E + 32 k, E + 32 k + 32) of v
  ZK_UNROLL
  for (int k = 0; k < N; ++k) {
    const int bit = E + 32 * k, u = bit / 52, o = bit % 52;
    uint64_t x = v[u] >> o;
    if (o > 20 && u + 1 < U) x |= v[u + 1] << (52 - o);
    r[k] = uint32_t(x);
  }
  uint32_t d[N];
  const uint32_t keep_r = sub_words<N>(d, r, K.pw);  // ~0 when r < p
  ZK_UNROLL
  for (int k = 0; k < N; ++k) out[k] = (r[k] & keep_r) | (d[k] & ~keep_r);
}

template <class P>
ZK_HD void mont_mul_words_fp64(uint32_t (&out)[2 * P::kLimbs], const uint32_t (&a)[2 * P::kLimbs],
                               const uint32_t (&b)[2 * P::kLimbs]) {
  words_fp64<P, false>(out, a, b);
}

// a^2 R^-1 mod p (Fp32's sqr(), bit for bit): L (L + 1) / 2 limb products for a^2 instead of
// L^2 (36 instead of 64 for BLS12-381), the reduction's unchanged: 21% fewer FP64 operations.
template <class P>
ZK_HD void mont_sqr_words_fp64(uint32_t (&out)[2 * P::kLimbs], const uint32_t (&a)[2 * P::kLimbs]) {
  words_fp64<P, true>(out, a, a);
}

// Canonical (< p) 64-bit-limb integer -> Montgomery-52 limbs (x R mod p), and back.
template <class P>
ZK_HD void to_mont52(double (&out)[Mont52Constants<P>::L], const uint64_t* canonical) {
  constexpr int L = Mont52Constants<P>::L;
  constexpr Mont52Constants<P> K = mont52_constants<P>();
  ::zkmill::ff::Limbs<P::kLimbs> x{};
  for (size_t i = 0; i < P::kLimbs; ++i) x[i] = canonical[i];
  uint64_t xl[L];
  to_limbs52<L>(xl, x);
  double xd[L], r2[L];
  for (int k = 0; k < L; ++k) {
    xd[k] = double(xl[k]);
    r2[k] = double(K.r2[k]);
  }
  mont_mul52<P, true>(out, xd, r2);
}

template <class P>
ZK_HD void from_mont52(uint64_t* canonical, const double (&x)[Mont52Constants<P>::L]) {
  constexpr int L = Mont52Constants<P>::L;
  double one[L] = {1.0}, c[L];
  mont_mul52<P, true>(c, x, one);  // x R^-1, fully reduced
  for (size_t i = 0; i < P::kLimbs; ++i) canonical[i] = 0;
  for (int k = 0; k < L; ++k) {
    const uint64_t v = uint64_t(c[k]);
    const int bit = 52 * k;
    canonical[bit / 64] |= v << (bit % 64);
    if (bit % 64 > 12 && size_t(bit / 64 + 1) < P::kLimbs) canonical[bit / 64 + 1] |= v >> (64 - bit % 64);
  }
}

}  // namespace zkmill::cuda::field
