// SPDX-License-Identifier: MIT
// The GPU MSM's accumulation policy (cuda/msm/accumulation.cpp) on any host: forced choices win
// over the size policy, the size policy keeps batch-affine inside the measured ranges only, the
// automatic choice falls back to XYZZ when the rounds would not fit the free memory (for the
// windows and, in slices, for the 1-scalar sum), the fallback's test hook fires once, each group
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
    for (const uint64_t free_bytes : {uint64_t(0), kRoomy}) {
      EXPECT_GE(pip::batch_affine_ones(MsmAccumulation::kBatchAffine, k2(22), coord, free_bytes), 1u);
      EXPECT_EQ(pip::batch_affine_ones(MsmAccumulation::kXyzz, k2(26), coord, free_bytes), 0u);
    }
  }
}

// The size policy as measured on the H200 (cuda/bench/NOTES-batch-affine.md): batch-affine for G1 of both
// curves at 2^22..2^27 points (2^26..2^31 digits at c = 16: up to a PoRep partition's H MSM) and
// BN254 G2 at 2^20..2^24 (2^24..2^28 digits); BLS12-381 G2 at 2^22..2^24 (2^26..2^28 digits,
// since the down kernel's split: NOTES-down-kernel.md); never outside the measured ranges. The 1-scalar sum:
// batch-affine from 2^25 ones (slower at the 0.4-6.7 M of the PoRep-mix rows, faster at a partition's 61.9 M) but for
// BN254 G1 (no gain measured there).
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
    EXPECT_EQ(pip::batch_affine_windows_by_size(k2(e), kBlsG2), e >= 26 && e <= 28) << "2^" << e;
  }
  EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(26) - 1, kBlsG2));
  EXPECT_FALSE(pip::batch_affine_windows_by_size(k2(28) + 1, kBlsG2));
  for (int e = 10; e <= 31; ++e) EXPECT_FALSE(pip::batch_affine_ones_by_size(k2(e), kBnG1)) << "2^" << e;
  for (const size_t coord : {kBlsG1, kBnG2, kBlsG2}) {
    for (int e = 10; e <= 31; ++e) EXPECT_EQ(pip::batch_affine_ones_by_size(k2(e), coord), e >= 25) << "2^" << e;
    EXPECT_FALSE(pip::batch_affine_ones_by_size(k2(25) - 1, coord));
    EXPECT_FALSE(pip::batch_affine_ones_by_size(6'700'000, coord));  // the PoRep mix at 2^24: XYZZ measured faster
    EXPECT_TRUE(pip::batch_affine_ones_by_size(61'900'000, coord));  // a 130M-constraint partition's ones
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
      EXPECT_EQ(pip::batch_affine_ones(MsmAccumulation::kAuto, k2(e), coord, kRoomy) != 0,
                pip::batch_affine_ones_by_size(k2(e), coord));
    }
  }
}

// The rounds' memory: half the free memory (32 GiB at most) must hold the fullest bucket and
// slices of at least the measured break-even size (or the whole MSM); otherwise the automatic
// choice is XYZZ. The cases are the H200 measurements (NOTES-batch-affine.md, "Round kind per
// group, BN254 G2 to 2^24, the PoRep H MSM").
TEST(AccumulationPolicy, AutoFallsBackToXyzzWhenTheRoundsDoNotFit) {
  const char* env = std::getenv("ZKMILL_GPU_MSM_ACCUMULATE");
  if (env != nullptr && *env != '\0' && std::string(env) != "auto") GTEST_SKIP() << "ZKMILL_GPU_MSM_ACCUMULATE is set";
  const char* cap = std::getenv("ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB");
  if (cap != nullptr && *cap != '\0') GTEST_SKIP() << "ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB is set";
  EXPECT_EQ(pip::batch_affine_bytes_per_input(kBnG1), 68u);
  EXPECT_EQ(pip::batch_affine_bytes_per_input(kBlsG1), 100u);
  EXPECT_EQ(pip::batch_affine_bytes_per_input(kBnG2), 132u);
  const uint64_t h = k2(31) - 16;  // a 130M-constraint partition's H MSM: 2^27 - 1 points, 16 windows
  EXPECT_EQ(pip::batch_affine_slices(h, kBlsG1, 8 * kGiB), 25u);
  EXPECT_EQ(pip::batch_affine_slices(h, kBlsG1, kGiB), 200u);
  EXPECT_EQ(pip::batch_affine_slices(1, kBlsG1, 8 * kGiB), 1u);
  auto aut = [](uint64_t digits, uint64_t longest, size_t coord, uint64_t free_mib) {
    return pip::batch_affine_windows(MsmAccumulation::kAuto, digits, longest, coord, free_mib * kMiB);
  };
  // BLS12-381 H MSM in the partition: free 12 233 MiB (first run, 33 slices: 1061 ms) and 6 439
  // MiB (warm, 62 slices: 1215 ms) beat XYZZ (1414 ms); 273 MiB free (136 MiB budget, 1442
  // slices: 6785 ms when forced) must not.
  EXPECT_TRUE(aut(h, 4791, kBlsG1, 12233));
  EXPECT_TRUE(aut(h, 4791, kBlsG1, 6439));
  EXPECT_FALSE(aut(h, 4791, kBlsG1, 273));
  EXPECT_FALSE(aut(h, 4791, kBlsG1, 0));
  // BN254 H MSM: 28 569 MiB free (measured with the 8 GiB ceiling of then: 16 slices, 480 against 583 ms).
  EXPECT_TRUE(aut(h, 11238, kBnG1, 28569));
  EXPECT_FALSE(aut(h, 11238, kBnG1, 6000));  // 3000 MiB budget: 47 M points a slice, below BN254's break-even
  // BLS12-381 G1 2^24 forced into 1 GiB (25 slices, 236 ms) and 256 MiB budgets (97 slices, 489
  // ms) lose to XYZZ (~182 ms): those budgets choose XYZZ.
  EXPECT_TRUE(aut(k2(28), 624, kBlsG1, 100 * 1024));
  EXPECT_FALSE(aut(k2(28), 624, kBlsG1, 2048));
  EXPECT_FALSE(aut(k2(28), 624, kBlsG1, 512));
  // An MSM smaller than a minimal slice need only fit once: BN254 G1 2^22 (2^26 digits, 4 GiB of
  // rounds) runs in one slice with 10 GiB free; with 6 GiB free it would take two of 50 M: XYZZ.
  EXPECT_TRUE(aut(k2(26), 200, kBnG1, 10 * 1024));
  EXPECT_FALSE(aut(k2(26), 200, kBnG1, 6 * 1024));
  // BN254 G2 2^24 (2^28 digits): a 48 GiB budget holds it in one slice (8 GiB of before: 4).
  EXPECT_TRUE(aut(k2(28), 624, kBnG2, 100 * 1024));
  // The fullest bucket must fit one slice (a skewed scalar put half the points in one bucket).
  EXPECT_TRUE(pip::batch_affine_fits(k2(26), k2(20), kBnG1, 10 * kGiB));  // 64 MiB bucket, 5 GiB budget
  EXPECT_FALSE(pip::batch_affine_fits(k2(26), k2(25), kBnG1, 2 * kGiB));  // 2 GiB bucket, 1 GiB budget
  EXPECT_TRUE(pip::batch_affine_fits(k2(26), k2(25), kBnG1, kRoomy));
  // Never batch-affine outside the size ranges, however much is free.
  EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kAuto, k2(24), 64, kBnG1, kRoomy));
  EXPECT_FALSE(pip::batch_affine_windows(MsmAccumulation::kAuto, k2(25), 64, kBlsG2, kRoomy));
}

// The 1-scalar sum's memory gate: with the budget of the room (half of it below 40 GiB), equal
// pieces of at least the break-even size (BLS12-381 and BN254 G1 2^25 points, G2 2^24) or all the
// ones, else XYZZ; the slices are as many as the budget needs. Cases: the 61.9 M ones of a 130M
// PoRep partition, with rooms like those its MSMs saw on the H200 (12.6 GiB warm at BLS12-381, 36 GiB at BN254).
TEST(AccumulationPolicy, OnesBatchAffineOnlyWhenItsSlicesFit) {
  const char* env = std::getenv("ZKMILL_GPU_MSM_ACCUMULATE");
  if (env != nullptr && *env != '\0' && std::string(env) != "auto") GTEST_SKIP() << "ZKMILL_GPU_MSM_ACCUMULATE is set";
  const char* cap = std::getenv("ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB");
  if (cap != nullptr && *cap != '\0') GTEST_SKIP() << "ZKMILL_GPU_MSM_AFFINE_BUDGET_MIB is set";
  const uint64_t ones = 61'900'000;
  auto aut = [&](size_t coord, uint64_t room_mib, uint64_t n = 61'900'000) {
    return pip::batch_affine_ones(MsmAccumulation::kAuto, n, coord, room_mib * kMiB);
  };
  EXPECT_EQ(pip::batch_affine_ones_min_slice(kBnG1), k2(25));
  EXPECT_EQ(pip::batch_affine_ones_min_slice(kBlsG1), k2(25));
  EXPECT_EQ(pip::batch_affine_ones_min_slice(kBnG2), k2(24));
  EXPECT_EQ(pip::batch_affine_ones_min_slice(kBlsG2), k2(24));
  // BLS12-381 G1: 100 B a point, 5.8 GiB of rounds; 12.5 GiB of room: one slice.
  EXPECT_EQ(aut(kBlsG1, 12800), 1u);
  // 6.5 GiB of room: 3.25 GiB budget, pieces of 34.9 M (over 2^25): two slices; 6 GiB: 32.2 M
  // (under 2^25), XYZZ, as with 4 GiB (21.5 M).
  EXPECT_EQ(aut(kBlsG1, 6656), 2u);
  EXPECT_EQ(aut(kBlsG1, 6 * 1024), 0u);
  EXPECT_EQ(aut(kBlsG1, 4 * 1024), 0u);
  EXPECT_EQ(aut(kBlsG1, 0), 0u);
  // BN254 G2: 132 B a point (7.6 GiB); 28.5 GiB of room: a 14.25 GiB budget, one slice.
  EXPECT_EQ(aut(kBnG2, 29184), 1u);
  // BLS12-381 G2: 196 B a point (11.3 GiB); 28.5 GiB of room, a 14.25 GiB budget: one slice (two
  // under the 8 GiB ceiling of before); with 12.5 GiB of room, pieces of 34.2 M: two; with 5 GiB,
  // 13.7 M (< 2^24): XYZZ.
  EXPECT_EQ(aut(kBlsG2, 29184), 1u);
  EXPECT_EQ(aut(kBlsG2, 12800), 2u);
  EXPECT_EQ(aut(kBlsG2, 5 * 1024), 0u);
  // Fewer ones than a minimal piece need only fit once: 2^25 + 1 BN254 G2 ones in 4.125 GiB of
  // room (pieces of just 2^24; 4 GiB: under 2^24, XYZZ).
  EXPECT_EQ(aut(kBnG2, 4224 + 1, k2(25) + 1), 2u);
  EXPECT_EQ(aut(kBnG2, 4096 + 1, k2(25) + 1), 0u);
  EXPECT_EQ(aut(kBnG2, 10 * 1024, k2(25) + 1), 1u);
  // Below the size threshold, or BN254 G1: XYZZ however much is free.
  EXPECT_EQ(aut(kBnG2, 100 * 1024, k2(25) - 1), 0u);
  EXPECT_EQ(aut(kBnG1, 100 * 1024), 0u);
  EXPECT_EQ(aut(kBlsG1, 100 * 1024, 0), 0u);
  // Slices: as many as the budget needs (equal pieces), at least one.
  EXPECT_EQ(pip::batch_affine_ones_slices(ones, kBlsG2, 8 * kGiB), 2u);
  EXPECT_EQ(pip::batch_affine_ones_slices(ones, kBlsG1, 8 * kGiB), 1u);
  EXPECT_EQ(pip::batch_affine_ones_slices(ones, kBnG1, kGiB), 4u);
  EXPECT_EQ(pip::batch_affine_ones_slices(5, kBnG1, 0), 1u);  // no budget: pieces of 256 points
  EXPECT_EQ(pip::batch_affine_ones_slices(1000, kBnG1, 0), 4u);
  // A call's own cap (MsmOptions::affine_budget_bytes) cuts forced sums into small pieces: 6001
  // BN254 G1 ones at 68 B a point in 64 KiB pieces of 963.
  EXPECT_EQ(pip::batch_affine_ones(MsmAccumulation::kBatchAffine, 6001, kBnG1, kRoomy, 64 * 1024), 7u);
  EXPECT_EQ(pip::batch_affine_ones(MsmAccumulation::kAuto, ones, kBlsG1, kRoomy, 64 * 1024), 0u);
  EXPECT_EQ(pip::batch_affine_budget(kRoomy, 64 * 1024), 64u * 1024);
}

// The test hook behind the device tests of the out-of-memory paths: the chosen reservation at
// the chosen site fails once, and a site's hook leaves the other's alone.
TEST(AccumulationPolicy, InjectedAllocationFailureFiresOnce) {
  using pip::AllocSite;
  for (const AllocSite site : {AllocSite::kRounds, AllocSite::kSort}) {
    const AllocSite other = site == AllocSite::kRounds ? AllocSite::kSort : AllocSite::kRounds;
    EXPECT_FALSE(pip::alloc_failure_pending(site));
    EXPECT_FALSE(pip::take_alloc_failure(site));
    pip::inject_alloc_failure(site, 2);
    EXPECT_TRUE(pip::alloc_failure_pending(site));
    EXPECT_FALSE(pip::alloc_failure_pending(other));
    EXPECT_FALSE(pip::take_alloc_failure(other));
    EXPECT_FALSE(pip::take_alloc_failure(site));
    EXPECT_FALSE(pip::take_alloc_failure(site));
    EXPECT_TRUE(pip::take_alloc_failure(site));
    EXPECT_FALSE(pip::alloc_failure_pending(site));
    EXPECT_FALSE(pip::take_alloc_failure(site));
    pip::inject_alloc_failure(site, 0);
    pip::inject_alloc_failure(site, -1);  // disarmed before it fired
    EXPECT_FALSE(pip::alloc_failure_pending(site));
    EXPECT_FALSE(pip::take_alloc_failure(site));
  }
}

// The round kind: one default for every group (interleaved; the measured per-group differences
// were within 3.5% and of both signs).
TEST(AccumulationPolicy, RoundKindByGroup) {
  using K = cuda::MsmAffineRound;
  for (const size_t coord : {kBnG1, kBlsG1, kBnG2, kBlsG2})
    EXPECT_EQ(pip::default_affine_round(coord), K::kInterleaved);
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

// Half the free memory up to 40 GiB of it, then all but 20 GiB, at most 48 GiB.
TEST(AccumulationPolicy, BudgetLeavesHalfTheFreeMemoryOrTwentyGiB) {
  EXPECT_EQ(pip::budget_for(0, 0), 0u);
  EXPECT_EQ(pip::budget_for(100 * kMiB, 0), 50 * kMiB);
  EXPECT_EQ(pip::budget_for(4 * kGiB, 0), 2 * kGiB);
  EXPECT_EQ(pip::budget_for(34 * kGiB, 0), 17 * kGiB);  // a 130M partition's H MSM: as before
  EXPECT_EQ(pip::budget_for(40 * kGiB, 0), 20 * kGiB);
  EXPECT_EQ(pip::budget_for(62 * kGiB, 0), 42 * kGiB);  // a warm 2^24 proof's later MSMs
  EXPECT_EQ(pip::budget_for(68 * kGiB, 0), 48 * kGiB);
  EXPECT_EQ(pip::budget_for(100 * kGiB, 0), 48 * kGiB);
  EXPECT_EQ(pip::budget_for(100 * kGiB, 512 * kMiB), 512 * kMiB);  // the measurement cap
  EXPECT_EQ(pip::budget_for(100 * kMiB, 512 * kMiB), 50 * kMiB);
  EXPECT_EQ(pip::budget_for(100 * kGiB, 64 * kGiB), 64 * kGiB);  // above the default ceiling
  EXPECT_EQ(pip::budget_for(40 * kGiB, 32 * kGiB), 20 * kGiB);
  EXPECT_EQ(pip::budget_for(100 * kGiB, 96 * kGiB), 80 * kGiB);
}

}  // namespace
}  // namespace zkmill::test
