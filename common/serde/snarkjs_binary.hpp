// SPDX-License-Identifier: MIT
// snarkjs binary layouts of points and scalars inside .zkey, .ptau and .wtns files (both curves).
//
// Source: iden3/snarkjs (src/zkey_new.js, src/groth16_prove.js) over iden3/ffjavascript
// (src/wasm_curve.js, src/wasm_field1.js), whose field elements live in WASM memory in
// Montgomery form with R = 2^(8 n8) (n8 = 32 for BN254 Fq/Fr and BLS12-381 Fr, 48 for
// BLS12-381 Fq; the same R as ff::Fp's 2^(64 N)):
//   - Points are written with G.toRprLEM ("little-endian Montgomery"): affine x || y, each
//     coordinate n8 bytes LE of a R mod q; an Fq2 coordinate is c0 || c1. The point at
//     infinity is the WASM affine zero, x = y = 0, i.e. all zero bytes (unambiguous: (0, 0)
//     is not on either curve since b != 0).
//   - .wtns section 2 holds the witness as n8-byte little-endian CANONICAL integers (< r):
//     groth16_prove.js reads public signals from it with Scalar.fromRprLE and feeds it to
//     multiExpAffine, which takes canonical scalars.
//   - .zkey section 4 (the A/B coefficients of the QAP) stores each coefficient c as the
//     canonical little-endian integer c R^2 mod r (zkey_new.js: Fr.mul(n, R2r) then
//     toRprLE). Read as a Montgomery word that is c R, so prove's Montgomery product with a
//     canonical witness value w, (c R^2)(w) / R = (c w) R, yields c w in Montgomery form.
//     So "Montgomery form" is one factor of R short: value c = word R^-2 mod r.
// Decoders refuse words >= the modulus (WASM arithmetic assumes reduced inputs).
#pragma once

#include <algorithm>

#include "common/serde/codec.hpp"

namespace zkmill::serde::snarkjs {

// G.toRprLEM / fromRprLEM: a point as x || y in little-endian Montgomery form.
template <class G>
struct Lem {
  using Base = typename G::Base;
  static constexpr size_t kCoord = kCoordBytes<Base>;
  static constexpr size_t kSize = 2 * kCoord;  // 64/128 (BN254 G1/G2), 96/192 (BLS12-381 G1/G2)
  static constexpr const char* kFormat = "snarkjs LEM";

  static void encode(const ec::Affine<G>& p, uint8_t* out) {
    if (p.infinity) {
      std::fill(out, out + kSize, uint8_t(0));
      return;
    }
    put_coord<Layout::MontLittleEndianC0First>(p.x, out);
    put_coord<Layout::MontLittleEndianC0First>(p.y, out + kCoord);
  }

  static ec::Affine<G> decode(std::span<const uint8_t> in, Validation v = Validation::Full) {
    check_length(in, kSize, G::kName, kFormat);
    if (std::all_of(in.begin(), in.end(), [](uint8_t b) { return b == 0; })) return ec::Affine<G>::identity();
    auto x = get_coord<Layout::MontLittleEndianC0First, Base>(in.data());
    if (!x) fail(DecodeErrc::NonCanonical, G::kName, kFormat, "non-canonical x coordinate (Montgomery word >= p)");
    auto y = get_coord<Layout::MontLittleEndianC0First, Base>(in.data() + kCoord);
    if (!y) fail(DecodeErrc::NonCanonical, G::kName, kFormat, "non-canonical y coordinate (Montgomery word >= p)");
    return finish_point(ec::Affine<G>::from_xy(*x, *y), v, kFormat);
  }
};

// Bulk .zkey/.ptau sections. The caller picks the validation level explicitly (see Validation).
template <class G>
std::vector<ec::Affine<G>> decode_points(std::span<const uint8_t> section, Validation v) {
  return decode_many<Lem, G>(section, v);
}
template <class G>
std::vector<uint8_t> encode_points(std::span<const ec::Affine<G>> pts) {
  return encode_many<Lem, G>(pts);
}

// ---- Scalars.

// .wtns witness values: canonical little-endian (Fr.n8 bytes).
template <class F>
void encode_wtns_scalar(const F& s, uint8_t* out) {
  s.to_bytes_le(out);
}
template <class F>
F decode_wtns_scalar(std::span<const uint8_t> in) {
  check_length(in, F::kBytes, F::Params::kName, "snarkjs wtns");
  auto s = F::from_bytes_le(in.data());
  if (!s) fail(DecodeErrc::NonCanonical, F::Params::kName, "snarkjs wtns", "non-canonical witness value (>= r)");
  return *s;
}

// .zkey section 4 coefficients: the word c R^2 mod r, little-endian.
//   encode: the Montgomery word of (c R) is (c R) R = c R^2; c R is the element whose
//           canonical value is c's own Montgomery word c.v.
//   decode: the word w as a Montgomery word has value w / R = c R; reducing that value's
//           canonical integer once more as a Montgomery word gives c R / R = c.
template <class F>
void encode_zkey_coef(const F& c, uint8_t* out) {
  F::from_canonical_unchecked(c.v).to_mont_bytes_le(out);
}
template <class F>
F decode_zkey_coef(std::span<const uint8_t> in) {
  check_length(in, F::kBytes, F::Params::kName, "snarkjs zkey coefficient");
  auto w = F::from_mont_bytes_le(in.data());  // value c R, nullopt when the word is >= r
  if (!w) fail(DecodeErrc::NonCanonical, F::Params::kName, "snarkjs zkey coefficient", "non-canonical word (>= r)");
  return F::from_raw_mont(w->to_canonical());
}

// Plain Montgomery LE scalars (ffjavascript's Fr.toRprLEM), e.g. for tools that dump
// WASM buffers directly: word = c R mod r.
template <class F>
void encode_lem_scalar(const F& c, uint8_t* out) {
  c.to_mont_bytes_le(out);
}
template <class F>
F decode_lem_scalar(std::span<const uint8_t> in) {
  check_length(in, F::kBytes, F::Params::kName, "snarkjs LEM scalar");
  auto s = F::from_mont_bytes_le(in.data());
  if (!s) fail(DecodeErrc::NonCanonical, F::Params::kName, "snarkjs LEM scalar", "non-canonical word (>= r)");
  return *s;
}

// Whole .wtns section 2 (nWitness values back to back).
template <class F>
std::vector<F> decode_wtns_section(std::span<const uint8_t> section) {
  if (section.size() % F::kBytes)
    fail(DecodeErrc::WrongLength, F::Params::kName, "snarkjs wtns",
         "wrong length " + std::to_string(section.size()) + ", not a multiple of " + std::to_string(F::kBytes));
  std::vector<F> out(section.size() / F::kBytes);
  for (size_t i = 0; i < out.size(); ++i) {
    auto s = F::from_bytes_le(section.data() + i * F::kBytes);
    if (!s)
      fail(DecodeErrc::NonCanonical, F::Params::kName, "snarkjs wtns",
           "non-canonical witness value (>= r) at index " + std::to_string(i));
    out[i] = *s;
  }
  return out;
}

}  // namespace zkmill::serde::snarkjs
