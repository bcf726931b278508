// SPDX-License-Identifier: MIT
// The farm on a replicated Redis under Redis Sentinel, with real servers on loopback ports: a
// primary (AOF), one replica and one sentinel (quorum 1). The coordinator, the worker and the
// clients find the primary through the sentinel (redis.sentinels, redis.master_name) and wait
// for the replica on durable writes (redis.min_replicas); a failover in the middle of a job —
// ordered (SENTINEL FAILOVER) or forced (kill -9 of the primary) — must cost time only: the
// job finishes with every proof verified, and the new primary holds it. A resubmit of a job
// no replica has is not confirmed either.
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/system/replicated_redis_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class SentinelFarmTest : public ReplicatedRedisFarmTest {
 protected:
  void SetUp() override {
    make_farm_dir(3000);
    primary_ = free_port();
    replica_ = free_port();
    sentinel_ = free_port();
    coordinator_ = free_port();
    const std::vector<std::string> aof{"--appendonly", "yes", "--appendfsync", "always"};
    start_redis("primary", primary_, aof);
    auto replica_args = aof;
    for (auto& a : replica_of(primary_)) replica_args.push_back(a);
    start_redis("replica", replica_, replica_args);
    ASSERT_TRUE(until(20s, [&] {
      return contains(cli(replica_, {"INFO", "replication"}), "master_link_status:up");
    })) << cli(replica_, {"INFO", "replication"});
    const auto conf = dir_ / "sentinel.conf";  // the sentinel rewrites it: must be writable
    std::ofstream(conf) << "port " << sentinel_ << "\nbind 127.0.0.1\ndir " << dir_.string()
                        << "\nsentinel monitor zkm 127.0.0.1 " << primary_
                        << " 1\nsentinel down-after-milliseconds zkm 1000\nsentinel failover-timeout zkm 10000\n";
    spawn("sentinel", {"redis-server", conf.string(), "--sentinel"});
    ASSERT_TRUE(until(20s,
                      [&] {
                        return contains(cli(sentinel_, {"SENTINEL", "replicas", "zkm"}), "slave");
                      }))
        << "the sentinel did not discover the replica: " << log("sentinel");
    const std::string redis = "redis:\n  sentinels: [\"127.0.0.1:" + std::to_string(sentinel_) +
                              "\"]\n  master_name: zkm\n  min_replicas: 1\n  wait_timeout_ms: 3000\n"
                              "  connect_timeout_ms: 500\n  command_timeout_ms: 2000\n";
    const std::string coord = coordinator_yaml(coordinator_);
    client_ = write("client", redis);
    spawn("coordinator", {zkmill_binary(), "coordinator", "--config", write("coordinator", redis + coord)});
    spawn("worker",
          {zkmill_binary(), "worker", "--role", "both", "--config", write("worker", redis + coord + worker_yaml())});
    ASSERT_TRUE(until(30s, [&] { return contains(log("coordinator"), "registered (role"); })) << all_logs();
  }
  std::string primary_now() const {
    const std::string r = cli(sentinel_, {"SENTINEL", "get-master-addr-by-name", "zkm"});
    return r.substr(r.find('\n') + 1, r.size() - r.find('\n') - 2);
  }
  // The job finishes after the failover, every proof verified, and the new primary has it.
  void expect_finishes(const std::string& job, uint64_t n) {
    ASSERT_TRUE(until(120s, [&] {
      auto s = status(job);
      return !s.is_null() && s["state"] != "running" && s["state"] != "queued";
    })) << all_logs();
    expect_done_once_each(job, n);
    EXPECT_EQ(primary_now(), std::to_string(replica_));
    EXPECT_EQ(cli(replica_, {"HGET", "zk:job:" + job, "state"}), "done\n");
  }

  int primary_ = 0, replica_ = 0, sentinel_ = 0, coordinator_ = 0;
};

TEST_F(SentinelFarmTest, OrderedFailoverMidJobFinishesTheJob) {
  const uint64_t n = 10;
  const std::string job = submit_job(n);
  wait_mid_job(job, n);
  EXPECT_EQ(cli(sentinel_, {"SENTINEL", "failover", "zkm"}), "OK\n");
  ASSERT_TRUE(until(30s, [&] { return primary_now() == std::to_string(replica_); })) << log("sentinel");
  expect_finishes(job, n);
}

TEST_F(SentinelFarmTest, PrimaryKilledMidJobFinishesTheJob) {
  const uint64_t n = 10;
  const std::string job = submit_job(n);
  wait_mid_job(job, n);
  const auto t0 = std::chrono::steady_clock::now();
  procs_.kill9(procs_.pid("primary"));
  ASSERT_TRUE(until(30s, [&] { return primary_now() == std::to_string(replica_); })) << log("sentinel");
  const double promoted = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t before = verified(job);
  ASSERT_TRUE(until(60s, [&] { return verified(job) > before || verified(job) == n; })) << all_logs();
  const double resumed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ figures  ] primary killed: replica promoted after %.1f s, next proof recorded after %.1f s\n",
              promoted, resumed);
  expect_finishes(job, n);
}

// `zkmill submit` again with the same idempotency key after a submit whose job no replica
// confirmed: the job is found, not created, and the answer must still wait for a replica to
// have it; only then does submit print the job (the same one) and exit 0.
class ReplicatedRedisTest : public ReplicatedRedisFarmTest {};

TEST_F(ReplicatedRedisTest, ResubmitIsConfirmedOnlyOnceAReplicaHasTheJob) {
  make_farm_dir(50);
  const int primary = free_port(), replica = free_port();
  start_redis("primary", primary, {});
  start_redis("replica", replica, replica_of(primary));  // the replica writes a snapshot in its dir
  ASSERT_TRUE(until(20s, [&] {
    return contains(cli(primary, {"INFO", "replication"}), "state=online");
  })) << cli(primary, {"INFO", "replication"});
  client_ = write("client", "redis: {host: 127.0.0.1, port: " + std::to_string(primary) +
                                ", min_replicas: 1, wait_timeout_ms: 1000}\n");
  ASSERT_EQ(::kill(procs_.pid("replica"), SIGSTOP), 0);  // still "online" to the primary, gets nothing
  auto first = submit(1, "k1");
  EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
  EXPECT_TRUE(contains(first.err, "same --idempotency-key")) << first.err;
  auto again = submit(1, "k1");
  EXPECT_EQ(again.exit_code, 1) << "confirmed a job no replica has: " << again.out << again.err;
  ASSERT_EQ(::kill(procs_.pid("replica"), SIGCONT), 0);
  Result last;  // the replica catches up on its own time (a loaded machine): a few tries
  for (int i = 0; i < 10 && (last = submit(1, "k1")).exit_code != 0; ++i) std::this_thread::sleep_for(500ms);
  ASSERT_EQ(last.exit_code, 0) << last.err;
  const std::string job = last.out.substr(0, last.out.find('\n'));
  EXPECT_EQ(cli(replica, {"HGET", "zk:job:" + job, "state"}), "queued\n") << "the replica does not have " << job;
}

}  // namespace
}  // namespace zkmill::test
