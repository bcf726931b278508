// SPDX-License-Identifier: MIT
// NativeStatements, the coordinator's off-loop computation of native partitions' statements:
// a result taken once, a computation that threw reported as such, nothing started told apart,
// a queued one computed by the taker at once (never waiting behind the queue), a retry's
// dispatch replacing the first, and the bound on what it keeps.
#include "coordinator/native_statements.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace zkmill::test {
namespace {

using farm::NativeStatements;
using Statement = NativeStatements::Statement;

TEST(NativeStatements, AResultIsTakenOnce) {
  NativeStatements s(2);
  s.start("a", [] { return Statement{"1", "2"}; });
  std::string why = "x";
  EXPECT_EQ(s.take("a", &why), (Statement{"1", "2"}));
  EXPECT_FALSE(s.take("a", &why));
  EXPECT_EQ(why, "") << "taken already: as if never started";
}

TEST(NativeStatements, AComputationThatThrowsIsReportedNotStarted) {
  NativeStatements s(1);
  s.start("bad", []() -> Statement { throw std::runtime_error("no such circuit size"); });
  std::string why;
  EXPECT_FALSE(s.take("bad", &why));
  EXPECT_EQ(why, "no such circuit size");
  EXPECT_FALSE(s.take("never", &why));
  EXPECT_EQ(why, "");
}

// One thread, busy with a slow computation: taking a queued one computes it in the taker's
// thread at once instead of waiting behind the slow one; the slow one is then waited for.
TEST(NativeStatements, AQueuedOneIsComputedByTheTakerAtOnce) {
  NativeStatements s(1);
  std::atomic<bool> release{false}, started{false};
  s.start("slow", [&] {
    started = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Statement{"slow"};
  });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto caller = std::this_thread::get_id();
  std::thread::id ran_on;
  s.start("queued", [&] {
    ran_on = std::this_thread::get_id();
    return Statement{"q"};
  });
  std::string why;
  EXPECT_EQ(s.take("queued", &why), Statement{"q"});
  EXPECT_EQ(ran_on, caller);
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    release = true;
  });
  EXPECT_EQ(s.take("slow", &why), Statement{"slow"});  // waits for the one in progress
  later.join();
  EXPECT_EQ(s.pending(), 0u);
}

TEST(NativeStatements, ARetrysDispatchReplacesTheFirst) {
  NativeStatements s(1);
  s.start("p", [] { return Statement{"first"}; });
  s.start("p", [] { return Statement{"retry"}; });
  std::string why;
  EXPECT_EQ(s.take("p", &why), Statement{"retry"});
}

// Statements nobody takes (their synthesis never reported) are dropped past the bound once
// computed; what was not yet computed is kept.
TEST(NativeStatements, WhatNobodyTakesIsBounded) {
  NativeStatements s(2);
  for (size_t i = 0; i < NativeStatements::kMaxEntries; ++i) {
    std::string key = std::to_string(i);  // (not "k" + ...: GCC 12 warns falsely, -Wrestrict)
    s.start(key.insert(0, 1, 'k'), [] { return Statement{"v"}; });
  }
  while (s.pending() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the last ones finish
  s.start("new", [] { return Statement{"n"}; });
  std::string why;
  EXPECT_FALSE(s.take("k0", &why)) << "a finished, untaken statement survived the bound";
  EXPECT_EQ(why, "");
  EXPECT_EQ(s.take("new", &why), Statement{"n"});
}

}  // namespace
}  // namespace zkmill::test
