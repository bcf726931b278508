// SPDX-License-Identifier: MIT
// Bytes as hex digits and back: circuit ids (a key file's SHA-256, in key-id memos, Redis and
// on the command line), attempt tokens, PCE ids in messages, zkey beacon hashes and generators.
//
// One encoder and one strict decoder, so that every reader accepts the same spelling and every
// writer writes the same one. to_hex() writes lowercase, two digits a byte, nothing around them:
// the form the farm compares as plain strings (Redis scripts, routing), which is why is_lower_hex()
// exists apart from the decoder: an id spelled in capitals decodes to the same bytes but is not
// the same string. from_hex() takes an even number of hex digits of either case and nothing else
// (no "0x", sign, spaces or separators; a caller that allows a prefix strips it itself) and
// says nothing on failure (std::nullopt), because its callers word the error for their own input
// (a memo is rebuilt quietly, a command-line argument is refused with what was expected).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zkmill::util {

// "00ff…": two lowercase digits per byte.
std::string to_hex(std::span<const uint8_t> bytes);

// The bytes of an even number of hex digits (either case; "" gives no bytes), or std::nullopt
// for an odd count or any other character.
std::optional<std::vector<uint8_t>> from_hex(std::string_view hex);

// from_hex() of exactly 2 N digits into N bytes (a digest, a token), or std::nullopt.
template <size_t N>
std::optional<std::array<uint8_t, N>> from_hex_exact(std::string_view hex) {
  if (hex.size() != 2 * N) return std::nullopt;
  const auto bytes = from_hex(hex);
  if (!bytes) return std::nullopt;
  std::array<uint8_t, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = (*bytes)[i];
  return out;
}

// Whether `s` is exactly `digits` lowercase hex digits: to_hex()'s spelling of digits / 2
// bytes, the only one that names a circuit or an attempt where ids are compared as strings.
bool is_lower_hex(std::string_view s, size_t digits);

}  // namespace zkmill::util
