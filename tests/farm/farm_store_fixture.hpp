// SPDX-License-Identifier: MIT
// The fixture of FarmStore's tests against a private redis-server: the server, a client on its
// socket, the coordinator lease taken, and a store fenced by it (as the coordinator's is).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "farm/clock.hpp"
#include "farm/coordinator_lease.hpp"
#include "farm/farm_store.hpp"
#include "farm/redis_client.hpp"
#include "tests/support/child_processes.hpp"

namespace zkmill::test {

class FarmStoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    children_.set_log_dir(dir_);
    const std::string socket = start_redis(children_);
    ASSERT_FALSE(socket.empty());
    farm::RedisConfig rc;
    rc.unix_socket = socket;
    redis_ = std::make_unique<farm::RedisClient>(rc);
    lease_ = std::make_unique<farm::CoordinatorLease>(*redis_, "test", 60000);
    ASSERT_FALSE(lease_->acquire(farm::now_ms()));
    store_ = std::make_unique<farm::FarmStore>(*redis_);
    store_->set_fence(lease_->token());
  }

  fs::path dir_;
  ChildProcesses children_;
  std::unique_ptr<farm::RedisClient> redis_;
  std::unique_ptr<farm::CoordinatorLease> lease_;
  std::unique_ptr<farm::FarmStore> store_;
};

}  // namespace zkmill::test
