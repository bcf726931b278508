// SPDX-License-Identifier: MIT
// WorkerPauses, the coordinator's circuit breaker for workers that fail attempt after attempt:
// the limit, the pause and its doubling up to the cap, failures during a pause, a success
// clearing everything, the off switch and the bound on what it remembers; what it hands to Redis
// (the changed streaks, their records) and takes back from it.
#include "coordinator/worker_pauses.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

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

using Ids = std::set<std::string>;

// Every change to a streak is handed out once for writing: a failure, a success that ended a
// streak, a worker forgotten past the bound; a success without a streak is no change.
TEST(WorkerPauses, EachChangedStreakIsHandedOutOnce) {
  WorkerPauses p(2, 100);
  EXPECT_EQ(p.take_changed(), Ids{});
  p.failed("a", "e", 0);
  p.failed("b", "e", 0);
  EXPECT_EQ(p.take_changed(), (Ids{"a", "b"}));
  EXPECT_EQ(p.take_changed(), Ids{});
  p.succeeded("c");
  EXPECT_EQ(p.take_changed(), Ids{});
  p.succeeded("a");
  EXPECT_TRUE(p.record("a").is_null());
  EXPECT_EQ(p.take_changed(), Ids{"a"});
  p.mark_changed("b");  // its write failed: handed out again
  EXPECT_TRUE(p.pending("b"));
  EXPECT_EQ(p.take_changed(), Ids{"b"});
  EXPECT_FALSE(p.pending("b"));

  WorkerPauses full(2, 1000);
  for (size_t i = 0; i < WorkerPauses::kMaxTracked; ++i) full.failed(std::to_string(i), "e", 0);
  full.take_changed();
  full.failed("new", "e", 5);  // past the bound: the ones not paused are forgotten, and say so
  const auto changed = full.take_changed();
  EXPECT_EQ(changed.size(), WorkerPauses::kMaxTracked + 1);
  EXPECT_TRUE(changed.count("new") && changed.count("0"));
}

// A coordinator taking over restores the streaks it reads back: the same pause, the same
// doubling after it; unreadable records are skipped and handed out to be deleted.
TEST(WorkerPauses, RestoredStreaksPauseAsBefore) {
  WorkerPauses before(3, 1000);
  for (uint64_t t : {0u, 1u, 2u}) before.failed("w", "disk full", t);
  before.failed("x", "once", 3);
  std::map<std::string, nlohmann::json> stored{{"w", before.record("w")}, {"x", before.record("x")}};
  stored["bad"] = nlohmann::json{{"failures", "three"}};
  stored["null"] = nullptr;

  WorkerPauses after(3, 1000);
  after.failed("stale", "e", 0);  // replaced, not merged
  after.take_changed();
  std::vector<std::string> skipped;
  after.restore(stored, &skipped);
  EXPECT_EQ(skipped, (std::vector<std::string>{"bad", "null"}));
  EXPECT_EQ(after.take_changed(), (Ids{"bad", "null"}));
  EXPECT_EQ(after.workers(), (Ids{"w", "x"}));
  EXPECT_EQ(after.describe("w", 500), before.describe("w", 500));
  EXPECT_FALSE(after.paused("w", 1002));
  EXPECT_EQ(after.failed("w", "again", 1002), 2000u);  // the try after the pause: doubled
  EXPECT_EQ(after.failed("x", "twice", 4), 0u);
  EXPECT_EQ(after.failed("x", "thrice", 5), 1000u);  // x's streak went on from one

  // A streak an operator deleted elsewhere is dropped without a write.
  EXPECT_TRUE(after.drop("w", 1003));
  EXPECT_FALSE(after.drop("nobody", 1003));
  after.take_changed();
  EXPECT_FALSE(after.pending("w"));
  EXPECT_FALSE(after.paused("w", 1003));

  WorkerPauses off(0, 1000);  // a coordinator that never pauses restores nothing
  off.restore(stored);
  EXPECT_EQ(off.tracked(), 0u);
}

}  // namespace
}  // namespace zkmill::test
