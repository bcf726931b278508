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

#include "tests/support/child_processes.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class SentinelFarmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    procs_.set_log_dir(dir_);
    fs::create_directories(dir_ / "keys");
    key_ = (dir_ / "keys" / "chain.key").string();
    auto r =
        run_zkmill({"setup", "--circuit", "chain", "--size", "3000", "--curve", "bn254", "--seed", "5", "--out", key_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    primary_ = free_port();
    replica_ = free_port();
    sentinel_ = free_port();
    coordinator_ = free_port();
    start_redis("primary", primary_, "");
    start_redis("replica", replica_, "127.0.0.1 " + std::to_string(primary_));
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
    const std::string coord = "coordinator:\n  endpoint: tcp://127.0.0.1:" + std::to_string(coordinator_) +
                              "\n  heartbeat_ms: 200\n  liveness: 10\n  lease_ms: 2000\n  backoff_ms: 50\n"
                              "  backoff_max_ms: 1000\n  max_attempts: 20\n";
    client_ = write("client", redis);
    spawn("coordinator", {zkmill_binary(), "coordinator", "--config", write("coordinator", redis + coord)});
    spawn("worker", {zkmill_binary(), "worker", "--role", "both", "--config",
                     write("worker", redis + coord + "threads: 1\nworker:\n  id: w1\n  key_dir: " +
                                         (dir_ / "keys").string() + "\n")});
    ASSERT_TRUE(until(30s, [&] { return contains(log("coordinator"), "registered (role"); })) << all_logs();
  }
  // Children still running are killed (ChildProcesses::Teardown::Kill): a clean shutdown of
  // the primary, replica and sentinel is not what these tests are about.
  template <class F>
  static bool until(std::chrono::seconds limit, F f) {
    return eventually(limit, f, 50ms);
  }
  void start_redis(const std::string& name, int port, const std::string& replicaof) {
    fs::create_directories(dir_ / name);
    std::vector<std::string> args{"redis-server", "--port", std::to_string(port),  "--bind", "127.0.0.1",
                                  "--save",       "",       "--appendonly",        "yes",    "--appendfsync",
                                  "always",       "--dir",  (dir_ / name).string()};
    if (!replicaof.empty()) {
      args.push_back("--replicaof");
      args.push_back(replicaof.substr(0, replicaof.find(' ')));
      args.push_back(replicaof.substr(replicaof.find(' ') + 1));
    }
    spawn(name, args);
    ASSERT_TRUE(until(10s, [&] { return cli(port, {"PING"}) == "PONG\n"; })) << log(name);
  }
  std::string cli(int port, const std::vector<std::string>& args) const {
    std::vector<std::string> a{"-p", std::to_string(port)};
    a.insert(a.end(), args.begin(), args.end());
    return run_program("redis-cli", a).out;
  }
  pid_t spawn(const std::string& name, const std::vector<std::string>& args) { return procs_.spawn(name, args); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = dir_ / (name + ".yaml");
    std::ofstream(p) << text;
    return p.string();
  }
  std::string log(const std::string& name) const { return procs_.log(name); }
  std::string all_logs() const { return procs_.all_logs(); }
  std::string submit(uint64_t n) {
    auto r = run_zkmill({"submit", "--config", client_, "--key", key_, "--partitions", std::to_string(n)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  json status(const std::string& job) {
    auto r = run_zkmill({"status", "--config", client_, job, "--json"});
    return r.exit_code == 0 ? json::parse(r.out) : json(nullptr);
  }
  uint64_t verified(const std::string& job) {
    auto s = status(job);
    return s.is_null() ? 0 : s["verified"].get<uint64_t>();
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
    const auto s = status(job);
    EXPECT_EQ(s["state"], "done") << s.dump() << all_logs();
    EXPECT_EQ(s["verified"].get<uint64_t>(), n) << s.dump();
    EXPECT_EQ(primary_now(), std::to_string(replica_));
    EXPECT_EQ(cli(replica_, {"HGET", "zk:job:" + job, "state"}), "done\n");
    const auto out = dir_ / "result";
    auto r = run_zkmill({"result", job, "--config", client_, "--out", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (uint64_t i = 0; i < n; ++i) {
      const auto p = out / ("partition-" + std::to_string(i));
      auto v = run_zkmill({"verify", key_ + ".vk.json", p.string() + ".public.json", p.string() + ".proof.json"});
      EXPECT_EQ(v.exit_code, 0) << "partition " << i << ": " << v.out << v.err;
    }
  }

  fs::path dir_;
  std::string key_, client_;
  int primary_ = 0, replica_ = 0, sentinel_ = 0, coordinator_ = 0;
  ChildProcesses procs_{{}, ChildProcesses::Teardown::Kill};
};

TEST_F(SentinelFarmTest, OrderedFailoverMidJobFinishesTheJob) {
  const uint64_t n = 10;
  const std::string job = submit(n);
  ASSERT_TRUE(until(60s, [&] { return verified(job) >= 2; })) << all_logs();
  ASSERT_LT(verified(job), n) << "the job finished before the failover: make it bigger";
  EXPECT_EQ(cli(sentinel_, {"SENTINEL", "failover", "zkm"}), "OK\n");
  ASSERT_TRUE(until(30s, [&] { return primary_now() == std::to_string(replica_); })) << log("sentinel");
  expect_finishes(job, n);
}

TEST_F(SentinelFarmTest, PrimaryKilledMidJobFinishesTheJob) {
  const uint64_t n = 10;
  const std::string job = submit(n);
  ASSERT_TRUE(until(60s, [&] { return verified(job) >= 2; })) << all_logs();
  ASSERT_LT(verified(job), n) << "the job finished before the failover: make it bigger";
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
TEST(ReplicatedRedisTest, ResubmitIsConfirmedOnlyOnceAReplicaHasTheJob) {
  const fs::path dir = scratch_dir();
  ChildProcesses procs{{}, ChildProcesses::Teardown::Kill};
  procs.set_log_dir(dir);
  const std::string key = (dir / "chain.key").string();
  auto r = run_zkmill({"setup", "--circuit", "chain", "--size", "50", "--curve", "bn254", "--seed", "5", "--out", key});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const int primary = free_port(), replica = free_port();
  auto cli = [&](int port, const std::vector<std::string>& args) {
    std::vector<std::string> a{"-p", std::to_string(port)};
    a.insert(a.end(), args.begin(), args.end());
    return run_program("redis-cli", a).out;
  };
  for (const char* d : {"primary", "replica"}) fs::create_directories(dir / d);  // the replica writes a snapshot
  procs.spawn("primary", {"redis-server", "--port", std::to_string(primary), "--bind", "127.0.0.1", "--save", "",
                          "--dir", (dir / "primary").string()});
  procs.spawn("replica", {"redis-server", "--port", std::to_string(replica), "--bind", "127.0.0.1", "--save", "",
                          "--dir", (dir / "replica").string(), "--replicaof", "127.0.0.1", std::to_string(primary)});
  ASSERT_TRUE(eventually(20s, [&] {
    return contains(cli(primary, {"INFO", "replication"}), "state=online");
  })) << cli(primary, {"INFO", "replication"});
  const auto client = dir / "client.yaml";
  std::ofstream(client) << "redis: {host: 127.0.0.1, port: " << primary
                        << ", min_replicas: 1, wait_timeout_ms: 1000}\n";
  auto submit = [&] {
    return run_zkmill(
        {"submit", "--config", client.string(), "--key", key, "--partitions", "1", "--idempotency-key", "k1"});
  };
  ASSERT_EQ(::kill(procs.pid("replica"), SIGSTOP), 0);  // still "online" to the primary, gets nothing
  auto first = submit();
  EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
  EXPECT_TRUE(contains(first.err, "same --idempotency-key")) << first.err;
  auto again = submit();
  EXPECT_EQ(again.exit_code, 1) << "confirmed a job no replica has: " << again.out << again.err;
  ASSERT_EQ(::kill(procs.pid("replica"), SIGCONT), 0);
  Result last;  // the replica catches up on its own time (a loaded machine): a few tries
  for (int i = 0; i < 10 && (last = submit()).exit_code != 0; ++i) std::this_thread::sleep_for(500ms);
  ASSERT_EQ(last.exit_code, 0) << last.err;
  const std::string job = last.out.substr(0, last.out.find('\n'));
  EXPECT_EQ(cli(replica, {"HGET", "zk:job:" + job, "state"}), "queued\n") << "the replica does not have " << job;
}

}  // namespace
}  // namespace zkmill::test
