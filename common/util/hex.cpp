// SPDX-License-Identifier: MIT
// to_hex, from_hex, is_lower_hex (hex.hpp says why one of each).
#include "common/util/hex.hpp"

namespace zkmill::util {

namespace {

constexpr char kLowerDigits[] = "0123456789abcdef";

// The value of one hex digit of either case, or -1.
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string to_hex(std::span<const uint8_t> bytes) {
  std::string out(2 * bytes.size(), '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kLowerDigits[bytes[i] >> 4];
    out[2 * i + 1] = kLowerDigits[bytes[i] & 15];
  }
  return out;
}

std::optional<std::vector<uint8_t>> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = uint8_t(hi << 4 | lo);
  }
  return out;
}

bool is_lower_hex(std::string_view s, size_t digits) {
  if (s.size() != digits) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace zkmill::util
