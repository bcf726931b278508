// SPDX-License-Identifier: MIT
// CoordinatorLease against a private redis-server: a second coordinator on the same machine
// takes the lease over from a holder whose process has exited, and only then. "Exited" includes
// a zombie: a coordinator killed with -9 whose parent (init, for one started by local-farm.sh)
// has not reaped it yet still answers kill(pid, 0), and a restart right after the kill must not
// be refused as "another coordinator is active".
#include "farm/coordinator_lease.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "farm/clock.hpp"
#include "farm/redis_client.hpp"
#include "tests/support/child_processes.hpp"
#include "tests/support/forked_child.hpp"
#include "tests/support/private_redis.hpp"

namespace zkmill::test {
namespace {

using farm::CoordinatorLease;

class CoordinatorLeaseTest : public PrivateRedisTest {
 protected:
  // The lease as `first` holds it, but naming process `pid` (same machine, same namespace).
  void hold_as(CoordinatorLease& first, pid_t pid) {
    ASSERT_FALSE(first.acquire(farm::now_ms()));
    const std::string value = redis_->command({"GET", CoordinatorLease::kKey}).as_string();
    const size_t sp = value.find(' ');
    auto j = nlohmann::json::parse(value.substr(sp + 1));
    j["pid"] = uint64_t(pid);
    redis_->command({"SET", CoordinatorLease::kKey, value.substr(0, sp) + " " + j.dump(), "PX", "60000"});
  }
};

TEST_F(CoordinatorLeaseTest, HolderWhoseProcessIsAZombieIsTakenOver) {
  ForkedChild dead(false);
  ASSERT_EQ(dead.wait_for_state('Z'), 'Z');
  ASSERT_EQ(kill(dead.pid(), 0), 0);  // what made the restart wait: a zombie answers kill -0
  CoordinatorLease first(*redis_, "tcp://first", 60000), second(*redis_, "tcp://second", 60000);
  hold_as(first, dead.pid());
  EXPECT_FALSE(second.acquire(farm::now_ms()));  // taken over
  EXPECT_EQ(second.holder()->endpoint, "tcp://second");
}

TEST_F(CoordinatorLeaseTest, HolderWhoseProcessIsGoneIsTakenOver) {
  ForkedChild dead(false);
  const pid_t pid = dead.pid();
  dead.reap();
  CoordinatorLease first(*redis_, "tcp://first", 60000), second(*redis_, "tcp://second", 60000);
  hold_as(first, pid);
  EXPECT_FALSE(second.acquire(farm::now_ms()));
  EXPECT_EQ(second.holder()->endpoint, "tcp://second");
}

TEST_F(CoordinatorLeaseTest, HolderWhoseProcessRunsIsRefused) {
  ForkedChild live(true);
  CoordinatorLease first(*redis_, "tcp://first", 60000), second(*redis_, "tcp://second", 60000);
  hold_as(first, live.pid());
  const auto held = second.acquire(farm::now_ms());
  ASSERT_TRUE(held);
  EXPECT_EQ(held->pid, uint64_t(live.pid()));
  EXPECT_EQ(held->endpoint, "tcp://first");
  EXPECT_EQ(second.holder()->endpoint, "tcp://first");  // nothing changed
}

}  // namespace
}  // namespace zkmill::test
