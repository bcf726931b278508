// SPDX-License-Identifier: MIT
// FarmClock against a private redis-server: it follows the server's TIME, never goes back
// across samples, samples at most once a period (counted by the server's own command
// statistics), and keeps running on its last sample while Redis is gone. A coordinator two
// hours off Redis is tested whole in tests/system/coordinator_clock_test.cpp.
#include "farm/farm_clock.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "farm/clock.hpp"
#include "farm/redis_client.hpp"
#include "tests/support/private_redis.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;

class FarmClockTest : public PrivateRedisTest {
 protected:
  // How many TIME commands the server has answered (INFO commandstats: "cmdstat_time:calls=N,").
  uint64_t time_calls() {
    const std::string info = redis_->command({"INFO", "commandstats"}).as_string();
    const auto at = info.find("cmdstat_time:calls=");
    return at == std::string::npos ? 0 : std::stoull(info.substr(at + 19));
  }
};

uint64_t distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

TEST_F(FarmClockTest, FollowsTheServersTimeAndNeverGoesBack) {
  farm::FarmClock clock(*redis_);
  EXPECT_FALSE(clock.skew_ms().has_value());
  EXPECT_LT(distance(clock.now_ms(), farm::now_ms()), 500u) << "before a sample: this host's clock";
  clock.refresh();
  ASSERT_TRUE(clock.skew_ms().has_value());
  EXPECT_LT(std::llabs(*clock.skew_ms()), 500) << "the server runs on this host: no skew";
  EXPECT_LT(distance(clock.now_ms(), redis_->server_time_ms()), 500u);
  uint64_t last = clock.now_ms();
  for (int i = 0; i < 300; ++i) {
    if (i % 3 == 0) clock.refresh();
    const uint64_t t = clock.now_ms();
    ASSERT_GE(t, last) << "sample " << i;
    last = t;
  }
  std::this_thread::sleep_for(200ms);  // between samples it runs on, by this host's steady clock
  EXPECT_GE(clock.now_ms(), last + 100);
  EXPECT_LT(distance(clock.now_ms(), redis_->server_time_ms()), 500u);
}

TEST_F(FarmClockTest, SamplesAtMostOncePerPeriod) {
  farm::FarmClock clock(*redis_);
  const uint64_t before = time_calls();
  clock.refresh(60'000);  // the first sample is taken whatever the period
  for (int i = 0; i < 20; ++i) clock.refresh(60'000);
  EXPECT_EQ(time_calls(), before + 1);
  clock.refresh();  // 0: now
  EXPECT_EQ(time_calls(), before + 2);
}

TEST_F(FarmClockTest, KeepsRunningOnTheLastSampleWhileRedisIsGone) {
  farm::FarmClock clock(*redis_);
  clock.refresh();
  const uint64_t t0 = clock.now_ms();
  children_.stop(children_.pid("redis"));
  redis_->disconnect();
  EXPECT_THROW(clock.refresh(), farm::RedisError);
  std::this_thread::sleep_for(100ms);
  const uint64_t t1 = clock.now_ms();
  EXPECT_GE(t1, t0 + 90);
  EXPECT_LT(distance(t1, farm::now_ms()), 500u);
}

// Samples fed directly: a real redis-server cannot be made to step its clock (it does not run
// under libfaketime), so the steps a Sentinel failover to a skewed host would bring are given
// as such samples.
TEST_F(FarmClockTest, HoldsThroughJitterButFollowsAServerClockThatSteps) {
  farm::FarmClock clock(*redis_);
  using Steady = farm::FarmClock::Steady;
  const uint64_t base = 1'800'000'000'000;  // some time in 2027
  const auto t0 = Steady::now();
  clock.take_sample(base, t0, base);
  const uint64_t first = clock.now_ms();
  EXPECT_GE(first, base);
  EXPECT_LT(first, base + 1000);
  // 300 ms behind the extrapolation (round-trip jitter): held, never back.
  clock.take_sample(base - 300, t0, base);
  EXPECT_GE(clock.now_ms(), first);
  // An hour ahead (the server's clock stepped forward): followed.
  clock.take_sample(base + 3'600'000, t0, base);
  EXPECT_GE(clock.now_ms(), base + 3'600'000);
  EXPECT_LT(clock.now_ms(), base + 3'601'000);
  EXPECT_EQ(clock.skew_ms(), 3'600'000);
  // Two hours back from there (a failover to a host behind): followed too, not held for hours.
  clock.take_sample(base - 3'600'000, t0, base);
  EXPECT_GE(clock.now_ms(), base - 3'600'000);
  EXPECT_LT(clock.now_ms(), base - 3'599'000);
  EXPECT_EQ(clock.skew_ms(), -3'600'000);
}

}  // namespace
}  // namespace zkmill::test
