// SPDX-License-Identifier: MIT
// Point encodings of snarkjs's phase-2 hashes, beside the LEM file layout (serde/snarkjs_binary):
//   - "U" (ffjavascript toRprUncompressed / batchLEMtoU): affine x || y, each coordinate the
//     canonical big-endian integer, an Fq2 coordinate c1 || c0; the point at infinity is all
//     zero bytes (no flag bit, unlike zcash's uncompressed form). Every circuit hash and
//     transcript hash is over these bytes.
//   - raw LEM words taken without validation, reduced mod q: zkey new's circuit hash reads one
//     point past the end of the ptau's tauG1 section when the circuit fills the ceremony (see
//     setup/zkey_new.cpp); ffjavascript's arithmetic treats those bytes as Montgomery words, and
//     its results depend only on their residues mod q.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "common/serde/codec.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/setup/hash.hpp"

namespace zkmill::setup {

template <class G>
constexpr size_t kUSize = 2 * serde::kCoordBytes<typename G::Base>;

template <class G>
void encode_u(const ec::Affine<G>& p, uint8_t* out) {
  constexpr size_t n = serde::kCoordBytes<typename G::Base>;
  if (p.infinity) {
    std::fill(out, out + 2 * n, uint8_t(0));
    return;
  }
  serde::put_coord<serde::Layout::BigEndianC1First>(p.x, out);
  serde::put_coord<serde::Layout::BigEndianC1First>(p.y, out + n);
}

template <class G>
void hash_u(Blake2b& h, const ec::Affine<G>& p) {
  uint8_t b[kUSize<G>];
  encode_u<G>(p, b);
  h.update(b);
}

// One Fq from an n8-byte little-endian Montgomery word of any value: reduced mod q first.
template <class Fq>
Fq fq_from_any_word(const uint8_t* in) {
  ff::Limbs<Fq::N> w{};
  for (size_t i = 0; i < Fq::kBytes; ++i) w[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
  while (ff::cmp(w, Fq::modulus()) >= 0) {  // w < 2^(64 N) < 16 q for both curves
    uint64_t borrow = 0;
    for (size_t i = 0; i < Fq::N; ++i) {
      const unsigned __int128 d = (unsigned __int128)w[i] - Fq::modulus()[i] - borrow;
      w[i] = uint64_t(d);
      borrow = uint64_t(d >> 64) ? 1 : 0;
    }
  }
  return Fq::from_raw_mont(w);
}

// A G1 "point" from LEM bytes without any check (all-zero bytes = infinity, as in ffjavascript).
template <class G>
ec::Affine<G> affine_from_any_lem(const uint8_t* in) {
  using Fq = typename G::Base;
  static_assert(!serde::QuadraticExt<Fq>, "G1 only");
  if (std::all_of(in, in + 2 * Fq::kBytes, [](uint8_t b) { return b == 0; })) return ec::Affine<G>::identity();
  return ec::Affine<G>::from_xy(fq_from_any_word<Fq>(in), fq_from_any_word<Fq>(in + Fq::kBytes));
}

}  // namespace zkmill::setup
