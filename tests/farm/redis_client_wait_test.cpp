// SPDX-License-Identifier: MIT
// RedisClient::wait_replicas against a real primary and replica on loopback ports: what it
// confirms is what the server it is connected to holds, read or written, and never what was
// written on an earlier connection. Redis's WAIT waits for the replication offset the
// connection saw after its previous command; sent as the first command of a new connection
// (wait_replicas after a reconnect) it waited for nothing and answered with the count of
// replicas, a SIGSTOPped one included: the coordinator could ack proofs no replica had.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "farm/redis_client.hpp"
#include "tests/support/child_processes.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;

class RedisClientWait : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    procs_.set_log_dir(dir_);
    primary_ = free_port();
    const int replica = free_port();
    // Each in a directory of its own: the replica writes the primary's snapshot to its --dir.
    for (const char* d : {"primary", "replica"}) fs::create_directories(dir_ / d);
    procs_.spawn("primary", {"redis-server", "--port", std::to_string(primary_), "--bind", "127.0.0.1", "--save", "",
                             "--dir", (dir_ / "primary").string()});
    procs_.spawn("replica",
                 {"redis-server", "--port", std::to_string(replica), "--bind", "127.0.0.1", "--save", "", "--dir",
                  (dir_ / "replica").string(), "--replicaof", "127.0.0.1", std::to_string(primary_)});
    ASSERT_TRUE(eventually(20s, [&] {
      return contains(run_program("redis-cli", {"-p", std::to_string(primary_), "INFO", "replication"}).out,
                      "state=online");
    })) << procs_.all_logs();
  }
  farm::RedisConfig config() const {
    farm::RedisConfig rc;
    rc.host = "127.0.0.1";
    rc.port = uint16_t(primary_);
    rc.min_replicas = 1;
    rc.wait_timeout_ms = 300;
    return rc;
  }
  void signal_replica(int sig) { ASSERT_EQ(::kill(procs_.pid("replica"), sig), 0); }

  fs::path dir_;
  int primary_ = 0;
  ChildProcesses procs_{{}, ChildProcesses::Teardown::Kill};
};

TEST_F(RedisClientWait, ConfirmsWhatTheConnectionReadOnlyOnceAReplicaHasIt) {
  farm::RedisClient writer(config()), reader(config());
  writer.command({"SET", "zk:test:before", "1"});
  ASSERT_TRUE(eventually(10s, [&] { return writer.wait_replicas(); })) << "the replica is not in step";
  signal_replica(SIGSTOP);  // still "online" to the primary; receives nothing
  writer.command({"SET", "zk:test:recorded", "1"});
  EXPECT_FALSE(writer.wait_replicas()) << "the stopped replica cannot have the write";
  // Another connection finds the write (as a coordinator finds a re-sent proof recorded): its
  // confirmation must cover it.
  EXPECT_EQ(reader.command({"GET", "zk:test:recorded"}).as_string(), "1");
  EXPECT_FALSE(reader.wait_replicas()) << "confirmed a value the replica does not have";
  signal_replica(SIGCONT);
  EXPECT_TRUE(eventually(10s, [&] { return reader.wait_replicas(); }));
}

// The coordinator's case: a proof recorded, its WAIT not satisfied (the replica stopped), the
// connection lost. A WAIT sent as the first command of the new connection waited for nothing
// and counted the stopped replica: "confirmed" a write no replica had.
TEST_F(RedisClientWait, ConfirmsNothingWrittenOnALostConnection) {
  farm::RedisClient c(config());
  c.command({"SET", "zk:test:before", "1"});
  ASSERT_TRUE(eventually(10s, [&] { return c.wait_replicas(); })) << "the replica is not in step";
  signal_replica(SIGSTOP);
  c.command({"SET", "zk:test:recorded", "1"});
  const uint64_t first = c.connection_id();
  EXPECT_FALSE(c.wait_replicas());
  c.disconnect();  // as after a connection error or a failover
  EXPECT_FALSE(c.wait_replicas()) << "confirmed, on no connection, a write no replica has";
  c.command({"GET", "zk:test:recorded"});
  EXPECT_GT(c.connection_id(), first) << "a reconnect must be told apart";
  EXPECT_FALSE(c.wait_replicas()) << "a new connection confirmed a write no replica has";
  signal_replica(SIGCONT);
  EXPECT_TRUE(eventually(10s, [&] { return c.wait_replicas(); }));
}

// WAIT takes up to its timeout by design. With a command timeout no longer than that (the
// chaos run's clients: 2000 ms each) the reply came after the socket had given up: an
// unconfirmed write read as "connection lost: Resource temporarily unavailable", and the
// connection was dropped. It must answer "not confirmed" and keep the connection.
TEST_F(RedisClientWait, AWaitLongerThanTheCommandTimeoutAnswersNotConfirmed) {
  farm::RedisConfig rc = config();
  rc.command_timeout_ms = 200;
  rc.wait_timeout_ms = 600;
  farm::RedisClient c(rc);
  c.command({"SET", "zk:test:before", "1"});
  ASSERT_TRUE(eventually(10s, [&] { return c.wait_replicas(); })) << "the replica is not in step";
  signal_replica(SIGSTOP);
  c.command({"SET", "zk:test:recorded", "1"});
  const uint64_t id = c.connection_id();
  bool confirmed = true;
  EXPECT_NO_THROW(confirmed = c.wait_replicas());
  EXPECT_FALSE(confirmed) << "the stopped replica cannot have the write";
  EXPECT_EQ(c.command({"GET", "zk:test:recorded"}).as_string(), "1");
  EXPECT_EQ(c.connection_id(), id) << "the connection was dropped";
  signal_replica(SIGCONT);
  EXPECT_TRUE(eventually(10s, [&] { return c.wait_replicas(); }));
}

}  // namespace
}  // namespace zkmill::test
