// SPDX-License-Identifier: MIT
// Test support: a private redis-server for one test (unix socket in its scratch dir, no
// persistence) and a client on it, stopped when the test ends.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "farm/redis_client.hpp"
#include "tests/support/child_processes.hpp"

namespace zkmill::test {

class PrivateRedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    children_.set_log_dir(scratch_dir());
    redis_config_.unix_socket = start_redis(children_);
    ASSERT_FALSE(redis_config_.unix_socket.empty());
    redis_ = std::make_unique<farm::RedisClient>(redis_config_);
  }

  farm::RedisConfig redis_config_;
  ChildProcesses children_;  // "redis"
  std::unique_ptr<farm::RedisClient> redis_;
};

}  // namespace zkmill::test
