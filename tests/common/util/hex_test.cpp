// SPDX-License-Identifier: MIT
// util::to_hex / from_hex / from_hex_exact / is_lower_hex (common/util/hex.hpp): every byte
// value round-trips, the decoder takes either case and refuses anything but an even number of
// hex digits (the key-id memo and the beacon hash rely on that), and only lowercase of the
// exact length is an id's spelling.
#include "common/util/hex.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace zkmill::test {

using util::from_hex;
using util::from_hex_exact;
using util::is_lower_hex;
using util::to_hex;

TEST(Hex, EveryByteRoundTrips) {
  std::vector<uint8_t> all(256);
  for (size_t i = 0; i < all.size(); ++i) all[i] = uint8_t(i);
  const std::string hex = to_hex(all);
  ASSERT_EQ(hex.size(), 512u);
  EXPECT_EQ(hex.substr(0, 8), "00010203");
  EXPECT_EQ(hex.substr(2 * 0x9f, 6), "9fa0a1");
  EXPECT_EQ(hex.substr(504), "fcfdfeff");
  EXPECT_TRUE(is_lower_hex(hex, 512));
  EXPECT_EQ(from_hex(hex), all);
}

TEST(Hex, EncodesLowercaseTwoDigitsAByte) {
  EXPECT_EQ(to_hex(std::vector<uint8_t>{}), "");
  EXPECT_EQ(to_hex(std::array<uint8_t, 3>{0x0a, 0xbc, 0x00}), "0abc00");
}

TEST(Hex, DecodesEitherCase) {
  EXPECT_EQ(from_hex("DeadBEEF"), (std::vector<uint8_t>{0xde, 0xad, 0xbe, 0xef}));
  EXPECT_EQ(from_hex(""), std::vector<uint8_t>{});
}

TEST(Hex, RefusesAnythingButAnEvenNumberOfHexDigits) {
  for (const char* bad : {"0", "abc", "0x01", "01 02", " 0102", "0102 ", "-1", "+1", "g0", "0g", "1:2", "zz", "０１"})
    EXPECT_FALSE(from_hex(bad).has_value()) << "'" << bad << "'";
  EXPECT_FALSE(from_hex(std::string("0\0", 2)).has_value());
}

TEST(Hex, ExactLengthDecodesIntoAnArray) {
  const std::string digest(64, 'a');
  const auto d = from_hex_exact<32>(digest);
  ASSERT_TRUE(d.has_value());
  for (uint8_t b : *d) EXPECT_EQ(b, 0xaa);
  EXPECT_EQ(to_hex(*d), digest);
  EXPECT_FALSE(from_hex_exact<32>(digest.substr(2)).has_value());
  EXPECT_FALSE(from_hex_exact<32>(digest + "aa").has_value());
  EXPECT_FALSE(from_hex_exact<32>(digest.substr(1) + "x").has_value());
  EXPECT_EQ(from_hex_exact<2>("0102"), (std::array<uint8_t, 2>{1, 2}));
}

TEST(Hex, OnlyLowercaseOfTheExactLengthIsAnIdsSpelling) {
  EXPECT_TRUE(is_lower_hex("0123456789abcdef", 16));
  EXPECT_FALSE(is_lower_hex("0123456789ABCDEF", 16));  // decodes the same, but another string
  EXPECT_FALSE(is_lower_hex("0123456789abcdef", 32));
  EXPECT_FALSE(is_lower_hex("0123456789abcdeg", 16));
  EXPECT_TRUE(is_lower_hex("", 0));
}

}  // namespace zkmill::test
