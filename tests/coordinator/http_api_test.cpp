// SPDX-License-Identifier: MIT
// HttpApi's lifetime: an API destroyed right after it started (a coordinator that fails on its
// next step, e.g. its control port taken) stops its listening threads and returns. (With
// cpp-httplib 0.11's own listener, which ignores stop() until its thread has begun listening, a
// destructor that did not wait for it hung the coordinator for good: local_farm_script's
// lost-port case, under load. The listener is ours now, http_listener.hpp; the case stays.)
// No Redis is needed: the API reaches Redis only when a request comes.
#include "coordinator/http_api.hpp"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "farm/farm_config.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;

TEST(HttpApi, DestroyedRightAfterStartingReturns) {
  farm::FarmConfig cfg = farm::parse_farm_config("redis:\n  port: 1\n", "test");
  cfg.coordinator.metrics_listen = "127.0.0.1:0";  // any free port (the config file asks for a fixed one)
  constexpr int kRounds = 300;
  std::atomic<int> done{0};
  // On a thread of its own, so that a hang fails the test instead of stopping the suite.
  std::thread([&] {
    for (int i = 0; i < kRounds; ++i) {
      { farm::HttpApi api(cfg, std::make_shared<prometheus::Registry>(), 0); }
      done.fetch_add(1);
    }
  }).detach();
  const auto end = std::chrono::steady_clock::now() + 120s;
  while (done.load() < kRounds && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(done.load(), kRounds) << "an HttpApi destroyed right after it started did not return";
}

}  // namespace
}  // namespace zkmill::test
