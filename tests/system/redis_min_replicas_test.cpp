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

#include "tests/system/replicated_redis_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class MinReplicasToWriteTest : public ReplicatedRedisFarmTest {
 protected:
  // The primary's min-replicas-to-write (0: Redis's default, writes never refused).
  virtual int server_min_replicas() const { return 1; }
  void SetUp() override {
    // About half a second per partition on one thread: the job is still running at the cut.
    make_farm_dir(8000);
    primary_ = free_port();
    replica_ = free_port();
    start_redis("primary", primary_,
                {"--min-replicas-to-write", std::to_string(server_min_replicas()), "--min-replicas-max-lag", "3"});
    ASSERT_EQ(cli(primary_, {"CONFIG", "GET", "min-replicas-to-write"}),
              "min-replicas-to-write\n" + std::to_string(server_min_replicas()) + "\n");
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
    spawn("worker", {zkmill_binary(), "worker", "--role", "both", "--config",
                     write("worker", redis + coordinator_yaml(ports_["coord-a"].first) +
                                         "  standby_endpoints: [\"tcp://127.0.0.1:" +
                                         std::to_string(ports_["coord-b"].first) + "\"]\n" + worker_yaml())});
    ASSERT_TRUE(until(30s, [&] { return contains(log("coord-a"), "registered (role"); })) << all_logs();
  }

  // A replica (again, after a kill: it resynchronizes from scratch), in step once the primary
  // counts it as a good replica for min-replicas-to-write.
  void start_replica() {
    start_redis("replica", replica_, replica_of(primary_));
    ASSERT_TRUE(until(30s, [&] { return replicas_online() == 1; })) << cli(primary_, {"INFO", "replication"});
  }
  int replicas_online() const { return int(count_of(cli(primary_, {"INFO", "replication"}), "state=online")); }
  bool running(const std::string& name) { return procs_.wait_exit(procs_.pid(name), 0ms) < 0; }
  // Submits n partitions, waits until the job is mid-way, and kills -9 the replica.
  std::string start_job_and_kill_replica(uint64_t n) {
    const std::string job = submit_job(n);
    wait_mid_job(job, n);
    procs_.kill9(procs_.pid("replica"));
    EXPECT_TRUE(until(10s, [&] { return replicas_online() == 0; })) << cli(primary_, {"INFO", "replication"});
    return job;
  }
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

  int primary_ = 0, replica_ = 0;
  std::map<std::string, std::pair<int, int>> ports_;  // coordinator -> {control, metrics}
};

TEST_F(MinReplicasToWriteTest, ReplicaGoneMidJobPausesTheFarmAndNothingIsLostOrRecordedTwice) {
  const uint64_t n = 10;
  const std::string job = start_job_and_kill_replica(n);
  ASSERT_FALSE(HasFailure());
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
  expect_done_once_each(job, n);
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
  const std::string job = start_job_and_kill_replica(n);
  ASSERT_FALSE(HasFailure());
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
  expect_done_once_each(job, n);

  start_replica();
  Result again;
  for (int i = 0; i < 10 && (again = submit(1, "while-gone")).exit_code != 0; ++i) std::this_thread::sleep_for(500ms);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out.substr(0, again.out.find('\n') + 1), created) << "the second submit created another job";
}

}  // namespace
}  // namespace zkmill::test
