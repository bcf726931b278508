// SPDX-License-Identifier: MIT
// ChaCha and the seeds of snarkjs's phase-2 randomness (snarkjs_rng.hpp).
#include "common/setup/snarkjs_rng.hpp"

#include <stdexcept>

namespace zkmill::setup {

namespace {
inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
inline void quarter(std::array<uint32_t, 16>& s, int a, int b, int c, int d) {
  s[a] += s[b], s[d] = rotl(s[d] ^ s[a], 16);
  s[c] += s[d], s[b] = rotl(s[b] ^ s[c], 12);
  s[a] += s[b], s[d] = rotl(s[d] ^ s[a], 8);
  s[c] += s[d], s[b] = rotl(s[b] ^ s[c], 7);
}
}  // namespace

ChaCha::ChaCha(const std::array<uint32_t, 8>& seed) {
  state_ = {0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, seed[0], seed[1], seed[2], seed[3],
            seed[4],    seed[5],    seed[6],    seed[7],    0,       0,       0,       0};
}

void ChaCha::update() {
  buf_ = state_;
  for (int i = 0; i < 10; ++i) {
    quarter(buf_, 0, 4, 8, 12), quarter(buf_, 1, 5, 9, 13), quarter(buf_, 2, 6, 10, 14), quarter(buf_, 3, 7, 11, 15);
    quarter(buf_, 0, 5, 10, 15), quarter(buf_, 1, 6, 11, 12), quarter(buf_, 2, 7, 8, 13), quarter(buf_, 3, 4, 9, 14);
  }
  for (int i = 0; i < 16; ++i) buf_[i] += state_[i];
  idx_ = 0;
  for (int w = 12; w < 16; ++w)  // the 128-bit block counter, carrying into the next word
    if (++state_[w] != 0) break;
}

template <>
ff::Limbs<8> ffjs_cofactor<curves::Bn254G1Params>() {
  return {};
}
template <>
ff::Limbs<8> ffjs_cofactor<curves::Bn254G2Params>() {
  return ff::from_hex<8>("30644e72e131a029b85045b68181585e06ceecda572a2489345f2299c0f9fa8d");
}
template <>
ff::Limbs<8> ffjs_cofactor<curves::Bls12381G1Params>() {
  return ff::from_hex<8>("396c8c005555e1568c00aaab0000aaab");
}
template <>
ff::Limbs<8> ffjs_cofactor<curves::Bls12381G2Params>() {
  return ff::from_hex<8>(
      "5d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef21537e293a6691ae1616ec6e786f0c"
      "70cf1c38e31c7238e5");
}

ChaCha rng_from_beacon(std::span<const uint8_t> beacon_hash, unsigned num_iterations_exp) {
  if (num_iterations_exp > 63) throw std::invalid_argument("beacon: iterations exponent above 63");
  std::vector<uint8_t> cur(beacon_hash.begin(), beacon_hash.end());
  const uint64_t n = num_iterations_exp == 64 ? 0 : (uint64_t(1) << num_iterations_exp);
  for (uint64_t i = 0; i < n; ++i) {
    auto h = sha256(cur);
    cur.assign(h.begin(), h.end());
  }
  if (cur.size() < 32) throw std::invalid_argument("beacon: hash shorter than 32 bytes with no iterations");
  return ChaCha(seed_from_hash(cur));
}

ChaCha rng_from_entropy(std::string_view entropy) {
  uint8_t rnd[64];
  os_random(rnd);
  Blake2b h;
  h.update(rnd);
  h.update(entropy);
  auto d = h.digest();
  return ChaCha(seed_from_hash(d));
}

}  // namespace zkmill::setup
