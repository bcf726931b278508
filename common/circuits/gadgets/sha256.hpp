// SPDX-License-Identifier: MIT
// SHA-256 (FIPS 180-4): a native implementation (to make inputs and check the gadget) and
// the R1CS gadget over Bit/UInt32 wires, both written from the standard.
//
// The constants are derived, not tabulated: K_t is the first 32 bits of the fractional part
// of the cube root of the t-th prime, H0_i of the square root of the i-th prime (FIPS
// 180-4 sections 4.2.2 and 5.3.3), computed with integer roots at compile time.
//
// Gadget cost per compression with a variable state and message (64 rounds): the message
// schedule 48 x (sigma0 61 + sigma1 54 + 4-operand add 35), each round Sigma1 64, Ch 32,
// Sigma0 64, Maj 64, e' = d + T1 (6 operands, 36) and a' = T1 + T2 (7 operands, 36), and
// the final 8 two-operand adds: 26,416 constraints; constant words (the IV, a padding-only
// block) make parts of it free. Bits travel in message order: bit 0 is the most
// significant bit of byte 0, as in the standard's big-endian words.
//
// Reduced rounds (`rounds` < 64, native and gadget alike): the first `rounds` rounds of the
// compression and only the schedule words they read, then the final additions. This is NOT
// SHA-256; it exists only so that toy instances of the `porep` circuit (docs/circuits.md)
// can be a few thousand constraints with the very gadgets and wiring of the real one.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/circuits/gadgets/uint32.hpp"

namespace zkmill::circuits::sha256 {

using State = std::array<uint32_t, 8>;
using Digest = std::array<uint8_t, 32>;

namespace detail {
constexpr uint32_t nth_prime(size_t n) {
  uint32_t count = 0;
  for (uint32_t c = 2;; ++c) {
    bool prime = true;
    for (uint32_t d = 2; d * d <= c; ++d)
      if (c % d == 0) prime = false;
    if (prime && count++ == n) return c;
  }
}
// floor(x^(1/k)) for k in {2, 3}, by bisection on 128-bit integers.
constexpr unsigned __int128 iroot(unsigned __int128 x, int k) {
  unsigned __int128 lo = 0, hi = (unsigned __int128)1 << 40;  // roots here are < 2^36; hi^3 fits
  while (lo < hi) {
    const unsigned __int128 mid = (lo + hi + 1) / 2;
    unsigned __int128 p = 1;
    for (int i = 0; i < k; ++i) p *= mid;
    if (p <= x)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}
}  // namespace detail

// frac(cbrt(p)) * 2^32 = floor(cbrt(p * 2^96)) mod 2^32.
inline constexpr std::array<uint32_t, 64> kK = [] {
  std::array<uint32_t, 64> k{};
  for (size_t t = 0; t < 64; ++t) k[t] = uint32_t(detail::iroot((unsigned __int128)detail::nth_prime(t) << 96, 3));
  return k;
}();
inline constexpr State kIV = [] {
  State h{};
  for (size_t i = 0; i < 8; ++i) h[i] = uint32_t(detail::iroot((unsigned __int128)detail::nth_prime(i) << 64, 2));
  return h;
}();

inline constexpr size_t kRounds = 64;

inline void check_rounds(size_t rounds) {
  if (rounds < 1 || rounds > kRounds)
    throw std::invalid_argument("sha256: " + std::to_string(rounds) + " rounds; 1..64 allowed");
}

// ---- Native ----

inline void compress(State& h, const uint8_t* block, size_t rounds = kRounds) {
  check_rounds(rounds);
  uint32_t w[64];
  for (size_t t = 0; t < 16; ++t)
    w[t] = uint32_t(block[4 * t]) << 24 | uint32_t(block[4 * t + 1]) << 16 | uint32_t(block[4 * t + 2]) << 8 |
           block[4 * t + 3];
  for (size_t t = 16; t < rounds; ++t) {
    const uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (size_t t = 0; t < rounds; ++t) {
    const uint32_t t1 =
        hh + (std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[t] + w[t];
    const uint32_t t2 = (std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

// The padded message (section 5.1.1): 0x80, zeros, the 64-bit big-endian bit length.
inline std::vector<uint8_t> pad(std::span<const uint8_t> msg) {
  std::vector<uint8_t> m(msg.begin(), msg.end());
  m.push_back(0x80);
  while (m.size() % 64 != 56) m.push_back(0);
  const uint64_t bits = uint64_t(msg.size()) * 8;
  for (int i = 7; i >= 0; --i) m.push_back(uint8_t(bits >> (8 * i)));
  return m;
}

inline Digest hash(std::span<const uint8_t> msg, size_t rounds = kRounds) {
  State h = kIV;
  const std::vector<uint8_t> m = pad(msg);
  for (size_t off = 0; off < m.size(); off += 64) compress(h, m.data() + off, rounds);
  Digest d;
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 4; ++j) d[4 * i + j] = uint8_t(h[i] >> (24 - 8 * j));
  return d;
}

// ---- Gadget ----

// Bytes as bits in message order (MSB of each byte first).
template <class F>
std::vector<Bit<F>> alloc_bytes(cs::ConstraintSystem<F>& cs, cs::Name name, std::span<const uint8_t> bytes) {
  cs::Namespace<F> ns(cs, name);
  std::vector<Bit<F>> bits;
  bits.reserve(8 * bytes.size());
  for (size_t i = 0; i < 8 * bytes.size(); ++i)
    bits.push_back(Bit<F>::alloc(cs, cs::Name("bit", i), (bytes[i / 8] >> (7 - i % 8)) & 1));
  return bits;
}
template <class F>
std::vector<Bit<F>> constant_bytes(std::span<const uint8_t> bytes) {
  std::vector<Bit<F>> bits;
  for (size_t i = 0; i < 8 * bytes.size(); ++i) bits.push_back(Bit<F>::constant((bytes[i / 8] >> (7 - i % 8)) & 1));
  return bits;
}
// The bits' values back as bytes (bits.size() a multiple of 8).
template <class F>
std::vector<uint8_t> bytes_of(std::span<const Bit<F>> bits) {
  std::vector<uint8_t> out(bits.size() / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i)
    if (bits[i].value()) out[i / 8] |= uint8_t(0x80 >> (i % 8));
  return out;
}

template <class F>
std::array<UInt32<F>, 8> iv_words() {
  std::array<UInt32<F>, 8> s;
  for (size_t i = 0; i < 8; ++i) s[i] = UInt32<F>::constant(kIV[i]);
  return s;
}

// One compression: state' = state + rounds(state, block); block = 512 bits in message order.
template <class F>
std::array<UInt32<F>, 8> compress(cs::ConstraintSystem<F>& cs, const std::array<UInt32<F>, 8>& state,
                                  std::span<const Bit<F>> block, size_t rounds = kRounds) {
  using W = UInt32<F>;
  using cs::Name;
  check_rounds(rounds);
  std::vector<W> w;
  w.reserve(64);
  for (size_t t = 0; t < 16; ++t) w.push_back(W::from_bits_be(block.subspan(32 * t, 32)));
  for (size_t t = 16; t < rounds; ++t) {
    cs::Namespace<F> ns(cs, Name("schedule", t));
    const W& x = w[t - 15];
    const W& y = w[t - 2];
    const W s0 = W::xor3(cs, "sigma0", x.rotr(7), x.rotr(18), x.shr(3));
    const W s1 = W::xor3(cs, "sigma1", y.rotr(17), y.rotr(19), y.shr(10));
    const W ops[4] = {w[t - 16], s0, w[t - 7], s1};
    w.push_back(W::addmany(cs, "add", ops));
  }
  W a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
  for (size_t t = 0; t < rounds; ++t) {
    cs::Namespace<F> ns(cs, Name("round", t));
    const W S1 = W::xor3(cs, "Sigma1", e.rotr(6), e.rotr(11), e.rotr(25));
    const W ch = W::ch(cs, "ch", e, f, g);
    const W S0 = W::xor3(cs, "Sigma0", a.rotr(2), a.rotr(13), a.rotr(22));
    const W mj = W::maj(cs, "maj", a, b, c);
    const W k = W::constant(kK[t]);
    const W e_ops[6] = {d, h, S1, ch, k, w[t]};
    const W a_ops[7] = {h, S1, ch, k, w[t], S0, mj};
    W new_e = W::addmany(cs, "e", e_ops);
    W new_a = W::addmany(cs, "a", a_ops);
    h = g;
    g = f;
    f = e;
    e = std::move(new_e);
    d = c;
    c = b;
    b = a;
    a = std::move(new_a);
  }
  const W regs[8] = {a, b, c, d, e, f, g, h};
  std::array<W, 8> out;
  for (size_t i = 0; i < 8; ++i) {
    cs::Namespace<F> ns(cs, Name("final add", i));
    const W ops[2] = {state[i], regs[i]};
    out[i] = W::addmany(cs, "add", ops);
  }
  return out;
}

// SHA-256 of a message of whole bytes given as bits; the padding is constant (the length
// is part of the shape). Returns the 256 digest bits in message order.
template <class F>
std::vector<Bit<F>> hash(cs::ConstraintSystem<F>& cs, std::span<const Bit<F>> msg, size_t rounds = kRounds) {
  std::vector<Bit<F>> m(msg.begin(), msg.end());
  const uint64_t nbits = msg.size();
  m.push_back(Bit<F>::constant(true));
  while (m.size() % 512 != 448) m.push_back(Bit<F>::constant(false));
  for (int i = 63; i >= 0; --i) m.push_back(Bit<F>::constant((nbits >> i) & 1));
  std::array<UInt32<F>, 8> s = iv_words<F>();
  for (size_t off = 0; off < m.size(); off += 512) {
    cs::Namespace<F> ns(cs, cs::Name("block", off / 512));
    s = compress(cs, s, std::span<const Bit<F>>(m).subspan(off, 512), rounds);
  }
  std::vector<Bit<F>> out;
  out.reserve(256);
  for (const UInt32<F>& w : s) w.append_bits_be(out);
  return out;
}

}  // namespace zkmill::circuits::sha256
