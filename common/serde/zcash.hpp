// SPDX-License-Identifier: MIT
// The zcash point encoding of BLS12-381 (zcash/bellman/blst/Filecoin), compressed and uncompressed.
//
// Spec: the zkcrypto/bls12_381 crate's "Serialization" notes (the format Zcash Sapling
// fixed), restated as draft-irtf-cfrg-pairing-friendly-curves-11, Appendix C:
//   - Fq is 48 bytes big-endian canonical; Fq2 = c0 + c1 u is c1 || c0 (96 bytes).
//   - G1: compressed 48 bytes = x; uncompressed 96 bytes = x || y.
//     G2: compressed 96 bytes = x; uncompressed 192 bytes = x || y.
//   - The three most significant bits of the first byte (always free: p < 2^381) are flags:
//       bit 7 (0x80) C: compressed form;
//       bit 6 (0x40) I: point at infinity;
//       bit 5 (0x20) S: only with C=1, I=0: y is the lexicographically largest of {y, -y}
//                    (y > (p-1)/2 for Fq; for Fq2, compare c1 first, c0 when c1 = 0).
//   - Infinity is C|I followed by zeros (compressed: c0 00..00) or I followed by zeros
//     (uncompressed: 40 00..00); every other bit of an infinity encoding must be zero.
// Valid first-byte flag patterns are therefore exactly: compressed 0x80/0xa0 (finite) and
// 0xc0 (infinity); uncompressed 0x00 (finite) and 0x40 (infinity). Decoders reject every
// other pattern (S on uncompressed or on infinity, non-zero infinity payload, missing or
// unexpected C), x or y >= p, points off the curve and, under Validation::Full, points
// outside the prime-order subgroup.
#pragma once

#include <algorithm>

#include "common/curves/bls12_381.hpp"
#include "common/serde/codec.hpp"

namespace zkmill::serde::zcash {

inline constexpr uint8_t kCompressionBit = 0x80;
inline constexpr uint8_t kInfinityBit = 0x40;
inline constexpr uint8_t kSortBit = 0x20;
inline constexpr uint8_t kFlagMask = kCompressionBit | kInfinityBit | kSortBit;

namespace detail {
// Infinity: the flag byte must be exactly `expected_flags` and the rest of the payload zero.
template <class G>
void check_infinity(std::span<const uint8_t> in, uint8_t expected_flags, const char* format) {
  if ((in[0] & kFlagMask) != expected_flags)
    fail(DecodeErrc::InvalidInfinity, G::kName, format, "sort flag set on the point at infinity");
  bool zero = (in[0] & uint8_t(~kFlagMask)) == 0;
  for (size_t i = 1; i < in.size(); ++i) zero = zero && in[i] == 0;
  if (!zero) fail(DecodeErrc::InvalidInfinity, G::kName, format, "infinity flag set with non-zero coordinate bits");
}
}  // namespace detail

template <class G>
struct Compressed {
  static_assert(kIsBls12381<G>, "the zcash encoding is defined for BLS12-381 only");
  using Base = typename G::Base;
  static constexpr size_t kSize = kCoordBytes<Base>;  // 48 (G1) / 96 (G2)
  static constexpr const char* kFormat = "zcash compressed";

  static void encode(const ec::Affine<G>& p, uint8_t* out) {
    if (p.infinity) {
      std::fill(out, out + kSize, uint8_t(0));
      out[0] = kCompressionBit | kInfinityBit;
      return;
    }
    put_coord<Layout::BigEndianC1First>(p.x, out);
    out[0] |= kCompressionBit | (lexicographically_largest(p.y) ? kSortBit : 0);
  }

  static ec::Affine<G> decode(std::span<const uint8_t> in, Validation v = Validation::Full) {
    check_length(in, kSize, G::kName, kFormat);
    const uint8_t flags = in[0] & kFlagMask;
    if (!(flags & kCompressionBit))
      fail(DecodeErrc::MissingCompressionFlag, G::kName, kFormat, "compression flag missing");
    if (flags & kInfinityBit) {
      detail::check_infinity<G>(in, kCompressionBit | kInfinityBit, kFormat);
      return ec::Affine<G>::identity();
    }
    std::array<uint8_t, kSize> buf;
    std::copy(in.begin(), in.end(), buf.begin());
    buf[0] &= uint8_t(~kFlagMask);
    auto x = get_coord<Layout::BigEndianC1First, Base>(buf.data());
    if (!x) fail(DecodeErrc::NonCanonical, G::kName, kFormat, "non-canonical x coordinate (>= p)");
    auto y = (x->square() * *x + G::b()).sqrt();
    if (!y) fail(DecodeErrc::NotOnCurve, G::kName, kFormat, "x coordinate not on the curve (x^3 + b is not a square)");
    // y = 0 cannot occur: both groups of BLS12-381 have odd order, so no point of order 2,
    // and the two roots y, -y always differ in sign.
    if (lexicographically_largest(*y) != bool(flags & kSortBit)) *y = -*y;
    return finish_point(ec::Affine<G>::from_xy(*x, *y), v, kFormat);
  }
};

template <class G>
struct Uncompressed {
  static_assert(kIsBls12381<G>, "the zcash encoding is defined for BLS12-381 only");
  using Base = typename G::Base;
  static constexpr size_t kCoord = kCoordBytes<Base>;
  static constexpr size_t kSize = 2 * kCoord;  // 96 (G1) / 192 (G2)
  static constexpr const char* kFormat = "zcash uncompressed";

  static void encode(const ec::Affine<G>& p, uint8_t* out) {
    std::fill(out, out + kSize, uint8_t(0));
    if (p.infinity) {
      out[0] = kInfinityBit;
      return;
    }
    put_coord<Layout::BigEndianC1First>(p.x, out);
    put_coord<Layout::BigEndianC1First>(p.y, out + kCoord);
  }

  static ec::Affine<G> decode(std::span<const uint8_t> in, Validation v = Validation::Full) {
    check_length(in, kSize, G::kName, kFormat);
    const uint8_t flags = in[0] & kFlagMask;
    if (flags & kCompressionBit)
      fail(DecodeErrc::UnexpectedCompressionFlag, G::kName, kFormat,
           "compression flag set on an uncompressed encoding");
    if (flags & kInfinityBit) {
      detail::check_infinity<G>(in, kInfinityBit, kFormat);
      return ec::Affine<G>::identity();
    }
    if (flags & kSortBit)
      fail(DecodeErrc::UnexpectedSortFlag, G::kName, kFormat, "sort flag set on an uncompressed encoding");
    // No flag bits remain set, so the bytes are the plain coordinates.
    auto x = get_coord<Layout::BigEndianC1First, Base>(in.data());
    if (!x) fail(DecodeErrc::NonCanonical, G::kName, kFormat, "non-canonical x coordinate (>= p)");
    auto y = get_coord<Layout::BigEndianC1First, Base>(in.data() + kCoord);
    if (!y) fail(DecodeErrc::NonCanonical, G::kName, kFormat, "non-canonical y coordinate (>= p)");
    return finish_point(ec::Affine<G>::from_xy(*x, *y), v, kFormat);
  }
};

// Either form, told apart by the compression flag (then the length must match that form).
template <class G>
ec::Affine<G> decode_any(std::span<const uint8_t> in, Validation v = Validation::Full) {
  if (in.empty()) fail(DecodeErrc::WrongLength, G::kName, "zcash", "wrong length 0");
  return (in[0] & kCompressionBit) ? Compressed<G>::decode(in, v) : Uncompressed<G>::decode(in, v);
}

}  // namespace zkmill::serde::zcash

namespace zkmill::serde {

// BLS12-381's standard encodings under generic names (the zcash format).
template <class G>
requires kIsBls12381<G> std::array<uint8_t, zcash::Compressed<G>::kSize> encode_compressed(const ec::Affine<G>& p) {
  return encode<zcash::Compressed>(p);
}
template <class G>
requires kIsBls12381<G> ec::Affine<G> decode_compressed(std::span<const uint8_t> in, Validation v = Validation::Full) {
  return zcash::Compressed<G>::decode(in, v);
}
template <class G>
requires kIsBls12381<G> std::array<uint8_t, zcash::Uncompressed<G>::kSize> encode_uncompressed(const ec::Affine<G>& p) {
  return encode<zcash::Uncompressed>(p);
}
template <class G>
requires kIsBls12381<G> ec::Affine<G> decode_uncompressed(std::span<const uint8_t> in,
                                                          Validation v = Validation::Full) {
  return zcash::Uncompressed<G>::decode(in, v);
}

}  // namespace zkmill::serde
