// SPDX-License-Identifier: MIT
// The farm on a Redis primary configured with `min-replicas-to-write 1`, with real servers on
// loopback ports (a primary and its replica), two coordinators (one active, one --standby) and a
// worker. While the replica is gone the primary answers every write with NOREPLICAS: that is an
// outage to wait out, not a bug. The coordinators must neither exit nor lose or duplicate a
// proof: they say so in a clear log line and in zkmill_redis_errors_total{kind="noreplicas"},
// record nothing meanwhile, and once the replica is back the job finishes with every partition
// recorded exactly once and every proof verified by `zkmill verify`. `zkmill submit` meanwhile
// fails (exit 1) saying no job was created and that submitting again is safe; it is, later.
// Without min-replicas-to-write on the server (Redis's default) the farm goes on while the
// replica is gone, but acknowledges no recorded proof and confirms no submit until it is back.
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "tests/support/child_processes.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class MinReplicasToWriteTest : public ::testing::Test {
 protected:
  // The primary's min-replicas-to-write (0: Redis's default, writes never refused).
  virtual int server_min_replicas() const { return 1; }
  void SetUp() override {
    dir_ = scratch_dir();
    procs_.set_log_dir(dir_);
    fs::create_directories(dir_ / "keys");
    key_ = (dir_ / "keys" / "chain.key").string();
    // About half a second per partition on one thread: the job is still running at the cut.
    auto r =
        run_zkmill({"setup", "--circuit", "chain", "--size", "8000", "--curve", "bn254", "--seed", "5", "--out", key_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    primary_ = free_port();
    replica_ = free_port();
    start_primary();
    start_replica();
    const std::string redis = "redis: {host: 127.0.0.1, port: " + std::to_string(primary_) +
                              ", min_replicas: 1, wait_timeout_ms: 1000, command_timeout_ms: 2000}\n";
    client_ = write("client", redis);
    // Both started with --standby: the first takes the free lease, the second waits for it.
    for (const char* name : {"coord-a", "coord-b"}) {
      ports_[name] = {free_port(), free_port()};
      spawn(name, {zkmill_binary(), "coordinator", "--standby", "--config",
                   write(name, redis + coordinator_yaml(ports_[name].first) +
                                   "  metrics_listen: 127.0.0.1:" + std::to_string(ports_[name].second) + "\n")});
      ASSERT_TRUE(until(30s, [&] {
        return contains(log(name), std::string(name) == "coord-a" ? "serving on" : "waiting to take over");
      })) << all_logs();
    }
    spawn("worker",
          {zkmill_binary(), "worker", "--role", "both", "--config",
           write("worker", redis + coordinator_yaml(ports_["coord-a"].first) +
                               "  standby_endpoints: [\"tcp://127.0.0.1:" + std::to_string(ports_["coord-b"].first) +
                               "\"]\nthreads: 1\nworker:\n  id: w1\n  key_dir: " + (dir_ / "keys").string() + "\n")});
    ASSERT_TRUE(until(30s, [&] { return contains(log("coord-a"), "registered (role"); })) << all_logs();
  }

  template <class F>
  static bool until(std::chrono::seconds limit, F f) {
    return eventually(limit, f, 50ms);
  }
  static std::string coordinator_yaml(int port) {
    return "coordinator:\n  endpoint: tcp://127.0.0.1:" + std::to_string(port) +
           "\n  heartbeat_ms: 200\n  liveness: 10\n  lease_ms: 2000\n  backoff_ms: 50\n  backoff_max_ms: 1000\n"
           "  max_attempts: 20\n";
  }
  void start_primary() {
    fs::create_directories(dir_ / "primary");
    spawn("primary", {"redis-server", "--port", std::to_string(primary_), "--bind", "127.0.0.1", "--save", "", "--dir",
                      (dir_ / "primary").string(), "--min-replicas-to-write", std::to_string(server_min_replicas()),
                      "--min-replicas-max-lag", "3"});
    ASSERT_TRUE(until(10s, [&] { return cli(primary_, {"PING"}) == "PONG\n"; })) << log("primary");
    ASSERT_EQ(cli(primary_, {"CONFIG", "GET", "min-replicas-to-write"}),
              "min-replicas-to-write\n" + std::to_string(server_min_replicas()) + "\n");
  }
  // A replica (again, after a kill: it resynchronizes from scratch), in step once the primary
  // counts it as a good replica for min-replicas-to-write.
  void start_replica() {
    fs::create_directories(dir_ / "replica");
    spawn("replica", {"redis-server", "--port", std::to_string(replica_), "--bind", "127.0.0.1", "--save", "", "--dir",
                      (dir_ / "replica").string(), "--replicaof", "127.0.0.1", std::to_string(primary_)});
    ASSERT_TRUE(until(30s, [&] { return replicas_online() == 1; })) << cli(primary_, {"INFO", "replication"});
  }
  int replicas_online() const { return int(count_of(cli(primary_, {"INFO", "replication"}), "state=online")); }
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
  Result submit(uint64_t n, const std::string& idempotency_key = "") {
    std::vector<std::string> args{"submit", "--config", client_, "--key", key_, "--partitions", std::to_string(n)};
    if (!idempotency_key.empty()) args.insert(args.end(), {"--idempotency-key", idempotency_key});
    return run_zkmill(args);
  }
  json status(const std::string& job) {
    auto r = run_zkmill({"status", "--config", client_, job, "--json"});
    return r.exit_code == 0 ? json::parse(r.out) : json(nullptr);
  }
  uint64_t verified(const std::string& job) {
    auto s = status(job);
    return s.is_null() ? 0 : s["verified"].get<uint64_t>();
  }
  bool running(const std::string& name) { return procs_.wait_exit(procs_.pid(name), 0ms) < 0; }
  // zkmill_redis_errors_total{kind="noreplicas"} of a coordinator's /metrics (-1: not served).
  double noreplicas_errors(const std::string& name) {
    httplib::Client c("127.0.0.1", ports_[name].second);
    c.set_connection_timeout(5);
    c.set_read_timeout(15);
    auto r = c.Get("/metrics");
    std::smatch m;
    if (!r || r->status != 200 ||
        !std::regex_search(r->body, m, std::regex("zkmill_redis_errors_total\\{kind=\"noreplicas\"\\} ([0-9.e+]+)")))
      return -1;
    return std::stod(m[1]);
  }

  fs::path dir_;
  std::string key_, client_;
  int primary_ = 0, replica_ = 0;
  std::map<std::string, std::pair<int, int>> ports_;  // coordinator -> {control, metrics}
  ChildProcesses procs_{{}, ChildProcesses::Teardown::Kill};
};

TEST_F(MinReplicasToWriteTest, ReplicaGoneMidJobPausesTheFarmAndNothingIsLostOrRecordedTwice) {
  const uint64_t n = 10;
  auto first = submit(n);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string job = first.out.substr(0, first.out.find('\n'));
  ASSERT_TRUE(until(90s, [&] { return verified(job) >= 2; })) << all_logs();
  ASSERT_LT(verified(job), n) << "the job finished before the replica went: make it bigger";

  procs_.kill9(procs_.pid("replica"));
  ASSERT_TRUE(until(10s, [&] { return replicas_online() == 0; })) << cli(primary_, {"INFO", "replication"});
  // The active coordinator's loop and the standby's lease requests are refused: both say why.
  const std::string why = "refuses writes: fewer replicas in step than its min-replicas-to-write";
  ASSERT_TRUE(until(15s, [&] { return contains(log("coord-a"), why) && contains(log("coord-b"), why); })) << all_logs();
  EXPECT_TRUE(contains(log("coord-a"), "no heartbeat goes out")) << log("coord-a");
  const uint64_t before = verified(job);

  // A submit is refused, creates nothing and says that trying again is safe.
  auto refused = submit(1, "while-gone");
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_TRUE(contains(refused.err, "submit refused, no job created")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "min-replicas-to-write")) << refused.err;
  EXPECT_EQ(cli(primary_, {"EXISTS", "zk:idem:while-gone"}), "0\n");

  // Two lease periods without writes: the lease expires, nobody can take it, nothing is
  // recorded, and neither coordinator gives up (a standby used to exit with status 1 here).
  std::this_thread::sleep_for(4s);
  EXPECT_EQ(verified(job), before);
  EXPECT_TRUE(running("coord-a")) << log("coord-a");
  EXPECT_TRUE(running("coord-b")) << log("coord-b");
  EXPECT_GE(noreplicas_errors("coord-a"), 1) << log("coord-a");
  EXPECT_GE(noreplicas_errors("coord-b"), 1) << log("coord-b");

  start_replica();
  auto w = run_zkmill({"wait", "--config", client_, job, "--timeout", "120"});
  ASSERT_EQ(w.exit_code, 0) << w.err << all_logs();
  const auto s = status(job);
  EXPECT_EQ(s["state"], "done") << s.dump();
  EXPECT_EQ(s["verified"].get<uint64_t>(), n) << s.dump();
  for (const auto& p : s["partition_states"])
    EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << "a partition recorded other than once: " << p.dump();
  const auto out = dir_ / "result";
  auto r = run_zkmill({"result", job, "--config", client_, "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (uint64_t i = 0; i < n; ++i) {
    const auto p = out / ("partition-" + std::to_string(i));
    auto v = run_zkmill({"verify", key_ + ".vk.json", p.string() + ".public.json", p.string() + ".proof.json"});
    EXPECT_EQ(v.exit_code, 0) << "partition " << i << ": " << v.out << v.err;
  }
  // Whichever took the lease again, the other waits as a standby (or stepped down to one).
  EXPECT_TRUE(running("coord-a")) << log("coord-a");
  EXPECT_TRUE(running("coord-b")) << log("coord-b");

  Result again;  // the replica acknowledges in its own time (a loaded machine): a few tries
  for (int i = 0; i < 10 && (again = submit(1, "while-gone")).exit_code != 0; ++i) std::this_thread::sleep_for(500ms);
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

// The same farm on a primary that takes writes without replicas (Redis's default), the
// coordinators and clients still asking for one (redis.min_replicas 1): with the replica gone
// the job goes on and finishes on the primary, but no recorded proof is acknowledged to its
// worker (no WAIT succeeds) and a submit is not confirmed; both resume once the replica is back.
class ReplicaGoneWithoutMinReplicasToWriteTest : public MinReplicasToWriteTest {
 protected:
  int server_min_replicas() const override { return 0; }
};

TEST_F(ReplicaGoneWithoutMinReplicasToWriteTest, JobFinishesOnThePrimaryButNothingIsAcknowledgedUntilTheReplicaIsBack) {
  const uint64_t n = 10;
  auto first = submit(n);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string job = first.out.substr(0, first.out.find('\n'));
  ASSERT_TRUE(until(90s, [&] { return verified(job) >= 2; })) << all_logs();
  ASSERT_LT(verified(job), n) << "the job finished before the replica went: make it bigger";

  procs_.kill9(procs_.pid("replica"));
  ASSERT_TRUE(until(10s, [&] { return replicas_online() == 0; })) << cli(primary_, {"INFO", "replication"});
  auto unconfirmed = submit(1, "while-gone");
  EXPECT_EQ(unconfirmed.exit_code, 1) << unconfirmed.out << unconfirmed.err;
  EXPECT_TRUE(contains(unconfirmed.err, "may be lost in a failover")) << unconfirmed.err;
  // The job exists on the primary (and is proved like any other), unconfirmed.
  const std::string created = cli(primary_, {"GET", "zk:idem:while-gone"});
  ASSERT_FALSE(created.empty() || created == "\n") << unconfirmed.err;

  auto w = run_zkmill({"wait", "--config", client_, job, "--timeout", "120"});
  ASSERT_EQ(w.exit_code, 0) << w.err << all_logs();
  EXPECT_TRUE(contains(log("coord-a"), "recorded proof(s) not acknowledged yet")) << log("coord-a");
  EXPECT_FALSE(contains(log("coord-a"), "refuses writes")) << log("coord-a");
  const auto s = status(job);
  EXPECT_EQ(s["verified"].get<uint64_t>(), n) << s.dump();
  for (const auto& p : s["partition_states"])
    EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << "a partition recorded other than once: " << p.dump();

  start_replica();
  Result again;
  for (int i = 0; i < 10 && (again = submit(1, "while-gone")).exit_code != 0; ++i) std::this_thread::sleep_for(500ms);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out.substr(0, again.out.find('\n') + 1), created) << "the second submit created another job";
}

}  // namespace
}  // namespace zkmill::test
