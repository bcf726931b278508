// SPDX-License-Identifier: MIT
// The GPU MSM's accumulation policy (cuda/msm/accumulation.cpp) on any host: forced choices win
// over the size policy, the size policy keeps batch-affine inside the measured ranges only, the
// environment variables parse to what the docs say and bad values are refused with the
// variable's name, and the rounds' memory budget stays within its bounds. No GPU needed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "cuda/msm/accumulation.hpp"

namespace zkmill::test {
namespace {

using cuda::MsmAccumulation;
namespace pip = cuda::pippenger;

constexpr uint64_t k2(int e) { return uint64_t(1) << e; }

// Coordinate sizes: BN254 G1 32 B, BLS12-381 G1 48 B, BN254 G2 64 B, BLS12-381 G2 96 B.
constexpr size_t kBnG1 = 32, kBlsG1 = 48, kBnG2 = 64, kBlsG2 = 96;

TEST(AccumulationPolicy, ForcedChoiceWinsOverSize) {
  for (const size_t coord : {kBnG1, kBlsG1, kBnG2, kBlsG2}) {
    for (const uint64_t digits : {uint64_t(1), k2(20), k2(26), k2(31)}) {
      EXPECT_TRUE(pip::batch_affine_windows(MsmAccumulation::kBatchAffine, digits, 1u << 15, coord));
      EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kXyzz, digits, 1u << 15, coord));
    }
    EXPECT_TRUE(pip::batch_affine_ones(MsmAccumulation::kBatchAffine, k2(22), coord));
    EXPECT_FALSE(pip::batch_affine_ones(MsmAccumulation::kXyzz, k2(22), coord));
  }
}

// The size policy as measured on the H200 (cuda/bench/NOTES-batch-affine.md): batch-affine for G1 of both
// curves at 2^22..2^26 points (2^26..2^30 digits at c = 16) and BN254 G2 at 2^20..2^22 (2^24..2^26
// digits); never for BLS12-381 G2, outside the measured ranges, or the 1-scalar sum.
TEST(AccumulationPolicy, SizePolicyStaysInsideTheMeasuredRanges) {
  for (const size_t g1 : {kBnG1, kBlsG1}) {
    EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(26) - 1, g1)) << g1;
    EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(26), g1)) << g1;
    EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(28), g1)) << g1;
    EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(30), g1)) << g1;
    EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(30) + 1, g1)) << g1;
    EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(31), g1)) << g1;  // a PoRep partition's H MSM
  }
  EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(24) - 1, kBnG2));
  EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(24), kBnG2));
  EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(26), kBnG2));
  EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(26) + 1, kBnG2));
  for (int e = 10; e <= 31; ++e) {
    EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(e), kBlsG2)) << "2^" << e;
    EXPECT_FALSE(pip::batch_affine_ones_by_size(k2(e), kBnG1)) << "2^" << e;
    EXPECT_FALSE(pip::batch_affine_ones_by_size(k2(e), kBlsG1)) << "2^" << e;
  }
}

// kAuto follows the environment's ZKMILL_GPU_MSM_ACCUMULATE when set, else the size policy.
TEST(AccumulationPolicy, AutoFollowsTheSizePolicyWhenTheEnvironmentIsSilent) {
  const char* env = std::getenv("ZKMILL_GPU_MSM_ACCUMULATE");
  if (env != nullptr && *env != '\0' && std::string(env) != "auto")
    GTEST_SKIP() << "ZKMILL_GPU_MSM_ACCUMULATE is set: kAuto follows it";
  for (const size_t coord : {kBnG1, kBlsG1, kBnG2, kBlsG2}) {
    for (int e = 16; e <= 30; ++e) {
      EXPECT_EQ(pip::batch_affine_windows(MsmAccumulation::kAuto, k2(e), 1u << 15, coord),
                pip::batch_affine_windows_by_size(k2(e), coord))
          << coord << " B, 2^" << e;
      EXPECT_EQ(pip::batch_affine_ones(MsmAccumulation::kAuto, k2(e), coord),
                pip::batch_affine_ones_by_size(k2(e), coord));
    }
  }
}

TEST(AccumulationPolicy, AccumulateVariableParses) {
  using A = MsmAccumulation;
  auto same = [](const pip::AccumulationChoice& c, A w, A o) { return c.windows == w && c.ones == o; };
  EXPECT_TRUE(same(pip::parse_accumulate_env(nullptr), A::kAuto, A::kAuto));
  EXPECT_TRUE(same(pip::parse_accumulate_env(""), A::kAuto, A::kAuto));
  EXPECT_TRUE(same(pip::parse_accumulate_env("auto"), A::kAuto, A::kAuto));
  EXPECT_TRUE(same(pip::parse_accumulate_env("xyzz"), A::kXyzz, A::kXyzz));
  EXPECT_TRUE(same(pip::parse_accumulate_env("affine"), A::kBatchAffine, A::kBatchAffine));
  EXPECT_TRUE(same(pip::parse_accumulate_env("affine-windows"), A::kBatchAffine, A::kXyzz));
  EXPECT_TRUE(same(pip::parse_accumulate_env("affine-ones"), A::kXyzz, A::kBatchAffine));
  for (const char* bad : {"Affine", "xyz", "affine ", "1"}) {
    try {
      (void)pip::parse_accumulate_env(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ZKMILL_GPU_MSM_ACCUMULATE"), std::string::npos) << e.what();
    }
  }
}

TEST(AccumulationPolicy, RoundAndStopVariablesParse) {
  using K = cuda::MsmAffineRound;
  EXPECT_EQ(pip::parse_affine_round_env("contiguous"), K::kContiguous);
  EXPECT_EQ(pip::parse_affine_round_env("interleaved"), K::kInterleaved);
  EXPECT_EQ(pip::parse_affine_round_env("fused"), K::kFused);
  EXPECT_EQ(pip::parse_affine_round_env(nullptr), K::kAuto);
  EXPECT_EQ(pip::parse_affine_round_env(""), K::kAuto);
  EXPECT_THROW((void)pip::parse_affine_round_env("split"), std::invalid_argument);
  // A requested kind wins; kAuto never comes back.
  for (const K k : {K::kContiguous, K::kInterleaved, K::kFused}) EXPECT_EQ(pip::batch_affine_round(k), k);
  EXPECT_NE(pip::batch_affine_round(K::kAuto), K::kAuto);
  EXPECT_EQ(pip::parse_affine_stop_env("1"), 1u);
  EXPECT_EQ(pip::parse_affine_stop_env("8"), 8u);
  EXPECT_EQ(pip::parse_affine_stop_env("64"), 64u);
  EXPECT_EQ(pip::parse_affine_stop_env(nullptr), pip::parse_affine_stop_env(""));
  EXPECT_GE(pip::parse_affine_stop_env(nullptr), 1u);
  for (const char* bad : {"0", "65", "x", "3x", "-1", " 2", "99999999999999999999"}) {
    try {
      (void)pip::parse_affine_stop_env(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ZKMILL_GPU_MSM_AFFINE_STOP"), std::string::npos) << e.what();
    }
  }
}

TEST(AccumulationPolicy, BudgetIsHalfTheFreeMemoryWithinBounds) {
  EXPECT_EQ(pip::batch_affine_budget(0), uint64_t(256) << 20);
  EXPECT_EQ(pip::batch_affine_budget(uint64_t(100) << 20), uint64_t(256) << 20);
  EXPECT_EQ(pip::batch_affine_budget(uint64_t(4) << 30), uint64_t(2) << 30);
  EXPECT_EQ(pip::batch_affine_budget(uint64_t(100) << 30), uint64_t(8) << 30);
}

}  // namespace
}  // namespace zkmill::test
