// SPDX-License-Identifier: MIT
// Tests of the EIP-196/197 BN254 encoding and the snarkjs binary layouts (LEM points, scalars).
// Byte layouts, round trips incl. infinity, validation levels, truncation, bulk sections.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "common/serde/evm.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "tests/common/ec/test_points.hpp"
#include "tests/common/serde/test_hex.hpp"

namespace zkmill::test {

using namespace zkmill;
using curves::Bls12381G1Params;
using curves::Bls12381G2Params;
using curves::Bn254G1Params;
using curves::Bn254G2Params;
using serde::DecodeErrc;
using serde::Validation;

// ---- EIP-196/197.

TEST(Evm, GeneratorLayouts) {
  auto g1 = serde::encode_uncompressed(Bn254G1Params::generator());
  ASSERT_EQ(g1.size(), 64u);
  EXPECT_EQ(to_hex(g1), std::string(63, '0') + "1" + std::string(63, '0') + "2");
  // G2: x.c1 || x.c0 || y.c1 || y.c0, "imaginary part first" (EIP-197).
  auto g2 = serde::encode_uncompressed(Bn254G2Params::generator());
  ASSERT_EQ(g2.size(), 128u);
  const auto& g = Bn254G2Params::generator();
  std::array<uint8_t, 32> w;
  const ff::Bn254Fq* order[4] = {&g.x.c1, &g.x.c0, &g.y.c1, &g.y.c0};
  for (int i = 0; i < 4; ++i) {
    order[i]->to_bytes_be(w.data());
    EXPECT_TRUE(std::equal(w.begin(), w.end(), g2.begin() + 32 * i)) << i;
  }
  EXPECT_EQ(to_hex(std::span<const uint8_t>(g2.data(), 4)), "198e9393");  // x.c1 = 0x198e9393...
}

template <class G>
void evm_round_trip(uint64_t seed) {
  std::mt19937_64 rng(seed);
  using E = serde::evm::Uncompressed<G>;
  std::vector<ec::Affine<G>> pts{ec::Affine<G>::identity(), G::generator()};
  for (int i = 0; i < 8; ++i) pts.push_back(random_subgroup_point<G>(rng));
  for (const auto& p : pts) EXPECT_EQ(serde::decode_uncompressed<G>(serde::encode_uncompressed(p)), p);
  auto zero = serde::encode<serde::evm::Uncompressed>(ec::Affine<G>::identity());
  EXPECT_TRUE(std::all_of(zero.begin(), zero.end(), [](uint8_t b) { return b == 0; }));
  // Truncation / extension.
  auto b = serde::encode<serde::evm::Uncompressed>(pts[2]);
  std::vector<uint8_t> longer(b.begin(), b.end());
  longer.push_back(1);
  for (size_t n = 0; n <= longer.size(); ++n)
    if (n != E::kSize)
      expect_decode_error(DecodeErrc::WrongLength, [&] { E::decode(std::span<const uint8_t>(longer.data(), n)); });
}

TEST(Evm, RoundTrips) {
  evm_round_trip<Bn254G1Params>(1);
  evm_round_trip<Bn254G2Params>(2);
}

TEST(Evm, G2SubgroupEnforcedUnlessSkipped) {
  std::mt19937_64 rng(3);
  auto p = random_curve_point<Bn254G2Params>(rng);
  auto b = serde::encode_uncompressed(p);
  auto msg = expect_decode_error(DecodeErrc::NotInSubgroup, [&] { serde::decode_uncompressed<Bn254G2Params>(b); });
  EXPECT_EQ(msg, "bn254 G2: point not in the prime-order subgroup (EIP-196/197)");
  EXPECT_EQ(serde::decode_uncompressed<Bn254G2Params>(b, Validation::SkipSubgroupCheck), p);
}

TEST(Evm, Scalars) {
  std::mt19937_64 rng(4);
  auto s = ff::Bn254Fr::random(rng);
  EXPECT_EQ(serde::evm::decode_scalar<ff::Bn254Fr>(serde::evm::encode_scalar(s)), s);
  std::array<uint8_t, 32> r;
  for (size_t i = 0; i < 32; ++i) r[31 - i] = uint8_t(ff::Bn254Fr::modulus()[i / 8] >> (8 * (i % 8)));
  expect_decode_error(DecodeErrc::NonCanonical, [&] { serde::evm::decode_scalar<ff::Bn254Fr>(r); });
}

// ---- snarkjs LEM points.

template <class P>
class Lem : public SeededGroupTest<P, 5> {};
TYPED_TEST_SUITE(Lem, AllGroups);

TYPED_TEST(Lem, LayoutIsMontgomeryLittleEndianC0First) {
  using L = serde::snarkjs::Lem<TypeParam>;
  const auto g = TypeParam::generator();
  auto b = serde::encode<serde::snarkjs::Lem>(g);
  using Base = typename TypeParam::Base;
  if constexpr (serde::QuadraticExt<Base>) {
    constexpr size_t n = Base::Base::kBytes;
    std::array<uint8_t, n> w;
    const typename Base::Base* order[4] = {&g.x.c0, &g.x.c1, &g.y.c0, &g.y.c1};
    for (int i = 0; i < 4; ++i) {
      order[i]->to_mont_bytes_le(w.data());
      EXPECT_TRUE(std::equal(w.begin(), w.end(), b.begin() + n * i)) << i;
    }
    EXPECT_EQ(L::kSize, 4 * n);
  } else {
    std::array<uint8_t, Base::kBytes> w;
    g.x.to_mont_bytes_le(w.data());
    EXPECT_TRUE(std::equal(w.begin(), w.end(), b.begin()));
    g.y.to_mont_bytes_le(w.data());
    EXPECT_TRUE(std::equal(w.begin(), w.end(), b.begin() + Base::kBytes));
    EXPECT_EQ(L::kSize, 2 * Base::kBytes);
  }
}

TYPED_TEST(Lem, RoundTripInfinityTruncationAndValidation) {
  using L = serde::snarkjs::Lem<TypeParam>;
  std::vector<ec::Affine<TypeParam>> pts{ec::Affine<TypeParam>::identity(), TypeParam::generator()};
  for (int i = 0; i < 6; ++i) pts.push_back(random_subgroup_point<TypeParam>(this->rng));
  for (const auto& p : pts) EXPECT_EQ(L::decode(serde::encode<serde::snarkjs::Lem>(p)), p);
  auto zero = serde::encode<serde::snarkjs::Lem>(ec::Affine<TypeParam>::identity());
  EXPECT_TRUE(std::all_of(zero.begin(), zero.end(), [](uint8_t b) { return b == 0; }));

  auto b = serde::encode<serde::snarkjs::Lem>(pts[3]);
  for (size_t n = 0; n < L::kSize; ++n)
    expect_decode_error(DecodeErrc::WrongLength, [&] { L::decode(std::span<const uint8_t>(b.data(), n)); });

  // Off-curve: flip one bit of y's word (stays canonical with overwhelming probability).
  auto off = b;
  off[L::kSize - 8] ^= 1;
  expect_decode_error(DecodeErrc::NotOnCurve, [&] { L::decode(off, Validation::SkipSubgroupCheck); });

  // Off the subgroup (groups with a cofactor).
  if constexpr (!TypeParam::kCofactorOne) {
    auto q = random_curve_point<TypeParam>(this->rng);
    auto qb = serde::encode<serde::snarkjs::Lem>(q);
    expect_decode_error(DecodeErrc::NotInSubgroup, [&] { L::decode(qb); });
    EXPECT_EQ(L::decode(qb, Validation::SkipSubgroupCheck), q);
  }
}

TYPED_TEST(Lem, SectionDecodeNeedsAnExplicitValidationLevel) {
  std::vector<ec::Affine<TypeParam>> pts;
  for (int i = 0; i < 7; ++i)
    pts.push_back(i == 2 ? ec::Affine<TypeParam>::identity() : random_subgroup_point<TypeParam>(this->rng));
  auto section = serde::snarkjs::encode_points<TypeParam>(pts);
  EXPECT_EQ(section.size(), pts.size() * serde::snarkjs::Lem<TypeParam>::kSize);
  auto full = serde::snarkjs::decode_points<TypeParam>(section, Validation::Full);
  auto fast = serde::snarkjs::decode_points<TypeParam>(section, Validation::SkipSubgroupCheck);
  EXPECT_EQ(full, pts);
  EXPECT_EQ(fast, pts);
  section[5 * serde::snarkjs::Lem<TypeParam>::kSize + 1] ^= 0x40;  // damage point 5's x
  auto msg = expect_decode_error(DecodeErrc::NotOnCurve, [&] {
    serde::snarkjs::decode_points<TypeParam>(section, Validation::SkipSubgroupCheck);
  });
  EXPECT_NE(msg.find("at point 5"), std::string::npos) << msg;
}

// The cost the Validation enum makes visible: decode throughput with and without the
// subgroup check (informational; printed, not asserted).
TYPED_TEST(Lem, ValidationCostIsReported) {
  std::vector<ec::Affine<TypeParam>> pts;
  for (int i = 0; i < 64; ++i) pts.push_back(random_subgroup_point<TypeParam>(this->rng));
  auto section = serde::snarkjs::encode_points<TypeParam>(pts);
  auto time = [&](Validation v) {  // best of 3 passes: the build machine is shared
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      auto out = serde::snarkjs::decode_points<TypeParam>(section, v);
      EXPECT_EQ(out.size(), pts.size());
      auto us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, us / double(pts.size()));
    }
    return best;
  };
  double skip = time(Validation::SkipSubgroupCheck), full = time(Validation::Full);
  std::printf("  %s LEM decode: %.2f us/point on-curve only, %.2f us/point with subgroup check (%s)\n",
              TypeParam::kName, skip, full, ec::SubgroupTest<TypeParam>::kMethod);
}

// ---- Scalars.

template <class Fr>
void scalar_formats(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::array<uint8_t, Fr::kBytes> b{};
  for (int i = 0; i < 20; ++i) {
    Fr c = i == 0 ? Fr::zero() : i == 1 ? Fr::one() : Fr::random(rng);
    serde::snarkjs::encode_wtns_scalar(c, b.data());
    EXPECT_EQ(serde::snarkjs::decode_wtns_scalar<Fr>(b), c);
    serde::snarkjs::encode_zkey_coef(c, b.data());
    EXPECT_EQ(serde::snarkjs::decode_zkey_coef<Fr>(b), c);
    serde::snarkjs::encode_lem_scalar(c, b.data());
    EXPECT_EQ(serde::snarkjs::decode_lem_scalar<Fr>(b), c);
  }
  // The zkey word of 1 is R^2 mod r; the prover's Montgomery product of a coefficient word
  // with a canonical witness value w is (c w) in Montgomery form.
  serde::snarkjs::encode_zkey_coef(Fr::one(), b.data());
  ff::Limbs<Fr::N> r2 = ff::MontConstants<typename Fr::Params>::r2;
  std::array<uint8_t, Fr::kBytes> want{};
  for (size_t i = 0; i < Fr::kBytes; ++i) want[i] = uint8_t(r2[i / 8] >> (8 * (i % 8)));
  EXPECT_EQ(b, want);
  Fr c = Fr::random(rng), w = Fr::random(rng);
  serde::snarkjs::encode_zkey_coef(c, b.data());
  ff::Limbs<Fr::N> word{}, prod{};
  for (size_t i = 0; i < Fr::kBytes; ++i) word[i / 8] |= uint64_t(b[i]) << (8 * (i % 8));
  Fr::mont_mul(prod, word, w.to_canonical());
  EXPECT_EQ(Fr::from_raw_mont(prod), c * w);
  // Section of witness values, and a non-canonical one at index 2.
  std::vector<uint8_t> sec(4 * Fr::kBytes);
  for (int i = 0; i < 4; ++i)
    serde::snarkjs::encode_wtns_scalar(Fr::from_u64(uint64_t(i) + 10), sec.data() + i * Fr::kBytes);
  auto vals = serde::snarkjs::decode_wtns_section<Fr>(sec);
  ASSERT_EQ(vals.size(), 4u);
  EXPECT_EQ(vals[3], Fr::from_u64(13));
  std::fill(sec.begin() + 2 * Fr::kBytes, sec.begin() + 3 * Fr::kBytes, uint8_t(0xff));
  auto msg = expect_decode_error(DecodeErrc::NonCanonical, [&] { serde::snarkjs::decode_wtns_section<Fr>(sec); });
  EXPECT_NE(msg.find("at index 2"), std::string::npos) << msg;
  sec.pop_back();
  expect_decode_error(DecodeErrc::WrongLength, [&] { serde::snarkjs::decode_wtns_section<Fr>(sec); });
  expect_decode_error(DecodeErrc::WrongLength,
                      [&] { serde::snarkjs::decode_zkey_coef<Fr>(std::span<const uint8_t>(b.data(), 5)); });
}

TEST(SnarkjsScalars, AllFormatsBothCurves) {
  scalar_formats<ff::Bn254Fr>(6);
  scalar_formats<ff::Bls12381Fr>(7);
}

}  // namespace zkmill::test
