// SPDX-License-Identifier: MIT
// The GPU MSM's accumulation policy (cuda/msm/accumulation.cpp) on any host: forced choices win
// over the size policy, the size policy keeps batch-affine inside the measured ranges only, the
// automatic choice falls back to XYZZ when the rounds would not fit the free memory, each group
// gets its measured round kind, the environment variables parse to what the docs say and bad
// values are refused with the variable's name, and the rounds' memory budget stays within its
// bounds. No GPU needed.
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
constexpr uint64_t kGiB = k2(30), kMiB = k2(20);
constexpr uint64_t kRoomy = 100 * kGiB;  // free memory that never limits the rounds

// Coordinate sizes: BN254 G1 32 B, BLS12-381 G1 48 B, BN254 G2 64 B, BLS12-381 G2 96 B.
constexpr size_t kBnG1 = 32, kBlsG1 = 48, kBnG2 = 64, kBlsG2 = 96;

TEST(AccumulationPolicy, ForcedChoiceWinsOverSize) {
  for (const size_t coord : {kBnG1, kBlsG1, kBnG2, kBlsG2}) {
    for (const uint64_t digits : {uint64_t(1), k2(20), k2(26), k2(31)}) {
      for (const uint64_t free_bytes : {uint64_t(0), kRoomy}) {
        EXPECT_TRUE(pip::batch_affine_windows(MsmAccumulation::kBatchAffine, digits, 64, coord, free_bytes));
        EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kXyzz, digits, 64, coord, free_bytes));
      }
    }
    EXPECT_TRUE(pip::batch_affine_ones(MsmAccumulation::kBatchAffine, k2(22), coord));
    EXPECT_FALSE(pip::batch_affine_ones(MsmAccumulation::kXyzz, k2(22), coord));
  }
}

// The size policy as measured on the H200 (cuda/bench/NOTES-batch-affine.md): batch-affine for G1 of both
// curves at 2^22..2^27 points (2^26..2^31 digits at c = 16: up to a PoRep partition's H MSM) and
// BN254 G2 at 2^20..2^24 (2^24..2^28 digits); never for BLS12-381 G2, outside the measured ranges,
// or the 1-scalar sum.
TEST(AccumulationPolicy, SizePolicyStaysInsideTheMeasuredRanges) {
  for (const size_t g1 : {kBnG1, kBlsG1}) {
    EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(26) - 1, g1)) << g1;
    EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(26), g1)) << g1;
    EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(28), g1)) << g1;
    EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(30), g1)) << g1;
    EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(31) - 16, g1)) << g1;  // a PoRep partition's H MSM
    EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(31), g1)) << g1;
    EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(31) + 1, g1)) << g1;
  }
  EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(24) - 1, kBnG2));
  EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(24), kBnG2));
  EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(26), kBnG2));
  EXPECT_TRUE(pip::batch_affine_windows_by_size(k2(28), kBnG2));  // a 2^24 proof's B_G2
  EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(28) + 1, kBnG2));
  for (int e = 10; e <= 31; ++e) {
    EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(e), kBlsG2)) << "2^" << e;
    EXPECT_FALSE(pip::batch_affine_ones_by_size(k2(e), kBnG1)) << "2^" << e;
    EXPECT_FALSE(pip::batch_affine_ones_by_size(k2(e), kBlsG1)) << "2^" << e;
  }
}

// kAuto follows the environment's ZKMILL_GPU_MSM_ACCUMULATE when set, else the size policy
// (with room to spare: the memory side is the next test's).
TEST(AccumulationPolicy, AutoFollowsTheSizePolicyWhenTheEnvironmentIsSilent) {
  const char* env = std::getenv("ZKMILL_GPU_MSM_ACCUMULATE");
  if (env != nullptr && *env != '\0' && std::string(env) != "auto")
    GTEST_SKIP() << "ZKMILL_GPU_MSM_ACCUMULATE is set: kAuto follows it";
  const char* cap = std::getenv("ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB");
  if (cap != nullptr && *cap != '\0') GTEST_SKIP() << "ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB is set: the budget follows it";
  for (const size_t coord : {kBnG1, kBlsG1, kBnG2, kBlsG2}) {
    for (int e = 16; e <= 31; ++e) {
      EXPECT_EQ(pip::batch_affine_windows(MsmAccumulation::kAuto, k2(e), 4096, coord, kRoomy),
                pip::batch_affine_windows_by_size(k2(e), coord))
          << coord << " B, 2^" << e;
      EXPECT_EQ(pip::batch_affine_ones(MsmAccumulation::kAuto, k2(e), coord),
                pip::batch_affine_ones_by_size(k2(e), coord));
    }
  }
}

// The rounds' memory: at most kMaxAffineSlices slices of half the free memory (8 GiB at most),
// and the fullest bucket inside one slice; otherwise the automatic choice is XYZZ, so batch-affine
// never asks a nearly full card for more than XYZZ would.
TEST(AccumulationPolicy, AutoFallsBackToXyzzWhenTheRoundsDoNotFit) {
  const char* env = std::getenv("ZKMILL_GPU_MSM_ACCUMULATE");
  if (env != nullptr && *env != '\0' && std::string(env) != "auto") GTEST_SKIP() << "ZKMILL_GPU_MSM_ACCUMULATE is set";
  const char* cap = std::getenv("ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB");
  if (cap != nullptr && *cap != '\0') GTEST_SKIP() << "ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB is set";
  EXPECT_EQ(pip::batch_affine_bytes_per_input(kBnG1), 64u);
  EXPECT_EQ(pip::batch_affine_bytes_per_input(kBlsG1), 96u);
  EXPECT_EQ(pip::batch_affine_bytes_per_input(kBnG2), 128u);
  // A PoRep partition's BLS12-381 H MSM: 2^31 digits x 96 B = 192 GiB of rounds in all.
  const uint64_t h = k2(31) - 16;
  EXPECT_EQ(pip::batch_affine_slices(h, kBlsG1, 8 * kGiB), 24u);
  EXPECT_EQ(pip::batch_affine_slices(h, kBlsG1, kGiB), 192u);
  EXPECT_EQ(pip::batch_affine_slices(1, kBlsG1, 8 * kGiB), 1u);
  EXPECT_TRUE(pip::batch_affine_windows(MsmAccumulation::kAuto, h, 4096, kBlsG1, 20 * kGiB));  // 24 slices
  EXPECT_TRUE(pip::batch_affine_windows(MsmAccumulation::kAuto, h, 4096, kBlsG1, 2 * kGiB));   // 192 slices
  EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kAuto, h, 4096, kBlsG1, kGiB));      // 384 slices
  EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kAuto, h, 4096, kBlsG1, 0));         // nothing free
  EXPECT_FALSE(pip::batch_affine_fits(h, 4096, kBlsG1, 100 * kMiB));
  // The fullest bucket must fit one slice (a skewed scalar put half the points in one bucket).
  EXPECT_TRUE(pip::batch_affine_fits(k2(26), k2(20), kBnG1, 2 * kGiB));   // 64 MiB bucket, 1 GiB budget
  EXPECT_FALSE(pip::batch_affine_fits(k2(26), k2(25), kBnG1, 2 * kGiB));  // 2 GiB bucket
  EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kAuto, k2(26), k2(25), kBnG1, 2 * kGiB));
  EXPECT_TRUE(pip::batch_affine_windows(MsmAccumulation::kAuto, k2(26), k2(25), kBnG1, kRoomy));
  // Never batch-affine outside the size ranges, however much is free.
  EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kAuto, k2(24), 64, kBnG1, kRoomy));
  EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kAuto, k2(26), 64, kBlsG2, kRoomy));
}

// The round kind by group: interleaved for G1 (32- and 48-byte coordinates), contiguous for G2.
TEST(AccumulationPolicy, RoundKindByGroup) {
  using K = cuda::MsmAffineRound;
  EXPECT_EQ(pip::default_affine_round(kBnG1), K::kInterleaved);
  EXPECT_EQ(pip::default_affine_round(kBlsG1), K::kInterleaved);
  EXPECT_EQ(pip::default_affine_round(kBnG2), K::kContiguous);
  EXPECT_EQ(pip::default_affine_round(kBlsG2), K::kContiguous);
  const char* env = std::getenv("ZKMILL_GPU_MSM_AFFINE_ROUND");
  if (env != nullptr && *env != '\0') GTEST_SKIP() << "ZKMILL_GPU_MSM_AFFINE_ROUND is set";
  for (const size_t coord : {kBnG1, kBlsG1, kBnG2, kBlsG2})
    EXPECT_EQ(pip::batch_affine_round(K::kAuto, coord), pip::default_affine_round(coord)) << coord;
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

TEST(AccumulationPolicy, RoundStopAndBudgetVariablesParse) {
  using K = cuda::MsmAffineRound;
  EXPECT_EQ(pip::parse_affine_round_env("contiguous"), K::kContiguous);
  EXPECT_EQ(pip::parse_affine_round_env("interleaved"), K::kInterleaved);
  EXPECT_EQ(pip::parse_affine_round_env(nullptr), K::kAuto);
  EXPECT_EQ(pip::parse_affine_round_env(""), K::kAuto);
  for (const char* bad : {"split", "fused", "Contiguous"}) {  // the fused round was removed
    try {
      (void)pip::parse_affine_round_env(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ZKMILL_GPU_MSM_AFFINE_ROUND"), std::string::npos) << e.what();
    }
  }
  // A requested kind wins; kAuto never comes back.
  for (const size_t coord : {kBnG1, kBnG2}) {
    for (const K k : {K::kContiguous, K::kInterleaved}) EXPECT_EQ(pip::batch_affine_round(k, coord), k);
    EXPECT_NE(pip::batch_affine_round(K::kAuto, coord), K::kAuto);
  }
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
  EXPECT_EQ(pip::parse_affine_budget_env(nullptr), 0u);
  EXPECT_EQ(pip::parse_affine_budget_env(""), 0u);
  EXPECT_EQ(pip::parse_affine_budget_env("1"), kMiB);
  EXPECT_EQ(pip::parse_affine_budget_env("512"), 512 * kMiB);
  for (const char* bad : {"0", "x", "1.5", "-4", " 8", "1048577"}) {
    try {
      (void)pip::parse_affine_budget_env(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB"), std::string::npos) << e.what();
    }
  }
}

TEST(AccumulationPolicy, BudgetIsHalfTheFreeMemoryWithinBounds) {
  EXPECT_EQ(pip::budget_for(0, 0), 0u);
  EXPECT_EQ(pip::budget_for(100 * kMiB, 0), 50 * kMiB);
  EXPECT_EQ(pip::budget_for(4 * kGiB, 0), 2 * kGiB);
  EXPECT_EQ(pip::budget_for(100 * kGiB, 0), 8 * kGiB);
  EXPECT_EQ(pip::budget_for(100 * kGiB, 512 * kMiB), 512 * kMiB);  // the measurement cap
  EXPECT_EQ(pip::budget_for(100 * kMiB, 512 * kMiB), 50 * kMiB);
}

}  // namespace
}  // namespace zkmill::test
