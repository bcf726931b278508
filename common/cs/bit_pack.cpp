// SPDX-License-Identifier: MIT
// Bit-packing of upload chunks (bit_pack.hpp). Three steps: the pool's threads classify the
// elements, 64 to a word (map word: whole; ones word: equal to one); one thread then compacts the
// ones of the non-whole elements into the bits stream (one pext per word) and counts the whole
// elements before each word; the threads copy the whole elements to their places. The elements
// are read once in the first step; only the whole ones again.
#include "common/cs/bit_pack.hpp"

#include <bit>
#include <cstring>

#if defined(__BMI2__)
#include <immintrin.h>
#endif

#include "common/ff/bls12_381_fields.hpp"
#include "common/ff/bn254_fields.hpp"

namespace zkmill::cs {

namespace {

// The bits of x at the set positions of m, packed to the low end (BMI2's pext).
uint64_t extract_bits(uint64_t x, uint64_t m) {
#if defined(__BMI2__)
  return _pext_u64(x, m);
#else
  uint64_t r = 0;
  for (uint64_t out = 1; m != 0; out <<= 1, m &= m - 1)
    if (x & m & (~m + 1)) r |= out;
  return r;
#endif
}

constexpr size_t kGrainWords = 1024;  // 64 Ki elements per task

}  // namespace

template <class F>
BitPackedChunk pack_bits(std::span<const F> src, uint8_t* out, util::ThreadPool& pool, std::vector<uint64_t>& scratch) {
  BitPackedChunk c;
  c.n = src.size();
  c.map_words = (c.n + 63) / 64;
  const uint64_t words = c.map_words;
  auto* map = reinterpret_cast<uint64_t*>(out);
  auto* bits = map + words;
  if (scratch.size() < 2 * words + 1) scratch.resize(2 * words + 1);
  uint64_t* ones = scratch.data();
  uint64_t* full_before = ones + words;  // whole elements before word w
  const F zero = F::zero(), one = F::one();

  pool.parallel_for(
      words,
      [&](size_t w0, size_t w1) {
        for (size_t w = w0; w < w1; ++w) {
          const size_t lo = 64 * w, hi = lo + 64 < c.n ? lo + 64 : c.n;
          uint64_t fm = 0, om = 0;
          for (size_t i = lo; i < hi; ++i) {  // no branches: 0 and 1 alternate at random
            const bool is_one = src[i] == one, is_zero = src[i] == zero;
            om |= uint64_t(is_one) << (i - lo);
            fm |= uint64_t(!(is_one | is_zero)) << (i - lo);
          }
          map[w] = fm;
          ones[w] = om;
        }
      },
      kGrainWords);

  uint64_t bit_pos = 0, n_full = 0;
  for (uint64_t w = 0; w < words; ++w) {
    full_before[w] = n_full;
    const uint64_t valid = (w + 1 == words && c.n % 64 != 0) ? (uint64_t(1) << (c.n % 64)) - 1 : ~uint64_t(0);
    const uint64_t keep = ~map[w] & valid;
    const unsigned nb = unsigned(std::popcount(keep));
    n_full += uint64_t(std::popcount(map[w]));
    if (nb == 0) continue;
    const uint64_t b = extract_bits(ones[w], keep);
    const unsigned off = unsigned(bit_pos & 63);
    uint64_t* at = bits + (bit_pos >> 6);
    if (off == 0) {
      at[0] = b;
    } else {
      at[0] |= b << off;
      if (off + nb > 64) at[1] = b >> (64 - off);
    }
    bit_pos += nb;
  }
  c.n_full = n_full;
  c.bits_words = (bit_pos + 63) / 64;
  c.full_offset = (16 * words + 255) & ~size_t(255);
  c.bytes = c.full_offset + n_full * sizeof(F);

  if (n_full != 0) {
    F* full = reinterpret_cast<F*>(out + c.full_offset);
    pool.parallel_for(
        words,
        [&](size_t w0, size_t w1) {
          for (size_t w = w0; w < w1; ++w) {
            uint64_t at = full_before[w];
            for (uint64_t m = map[w]; m != 0; m &= m - 1)
              std::memcpy(static_cast<void*>(full + at++), &src[64 * w + unsigned(std::countr_zero(m))], sizeof(F));
          }
        },
        kGrainWords);
  }
  return c;
}

template <class F>
double whole_fraction(std::span<const F> src, size_t samples) {
  if (src.empty() || samples == 0) return 0;
  const F zero = F::zero(), one = F::one();
  size_t whole = 0;
  for (size_t k = 0; k < samples; ++k) {
    const F& v = src[src.size() * k / samples];
    whole += !(v == zero || v == one);
  }
  return double(whole) / double(samples);
}

template BitPackedChunk pack_bits<ff::Bn254Fr>(std::span<const ff::Bn254Fr>, uint8_t*, util::ThreadPool&,
                                               std::vector<uint64_t>&);
template BitPackedChunk pack_bits<ff::Bls12381Fr>(std::span<const ff::Bls12381Fr>, uint8_t*, util::ThreadPool&,
                                                  std::vector<uint64_t>&);
template double whole_fraction<ff::Bn254Fr>(std::span<const ff::Bn254Fr>, size_t);
template double whole_fraction<ff::Bls12381Fr>(std::span<const ff::Bls12381Fr>, size_t);

}  // namespace zkmill::cs
