// The farm end to end: a private redis-server, the real coordinator and worker processes
// (deploy/local-farm.sh), loopback only; faults are real (kill -9, Redis restart, corrupted
// bundles). Every wait is bounded (`zkmill wait --timeout`).
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/process.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;

class FarmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    fs::create_directories(dir_ / "keys");
    key_ = (dir_ / "keys" / "chain.key").string();
    auto r = run_zkmill({"setup", "--circuit", "chain", "--size", "400", "--curve", "bn254", "--seed", "7", "--out", key_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void TearDown() override {
    for (pid_t p : extra_) {
      kill(p, SIGKILL);
      waitpid(p, nullptr, 0);
    }
    run_program("bash", {script(), "stop", "--dir", farm_dir().string()});
  }
  static std::string script() { return std::string(ZKMILL_SOURCE_DIR) + "/deploy/local-farm.sh"; }
  fs::path farm_dir() const { return dir_ / "farm"; }
  std::string client() const { return (farm_dir() / "client.yaml").string(); }

  void start(int synth, int prove) {
    auto r = run_program("bash", {script(), "start", "--dir", farm_dir().string(), "--keys", (dir_ / "keys").string(),
                                  "--synth", std::to_string(synth), "--prove", std::to_string(prove), "--bin",
                                  zkmill_binary()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  pid_t pid_of(const std::string& name) const { return pid_t(std::stol(slurp(farm_dir() / (name + ".pid")))); }
  void kill9(const std::string& name) {
    pid_t p = pid_of(name);
    ASSERT_EQ(kill(p, SIGKILL), 0) << name;
    // local-farm.sh started it, so it is not our child: wait until it is gone.
    for (int i = 0; i < 100 && kill(p, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_t spawn_worker(const std::string& name, const std::string& role, const std::string& fault) {
    std::string cfg = slurp(farm_dir() / "farm.yaml") + "worker:\n  id: " + name + "\n  key_dir: " +
                      (dir_ / "keys").string() + "\n";
    std::ofstream(farm_dir() / (name + ".yaml")) << cfg;
    std::vector<std::string> args{zkmill_binary(), "worker", "--config", (farm_dir() / (name + ".yaml")).string(),
                                  "--role", role};
    if (!fault.empty()) args.insert(args.end(), {"--inject-fault", fault});
    pid_t p = spawn_background(args, farm_dir() / (name + ".log"));
    extra_.push_back(p);
    return p;
  }
  std::string submit(uint64_t n, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"submit", "--config", client(), "--key", key_, "--partitions", std::to_string(n),
                                  "--seed", "11"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_zkmill(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out;
    while (!id.empty() && (id.back() == '\n')) id.pop_back();
    return id;
  }
  json status(const std::string& job) {
    auto r = run_zkmill({"status", "--config", client(), job, "--json"});
    if (r.exit_code != 0) return nullptr;
    return json::parse(r.out);
  }
  // Polls until at least `n` partitions are verified (the job is under way), bounded.
  void wait_verified(const std::string& job, uint64_t n) {
    for (int i = 0; i < 300; ++i) {
      auto s = status(job);
      if (!s.is_null() && s["verified"].get<uint64_t>() >= n) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL() << "job " << job << " made no progress";
  }
  int wait(const std::string& job) {
    auto r = run_zkmill({"wait", "--config", client(), job, "--timeout", "120"});
    EXPECT_EQ(r.exit_code, 0) << r.err << "\n" << slurp(farm_dir() / "coordinator.log");
    return r.exit_code;
  }
  // Done, every partition recorded exactly once, and the written proofs verify independently.
  void expect_done_and_verified(const std::string& job, uint64_t n) {
    auto s = status(job);
    ASSERT_FALSE(s.is_null());
    EXPECT_EQ(s["state"], "done");
    EXPECT_EQ(s["verified"].get<uint64_t>(), n);
    for (const auto& p : s["partition_states"]) EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << p.dump();
    auto out = (dir_ / ("out-" + job)).string();
    auto r = run_zkmill({"result", "--config", client(), job, "--out", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(fs::file_size(fs::path(out) / "proofs.bin"), n * 256);  // BN254: EVM uncompressed A, B, C
    for (uint64_t i = 0; i < n; i += std::max<uint64_t>(1, n / 4)) {
      auto v = run_zkmill({"verify", key_ + ".vk.json", out + "/partition-" + std::to_string(i) + ".public.json",
                           out + "/partition-" + std::to_string(i) + ".proof.json"});
      EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    }
  }

  fs::path dir_;
  std::string key_;
  std::vector<pid_t> extra_;
};

TEST_F(FarmTest, JobOnTwoSynthAndTwoProveWorkersCompletesAndVerifies) {
  start(2, 2);
  auto job = submit(10);
  ASSERT_EQ(wait(job), 0);
  expect_done_and_verified(job, 10);
}

TEST_F(FarmTest, KilledSynthAndProveWorkersDoNotLoseOrDuplicatePartitions) {
  start(2, 2);
  auto job = submit(30);
  wait_verified(job, 2);
  kill9("synth-1");
  wait_verified(job, 8);
  kill9("prove-1");
  ASSERT_EQ(wait(job), 0);
  expect_done_and_verified(job, 30);
}

TEST_F(FarmTest, CoordinatorKilledAndRestartedMidJobCompletes) {
  start(2, 2);
  auto job = submit(30);
  wait_verified(job, 3);
  kill9("coordinator");
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  extra_.push_back(spawn_background({zkmill_binary(), "coordinator", "--config", (farm_dir() / "farm.yaml").string()},
                                    farm_dir() / "coordinator.log"));
  ASSERT_EQ(wait(job), 0);
  expect_done_and_verified(job, 30);
}

TEST_F(FarmTest, RedisRestartWithAofLosesNoJob) {
  start(2, 2);
  auto job = submit(30);
  auto other = submit(4, {"--priority", "-5"});
  wait_verified(job, 3);
  const std::string port = slurp(farm_dir() / "redis.port");
  kill9("redis");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  extra_.push_back(spawn_background({"redis-server", "--port", port.substr(0, port.find('\n')), "--bind", "127.0.0.1",
                                     "--dir", (farm_dir() / "redis").string(), "--appendonly", "yes",
                                     "--appendfsync", "always", "--save", ""},
                                    farm_dir() / "redis2.log"));
  ASSERT_EQ(wait(job), 0);
  ASSERT_EQ(wait(other), 0);
  expect_done_and_verified(job, 30);
  expect_done_and_verified(other, 4);
}

TEST_F(FarmTest, IdempotencyKeyGivesOneJobAndCancelStopsWork) {
  start(1, 1);
  auto a = submit(40, {"--idempotency-key", "batch-42"});
  auto b = submit(40, {"--idempotency-key", "batch-42"});
  EXPECT_EQ(a, b);
  wait_verified(a, 1);
  auto r = run_zkmill({"cancel", "--config", client(), a});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // in-flight work finishes and is discarded
  auto s1 = status(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto s2 = status(a);
  EXPECT_EQ(s2["state"], "cancelled");
  EXPECT_EQ(s1["partition_states"], s2["partition_states"]);  // nothing moves any more
  EXPECT_LT(s2["verified"].get<uint64_t>(), 40u);
  for (const auto& p : s2["partition_states"]) EXPECT_TRUE(p["state"] == "verified" || p["state"] == "cancelled") << p;
  EXPECT_NE(run_zkmill({"wait", "--config", client(), a, "--timeout", "5"}).exit_code, 0);
  // The farm still works afterwards.
  auto c = submit(3);
  ASSERT_EQ(wait(c), 0);
}

TEST_F(FarmTest, CorruptBundleAndBadProofAreFailedAttemptsAndTheFarmRecovers) {
  start(0, 0);
  spawn_worker("synth-bad", "synth", "corrupt-bundle-once");
  spawn_worker("prove-bad", "prove", "bad-proof-once");
  auto job = submit(6);
  ASSERT_EQ(wait(job), 0);
  expect_done_and_verified(job, 6);
  auto s = status(job);
  uint64_t attempts = 0;
  for (const auto& p : s["partition_states"]) attempts += p["attempts"].get<uint64_t>();
  EXPECT_GE(attempts, 2u);  // one for the corrupted transfer, one for the rejected proof
  auto log = slurp(farm_dir() / "coordinator.log");
  EXPECT_TRUE(contains(log, "PROOF REJECTED")) << log;
}

}  // namespace
}  // namespace zkmill::test

namespace zkmill::test {
namespace {

// `zkmill demo` runs the farm embedded: Redis, coordinator and workers are started and
// stopped by the command itself, which leaves no redis-server behind.
TEST(EmbeddedFarmDemo, RunsAJobThroughTheFarmAndCleansUp) {
  auto r = run_zkmill({"demo", "--size", "300", "--partitions", "3", "--curve", "bn254", "--synth", "2", "--prove", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "embedded farm with 2 synth + 1 prove")) << r.out;
  EXPECT_TRUE(contains(r.out, "transfer ms")) << r.out;
  EXPECT_TRUE(contains(r.out, "batch verification of 3 proofs")) << r.out;
  EXPECT_TRUE(contains(r.out, "-> verified")) << r.out;
  const std::string pid_line = r.out.substr(r.out.find("redis-server (pid ") + 18);
  const pid_t redis = pid_t(std::stol(pid_line));
  EXPECT_NE(kill(redis, 0), 0) << "redis-server " << redis << " outlived the demo";
  auto nf = run_zkmill({"demo", "--size", "300", "--partitions", "2", "--curve", "bn254", "--no-farm"});
  ASSERT_EQ(nf.exit_code, 0) << nf.err;
  EXPECT_TRUE(contains(nf.out, "-> verified")) << nf.out;
}

TEST(EmbeddedFarmDemo, MissingRedisServerIsExplained) {
  auto r = run_program("env", {"PATH=/nonexistent", zkmill_binary(), "demo", "--size", "300", "--curve", "bn254"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "redis-server was not found")) << r.err;
  EXPECT_TRUE(contains(r.err, "--no-farm")) << r.err;
}

}  // namespace
}  // namespace zkmill::test
