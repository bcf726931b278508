// SPDX-License-Identifier: MIT
// Shared serde vocabulary: DecodeError, Validation levels, coordinate layouts, generic encode/decode.
//
// The generic front door is encode<Codec>(p) / decode<Codec, G>(bytes) (and _many for sections).
//
// A point codec is a class template Codec<G> over a curve group G (the params structs of
// common/curves) with
//   static constexpr size_t kSize;             // encoded length in bytes
//   static constexpr const char* kFormat;      // e.g. "zcash compressed"
//   static void encode(const ec::Affine<G>&, uint8_t* out);          // writes kSize bytes
//   static ec::Affine<G> decode(std::span<const uint8_t>, Validation);
// Formats: serde::zcash::{Compressed, Uncompressed} (BLS12-381), serde::evm::Uncompressed
// (BN254, EIP-196/197), serde::snarkjs::Lem (both curves; .zkey/.ptau point layout).
// Every decoder rejects, with a DecodeError naming the group and the format: a wrong
// length, coordinates >= p, points off the curve, and (unless the caller explicitly asks
// for Validation::SkipSubgroupCheck) points outside the prime-order subgroup.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/ec/short_weierstrass.hpp"
#include "common/ec/subgroup.hpp"

namespace zkmill::serde {

// Why a decode failed. to_string gives the stable snake_case names used in test vectors.
enum class DecodeErrc : uint8_t {
  WrongLength,                // input length differs from the format's
  NonCanonical,               // a coordinate or scalar is >= its modulus
  NotOnCurve,                 // (x, y) off the curve, or no y for a compressed x
  NotInSubgroup,              // on the curve but outside the prime-order subgroup
  MissingCompressionFlag,     // zcash: compressed input without the compression bit
  UnexpectedCompressionFlag,  // zcash: uncompressed input with the compression bit
  UnexpectedSortFlag,         // zcash: sort bit on an uncompressed or infinity encoding
  InvalidInfinity,            // infinity flag with non-zero payload bits
  Malformed,                  // structurally wrong (JSON shape, non-decimal string, z not 0/1)
};

inline const char* to_string(DecodeErrc c) {
  switch (c) {
    case DecodeErrc::WrongLength:
      return "wrong_length";
    case DecodeErrc::NonCanonical:
      return "non_canonical";
    case DecodeErrc::NotOnCurve:
      return "not_on_curve";
    case DecodeErrc::NotInSubgroup:
      return "not_in_subgroup";
    case DecodeErrc::MissingCompressionFlag:
      return "compression_flag_missing";
    case DecodeErrc::UnexpectedCompressionFlag:
      return "compression_flag_unexpected";
    case DecodeErrc::UnexpectedSortFlag:
      return "sort_flag_unexpected";
    case DecodeErrc::InvalidInfinity:
      return "invalid_infinity";
    case DecodeErrc::Malformed:
      return "malformed";
  }
  return "unknown";
}

class DecodeError : public std::runtime_error {
 public:
  DecodeError(DecodeErrc code, const std::string& what) : std::runtime_error(what), code_(code) {}
  DecodeErrc code() const noexcept { return code_; }

 private:
  DecodeErrc code_;
};

// "<group>: <detail> (<format>)", e.g. "bls12-381 G1: wrong length 47, expected 48 (zcash compressed)".
[[noreturn]] inline void fail(DecodeErrc code, std::string_view group, std::string_view format,
                              std::string_view detail) {
  std::string m;
  m.append(group).append(": ").append(detail);
  if (!format.empty()) m.append(" (").append(format).append(")");
  throw DecodeError(code, m);
}

// How much a decoder checks. Canonicity and the curve equation are always checked (a few
// field multiplications, ~0.1-0.5 us a point). The subgroup check costs a scalar
// multiplication by a 64- to 128-bit constant (common/ec/subgroup.hpp; free for BN254 G1),
// ~60 us (BLS12-381 G1) to ~200-300 us (G2) a point on the dev box: hundreds of times the
// rest of a decode, a minute per million G1 points on one core. It is the default for
// single points. SkipSubgroupCheck is for bulk loads (a .zkey holds millions of points) where
// the caller establishes membership another way (file hash against a verified ceremony
// transcript, or a later per-point check spread across threads); it is never the default.
enum class Validation : uint8_t {
  Full,               // canonical, on the curve, in the prime-order subgroup
  SkipSubgroupCheck,  // canonical, on the curve; subgroup membership is the CALLER's duty
};

template <class F>
concept QuadraticExt = requires(const F& f) {
  f.c0;
  f.c1;
};

template <class G>
inline constexpr bool kIsBls12381 = std::is_same_v<typename G::Scalar, ff::Bls12381Fr>;
template <class G>
inline constexpr bool kIsBn254 = std::is_same_v<typename G::Scalar, ff::Bn254Fr>;

// Coordinate layouts. A coordinate is one Fq element, or an Fq2 element c0 + c1 u.
//   BigEndianC1First:        each Fq big-endian canonical, Fq2 as c1 || c0 (zcash, EIP-197);
//   MontLittleEndianC0First: each Fq little-endian Montgomery a R mod p with R = 2^(64 N),
//                            Fq2 as c0 || c1 (snarkjs/ffjavascript "LEM").
enum class Layout { BigEndianC1First, MontLittleEndianC0First };

template <class Base>
inline constexpr size_t kCoordBytes = [] {
  if constexpr (QuadraticExt<Base>)
    return 2 * Base::Base::kBytes;
  else
    return Base::kBytes;
}();

template <Layout L, class Fq>
void put_fq(const Fq& a, uint8_t* out) {
  if constexpr (L == Layout::BigEndianC1First)
    a.to_bytes_be(out);
  else
    a.to_mont_bytes_le(out);
}
template <Layout L, class Fq>
std::optional<Fq> get_fq(const uint8_t* in) {
  if constexpr (L == Layout::BigEndianC1First)
    return Fq::from_bytes_be(in);
  else
    return Fq::from_mont_bytes_le(in);
}

template <Layout L, class Base>
void put_coord(const Base& a, uint8_t* out) {
  if constexpr (QuadraticExt<Base>) {
    constexpr size_t n = Base::Base::kBytes;
    const bool c1_first = L == Layout::BigEndianC1First;
    put_fq<L>(c1_first ? a.c1 : a.c0, out);
    put_fq<L>(c1_first ? a.c0 : a.c1, out + n);
  } else {
    put_fq<L>(a, out);
  }
}

// nullopt when some component is >= p.
template <Layout L, class Base>
std::optional<Base> get_coord(const uint8_t* in) {
  if constexpr (QuadraticExt<Base>) {
    using Fq = typename Base::Base;
    constexpr size_t n = Fq::kBytes;
    const bool c1_first = L == Layout::BigEndianC1First;
    auto first = get_fq<L, Fq>(in), second = get_fq<L, Fq>(in + n);
    if (!first || !second) return std::nullopt;
    return c1_first ? Base{*second, *first} : Base{*first, *second};
  } else {
    return get_fq<L, Base>(in);
  }
}

// The zcash "sign" of y: lexicographically largest of {y, -y}, i.e. y > (p-1)/2 for Fq and
// (c1, c0) compared in that order for Fq2 (draft-irtf-cfrg-pairing-friendly-curves-11, C.2).
template <class Base>
bool lexicographically_largest(const Base& y) {
  if constexpr (QuadraticExt<Base>)
    return y.lexicographically_largest();
  else
    return ff::cmp(y.to_canonical(), Base::C::half_p_minus_1) > 0;
}

inline void check_length(std::span<const uint8_t> in, size_t expected, std::string_view group,
                         std::string_view format) {
  if (in.size() != expected)
    fail(DecodeErrc::WrongLength, group, format,
         "wrong length " + std::to_string(in.size()) + ", expected " + std::to_string(expected));
}

// The tail shared by every decoder once coordinates are parsed: curve equation, then subgroup.
template <class G>
ec::Affine<G> finish_point(const ec::Affine<G>& p, Validation v, std::string_view format) {
  if (!p.is_on_curve()) fail(DecodeErrc::NotOnCurve, G::kName, format, "point not on the curve");
  if (v == Validation::Full && !ec::SubgroupTest<G>::check(ec::Jacobian<G>::from_affine(p)))
    fail(DecodeErrc::NotInSubgroup, G::kName, format, "point not in the prime-order subgroup");
  return p;
}

// ---- Generic front door: serde::encode<zcash::Compressed>(p), serde::decode<evm::Uncompressed, G>(bytes).

template <template <class> class Codec, class G>
std::array<uint8_t, Codec<G>::kSize> encode(const ec::Affine<G>& p) {
  std::array<uint8_t, Codec<G>::kSize> out{};
  Codec<G>::encode(p, out.data());
  return out;
}

template <template <class> class Codec, class G>
ec::Affine<G> decode(std::span<const uint8_t> in, Validation v = Validation::Full) {
  return Codec<G>::decode(in, v);
}

// Back-to-back fixed-size points (a .zkey section, a proof's points). The validation level
// has no default here: bulk loading is where skipping the subgroup check is tempting.
template <template <class> class Codec, class G>
std::vector<uint8_t> encode_many(std::span<const ec::Affine<G>> pts) {
  std::vector<uint8_t> out(pts.size() * Codec<G>::kSize);
  for (size_t i = 0; i < pts.size(); ++i) Codec<G>::encode(pts[i], out.data() + i * Codec<G>::kSize);
  return out;
}

template <template <class> class Codec, class G>
std::vector<ec::Affine<G>> decode_many(std::span<const uint8_t> in, Validation v) {
  constexpr size_t n = Codec<G>::kSize;
  if (in.size() % n)
    fail(DecodeErrc::WrongLength, G::kName, Codec<G>::kFormat,
         "wrong length " + std::to_string(in.size()) + ", not a multiple of " + std::to_string(n));
  std::vector<ec::Affine<G>> out(in.size() / n);
  for (size_t i = 0; i < out.size(); ++i) {
    try {
      out[i] = Codec<G>::decode(in.subspan(i * n, n), v);
    } catch (const DecodeError& e) {
      throw DecodeError(e.code(), std::string(e.what()) + " at point " + std::to_string(i));
    }
  }
  return out;
}

}  // namespace zkmill::serde
