// SPDX-License-Identifier: MIT
// The deterministic pseudo-randomness behind the built-in circuits: round constants (a
// function of a domain string alone, so a circuit's shape never depends on seed or
// partition) and private inputs (a function of (seed, partition)), so any worker can
// re-derive any partition's witness from three numbers.
//
// The stream is SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014) started from a keyed state. It is statistically good and
// NOT cryptographic; these circuits are benchmark workloads, and nothing here is secret.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "common/cs/checksum.hpp"

namespace zkmill::circuits {

// SplitMix64's output function: a bijective 64-bit mixer.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A key for one purpose: the domain string (e.g. "zkmill/chain/round-constants/v1") hashed,
// then mixed with up to two numbers (seed, partition). Different domains give unrelated
// streams even for equal numbers.
inline uint64_t prf_key(std::string_view domain, uint64_t a = 0, uint64_t b = 0) {
  auto bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(domain.data()), domain.size());
  uint64_t k = cs::checksum64(bytes, 0x7a6b6d696c6cull);  // "zkmill"
  k = mix64(k ^ mix64(a + 0x9e3779b97f4a7c15ull));
  k = mix64(k ^ mix64(b + 0x3c6ef372fe94f82aull));
  return k;
}

// A UniformRandomBitGenerator over 64-bit words: the SplitMix64 sequence from a state
// derived from (key, nonce). Counter mode: element i of a sequence is drawn from
// PrfStream(key, i), so elements can be derived independently and in any order.
class PrfStream {
 public:
  using result_type = uint64_t;
  PrfStream(uint64_t key, uint64_t nonce) : state_(mix64(key ^ mix64(nonce ^ 0xd1b54a32d192ed03ull))) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() {
    state_ += 0x9e3779b97f4a7c15ull;  // the golden-ratio increment: full period 2^64
    return mix64(state_);
  }

 private:
  uint64_t state_;
};

// A field element uniform in [0, p), by F::random's rejection sampling on the stream.
template <class F>
F prf_field(uint64_t key, uint64_t counter) {
  PrfStream s(key, counter);
  return F::random(s);
}

}  // namespace zkmill::circuits
