// SPDX-License-Identifier: MIT
// Byte-level helpers for the witness-bundle tests that corrupt a bundle's wire image on purpose
// (witness_bundle_test.cpp, witness_only_test.cpp): write a field, reseal both checksums so only
// the deliberate change is left to be found, and the parser's error for an image.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/cs/checksum.hpp"
#include "common/cs/witness_bundle.hpp"

namespace zkmill::test {

inline void put_u64(std::vector<uint8_t>& b, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[off + i] = uint8_t(v >> (8 * i));
}

// Rewrites both checksums (the header's, over its first 88 bytes, and the whole image's).
inline void reseal(std::vector<uint8_t>& bytes, const cs::BundleLayout& l) {
  put_u64(bytes, 88, cs::checksum64(std::span(bytes).first(88)));
  put_u64(bytes, l.checksum_offset, cs::checksum64(std::span(bytes).first(l.checksum_offset)));
}

// The parser's message for these bytes, or "(no error)" when it accepts them.
inline std::string error_of(std::span<const uint8_t> bytes) {
  try {
    cs::WitnessBundle::parse(bytes);
  } catch (const cs::BundleError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace zkmill::test
