// SPDX-License-Identifier: MIT
// The deterministic randomness of snarkjs's phase 2, bit for bit, because the transcript
// depends on it: the verifier recomputes g2_sp = hashToG2(transcript) for every contribution
// and, for a beacon, the whole key from the beacon hash. Written from the algorithms of
// ffjavascript (src/chacha.js, wasm_field1.js fromRng, wasm_curve.js fromRng) and snarkjs
// (src/keypair.js hashToG2, misc.js getRandomRng / rngFromBeaconParams):
//   - ChaCha: the ChaCha20 block function (10 double rounds) keyed by 8 u32 seed words, the
//     16-word state counter in words 12..15 (carrying), no nonce; output words in order.
//   - nextU64 = (first u32) 2^32 + (second u32).
//   - F.fromRng: v = sum_i nextU64 2^(64 i) over the field's 64-bit limbs, masked to the bit
//     length of p, redrawn while v >= p. v is then taken AS THE MONTGOMERY WORD, so the
//     element's value is v R^-1 (R = 2^(64 N)). Fq2 draws c0 then c1.
//   - G.fromRng: repeat { x = F.fromRng; greatest = nextU32 & 1 } until x^3 + b is a square;
//     y = the root with isNegative(y) == greatest, isNegative meaning canonical value >
//     (p-1)/2 (Fq2: of c1, or of c0 when c1 = 0); then times ffjavascript's cofactor for
//     the group (BLS12-381 G1 and G2, BN254 G2).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/curves/bls12_381.hpp"
#include "common/curves/bn254.hpp"
#include "common/ff/bigint.hpp"
#include "common/setup/hash.hpp"

namespace zkmill::setup {

class ChaCha {
 public:
  explicit ChaCha(const std::array<uint32_t, 8>& seed);
  uint32_t next_u32() {
    if (idx_ == 16) update();
    return buf_[idx_++];
  }
  uint64_t next_u64() {
    uint64_t hi = next_u32();
    return (hi << 32) | next_u32();
  }
  bool next_bool() { return (next_u32() & 1) == 1; }

 private:
  void update();
  std::array<uint32_t, 16> state_{}, buf_{};
  int idx_ = 16;
};

// The 8 seed words snarkjs reads big-endian from the first 32 bytes of a hash.
inline std::array<uint32_t, 8> seed_from_hash(std::span<const uint8_t> h) {
  std::array<uint32_t, 8> s{};
  for (int i = 0; i < 8; ++i)
    s[i] = uint32_t(h[4 * i]) << 24 | uint32_t(h[4 * i + 1]) << 16 | uint32_t(h[4 * i + 2]) << 8 | h[4 * i + 3];
  return s;
}

// F.fromRng for a prime field Fp (see above: the draw is the Montgomery word).
template <class F>
F field_from_rng(ChaCha& rng) {
  constexpr size_t N = F::N;
  const auto& p = F::modulus();
  const size_t bits = ff::num_bits(p);
  for (;;) {
    ff::Limbs<N> v{};
    for (size_t i = 0; i < N; ++i) v[i] = rng.next_u64();
    for (size_t i = 0; i < N; ++i) {  // mask to the bit length of p
      const size_t lo = 64 * i;
      if (lo >= bits)
        v[i] = 0;
      else if (bits - lo < 64)
        v[i] &= (uint64_t(1) << (bits - lo)) - 1;
    }
    if (ff::cmp(v, p) < 0) return F::from_raw_mont(v);
  }
}

template <class Base>
struct RngField {
  static Base draw(ChaCha& rng) { return field_from_rng<Base>(rng); }
  static bool negative(const Base& y) { return ff::cmp(y.to_canonical(), Base::C::half_p_minus_1) > 0; }
  static bool is_square(const Base& a) { return a.legendre() != -1; }
};
template <class Fq>
struct RngField<tower::Fp2<Fq>> {
  using Base = tower::Fp2<Fq>;
  static Base draw(ChaCha& rng) {
    Fq c0 = field_from_rng<Fq>(rng);
    Fq c1 = field_from_rng<Fq>(rng);
    return {c0, c1};
  }
  static bool negative(const Base& y) { return y.lexicographically_largest(); }
  static bool is_square(const Base& a) { return a.sqrt().has_value(); }
};

// ffjavascript's cofactor for the group, as little-endian limbs (zero limbs = none).
template <class G>
ff::Limbs<8> ffjs_cofactor();

template <class G>
ec::Jacobian<G> point_from_rng(ChaCha& rng) {
  using Base = typename G::Base;
  using RF = RngField<Base>;
  for (;;) {
    Base x = RF::draw(rng);
    const bool greatest = rng.next_bool();
    Base rhs = x.square() * x + G::b();
    if (!RF::is_square(rhs)) continue;
    Base y = *rhs.sqrt();
    if (RF::negative(y) != greatest) y = -y;
    auto p = ec::Jacobian<G>::from_affine(ec::Affine<G>::from_xy(x, y));
    const auto h = ffjs_cofactor<G>();
    if (!ff::is_zero(h)) p = p.mul_limbs(h);
    return p;
  }
}

// snarkjs keypair.js hashToG2: ChaCha seeded by the hash's first 32 bytes, then G2.fromRng.
template <class E>
typename E::G2 hash_to_g2(std::span<const uint8_t> hash) {
  ChaCha rng(seed_from_hash(hash));
  return point_from_rng<typename E::G2Params>(rng);
}

// misc.js rngFromBeaconParams: SHA-256 iterated 2^exp times over the beacon hash.
ChaCha rng_from_beacon(std::span<const uint8_t> beacon_hash, unsigned num_iterations_exp);
// misc.js getRandomRng: BLAKE2b-512(64 OS-random bytes || entropy as UTF-8) seeds ChaCha.
ChaCha rng_from_entropy(std::string_view entropy);

}  // namespace zkmill::setup
