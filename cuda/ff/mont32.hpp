// SPDX-License-Identifier: MIT
// Montgomery prime-field arithmetic over 32-bit limbs for the GPU (host-callable too).
//
// Fp32<P> is the device twin of the CPU zkmill::ff::Fp<P>: the same params struct P, the same
// modulus and the same Montgomery radix R = 2^(64 * P::kLimbs) = 2^(32 * N), so an element's
// bytes are identical on both sides (v[2i] / v[2i+1] are the low / high halves of the CPU's
// 64-bit limb i, little-endian). Points, scalars and results therefore move between host and
// device with plain copies, no conversion. Every constant (p, R mod p, -p^-1 mod 2^32) is
// derived at compile time from the CPU's MontConstants<P>; none is typed by hand. Inside a
// device function they are materialised as a local constexpr table, which nvcc folds into
// instruction immediates once the loops are unrolled (checked in the PTX: `mad.lo.s32 %r, %r,
// <imm>`), so no constant-memory loads sit on the critical path.
//
// Multiplication (operator*) is SOS, separated operand scanning (Koc, Acar, Kaliski, IEEE Micro
// 1996): the full 2N-word product (mul_wide), then N Montgomery reduction rows on its low half
// (redc_wide). Every row, of the product and of the reduction, is split into an even and an odd
// carry chain: the even chain adds lo(a_j b_i) at limb j and hi(a_j b_i) at limb j+1 for even j,
// the odd chain the same for odd j, so each chain is one uninterrupted run of mad.lo.cc /
// madc.hi.cc (the scheme of Emmart, Zheng and Weems, "Faster modular exponentiation using double
// precision floating point arithmetic on the GPU", ARITH 2018, section on "even/odd" products).
// The same IMAD pairs as CIOS (mont_mul below, interleaving a product row and a reduction row),
// but ptxas schedules the separated form with fewer register moves: 624 SASS instructions per
// BLS12-381 product instead of 728 (288 vs 328 for BN254), 1.08-1.11x the products per second
// and 2-4% off every MSM on the H200 (docs/benchmarks/gpu-field-products.md). Both give the
// fully reduced result (< p), matching the CPU exactly.
#pragma once

#include <cstdint>
#include <utility>

#include "common/ff/mont_field.hpp"  // its GCC unroll pragma is off under nvcc
#include "cuda/ff/carry_chain.hpp"

namespace zkmill::cuda::field {

template <class P>
struct Mont32Constants {
  static constexpr int N = 2 * int(P::kLimbs);
  uint32_t p[N];
  uint32_t one[N];     // R mod p: the Montgomery form of 1
  uint32_t r2[N];      // R^2 mod p: multiplying by it enters Montgomery form
  uint32_t p2[2 * N];  // p^2 as a plain 2N-word integer (lazy reduction's offset, Fp2)
  uint32_t inv;        // -p^-1 mod 2^32 (the low half of the CPU's -p^-1 mod 2^64)
  uint32_t bits;       // bit length of p
};

template <class P>
constexpr Mont32Constants<P> mont32_constants() {
  using C = ::zkmill::ff::MontConstants<P>;
  Mont32Constants<P> k{};
  for (size_t i = 0; i < P::kLimbs; ++i) {
    k.p[2 * i] = uint32_t(C::p[i]);
    k.p[2 * i + 1] = uint32_t(C::p[i] >> 32);
    k.one[2 * i] = uint32_t(C::r1[i]);
    k.one[2 * i + 1] = uint32_t(C::r1[i] >> 32);
    k.r2[2 * i] = uint32_t(C::r2[i]);
    k.r2[2 * i + 1] = uint32_t(C::r2[i] >> 32);
  }
  // p^2 by schoolbook over the 32-bit limbs (compile time only).
  constexpr int N = Mont32Constants<P>::N;
  for (int i = 0; i < N; ++i) {
    uint64_t carry = 0;
    for (int j = 0; j < N; ++j) {
      const uint64_t cur = uint64_t(k.p[i]) * k.p[j] + k.p2[i + j] + carry;
      k.p2[i + j] = uint32_t(cur);
      carry = cur >> 32;
    }
    k.p2[i + N] = uint32_t(carry);
  }
  k.inv = uint32_t(C::inv);
  k.bits = uint32_t(::zkmill::ff::num_bits(C::p));
  return k;
}

template <class P>
struct alignas(16) Fp32 {
  using Params = P;
  using Host = ::zkmill::ff::Fp<P>;
  static constexpr int N = 2 * int(P::kLimbs);
  static constexpr int kWords = N;  // 32-bit words of one element (Fp2 has twice as many)
  static constexpr int kBits = int(::zkmill::ff::num_bits(::zkmill::ff::MontConstants<P>::p));
  // The top 32-bit limb of p leaves a spare bit: a + b < 2p never overflows N limbs.
  static_assert(mont32_constants<P>().p[N - 1] < 0x80000000u, "modulus needs a spare top bit");

  uint32_t v[N];  // Montgomery form a*R mod p, fully reduced

  ZK_HD static Fp32 zero() {
    Fp32 r;
    ZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = 0;
    return r;
  }
  ZK_HD static Fp32 one() {
    constexpr auto K = mont32_constants<P>();
    Fp32 r;
    ZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = K.one[i];
    return r;
  }

  ZK_HD bool is_zero() const {
    uint32_t acc = 0;
    ZK_UNROLL
    for (int i = 0; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  ZK_HD friend bool operator==(const Fp32& a, const Fp32& b) {
    uint32_t acc = 0;
    ZK_UNROLL
    for (int i = 0; i < N; ++i) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
  }
  ZK_HD friend bool operator!=(const Fp32& a, const Fp32& b) { return !(a == b); }

  // r = t - p if t >= p else t, for t < 2p held in N limbs.
  ZK_HD static void reduce_once(uint32_t (&r)[N], const uint32_t (&t)[N]) {
    constexpr auto K = mont32_constants<P>();
    uint32_t d[N];
    const uint32_t keep_t = sub_words<N>(d, t, K.p);  // ~0 when t < p
    ZK_UNROLL
    for (int i = 0; i < N; ++i) r[i] = (t[i] & keep_t) | (d[i] & ~keep_t);
  }

  ZK_HD friend Fp32 operator+(const Fp32& a, const Fp32& b) {
    uint32_t s[N];
    add_words<N>(s, a.v, b.v);  // < 2p < 2^(32N): no carry out
    Fp32 r;
    reduce_once(r.v, s);
    return r;
  }

  // a - b, adding p back under a borrow mask (branch-free).
  ZK_HD friend Fp32 operator-(const Fp32& a, const Fp32& b) {
    constexpr auto K = mont32_constants<P>();
    uint32_t d[N];
    const uint32_t mask = sub_words<N>(d, a.v, b.v);  // ~0 when a < b
    Fp32 r;
    add_words_masked<N>(r.v, d, K.p, mask);
    return r;
  }

  ZK_HD Fp32 operator-() const {
    constexpr auto K = mont32_constants<P>();
    Fp32 r;
    sub_words<N, false>(r.v, K.p, v);            // v < p
    const uint32_t keep = is_zero() ? 0u : ~0u;  // -0 = 0, not p
    ZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] &= keep;
    return r;
  }

  ZK_HD Fp32 dbl() const { return *this + *this; }

  // this * 2^-k mod p for 0 <= k <= 31, e.g. an NTT's n^-1, at about a tenth of a product: one
  // Montgomery reduction step of k bits on the stored integer. Scaling the stored aR by the plain
  // integer 2^-k gives the Montgomery form of a 2^-k, so no conversion. t = v + m p with
  // m = -v p^-1 mod 2^k is divisible by 2^k and below 2^k p (v < p, m < 2^k), so t / 2^k < p:
  // fully reduced without a subtraction. t needs N + 1 limbs.
  ZK_HD Fp32 div_pow2(uint32_t k) const {
    constexpr auto K = mont32_constants<P>();
    const uint32_t m = (v[0] * K.inv) & ((1u << k) - 1u);
    Carry cy;
    uint32_t t[N + 1];
    t[0] = mad_lo_cc(m, K.p[0], v[0], cy);
    ZK_UNROLL
    for (int j = 1; j < N; ++j) t[j] = madc_lo_cc(m, K.p[j], v[j], cy);
    t[N] = addc(0, 0, cy);
    t[1] = mad_hi_cc(m, K.p[0], t[1], cy);
    ZK_UNROLL
    for (int j = 1; j < N - 1; ++j) t[j + 1] = madc_hi_cc(m, K.p[j], t[j + 1], cy);
    t[N] = madc_hi(m, K.p[N - 1], t[N], cy);
    Fp32 r;
    ZK_UNROLL
    for (int j = 0; j < N; ++j) r.v[j] = uint32_t(((uint64_t(t[j + 1]) << 32) | t[j]) >> k);
    return r;
  }

  // One Montgomery reduction row on an N+1-limb accumulator: t += m p with m = t_0 (-p^-1) mod
  // 2^32, so that the low limb cancels, then t >>= 32 (even and odd chains, as the header says).
  // mont_mul runs one after each product row, redc_wide N of them on a wide value's low half.
  ZK_HD static void reduce_row(uint32_t (&t)[N + 1], Carry& cy) {
    constexpr auto K = mont32_constants<P>();
    const uint32_t m = t[0] * K.inv;
    t[0] = mad_lo_cc(m, K.p[0], t[0], cy);  // == 0; only its carry matters
    t[1] = madc_hi_cc(m, K.p[0], t[1], cy);
    ZK_UNROLL
    for (int j = 2; j < N; j += 2) {
      t[j] = madc_lo_cc(m, K.p[j], t[j], cy);
      t[j + 1] = madc_hi_cc(m, K.p[j], t[j + 1], cy);
    }
    t[N] = addc(t[N], 0, cy);
    t[1] = mad_lo_cc(m, K.p[1], t[1], cy);
    ZK_UNROLL
    for (int j = 1; j < N - 2; j += 2) {
      t[j + 1] = madc_hi_cc(m, K.p[j], t[j + 1], cy);
      t[j + 2] = madc_lo_cc(m, K.p[j + 2], t[j + 2], cy);
    }
    t[N] = madc_hi(m, K.p[N - 1], t[N], cy);
    ZK_UNROLL
    for (int j = 0; j < N; ++j) t[j] = t[j + 1];
    t[N] = 0;
  }

  // out = a * b * R^-1 mod p by CIOS: a product row and a reduction row in turn. Bound: with a,
  // b < p < 2^(32N-1) the running total stays below 2p + 2p*2^32 < 2^(32(N+1)), so N+1
  // accumulator limbs suffice and one conditional subtraction gives the result below p.
  // operator* uses SOS instead (header comment); this stays for the conversions below and as the
  // bench's reference.
  ZK_HD static void mont_mul(uint32_t (&out)[N], const uint32_t (&a)[N], const uint32_t (&b)[N]) {
    uint32_t t[N + 1];
    ZK_UNROLL
    for (int i = 0; i <= N; ++i) t[i] = 0;
    Carry cy;
    ZK_UNROLL
    for (int i = 0; i < N; ++i) {
      mul_row<N>(t, a, b[i], cy);  // t += a * b_i (carry_chain.hpp's even / odd chains)
      reduce_row(t, cy);           // t += m p, t >>= 32
    }
    uint32_t lo[N];
    ZK_UNROLL
    for (int j = 0; j < N; ++j) lo[j] = t[j];
    reduce_once(out, lo);
  }

  // Lazy reduction (Fp2's product, cuda/ff/fp2.hpp): a plain double-width product and a
  // Montgomery reduction of a double-width value, so that sums and differences of products are
  // formed on the wide integers and reduced once (Aranha, Karabina, Longa, Gebotys, Lopez,
  // EUROCRYPT 2011, "Faster explicit formulas for computing pairings over ordinary curves",
  // section 3). Each costs what its half of mont_mul costs: N^2 lo/hi pairs for the product,
  // N^2 + N for the reduction (the m_i), so a product reduced once costs mont_mul's IMADs.
  static constexpr int kWide = 2 * N;

  // t = a * b exactly, for any a, b < 2^(32N) (unreduced operands are fine: Fp2 passes
  // a0 + a1 < 2p). Row i adds a * b_i at limb i with mont_mul's even / odd chains. Before row i
  // the partial sum is below 2^(32(N+i)), so t[N+i] is still 0 when the row starts (the even
  // chain's carry into it cannot carry out) and the row's total is below 2^(32(N+i+1)) (the odd
  // chain's last carry out is 0).
  ZK_HD static void mul_wide(uint32_t (&t)[kWide], const uint32_t (&a)[N], const uint32_t (&b)[N]) {
    ZK_UNROLL
    for (int i = 0; i < kWide; ++i) t[i] = 0;
    Carry cy;
    ZK_UNROLL
    for (int i = 0; i < N; ++i) mul_row<N>(t + i, a, b[i], cy);
  }

  // t = a^2 exactly, for any a < 2^(32N), with N(N+1)/2 lo/hi IMAD pairs instead of mul_wide's
  // N^2: a^2 = 2 sum_{i<j} a_i a_j 2^(32(i+j)) + sum_i a_i^2 2^(64i). The off-diagonal products
  // are formed once (row i adds a_i * (a_{i+1} .. a_{N-1}) at limb 2i + 1, N - 1 - i words),
  // the sum is doubled, then one chain adds the diagonal squares (lo at 2i, hi at 2i + 1).
  // Bounds as mul_wide's: before row i the sum is below a_0..a_{i-1} (as an integer) times
  // 2^(32N), so below 2^(32(N+i)); row i's top limb t[N+i] is still 0 and the row's total fits
  // through it (mul_row's precondition). The doubled off-diagonal sum plus the diagonal is a^2
  // < 2^(64N), so neither the doubling nor the diagonal chain carries out of t[2N-1].
  // With redc_wide (a < p: a^2 < p^2 < p R) a square costs N(N+1)/2 + N^2 + N pairs against
  // mont_mul's 2N^2 + N: 108 vs 136 for N = 8 (BN254), 234 vs 300 for N = 12 (BLS12-381).
  ZK_HD static void sqr_wide(uint32_t (&t)[kWide], const uint32_t (&a)[N]) {
    ZK_UNROLL
    for (int i = 0; i < kWide; ++i) t[i] = 0;
    Carry cy;
    off_diagonal(t, a, cy, std::make_integer_sequence<int, N - 1>{});
    add_words<kWide>(t, t, t);  // t[0] and t[2N-1] are still 0; 2 t < a^2
    t[0] = mad_lo_cc(a[0], a[0], t[0], cy);
    t[1] = madc_hi_cc(a[0], a[0], t[1], cy);
    ZK_UNROLL
    for (int i = 1; i < N - 1; ++i) {
      t[2 * i] = madc_lo_cc(a[i], a[i], t[2 * i], cy);
      t[2 * i + 1] = madc_hi_cc(a[i], a[i], t[2 * i + 1], cy);
    }
    t[kWide - 2] = madc_lo_cc(a[N - 1], a[N - 1], t[kWide - 2], cy);
    t[kWide - 1] = madc_hi(a[N - 1], a[N - 1], t[kWide - 1], cy);
  }
  // sqr_wide's rows, one mul_row<N - 1 - i> each (a row's length must be a constant).
  template <int... I>
  ZK_HD static void off_diagonal(uint32_t* t, const uint32_t (&a)[N], Carry& cy, std::integer_sequence<int, I...>) {
    (mul_row<N - 1 - I>(t + 2 * I + 1, a + I + 1, a[I], cy), ...);
  }

  // out = T R^-1 mod p, fully reduced, for T < p R (2N words). SOS order (Koc, Acar, Kaliski):
  // with T = T_hi R + T_lo, REDC(T) = T_hi + u, u = (T_lo + M p) / R, M = -T_lo p^-1 mod R.
  // The low half alone goes through mont_mul's reduction rows: the running value stays below
  // R + p (N+1 limbs; each row maps t < R + p to (t + m p) / 2^32 < R + p), and
  // T_lo + M p < R + R p gives u <= p. T < p R gives T_hi < p, so T_hi + u < 2p < R (the
  // modulus's spare top bit: N limbs, no carry out) and one conditional subtraction finishes.
  ZK_HD static void redc_wide(uint32_t (&out)[N], const uint32_t (&T)[kWide]) {
    uint32_t t[N + 1];
    ZK_UNROLL
    for (int i = 0; i < N; ++i) t[i] = T[i];
    t[N] = 0;
    Carry cy;
    ZK_UNROLL
    for (int i = 0; i < N; ++i) reduce_row(t, cy);
    uint32_t s[N];
    add_words<N>(s, t, T + N);  // T_hi + u < 2p < R
    reduce_once(out, s);
  }

  // r = x - y, plus p^2 when x < y, for x, y < p^2: r < p^2 < p R, ready for redc_wide, and
  // congruent to x - y mod p. Branch-free: the borrow becomes a mask on p^2, and adding p^2 to
  // the wrapped difference x - y + 2^(64N) wraps back to x - y + p^2 (>= 0 because y - x < p^2).
  ZK_HD static void sub_wide_mod_p2(uint32_t (&r)[kWide], const uint32_t (&x)[kWide], const uint32_t (&y)[kWide]) {
    constexpr auto K = mont32_constants<P>();
    uint32_t d[kWide];
    const uint32_t mask = sub_words<kWide>(d, x, y);  // ~0 when x < y
    add_words_masked<kWide>(r, d, K.p2, mask);
  }

  // a b R^-1 mod p by SOS (the header comment says why not CIOS).
  ZK_HD friend Fp32 operator*(const Fp32& a, const Fp32& b) {
    uint32_t w[kWide];
    mul_wide(w, a.v, b.v);  // a b < p^2 < p R: redc_wide's bound
    Fp32 r;
    redc_wide(r.v, w);
    return r;
  }
  ZK_HD Fp32& operator+=(const Fp32& b) { return *this = *this + b; }
  ZK_HD Fp32& operator-=(const Fp32& b) { return *this = *this - b; }
  ZK_HD Fp32& operator*=(const Fp32& b) { return *this = *this * b; }
  // a^2 R^-1 mod p: sqr_wide then redc_wide (a^2 < p^2 < p R), about 21% fewer IMADs than a
  // product (sqr_wide's comment). Used by the batch-affine sums (lambda^2), the XYZZ formulas
  // and Fermat inversion.
  ZK_HD Fp32 sqr() const {
    uint32_t w[kWide];
    sqr_wide(w, v);
    Fp32 r;
    redc_wide(r.v, w);
    return r;
  }

  // a^(p-2) = a^-1 by Fermat (0 maps to 0): about kBits squarings and kBits/2 multiplications,
  // for setup work (bench inputs, normalisation), not for inner loops.
  ZK_HD Fp32 inverse() const {
    constexpr auto K = mont32_constants<P>();
    uint32_t e[N];
    Carry cy;
    e[0] = sub_cc(K.p[0], 2u, cy);
    for (int i = 1; i < N; ++i) e[i] = subc_cc(K.p[i], 0u, cy);
    Fp32 r = one();
    ZK_NO_UNROLL
    for (int i = kBits - 1; i >= 0; --i) {
      r = r.sqr();
      if ((e[i >> 5] >> (i & 31)) & 1u) r = r * *this;
    }
    return r;
  }

  // The canonical integer (< p) as N little-endian 32-bit limbs: a*R * 1 * R^-1.
  ZK_HD Fp32 to_canonical() const {
    uint32_t unit[N];
    ZK_UNROLL
    for (int i = 0; i < N; ++i) unit[i] = i == 0 ? 1u : 0u;
    Fp32 r;
    mont_mul(r.v, v, unit);
    return r;
  }
  // From a canonical integer (< p) to Montgomery form: a * R^2 * R^-1.
  ZK_HD static Fp32 from_canonical(const Fp32& a) {
    constexpr auto K = mont32_constants<P>();
    Fp32 r;
    mont_mul(r.v, a.v, K.r2);
    return r;
  }

  // From N little-endian words (an element's bytes as the CPU stores them).
  ZK_HD static Fp32 from_words(const uint32_t* w) {
    Fp32 r;
    ZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = w[i];
    return r;
  }

  // Host-side bridges to the CPU type (same bytes; spelled out limb by limb, no punning).
  static Fp32 from_host(const Host& x) {
    Fp32 r;
    for (size_t i = 0; i < P::kLimbs; ++i) {
      r.v[2 * i] = uint32_t(x.v[i]);
      r.v[2 * i + 1] = uint32_t(x.v[i] >> 32);
    }
    return r;
  }
  Host to_host() const {
    ::zkmill::ff::Limbs<P::kLimbs> m{};
    for (size_t i = 0; i < P::kLimbs; ++i) m[i] = uint64_t(v[2 * i]) | (uint64_t(v[2 * i + 1]) << 32);
    return Host::from_raw_mont(m);
  }
};

}  // namespace zkmill::cuda::field
