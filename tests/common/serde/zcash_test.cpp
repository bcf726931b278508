// SPDX-License-Identifier: MIT
// Tests of the zcash BLS12-381 encodings: round trips, flags, uniqueness, truncation, messages.
// Also random-byte robustness and the generic encode/decode front door.
#include "common/serde/zcash.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/common/ec/test_points.hpp"
#include "tests/common/serde/test_hex.hpp"

namespace zkmill::test {

using namespace zkmill;
using curves::Bls12381G1Params;
using curves::Bls12381G2Params;
using serde::DecodeErrc;
using serde::Validation;
namespace zcash = serde::zcash;

template <class P>
class Zcash : public ::testing::Test {
 protected:
  std::mt19937_64 rng{99};
};
using Groups = ::testing::Types<Bls12381G1Params, Bls12381G2Params>;
TYPED_TEST_SUITE(Zcash, Groups);

TYPED_TEST(Zcash, SizesAreTheSpecs) {
  constexpr bool g1 = std::is_same_v<TypeParam, Bls12381G1Params>;
  EXPECT_EQ(zcash::Compressed<TypeParam>::kSize, g1 ? 48u : 96u);
  EXPECT_EQ(zcash::Uncompressed<TypeParam>::kSize, g1 ? 96u : 192u);
}

TYPED_TEST(Zcash, RoundTripIncludingInfinityAndBothSigns) {
  using A = ec::Affine<TypeParam>;
  std::vector<A> pts{A::identity(), TypeParam::generator(), -TypeParam::generator()};
  for (int i = 0; i < 10; ++i) {
    auto p = random_subgroup_point<TypeParam>(this->rng);
    pts.push_back(p);
    pts.push_back(-p);
  }
  for (const auto& p : pts) {
    auto c = serde::encode_compressed(p);
    auto u = serde::encode_uncompressed(p);
    EXPECT_EQ(serde::decode_compressed<TypeParam>(c), p);
    EXPECT_EQ(serde::decode_uncompressed<TypeParam>(u), p);
    EXPECT_EQ(zcash::decode_any<TypeParam>(c), p);
    EXPECT_EQ(zcash::decode_any<TypeParam>(u), p);
    EXPECT_EQ(c[0] & zcash::kCompressionBit, zcash::kCompressionBit);
    EXPECT_EQ(u[0] & zcash::kCompressionBit, 0);
    EXPECT_EQ(u[0] & zcash::kSortBit, 0);
  }
  // Of y and -y exactly one carries the sort bit.
  for (size_t i = 3; i < pts.size(); i += 2) {
    bool s1 = serde::encode_compressed(pts[i])[0] & zcash::kSortBit;
    bool s2 = serde::encode_compressed(pts[i + 1])[0] & zcash::kSortBit;
    EXPECT_NE(s1, s2);
  }
}

TYPED_TEST(Zcash, InfinityBytesAreExact) {
  auto c = serde::encode_compressed(ec::Affine<TypeParam>::identity());
  auto u = serde::encode_uncompressed(ec::Affine<TypeParam>::identity());
  EXPECT_EQ(c[0], 0xc0);
  EXPECT_EQ(u[0], 0x40);
  for (size_t i = 1; i < c.size(); ++i) EXPECT_EQ(c[i], 0);
  for (size_t i = 1; i < u.size(); ++i) EXPECT_EQ(u[i], 0);
}

TYPED_TEST(Zcash, EveryFlagPatternOnGeneratorAndInfinity) {
  // Of the 8 flag patterns only 0x80/0xa0 (compressed; the right one of the two), 0xc0
  // (compressed infinity), 0x00 and 0x40 (uncompressed) are valid.
  auto gc = serde::encode_compressed(TypeParam::generator());
  auto gu = serde::encode_uncompressed(TypeParam::generator());
  const uint8_t right_sort = gc[0] & zcash::kSortBit;
  for (unsigned f = 0; f < 8; ++f) {
    const uint8_t flags = uint8_t(f << 5);
    SCOPED_TRACE(int(flags));
    auto c = gc;
    c[0] = uint8_t((c[0] & 0x1f) | flags);
    auto u = gu;
    u[0] = uint8_t((u[0] & 0x1f) | flags);
    const bool C = flags & 0x80, I = flags & 0x40, S = flags & 0x20;
    auto dc = [&] { zcash::Compressed<TypeParam>::decode(c); };
    auto du = [&] { zcash::Uncompressed<TypeParam>::decode(u); };
    if (!C)
      expect_decode_error(DecodeErrc::MissingCompressionFlag, dc);
    else if (I)
      expect_decode_error(DecodeErrc::InvalidInfinity, dc);  // x bytes non-zero
    else if (S == bool(right_sort))
      EXPECT_EQ(zcash::Compressed<TypeParam>::decode(c), TypeParam::generator());
    else
      EXPECT_EQ(zcash::Compressed<TypeParam>::decode(c), -TypeParam::generator());
    if (C)
      expect_decode_error(DecodeErrc::UnexpectedCompressionFlag, du);
    else if (I)
      expect_decode_error(DecodeErrc::InvalidInfinity, du);
    else if (S)
      expect_decode_error(DecodeErrc::UnexpectedSortFlag, du);
    else
      EXPECT_EQ(zcash::Uncompressed<TypeParam>::decode(u), TypeParam::generator());
  }
}

TYPED_TEST(Zcash, TruncatedAndExtendedInputsAreErrorsNotCrashes) {
  auto c = serde::encode_compressed(TypeParam::generator());
  auto u = serde::encode_uncompressed(TypeParam::generator());
  // Every prefix of (encoding || junk) but the exact length is rejected as such.
  std::vector<uint8_t> longc(c.begin(), c.end()), longu(u.begin(), u.end());
  longc.resize(u.size() + 1, 0x5a);
  longu.push_back(0);
  for (size_t n = 0; n <= longu.size(); ++n) {
    std::span<const uint8_t> sc(longc.data(), n), su(longu.data(), n);
    if (n != c.size()) expect_decode_error(DecodeErrc::WrongLength, [&] { zcash::Compressed<TypeParam>::decode(sc); });
    if (n != u.size())
      expect_decode_error(DecodeErrc::WrongLength, [&] { zcash::Uncompressed<TypeParam>::decode(su); });
    if (n != c.size()) expect_decode_error(DecodeErrc::WrongLength, [&] { zcash::decode_any<TypeParam>(sc); });
  }
}

TYPED_TEST(Zcash, RandomBytesEitherFailCleanlyOrAreTheCanonicalEncoding) {
  // Any accepted input must be the unique encoding of its point: encode(decode(b)) == b.
  using Cc = zcash::Compressed<TypeParam>;
  int accepted = 0;
  for (int i = 0; i < 300; ++i) {
    std::array<uint8_t, Cc::kSize> b;
    for (auto& x : b) x = uint8_t(this->rng());
    if (i % 2) {  // half of the time: C set, I clear, each Fq component < 2^380 (likely < p)
      for (size_t k = 48; k < b.size(); k += 48) b[k] &= 0x0f;
      b[0] = uint8_t((b[0] & 0x2f) | 0x80);
    }
    try {
      auto p = Cc::decode(b, Validation::SkipSubgroupCheck);
      EXPECT_EQ(serde::encode<zcash::Compressed>(p), b);
      EXPECT_TRUE(p.is_on_curve());
      ++accepted;
    } catch (const serde::DecodeError&) {
    }
  }
  EXPECT_GT(accepted, 10);
}

TYPED_TEST(Zcash, SubgroupCheckIsOnByDefaultAndSkippable) {
  auto p = random_curve_point<TypeParam>(this->rng);
  ASSERT_FALSE(ec::is_in_subgroup(p));
  auto c = serde::encode_compressed(p);
  auto u = serde::encode_uncompressed(p);
  auto msg = expect_decode_error(DecodeErrc::NotInSubgroup, [&] { serde::decode_compressed<TypeParam>(c); });
  EXPECT_EQ(msg, std::string(TypeParam::kName) + ": point not in the prime-order subgroup (zcash compressed)");
  expect_decode_error(DecodeErrc::NotInSubgroup, [&] { serde::decode_uncompressed<TypeParam>(u); });
  EXPECT_EQ(serde::decode_compressed<TypeParam>(c, Validation::SkipSubgroupCheck), p);
  EXPECT_EQ(serde::decode_uncompressed<TypeParam>(u, Validation::SkipSubgroupCheck), p);
}

TYPED_TEST(Zcash, BulkDecodeReportsTheFailingIndex) {
  std::vector<ec::Affine<TypeParam>> pts;
  for (int i = 0; i < 5; ++i) pts.push_back(random_subgroup_point<TypeParam>(this->rng));
  pts.push_back(ec::Affine<TypeParam>::identity());
  auto bytes = serde::encode_many<zcash::Compressed, TypeParam>(pts);
  auto back = serde::decode_many<zcash::Compressed, TypeParam>(bytes, Validation::Full);
  EXPECT_EQ(back, pts);
  bytes[3 * zcash::Compressed<TypeParam>::kSize] &= 0x7f;  // point 3 loses its C flag
  auto msg = expect_decode_error(DecodeErrc::MissingCompressionFlag,
                                 [&] { serde::decode_many<zcash::Compressed, TypeParam>(bytes, Validation::Full); });
  EXPECT_NE(msg.find("at point 3"), std::string::npos) << msg;
  bytes.pop_back();
  expect_decode_error(DecodeErrc::WrongLength,
                      [&] { serde::decode_many<zcash::Compressed, TypeParam>(bytes, Validation::Full); });
}

TEST(ZcashMessages, NameGroupDetailAndFormat) {
  std::vector<uint8_t> b(47);
  EXPECT_EQ(expect_decode_error(DecodeErrc::WrongLength, [&] { serde::decode_compressed<Bls12381G1Params>(b); }),
            "bls12-381 G1: wrong length 47, expected 48 (zcash compressed)");
  auto c = serde::encode_compressed(Bls12381G1Params::generator());
  c[0] &= 0x7f;
  EXPECT_EQ(
      expect_decode_error(DecodeErrc::MissingCompressionFlag, [&] { serde::decode_compressed<Bls12381G1Params>(c); }),
      "bls12-381 G1: compression flag missing (zcash compressed)");
  // x = p: non-canonical.
  std::array<uint8_t, 48> xp;
  const auto& p = ff::Bls12381Fq::modulus();
  for (size_t i = 0; i < 48; ++i) xp[47 - i] = uint8_t(p[i / 8] >> (8 * (i % 8)));
  xp[0] |= 0x80;
  EXPECT_EQ(expect_decode_error(DecodeErrc::NonCanonical, [&] { serde::decode_compressed<Bls12381G1Params>(xp); }),
            "bls12-381 G1: non-canonical x coordinate (>= p) (zcash compressed)");
  // G2 sizes in the message.
  std::vector<uint8_t> b2(191);
  EXPECT_EQ(expect_decode_error(DecodeErrc::WrongLength, [&] { serde::decode_uncompressed<Bls12381G2Params>(b2); }),
            "bls12-381 G2: wrong length 191, expected 192 (zcash uncompressed)");
}

TEST(ZcashKnownAnswer, GeneratorsMatchTheSpec) {
  // The G1 generator's compressed form is its x with C set and S clear (the published
  // bls12_381 test vector: 97f1d3a7...c6bb).
  auto c = serde::encode_compressed(Bls12381G1Params::generator());
  EXPECT_EQ(to_hex(c),
            "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
  // G2 is x.c1 || x.c0: the generator's compressed form starts with x.c1 = 0x13e02b60... | 0x80 (C set, S clear).
  auto c2 = serde::encode_compressed(Bls12381G2Params::generator());
  EXPECT_EQ(to_hex(std::span<const uint8_t>(c2.data(), 8)), "93e02b6052719f60");
}

}  // namespace zkmill::test
