// SPDX-License-Identifier: MIT
// The Ethereum precompile encoding of BN254 points (EIP-196 / EIP-197), as Solidity verifiers use it.
//
// Spec: EIP-196 "Precompiled contracts for addition and scalar multiplication on the elliptic
// curve alt_bn128" and EIP-197 "Precompiled contract for optimal ate pairing check on the
// elliptic curve alt_bn128", sections "Encoding":
//   - an Fq element is 32 bytes big-endian, and must be < p (no flags: the precompiles fail
//     on x or y >= p rather than reducing);
//   - G1: 64 bytes x || y;
//   - G2: 128 bytes x || y with each Fq2 element a + b i written "imaginary part first":
//     x.c1 || x.c0 || y.c1 || y.c0;
//   - the point at infinity is all zeros, (x, y) = (0, 0) (never on the curve since b != 0);
//   - any other input must satisfy the curve equation; EIP-197 additionally requires G2
//     points to be in the order-r subgroup (G1 has cofactor 1).
// snarkjs's Solidity calldata (`snarkjs zkey export soliditycalldata`) uses the same layout
// for pi_a, pi_b, pi_c; it prints hex words rather than bytes, but the words are these.
#pragma once

#include <algorithm>

#include "common/curves/bn254.hpp"
#include "common/serde/codec.hpp"

namespace zkmill::serde::evm {

template <class G>
struct Uncompressed {
  static_assert(kIsBn254<G>, "the EIP-196/197 encoding is defined for BN254 only");
  using Base = typename G::Base;
  static constexpr size_t kCoord = kCoordBytes<Base>;  // 32 (G1) / 64 (G2)
  static constexpr size_t kSize = 2 * kCoord;          // 64 (G1) / 128 (G2)
  static constexpr const char* kFormat = "EIP-196/197";

  static void encode(const ec::Affine<G>& p, uint8_t* out) {
    if (p.infinity) {
      std::fill(out, out + kSize, uint8_t(0));
      return;
    }
    put_coord<Layout::BigEndianC1First>(p.x, out);
    put_coord<Layout::BigEndianC1First>(p.y, out + kCoord);
  }

  static ec::Affine<G> decode(std::span<const uint8_t> in, Validation v = Validation::Full) {
    check_length(in, kSize, G::kName, kFormat);
    if (std::all_of(in.begin(), in.end(), [](uint8_t b) { return b == 0; })) return ec::Affine<G>::identity();
    auto x = get_coord<Layout::BigEndianC1First, Base>(in.data());
    if (!x) fail(DecodeErrc::NonCanonical, G::kName, kFormat, "non-canonical x coordinate (>= p)");
    auto y = get_coord<Layout::BigEndianC1First, Base>(in.data() + kCoord);
    if (!y) fail(DecodeErrc::NonCanonical, G::kName, kFormat, "non-canonical y coordinate (>= p)");
    return finish_point(ec::Affine<G>::from_xy(*x, *y), v, kFormat);
  }
};

// Scalars as the precompiles and Solidity verifiers take them (public inputs, ECMUL's k):
// 32 bytes big-endian. Public inputs must be < r (the snarkjs verifier template rejects
// others), so decoding refuses non-canonical values rather than reducing them.
template <class F>
std::array<uint8_t, F::kBytes> encode_scalar(const F& s) {
  std::array<uint8_t, F::kBytes> out{};
  s.to_bytes_be(out.data());
  return out;
}
template <class F>
F decode_scalar(std::span<const uint8_t> in) {
  check_length(in, F::kBytes, F::Params::kName, "EVM word");
  auto s = F::from_bytes_be(in.data());
  if (!s) fail(DecodeErrc::NonCanonical, F::Params::kName, "EVM word", "non-canonical scalar (>= r)");
  return *s;
}

}  // namespace zkmill::serde::evm

namespace zkmill::serde {

// BN254's standard encoding under the generic name (there is no standard compressed form).
template <class G>
requires kIsBn254<G> std::array<uint8_t, evm::Uncompressed<G>::kSize> encode_uncompressed(const ec::Affine<G>& p) {
  return encode<evm::Uncompressed>(p);
}
template <class G>
requires kIsBn254<G> ec::Affine<G> decode_uncompressed(std::span<const uint8_t> in, Validation v = Validation::Full) {
  return evm::Uncompressed<G>::decode(in, v);
}

}  // namespace zkmill::serde
