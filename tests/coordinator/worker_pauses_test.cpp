// SPDX-License-Identifier: MIT
// WorkerPauses, the coordinator's circuit breaker for workers that fail attempt after attempt:
// the limit, the pause and its doubling up to the cap, failures during a pause, a success
// clearing everything, the off switch and the bound on what it remembers.
#include "coordinator/worker_pauses.hpp"

#include <gtest/gtest.h>

#include <string>

namespace zkmill::test {
namespace {

using farm::WorkerPauses;

TEST(WorkerPauses, TheLimitStartsAPauseAndEachFailedTryAfterOneDoublesIt) {
  WorkerPauses p(3, 1000);
  EXPECT_EQ(p.failed("w", "e1", 0), 0u);
  EXPECT_EQ(p.failed("w", "e2", 10), 0u);
  EXPECT_FALSE(p.paused("w", 10));
  EXPECT_EQ(p.failed("w", "e3", 20), 1000u);
  EXPECT_TRUE(p.paused("w", 20));
  EXPECT_TRUE(p.paused("w", 1019));
  EXPECT_FALSE(p.paused("w", 1020));
  EXPECT_FALSE(p.paused("other", 20));
  // Work it held before the pause fails meanwhile: counted, no new pause.
  EXPECT_EQ(p.failed("w", "e4", 500), 0u);
  const auto d = p.describe("w", 600);
  EXPECT_EQ(d["until_ms"], 1020u);
  EXPECT_EQ(d["failures"], 4u);
  EXPECT_EQ(d["pauses"], 1u);
  EXPECT_EQ(d["last_error"], "e4");
  // The try after the pause fails: twice as long, and so on up to 32 x.
  uint64_t now = 1020;
  for (uint64_t expect : {2000u, 4000u, 8000u, 16000u, 32000u, 32000u, 32000u}) {
    ASSERT_FALSE(p.paused("w", now));
    EXPECT_EQ(p.failed("w", "again", now), expect);
    now += expect;
  }
}

TEST(WorkerPauses, ASuccessClearsTheStreakAndThePauses) {
  WorkerPauses p(2, 100);
  EXPECT_EQ(p.failed("w", "e", 0), 0u);
  EXPECT_EQ(p.failed("w", "e", 1), 100u);
  EXPECT_EQ(p.failed("w", "e", 101), 200u);
  p.succeeded("w");
  EXPECT_FALSE(p.paused("w", 102));
  EXPECT_TRUE(p.describe("w", 102).is_null());
  EXPECT_EQ(p.failed("w", "e", 400), 0u);  // a new streak: the limit again, the base pause
  EXPECT_EQ(p.failed("w", "e", 401), 100u);
  EXPECT_EQ(p.tracked(), 1u);
  p.succeeded("w");
  EXPECT_EQ(p.tracked(), 0u);
}

TEST(WorkerPauses, LimitZeroNeverPauses) {
  WorkerPauses p(0, 100);
  for (uint64_t i = 0; i < 100; ++i) EXPECT_EQ(p.failed("w", "e", i), 0u);
  EXPECT_FALSE(p.paused("w", 100));
  EXPECT_EQ(p.tracked(), 0u);
}

// Many workers that failed once (ids a hostile peer can make up) are forgotten past the bound;
// a paused one is kept.
TEST(WorkerPauses, WhatItRemembersIsBoundedAndKeepsThePaused) {
  WorkerPauses p(2, 1000000);
  p.failed("paused", "e", 0);
  EXPECT_EQ(p.failed("paused", "e", 0), 1000000u);
  for (size_t i = 0; i < WorkerPauses::kMaxTracked + 100; ++i) {
    std::string id = std::to_string(i);  // (not "w" + ...: GCC 12 warns falsely, -Wrestrict)
    p.failed(id.insert(0, 1, 'w'), "e", 1);
    ASSERT_LE(p.tracked(), WorkerPauses::kMaxTracked);
  }
  EXPECT_TRUE(p.paused("paused", 2));
  EXPECT_EQ(p.describe("paused", 2)["failures"], 2u);
}

}  // namespace
}  // namespace zkmill::test
