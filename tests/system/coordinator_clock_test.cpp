// SPDX-License-Identifier: MIT
// A coordinator whose host's clock is two hours off the Redis server's still keeps the farm's
// time (FarmClock): the real coordinator runs under libfaketime (LD_PRELOAD, its clock shifted
// by +-2 h) beside an unshifted Redis, workers and clients. Before, it stamped and compared with
// its own clock: two hours ahead, it failed a job submitted with `--deadline 600` at once (the
// client stamps the deadline with the server's clock); two hours behind, it recorded jobs as
// ended two hours before they were created, and its worker table as two hours stale. (Leases
// across a takeover: farm_standby_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>

#include "tests/support/prometheus_scrape.hpp"
#include "tests/system/farm_processes.hpp"

namespace zkmill::test {
namespace {

class CoordinatorClock : public FarmProcessesTest, public ::testing::WithParamInterface<const char*> {
 protected:
  // The Redis server's clock, ms (redis-cli TIME: seconds, then microseconds).
  uint64_t server_ms() {
    const std::string t = redis_cli({"TIME"});
    const auto nl = t.find('\n');
    return std::stoull(t.substr(0, nl)) * 1000 + std::stoull(t.substr(nl + 1)) / 1000;
  }
};

// Within a minute of the server's clock (a stamp from the shifted host is two hours off).
void expect_server_time(uint64_t stamp, uint64_t server, const std::string& what) {
  const uint64_t off = stamp > server ? stamp - server : server - stamp;
  EXPECT_LT(off, 60'000u) << what << " is " << double(off) / 3.6e6 << " h off the Redis server's clock";
}

TEST_P(CoordinatorClock, KeepsDeadlinesAndStampsTheRedisServersTime) {
  if (!fs::exists(kFaketimeLib)) GTEST_SKIP() << kFaketimeLib << " is missing (scripts/setup.sh installs faketime)";
  const std::string skew = GetParam();
  start_redis();
  const int metrics_port = free_port();
  const auto cfg = write_config("coordinator", redis_yaml() + coordinator_yaml() + "  metrics_listen: 127.0.0.1:" +
                                                   std::to_string(metrics_port) + "\n");
  // Only the coordinator runs shifted.
  auto args = faketime_prefix(skew);
  args.insert(args.end(), {zkmill_binary(), "coordinator", "--config", cfg});
  spawn("coordinator", args);
  start_worker("synth-1", "synth", "");
  wait_registered(1);
  const std::string told = skew[0] == '+' ? "s ahead of the Redis server's" : "s behind the Redis server's";
  // "this host's clock is 7200.0 s ahead of the Redis server's" (the tenths may be off by the
  // round trip on a loaded machine: the gauge below is checked with a margin).
  EXPECT_TRUE(eventually(10s, [&] { return contains(log("coordinator"), told); })) << log("coordinator");
  // The same for Prometheus (set at the heartbeats): the server's clock minus the host's.
  const double expected_skew_s = skew[0] == '+' ? -7200.0 : 7200.0;
  double skew_s = 0;
  EXPECT_TRUE(eventually(10s,
                         [&] {
                           skew_s = scrape(metrics_port)["zkmill_coordinator_clock_skew_seconds"];
                           return std::abs(skew_s - expected_skew_s) < 5.0;
                         }))
      << "zkmill_coordinator_clock_skew_seconds " << skew_s;

  auto sub = run_zkmill({"submit", "--config", client(), "--key", key_, "--partitions", "2", "--deadline", "600"});
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  const std::string job = sub.out.substr(0, sub.out.find_first_of(" \n"));
  // No prove worker yet: the job waits through a few of the coordinator's deadline sweeps (every
  // 500 ms) and is not failed for a deadline already past.
  std::this_thread::sleep_for(1500ms);
  EXPECT_NE(status(job).value("state", std::string()), "failed") << status(job).dump();
  start_worker("prove-1", "prove", "");
  expect_done_and_verified(job, 2);

  const uint64_t server = server_ms();
  const std::string ended = redis_cli({"ZSCORE", "zk:ended", job});
  ASSERT_FALSE(ended.empty()) << "the job is not among the ended ones";
  expect_server_time(uint64_t(std::stod(ended)), server, "the job's end (zk:ended)");
  expect_server_time(std::stoull(redis_cli({"HGET", "zk:job:" + job, "updated_ms"})), server, "the job's updated_ms");
  const auto ws = wait_workers(2);
  for (const auto& w : ws) {
    SCOPED_TRACE(w.dump());
    expect_server_time(w.value("updated_ms", uint64_t(0)), server, "the worker table's updated_ms");
    expect_server_time(w.value("last_seen_ms", uint64_t(0)), server, "a worker's last_seen_ms");
  }
}

INSTANTIATE_TEST_SUITE_P(Skews, CoordinatorClock, ::testing::Values("+7200s", "-7200s"),
                         [](const auto& info) { return std::string(info.param[0] == '+' ? "Ahead" : "Behind"); });

}  // namespace
}  // namespace zkmill::test
