// SPDX-License-Identifier: MIT
// Fixed-width unsigned integers as little-endian arrays of 64-bit limbs, with the few
// constexpr operations the field layer needs to derive its constants (R, R^2, -p^-1,
// (p-1)/2^s ...) from the modulus alone, so no derived constant is ever typed by hand.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#if defined(__x86_64__) && !defined(__CUDACC__)
#include <x86intrin.h>
#define ZKMILL_X86_CARRY 1
#endif

// Forces inlining of the few primitives every curve formula is made of (field add, sub, mul,
// compare). GCC's size heuristic counts a multi-line asm statement as large and otherwise emits
// a call per operation (perf showed them as the MSM's top symbols); inlined, the BN254 G1 MSM
// at 2^16 runs ~5% faster (docs/benchmarks.md). ZKMILL_NEVER_INLINE keeps a body that needs
// most of the registers (the 6-limb multiply) out of its callers.
#if defined(__GNUC__) && !defined(__CUDACC__)
#define ZKMILL_FORCE_INLINE inline __attribute__((always_inline))
#define ZKMILL_NEVER_INLINE inline __attribute__((noinline))
#else
#define ZKMILL_FORCE_INLINE inline
#define ZKMILL_NEVER_INLINE inline
#endif

namespace zkmill::ff {

template <size_t N>
using Limbs = std::array<uint64_t, N>;

using u128 = unsigned __int128;

template <size_t N>
constexpr bool is_zero(const Limbs<N>& a) {
  for (uint64_t x : a)
    if (x) return false;
  return true;
}

// -1, 0, +1 as a <, ==, > b.
template <size_t N>
constexpr int cmp(const Limbs<N>& a, const Limbs<N>& b) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}

// r = a + b, returns the carry out. At run time on x86-64 the carry chain is written with
// the add-with-carry intrinsics: GCC turns the portable 128-bit form into far longer code
// (field addition measured ~11 ns for 6 limbs before, see docs/benchmarks.md).
template <size_t N>
ZKMILL_FORCE_INLINE constexpr uint64_t add_to(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
#ifdef ZKMILL_X86_CARRY
  if (!std::is_constant_evaluated()) {
    unsigned char c = 0;
    for (size_t i = 0; i < N; ++i) {
      unsigned long long out;
      c = _addcarry_u64(c, a[i], b[i], &out);
      r[i] = out;
    }
    return c;
  }
#endif
  uint64_t carry = 0;
  for (size_t i = 0; i < N; ++i) {
    u128 s = u128(a[i]) + b[i] + carry;
    r[i] = uint64_t(s);
    carry = uint64_t(s >> 64);
  }
  return carry;
}

// r = a - b, returns the borrow out.
template <size_t N>
ZKMILL_FORCE_INLINE constexpr uint64_t sub_to(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
#ifdef ZKMILL_X86_CARRY
  if (!std::is_constant_evaluated()) {
    unsigned char c = 0;
    for (size_t i = 0; i < N; ++i) {
      unsigned long long out;
      c = _subborrow_u64(c, a[i], b[i], &out);
      r[i] = out;
    }
    return c;
  }
#endif
  uint64_t borrow = 0;
  for (size_t i = 0; i < N; ++i) {
    u128 d = u128(a[i]) - b[i] - borrow;
    r[i] = uint64_t(d);
    borrow = uint64_t(d >> 64) & 1;
  }
  return borrow;
}

template <size_t N>
constexpr void shr1(Limbs<N>& a) {
  for (size_t i = 0; i < N; ++i) a[i] = (a[i] >> 1) | (i + 1 < N ? a[i + 1] << 63 : 0);
}

template <size_t N>
constexpr bool bit(const Limbs<N>& a, size_t i) {
  return (a[i / 64] >> (i % 64)) & 1;
}

template <size_t N>
constexpr size_t num_bits(const Limbs<N>& a) {
  for (size_t i = N; i-- > 0;)
    if (a[i]) return 64 * i + 64 - size_t(__builtin_clzll(a[i]));
  return 0;
}

// Parses "0x..." (or bare) hexadecimal at compile time; too many digits is a hard error.
template <size_t N>
constexpr Limbs<N> from_hex(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  Limbs<N> r{};
  size_t nib = 0;
  for (size_t k = s.size(); k-- > 0;) {
    char c = s[k];
    uint64_t v = (c >= '0' && c <= '9')   ? uint64_t(c - '0')
                 : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                 : (c >= 'A' && c <= 'F') ? uint64_t(c - 'A' + 10)
                                          : throw std::invalid_argument("bad hex digit");
    if (nib / 16 >= N) {
      if (v) throw std::invalid_argument("hex constant too wide");
    } else {
      r[nib / 16] |= v << (4 * (nib % 16));
    }
    ++nib;
  }
  return r;
}

// Decimal digits -> integer; nullopt on a non-digit, an empty string or overflow of N limbs.
template <size_t N>
constexpr std::optional<Limbs<N>> parse_decimal(std::string_view s) {
  if (s.empty()) return std::nullopt;
  Limbs<N> r{};
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t carry = uint64_t(c - '0');
    for (size_t i = 0; i < N; ++i) {
      u128 t = u128(r[i]) * 10 + carry;
      r[i] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    if (carry) return std::nullopt;
  }
  return r;
}

template <size_t N>
std::string to_decimal(Limbs<N> a) {
  if (is_zero(a)) return "0";
  std::string out;
  while (!is_zero(a)) {
    u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
      u128 cur = (rem << 64) | a[i];
      a[i] = uint64_t(cur / 10);
      rem = cur % 10;
    }
    out.push_back(char('0' + rem));
  }
  return std::string(out.rbegin(), out.rend());
}

template <size_t N>
std::string to_hex(const Limbs<N>& a) {
  static const char* d = "0123456789abcdef";
  std::string out = "0x";
  bool lead = true;
  for (size_t i = N; i-- > 0;)
    for (int sh = 60; sh >= 0; sh -= 4) {
      unsigned v = unsigned(a[i] >> sh) & 15;
      if (lead && v == 0) continue;
      lead = false;
      out.push_back(d[v]);
    }
  if (lead) out.push_back('0');
  return out;
}

}  // namespace zkmill::ff
