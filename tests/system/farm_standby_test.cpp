// SPDX-License-Identifier: MIT
// The standby coordinator with real processes: a private redis-server, two coordinators (one
// active, one started as a standby) and workers connected to both endpoints.
//   - kill -9 of the active coordinator mid-job: the standby takes over, the job finishes with
//     every proof verified by `zkmill verify` and no partition recorded twice;
//   - SIGSTOP of the active coordinator past its lease: the standby takes over; the stalled
//     one's fencing token is refused by the fence every coordinator write runs (checked with
//     that token against Redis), and after SIGCONT it steps down to standby without recording
//     anything, while the job finishes.
// Each test prints the measured takeover time (kill or stop -> the standby's "TOOK OVER" line);
// docs/reliability.md records them.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <thread>

#include "farm/coordinator_lease.hpp"
#include "tests/system/farm_processes.hpp"

namespace zkmill::test {
namespace {

class FarmStandbyTest : public FarmProcessesTest {
 protected:
  void SetUp() override {
    FarmProcessesTest::SetUp();
    standby_port_ = free_port();
    start_redis();
  }
  std::string endpoint_of(int port) const { return "tcp://127.0.0.1:" + std::to_string(port); }
  // A coordinator section on `port`; the workers' also lists the other coordinator.
  std::string coordinator_section(int port, const std::string& extra) const {
    return "coordinator:\n  endpoint: " + endpoint_of(port) +
           "\n  heartbeat_ms: 200\n  liveness: 10\n  lease_ms: 2000\n  backoff_ms: 50\n  backoff_max_ms: 1000\n"
           "  max_attempts: 50\n" +
           extra;
  }
  // `prefix`: what runs the coordinator (e.g. `env LD_PRELOAD=... FAKETIME=...`), exec'ing it.
  pid_t start_coordinator_on(const std::string& name, int port, bool standby_key,
                             const std::vector<std::string>& flags = {}, std::vector<std::string> prefix = {}) {
    auto cfg = write_config(name, redis_yaml() + coordinator_section(port, standby_key ? "  standby: true\n" : ""));
    std::vector<std::string> args{zkmill_binary(), "coordinator", "--config", cfg};
    args.insert(args.end(), flags.begin(), flags.end());
    prefix.insert(prefix.end(), args.begin(), args.end());
    return spawn(name, prefix);
  }
  // An active coordinator, a standby (run by `standby_prefix`, e.g. faketime_prefix), and the
  // workers, registered; returns the active one's pid.
  pid_t start_pair(const std::vector<std::string>& standby_prefix = {}) {
    const pid_t active = start_coordinator_on("coordinator", coordinator_port_, false);
    EXPECT_TRUE(wait_log("coordinator", "serving on")) << log("coordinator");
    start_coordinator_on("standby", standby_port_, false, {"--standby"}, standby_prefix);
    EXPECT_TRUE(wait_log("standby", "holds the coordinator lease; waiting to take over")) << log("standby");
    start_workers();
    wait_registered(3);
    return active;
  }
  void start_workers() {
    const std::string both =
        coordinator_section(coordinator_port_, "  standby_endpoints: [\"" + endpoint_of(standby_port_) + "\"]\n");
    for (const auto& [name, role] : {std::pair{"synth-1", "synth"}, {"prove-1", "prove"}, {"prove-2", "prove"}}) {
      auto cfg = write_config(
          name, redis_yaml() + both + "worker:\n  id: " + name + "\n  key_dir: " + (dir_ / "keys").string() + "\n");
      spawn(name, {zkmill_binary(), "worker", "--config", cfg, "--role", role});
    }
  }
  // Bounded wait for `what` in a process's log; false when it never came.
  bool wait_log(const std::string& name, const std::string& what, std::chrono::milliseconds limit = 20s) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!contains(log(name), what)) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(10ms);
    }
    return true;
  }
  // The fencing token of the current lease holder (the lease value's first word).
  std::string lease_token() {
    const std::string v = redis_cli({"GET", farm::CoordinatorLease::kKey});
    return v.substr(0, v.find(' '));
  }
  // A fenced script, as every coordinator write runs it, with `token` as the fence.
  std::string fenced_write(const std::string& token) {
    return redis_cli({"EVAL",
                      std::string(ZK_LUA_FENCE_CHECK) + "redis.call('SET', 'zk:test:fenced', ARGV[1])\nreturn 1", "0",
                      "written", token});
  }
  void expect_recorded_once(const std::string& job) {
    for (const auto& p : status(job)["partition_states"])
      EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << "a partition recorded other than once: " << p.dump();
  }
  int standby_port_ = 0;
};

TEST_F(FarmStandbyTest, KilledActiveIsTakenOverMidJobAndTheJobFinishes) {
  const std::string big = make_key("big", 12000);  // about a second per partition: work in flight
  const pid_t active = start_pair();
  // The second coordinator, with --standby, waits, naming the holder.
  EXPECT_TRUE(contains(log("standby"), "coordinator pid " + std::to_string(active))) << log("standby");

  const uint64_t n = 12;
  const auto job = submit(n, big);
  wait_verified(job, 2);
  ASSERT_EQ(kill(active, SIGKILL), 0);
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_TRUE(wait_log("standby", "TOOK OVER the coordinator lease")) << all_logs();
  const auto took_over = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_exit(active, 10s), 128 + SIGKILL);
  ASSERT_TRUE(wait_log("standby", "serving on " + endpoint_of(standby_port_))) << log("standby");
  const uint64_t before = status(job)["verified"].get<uint64_t>();
  wait_verified(job, std::min(n, before + 1));
  const auto next_proof = std::chrono::steady_clock::now();
  std::cout << "standby takeover after kill -9: lease taken "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took_over - killed).count()
            << " ms, next proof recorded "
            << std::chrono::duration_cast<std::chrono::milliseconds>(next_proof - killed).count()
            << " ms after the kill\n";

  expect_done_and_verified(job, n, big);
  expect_recorded_once(job);
  EXPECT_TRUE(contains(log("standby"), job + " done")) << log("standby");
}

TEST_F(FarmStandbyTest, StalledActiveIsFencedOutAndStepsDownAfterSigcont) {
  const std::string big = make_key("big", 12000);
  // Both standby-capable: the first takes the free lease at once, the second waits.
  const pid_t first = start_coordinator_on("coordinator", coordinator_port_, false, {"--standby"});
  ASSERT_TRUE(wait_log("coordinator", "serving on")) << log("coordinator");
  start_coordinator_on("standby", standby_port_, true);
  ASSERT_TRUE(wait_log("standby", "waiting to take over")) << log("standby");
  start_workers();
  wait_registered(3);
  const std::string first_token = lease_token();
  ASSERT_EQ(first_token.size(), 32u) << first_token;

  const uint64_t n = 12;
  const auto job = submit(n, big);
  wait_verified(job, 2);
  ASSERT_EQ(kill(first, SIGSTOP), 0);
  const auto stopped = std::chrono::steady_clock::now();
  const bool took = wait_log("standby", "TOOK OVER the coordinator lease");
  const auto took_over = std::chrono::steady_clock::now();
  if (!took) kill(first, SIGCONT);
  ASSERT_TRUE(took) << all_logs();
  const auto takeover_ms = std::chrono::duration_cast<std::chrono::milliseconds>(took_over - stopped).count();
  std::cout << "standby takeover after SIGSTOP: " << takeover_ms << " ms (lease period 2000 ms)\n";
  // A stalled holder keeps its lease for one full period: never taken over before that.
  EXPECT_GE(takeover_ms, 1000);

  // The stalled coordinator's token no longer passes the fence; the new holder's does.
  const std::string second_token = lease_token();
  EXPECT_NE(second_token, first_token);
  EXPECT_TRUE(contains(fenced_write(first_token), "ZKFENCED")) << fenced_write(first_token);
  EXPECT_EQ(redis_cli({"EXISTS", "zk:test:fenced"}), "0");
  EXPECT_EQ(fenced_write(second_token), "1");
  redis_cli({"DEL", "zk:test:fenced"});

  // Let it run a while under the new coordinator, then wake the old one: it must step down
  // (to standby, as started with --standby) and record nothing.
  wait_verified(job, std::min<uint64_t>(n, status(job)["verified"].get<uint64_t>() + 1));
  const size_t mark = log("coordinator").size();
  ASSERT_EQ(kill(first, SIGCONT), 0);
  ASSERT_TRUE(wait_log("coordinator", "STEPPING DOWN to standby")) << log("coordinator");
  ASSERT_TRUE(wait_log("coordinator", "holds the coordinator lease; waiting to take over")) << log("coordinator");
  const std::string after = log("coordinator").substr(mark);
  EXPECT_TRUE(contains(after, "another coordinator took over the coordinator lease")) << after;
  EXPECT_FALSE(contains(after, " verified (")) << after;
  EXPECT_EQ(lease_token(), second_token);

  expect_done_and_verified(job, n, big);
  expect_recorded_once(job);
  EXPECT_FALSE(contains(log("coordinator").substr(mark), " verified (")) << log("coordinator");
  EXPECT_TRUE(contains(log("standby"), job + " done")) << log("standby");
}

// A standby on a host whose clock is an hour behind (libfaketime) takes over from an active
// coordinator killed mid-job together with a prove worker. The farm keeps Redis's clock
// (FarmClock), so the dead worker's leases, given by the old coordinator, run out for the new
// one after lease_ms as meant, and its partitions are proved by the other worker. With each
// coordinator on its host's clock, the new one saw those leases an hour from running out: the
// job stood still for an hour. (Leases of live workers are renewed whatever the clocks say.)
TEST_F(FarmStandbyTest, AStandbyAnHourBehindRequeuesTheLeasesOfAWorkerThatDied) {
  if (!fs::exists(kFaketimeLib)) GTEST_SKIP() << kFaketimeLib << " is missing (scripts/setup.sh installs faketime)";
  const std::string big = make_key("big", 12000);  // about a second per partition: work in flight
  const pid_t active = start_pair(faketime_prefix("-3600s"));
  EXPECT_TRUE(contains(log("standby"), "s behind the Redis server's")) << log("standby");

  const uint64_t n = 8;
  const auto job = submit(n, big);
  wait_verified(job, 1);
  // prove-1 dies with the coordinator, holding leases (its partitions, current and prefetched).
  ASSERT_EQ(kill(active, SIGKILL), 0);
  ASSERT_EQ(kill(procs_.pid("prove-1"), SIGKILL), 0);
  ASSERT_TRUE(wait_log("standby", "TOOK OVER the coordinator lease")) << all_logs();
  expect_done_and_verified(job, n, big);  // within 120 s, not an hour
  expect_recorded_once(job);
  EXPECT_TRUE(contains(log("standby"), "requeued: worker prove-1 lost")) << log("standby");
}

// A Redis that answers every command with LOADING, as a restarted Redis does while it reads its
// AOF (a hostile stand-in: a loopback socket of the test's own). A standby must wait through it
// as through a refused connection; it used to exit with status 1 (seen in the chaos run at its
// Redis restart).
TEST_F(FarmStandbyTest, StandbyWaitsWhileRedisIsStillLoading) {
  const auto [lfd, port] = loopback_listener();
  ASSERT_GE(lfd, 0);
  std::atomic<int> replies{0};
  std::thread loading([&] {
    // One connection at a time: the coordinator's; any bytes in, one LOADING error out per
    // read (hiredis sends one command and waits for its reply).
    for (;;) {
      const int c = ::accept(lfd, nullptr, nullptr);
      if (c < 0) return;  // the listening socket was shut down: the test is over
      char buf[4096];
      while (::read(c, buf, sizeof buf) > 0) {
        const char reply[] = "-LOADING Redis is loading the dataset in memory\r\n";
        if (::write(c, reply, sizeof reply - 1) < 0) break;
        ++replies;
      }
      ::close(c);
    }
  });
  auto cfg = write_config("loading", "redis:\n  host: 127.0.0.1\n  port: " + std::to_string(port) + "\n" +
                                         coordinator_section(coordinator_port_, "  standby: true\n"));
  const pid_t c = spawn("loading", {zkmill_binary(), "coordinator", "--config", cfg});
  const bool waited = wait_log("loading", "redis not ready at start (LOADING", 20s);
  std::this_thread::sleep_for(500ms);
  const int early_exit = wait_exit(c, std::chrono::seconds(0));
  const int rc = stop(c);
  ::shutdown(lfd, SHUT_RDWR);
  ::close(lfd);
  loading.join();
  EXPECT_TRUE(waited) << log("loading");
  EXPECT_EQ(early_exit, -1) << "the standby exited by itself while Redis was loading:\n" << log("loading");
  EXPECT_GT(replies.load(), 1);
  EXPECT_EQ(rc, 0) << log("loading");
  EXPECT_TRUE(contains(log("loading"), "stopping (standby; never took over)")) << log("loading");
}

}  // namespace
}  // namespace zkmill::test
