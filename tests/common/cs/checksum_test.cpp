// SPDX-License-Identifier: MIT
// checksum64: streaming equals one-shot for any chunking, every single-bit flip and every
// length change is detected, and seeds separate domains.
#include "common/cs/checksum.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace zkmill::test {

using zkmill::cs::Checksum64;
using zkmill::cs::checksum64;

namespace {
std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}
}  // namespace

TEST(Checksum64, StreamingMatchesOneShotForAnyChunking) {
  for (size_t n : {0u, 1u, 7u, 8u, 31u, 32u, 33u, 100u, 1000u, 4099u}) {
    auto data = random_bytes(n, n);
    uint64_t whole = checksum64(data);
    std::mt19937_64 rng(n + 17);
    for (int trial = 0; trial < 20; ++trial) {
      Checksum64 h;
      size_t pos = 0;
      while (pos < n) {
        size_t take = std::min<size_t>(n - pos, rng() % 40);
        h.update(std::span(data).subspan(pos, take));
        pos += take;
      }
      EXPECT_EQ(h.digest(), whole) << "n = " << n;
      EXPECT_EQ(h.length(), n);
    }
  }
}

TEST(Checksum64, DetectsEverySingleBitFlip) {
  auto data = random_bytes(257, 3);
  uint64_t ref = checksum64(data);
  for (size_t i = 0; i < data.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      data[i] ^= uint8_t(1 << bit);
      EXPECT_NE(checksum64(data), ref) << "byte " << i << " bit " << bit;
      data[i] ^= uint8_t(1 << bit);
    }
}

TEST(Checksum64, LengthAndSeedMatter) {
  std::vector<uint8_t> zeros(64, 0);
  std::set<uint64_t> seen;
  for (size_t n = 0; n <= 64; ++n) seen.insert(checksum64(std::span(zeros).first(n)));
  EXPECT_EQ(seen.size(), 65u) << "zero-padding must not make different lengths collide";
  EXPECT_NE(checksum64(zeros, 1), checksum64(zeros, 2));
  // Swapping two words (a reordered chunk) is caught too.
  auto data = random_bytes(64, 9);
  uint64_t ref = checksum64(data);
  std::swap_ranges(data.begin(), data.begin() + 8, data.begin() + 32);
  EXPECT_NE(checksum64(data), ref);
}

TEST(Checksum64, IsStableAcrossBuilds) {
  // Bundles on the wire and on disk are checked with this function: it must never change
  // silently. These digests pin it.
  std::vector<uint8_t> abc = {'a', 'b', 'c'};
  std::vector<uint8_t> empty;
  const uint64_t d_abc = checksum64(abc), d_empty = checksum64(empty);
  EXPECT_EQ(d_abc, checksum64(abc));
  EXPECT_NE(d_abc, d_empty);
  EXPECT_EQ(d_abc, 8486814580208869627ull);
  EXPECT_EQ(d_empty, 9067064519403861799ull);
}

// The digest is part of the bundle (trailer) and wire (CHUNK) formats, version 1: builds that
// disagree on it reject each other's bundles as corrupt. These values come from the first
// implementation (commit 70a8b08); a change here is a format change and needs a version bump.
TEST(Checksum64, DigestIsFrozenByTheFormatVersion) {
  struct Vector {
    size_t n;
    uint64_t seed0, seed42;
  };
  const Vector vectors[] = {
      {0, 0x7dd4af241a9d7727ull, 0xca7e459c172b657cull},
      {5, 0xb3dc0cc4f31b6c0eull, 0x5169db5786d6bb90ull},
      {32, 0x9de94be959e1ec87ull, 0x6532a3f4a513ac05ull},
      {1000, 0x7e8761e53ad8fbe5ull, 0x3501421432cf66fdull},
      {(1 << 20) + 3, 0x5b6d402b9af7aea0ull, 0x619df8ffb0b5e854ull},
  };
  for (const auto& v : vectors) {
    std::vector<uint8_t> data(v.n);
    for (size_t i = 0; i < v.n; ++i) data[i] = uint8_t(i * 131 + 7 + (i >> 9));
    EXPECT_EQ(checksum64(data), v.seed0) << "n = " << v.n;
    EXPECT_EQ(checksum64(data, 42), v.seed42) << "n = " << v.n;
  }
}

}  // namespace zkmill::test
