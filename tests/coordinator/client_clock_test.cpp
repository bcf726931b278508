// SPDX-License-Identifier: MIT
// What a client stamps into the farm's state is stamped with the farm's clock (the Redis server's
// TIME), not the client host's: `zkmill submit --deadline` and `zkmill cancel` run here under
// faketime, two hours behind (and ahead of) the machine's clock, against the
// in-process coordinator, and their stamps still match the server's time. With the client's
// clock, a submit from a host two hours behind gave the job a deadline already past (the
// coordinator failed it at once), and a cancel made the job look ended two hours ago (the result
// retention deletes such a job at its next sweep).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "farm/redis_client.hpp"
#include "tests/support/in_process_coordinator.hpp"
#include "tests/support/process.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;

class ClientClock : public InProcessCoordinatorTest {
 protected:
  void SetUp() override {
    // faketime (Debian's package, installed by scripts/setup.sh) shifts the clock of the one
    // process it starts (LD_PRELOAD), so the client runs skewed beside an unskewed Redis.
    if (std::system("faketime -f +0 true >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "faketime is not installed (scripts/setup.sh installs it)";
    start("  heartbeat_ms: 100\n  liveness: 50\n  lease_ms: 60000\n");
    client_yaml_ = (dir_ / "client.yaml").string();
    std::ofstream(client_yaml_) << "redis:\n  unix_socket: " << cfg_.redis.unix_socket << "\n";
  }
  // `zkmill args...` with its clock shifted by `skew` (faketime's "+7200s" / "-7200s").
  Result skewed(const std::string& skew, std::vector<std::string> args) {
    args.insert(args.begin(), {"-f", skew, zkmill_binary()});
    args.insert(args.end(), {"--config", client_yaml_});
    return run_program("faketime", args);
  }
  // The Redis server's clock, ms.
  uint64_t server_ms() { return farm::RedisClient(cfg_.redis).server_time_ms(); }
  uint64_t job_field(const std::string& job, const std::string& field) {
    farm::RedisClient redis(cfg_.redis);
    const auto v = redis.command({"HGET", "zk:job:" + job, field});
    return v.is_nil() ? 0 : std::stoull(v.as_string());
  }
  std::string client_yaml_;
};

// Within a minute of the server's clock (a skewed stamp is two hours off).
void expect_server_time(uint64_t stamp, uint64_t server, const std::string& what) {
  const uint64_t off = stamp > server ? stamp - server : server - stamp;
  EXPECT_LT(off, 60'000u) << what << " is " << double(off) / 3.6e6 << " h off the server's clock";
}

TEST_F(ClientClock, SubmitAndCancelStampTheServersTimeWhateverTheClientsClock) {
  for (const char* skew : {"-7200s", "+7200s"}) {
    SCOPED_TRACE(skew);
    const auto sub = skewed(skew, {"submit", "--key", key_->path(), "--partitions", "2", "--deadline", "600"});
    ASSERT_EQ(sub.exit_code, 0) << sub.err;
    const std::string job = sub.out.substr(0, sub.out.find_first_of(" \n"));
    ASSERT_FALSE(job.empty()) << sub.out;
    const uint64_t now = server_ms();
    expect_server_time(job_field(job, "created_ms"), now, "the job's created_ms");
    expect_server_time(job_field(job, "deadline_ms"), now + 600'000, "the job's deadline_ms");
    // No worker runs: the job waits, and is not failed for a deadline already past.
    std::this_thread::sleep_for(500ms);
    EXPECT_EQ(client_->status(job).value("state", std::string()), "queued");

    const auto cancel = skewed(skew, {"cancel", job});
    ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
    farm::RedisClient redis(cfg_.redis);
    const auto ended = redis.command({"ZSCORE", "zk:ended", job});
    ASSERT_FALSE(ended.is_nil()) << "the cancelled job is not among the ended ones";
    expect_server_time(uint64_t(std::stod(ended.as_string())), server_ms(), "the cancel's zk:ended score");
  }
}

// The number `zkmill status --workers` prints after `label` ("QUARANTINED " -> the seconds ago).
double number_after(const std::string& out, const std::string& label) {
  const auto at = out.find(label);
  return at == std::string::npos ? -1.0 : std::stod(out.substr(at + label.size()));
}

// `zkmill status --workers` sets the coordinator's stamps (a quarantine's since_ms, a pause's
// until_ms, both on the server's clock) against the server's clock too: with the client's, a
// host two hours behind showed a pause of 30 s as 7230 s more, and a quarantine of 30 s ago as
// 2 h old one way or "0 s ago" the other.
TEST_F(ClientClock, StatusShowsQuarantineAgesAndPausesOnTheServersClock) {
  farm::RedisClient redis(cfg_.redis);
  const uint64_t now = server_ms();
  redis.command({"HSET", "zk:quarantine", "w-quarantined",
                 nlohmann::json{{"reason", "a proof for another statement"},
                                {"job", "j1"},
                                {"part", 0},
                                {"since_ms", now - 30'000},
                                {"key", ""}}
                     .dump()});
  redis.command(
      {"HSET", "zk:pauses", "w-paused",
       nlohmann::json{{"failures", 3}, {"pauses", 1}, {"until_ms", now + 600'000}, {"last_error", "disk full"}}
           .dump()});
  for (const char* skew : {"-7200s", "+7200s"}) {
    SCOPED_TRACE(skew);
    const auto st = skewed(skew, {"status", "--workers"});
    ASSERT_EQ(st.exit_code, 0) << st.err;
    const double ago = number_after(st.out, "QUARANTINED "), more = number_after(st.out, "PAUSED for ");
    EXPECT_GE(ago, 29.0) << st.out;
    EXPECT_LT(ago, 90.0) << st.out;
    EXPECT_GT(more, 540.0) << st.out;
    EXPECT_LE(more, 600.0) << st.out;
  }
}

}  // namespace
}  // namespace zkmill::test
