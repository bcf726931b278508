// SPDX-License-Identifier: MIT
// The farm end to end: a private redis-server, the real coordinator and worker processes
// (deploy/local-farm.sh), loopback only; faults are real (kill -9, Redis restart, corrupted
// bundles). Every wait is bounded (`zkmill wait --timeout`).
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "tests/support/fixtures.hpp"
#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;

class FarmTest : public ::testing::Test {
 protected:
  // The farm's key: a small BN254 chain key (400 constraints) that LocalFarm writes.
  FarmTest() : dir_(scratch_dir()), farm_(dir_), key_(farm_.key()) {}

  fs::path farm_dir() const { return farm_.farm_dir(); }
  std::string client() const { return farm_.client(); }
  void start(int synth, int prove) {
    auto r = farm_.start(synth, prove);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  void kill9(const std::string& name) { farm_.kill9(name); }
  pid_t spawn_worker(const std::string& name, const std::string& role, const std::string& fault) {
    return farm_.spawn_worker(name, role, fault);
  }
  std::string submit(uint64_t n, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"submit",       "--config",        client(), "--key", key_,
                                  "--partitions", std::to_string(n), "--seed", "11"};
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
  LocalFarm farm_;
  std::string key_;  // what submit() submits
};

TEST_F(FarmTest, JobOnTwoSynthAndTwoProveWorkersCompletesAndVerifies) {
  start(2, 2);
  auto job = submit(10);
  ASSERT_EQ(wait(job), 0);
  expect_done_and_verified(job, 10);
  // The key's PCE matrices came with it (`zkmill setup` wrote KEY.pce): opened, never recorded.
  const std::string logs = farm_.log("synth-1") + farm_.log("synth-2") + farm_.log("prove-1") + farm_.log("prove-2");
  EXPECT_TRUE(contains(logs, fs::path(key_).filename().string() + ".pce opened")) << logs;
  EXPECT_FALSE(contains(logs, "recording the PCE matrices")) << logs;
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

// The PoRep-shaped circuit through the farm (its smallest size, ~100k constraints a
// partition, mostly-bit witnesses): a synth worker killed (-9) mid-job loses nothing.
TEST_F(FarmTest, PorepJobCompletesWithASynthWorkerKilledMidJob) {
  key_ = (dir_ / "keys" / "porep.key").string();
  // Without KEY.pce: the workers record the matrices on first use, say so first, and write it.
  auto r = run_zkmill(
      {"setup", "--circuit", "porep", "--size", "65536", "--curve", "bn254", "--seed", "7", "--out", key_, "--no-pce"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(fs::exists(key_ + ".pce"));
  start(2, 2);
  auto job = submit(6);
  // Under way (a partition proved; porep proofs take seconds here, so wait longer than
  // wait_verified's 15 s), then kill a synth worker while the rest are in flight.
  bool started = false;
  for (int i = 0; i < 1200 && !started; ++i) {
    auto s = status(job);
    started = !s.is_null() && s["verified"].get<uint64_t>() >= 1;
    if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(started) << "job " << job << " made no progress";
  kill9("synth-1");
  ASSERT_EQ(wait(job), 0);
  expect_done_and_verified(job, 6);
  const std::string logs = farm_.log("synth-1") + farm_.log("synth-2");
  EXPECT_TRUE(contains(logs, "recording the PCE matrices of")) << logs;
  EXPECT_TRUE(fs::exists(key_ + ".pce"));
}

TEST_F(FarmTest, CoordinatorKilledAndRestartedMidJobCompletes) {
  start(2, 2);
  auto job = submit(30);
  wait_verified(job, 3);
  kill9("coordinator");
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  farm_.spawn("coordinator", {zkmill_binary(), "coordinator", "--config", (farm_dir() / "farm.yaml").string()});
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
  farm_.spawn("redis2",
              {"redis-server", "--port", port.substr(0, port.find('\n')), "--bind", "127.0.0.1", "--dir",
               (farm_dir() / "redis").string(), "--appendonly", "yes", "--appendfsync", "always", "--save", ""});
  ASSERT_EQ(wait(job), 0);
  ASSERT_EQ(wait(other), 0);
  expect_done_and_verified(job, 30);
  expect_done_and_verified(other, 4);
}

TEST_F(FarmTest, IdempotencyKeyGivesOneJobAndCancelStopsWork) {
  // A prove worker that takes 3 s a proof (test hook), so the job is still running when it is
  // cancelled however fast synthesis and proving get; a normal one proves the job after.
  start(1, 0);
  spawn_worker("prove-slow", "prove", "slow-prove");
  auto a = submit(40, {"--idempotency-key", "batch-42"});
  auto b = submit(40, {"--idempotency-key", "batch-42"});
  EXPECT_EQ(a, b);
  wait_verified(a, 1);
  auto r = run_zkmill({"cancel", "--config", client(), a});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // In-flight work (a 3 s proof at most) finishes and is discarded.
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  auto s1 = status(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto s2 = status(a);
  EXPECT_EQ(s2["state"], "cancelled");
  EXPECT_EQ(s1["partition_states"], s2["partition_states"]);  // nothing moves any more
  EXPECT_LT(s2["verified"].get<uint64_t>(), 40u);
  for (const auto& p : s2["partition_states"]) EXPECT_TRUE(p["state"] == "verified" || p["state"] == "cancelled") << p;
  EXPECT_NE(run_zkmill({"wait", "--config", client(), a, "--timeout", "5"}).exit_code, 0);
  // The farm still works afterwards.
  spawn_worker("prove-2", "prove", "");
  auto c = submit(3);
  ASSERT_EQ(wait(c), 0);
}

TEST_F(FarmTest, CorruptBundleAndBadProofAreFailedAttemptsAndTheFarmRecovers) {
  start(0, 0);
  spawn_worker("synth-bad", "synth", "corrupt-bundle-once");
  spawn_worker("prove-bad", "prove", "bad-proof-once");
  auto job = submit(6);
  // The wrong proof quarantines prove-bad (it gets no more work): an honest prover finishes.
  for (int i = 0; i < 600 && !contains(slurp(farm_dir() / "coordinator.log"), "worker prove-bad QUARANTINED"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(contains(slurp(farm_dir() / "coordinator.log"), "worker prove-bad QUARANTINED"))
      << slurp(farm_dir() / "coordinator.log");
  spawn_worker("prove-good", "prove", "");
  ASSERT_EQ(wait(job), 0);
  expect_done_and_verified(job, 6);
  auto s = status(job);
  uint64_t attempts = 0;
  for (const auto& p : s["partition_states"]) attempts += p["attempts"].get<uint64_t>();
  EXPECT_GE(attempts, 2u);  // one for the corrupted transfer, one for the rejected proof
  auto log = slurp(farm_dir() / "coordinator.log");
  EXPECT_TRUE(contains(log, "PROOF REJECTED")) << log;
}

// circom/snarkjs circuits through the farm: the committed multiplier fixture's .zkey (and its
// .r1cs, so unsatisfied witnesses are named) in the workers' key directory, witnesses made at
// test time by circom2 + `snarkjs wtns calculate`, and every proof checked by snarkjs itself.
class ZkeyFarmTest : public FarmTest, public ::testing::WithParamInterface<const char*> {
 protected:
  static std::string nm() { return std::string(ZKMILL_SOURCE_DIR) + "/tests/interop/node_modules"; }
  static std::string fixture(const std::string& curve, const std::string& file) {
    return interop_fixture_dir(curve) + file;
  }
  std::string curve() const { return GetParam(); }
  std::string other_curve() const { return curve() == "bn128" ? "bls12381" : "bn128"; }
  void SetUp() override {
    if (!fs::exists(nm() + "/snarkjs/cli.js") || !fs::exists(nm() + "/circom2/cli.js")) {
      if (std::getenv("CI")) ADD_FAILURE() << "snarkjs/circom2 missing under " << nm() << ": run ./scripts/setup.sh";
      GTEST_SKIP() << "snarkjs/circom2 not installed";
    }
    FarmTest::SetUp();
    zkey_ = (dir_ / "keys" / "multiplier.zkey").string();
    fs::copy_file(fixture(curve(), "multiplier.zkey"), zkey_);
    fs::copy_file(fixture(curve(), "multiplier.r1cs"), dir_ / "keys" / "multiplier.r1cs");
  }
  Result node(const std::string& cli, std::vector<std::string> args) {
    args.insert(args.begin(), nm() + "/" + cli);
    return run_program("node", args);
  }
  // A witness of the multiplier circuit for inputs (a, b), by the circuit's own wasm.
  std::string make_witness(uint64_t a, uint64_t b) {
    const fs::path wasm = dir_ / "circ" / "multiplier_js" / "multiplier.wasm";
    if (!fs::exists(wasm)) {
      fs::create_directories(dir_ / "circ");  // circom wants an existing output directory
      auto r = node("circom2/cli.js", {std::string(ZKMILL_SOURCE_DIR) + "/tests/interop/circuits/multiplier.circom",
                                       "--wasm", "--prime", curve(), "-l", nm(), "-o", (dir_ / "circ").string()});
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    }
    const std::string tag = std::to_string(a) + "_" + std::to_string(b);
    const fs::path in = dir_ / ("in_" + tag + ".json"), out = dir_ / ("w_" + tag + ".wtns");
    std::ofstream(in) << json{{"a", std::to_string(a)}, {"b", std::to_string(b)}}.dump();
    auto r = node("snarkjs/cli.js", {"wtns", "calculate", wasm.string(), in.string(), out.string()});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return out.string();
  }
  Result submit_zkey(const std::vector<std::string>& witnesses, const std::string& config = "") {
    std::vector<std::string> args{"submit", "--config", config.empty() ? client() : config, "--zkey", zkey_};
    for (const auto& w : witnesses) args.insert(args.end(), {"--witness", w});
    return run_zkmill(args);
  }
  static std::string id_of(std::string out) {
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  std::string redis_keys(const std::string& pattern) {
    const std::string port = slurp(farm_dir() / "redis.port");
    return run_program("redis-cli", {"-p", port.substr(0, port.find('\n')), "--scan", "--pattern", pattern}).out;
  }

  std::string zkey_;
};

TEST_P(ZkeyFarmTest, JobOfFiveWitnessesOnTwoSynthAndTwoProveWorkersPassesSnarkjsVerify) {
  const std::vector<std::pair<uint64_t, uint64_t>> inputs = {{3, 11}, {5, 7}, {2, 9}, {13, 4}, {1, 1}};
  std::vector<std::string> witnesses{fixture(curve(), "multiplier.wtns")};  // the committed (3, 11)
  for (size_t i = 1; i < inputs.size(); ++i) witnesses.push_back(make_witness(inputs[i].first, inputs[i].second));
  start(2, 2);
  auto sub = submit_zkey(witnesses);
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  const std::string job = id_of(sub.out);
  ASSERT_EQ(wait(job), 0);
  auto s = status(job);
  EXPECT_EQ(s["state"], "done");
  EXPECT_EQ(s["kind"], "zkey");
  EXPECT_EQ(s["verified"].get<uint64_t>(), inputs.size());
  const std::string out = (dir_ / "out").string();
  auto r = run_zkmill({"result", "--config", client(), job, "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t proof_bytes = curve() == "bn128" ? 256 : 192;  // EVM uncompressed / zcash compressed
  EXPECT_EQ(fs::file_size(fs::path(out) / "proofs.bin"), inputs.size() * proof_bytes);
  const std::string vk = fixture(curve(), "multiplier.vk.json");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string base = out + "/partition-" + std::to_string(i);
    // Partition i proves witness i: public signals [out = a^8 b, a, b].
    auto pub = json::parse(slurp(base + ".public.json"));
    const auto [a, b] = inputs[i];
    uint64_t prod = b;
    for (int k = 0; k < 8; ++k) prod *= a;
    EXPECT_EQ(pub, json({std::to_string(prod), std::to_string(a), std::to_string(b)})) << "partition " << i;
    auto v = node("snarkjs/cli.js", {"groth16", "verify", vk, base + ".public.json", base + ".proof.json"});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    EXPECT_TRUE(contains(v.out, "OK")) << "partition " << i << ": " << v.out << v.err;
  }
  // Negative check: snarkjs rejects the proof against a tampered public signal.
  auto pub = json::parse(slurp(out + "/partition-1.public.json"));
  pub[1] = "6";
  std::ofstream(dir_ / "bad.public.json") << pub.dump();
  auto bad = node("snarkjs/cli.js",
                  {"groth16", "verify", vk, (dir_ / "bad.public.json").string(), out + "/partition-1.proof.json"});
  EXPECT_TRUE(contains(bad.out + bad.err, "Invalid proof")) << bad.out << bad.err;
  EXPECT_FALSE(contains(bad.out, "OK!")) << bad.out;
  // The job is final and its results are written: its witnesses are gone from Redis.
  EXPECT_EQ(redis_keys("zk:wtns:*"), "");
  EXPECT_EQ(redis_keys("zk:stage:*"), "");
}

TEST_P(ZkeyFarmTest, SubmitRefusesTruncatedOtherCurveWrongSizeAndOversizeWitnesses) {
  start(0, 0);
  const std::string good = fixture(curve(), "multiplier.wtns");
  const std::string bytes = slurp(good);
  const fs::path truncated = dir_ / "truncated.wtns";
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() - 40);
  const fs::path big = dir_ / "big.wtns";
  std::ofstream(big, std::ios::binary) << std::string((1 << 20) + 4096, 'x');
  const std::string small_limit = (farm_dir() / "small-limit.yaml").string();
  std::ofstream(small_limit) << slurp(client()) << "  max_witness_mb: 1\n";  // client.yaml ends in `coordinator:`
  const std::string other_name = curve() == "bn128" ? "bls12-381" : "bn254";
  struct Case {
    std::string witness, config, message;
  } cases[] = {
      {truncated.string(), "", "truncated"},
      {fixture(other_curve(), "multiplier.wtns"), "", "is a " + other_name + " witness, but the zkey"},
      {fixture(curve(), "hashchain.wtns"), "", "expects nVars = "},
      {big.string(), small_limit, "exceeds the limit of 1 MiB (coordinator.max_witness_mb)"},
  };
  for (const auto& c : cases) {
    auto r = submit_zkey({good, c.witness}, c.config);
    EXPECT_NE(r.exit_code, 0) << c.witness;
    EXPECT_TRUE(contains(r.err, c.message)) << c.witness << ": " << r.err;
    EXPECT_TRUE(contains(r.err, c.witness)) << "the message names the file: " << r.err;
    EXPECT_EQ(r.out, "") << "no job id printed";
  }
  // Nothing was queued or staged: no job, and no key in Redis but the coordinator's own report.
  auto r = run_zkmill({"status", "--config", client(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json farm = json::parse(r.out);
  EXPECT_EQ(farm["recent_jobs"], json::array()) << farm.dump();
  for (const auto& [state, n] : farm["jobs"].items()) EXPECT_EQ(n, 0) << state;
  // (and its lease, one coordinator per farm, with the lease's tenure history)
  const std::string keys = redis_keys("zk:*");
  std::set<std::string> seen;
  for (size_t at = 0, nl; (nl = keys.find('\n', at)) != std::string::npos; at = nl + 1)
    seen.insert(keys.substr(at, nl - at));
  EXPECT_EQ(seen, (std::set<std::string>{"zk:coordinator", "zk:lease:coordinator", "zk:lease:history"})) << keys;
}

TEST_P(ZkeyFarmTest, UnsatisfiedWitnessFailsTheJobNamingTheConstraintWithoutAProof) {
  // Flip witness value 4 (t[0] = a b = 33) to 34: canonical, well-formed, but wrong. The
  // values start after the header section: 12 (file) + 12 + 4 + 32 + 4 (section 1) + 12.
  std::string bytes = slurp(fixture(curve(), "multiplier.wtns"));
  const size_t value4 = 76 + 4 * 32;
  ASSERT_EQ(uint8_t(bytes[value4]), 33u);
  bytes[value4] = 34;
  const fs::path bad = dir_ / "unsatisfied.wtns";
  std::ofstream(bad, std::ios::binary) << bytes;
  start(1, 1);
  auto sub = submit_zkey({fixture(curve(), "multiplier.wtns"), bad.string()});
  ASSERT_EQ(sub.exit_code, 0) << "not detectable cheaply at submit (needs the .r1cs): " << sub.err;
  const std::string job = id_of(sub.out);
  auto w = run_zkmill({"wait", "--config", client(), job, "--timeout", "60"});
  EXPECT_EQ(w.exit_code, 1) << w.err;
  auto s = status(job);
  EXPECT_EQ(s["state"], "failed");
  EXPECT_TRUE(contains(s["error"].get<std::string>(), "partition 1 failed after 1 attempts")) << s.dump();
  const auto& p1 = s["partition_states"][1];
  EXPECT_NE(p1["state"], "verified");
  EXPECT_EQ(p1["attempts"].get<uint64_t>(), 1u) << "an unsatisfied witness is not retried";
  EXPECT_TRUE(contains(p1["error"].get<std::string>(), "does not satisfy the circuit: constraint 0 of multiplier.r1cs"))
      << p1.dump();
  EXPECT_NE(run_zkmill({"result", "--config", client(), job, "--out", (dir_ / "out").string()}).exit_code, 0);
  EXPECT_EQ(redis_keys("zk:wtns:*"), "") << "a failed job's witnesses are dropped too";
}

// Without the .r1cs beside the key the worker cannot name the constraint, but the bad
// witness's proof fails the prover's self-check on every attempt: the job fails after
// max_attempts with that error, and no proof is ever recorded.
TEST_P(ZkeyFarmTest, UnsatisfiedWitnessWithoutR1csFailsEveryAttemptAndNeverVerifies) {
  fs::remove(dir_ / "keys" / "multiplier.r1cs");
  std::string bytes = slurp(fixture(curve(), "multiplier.wtns"));
  bytes[76 + 4 * 32] ^= 1;  // t[0] = 33 -> 32
  const fs::path bad = dir_ / "unsatisfied.wtns";
  std::ofstream(bad, std::ios::binary) << bytes;
  start(1, 1);
  auto sub = submit_zkey({bad.string()});
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  const std::string job = id_of(sub.out);
  auto w = run_zkmill({"wait", "--config", client(), job, "--timeout", "90"});
  EXPECT_EQ(w.exit_code, 1) << w.err;
  auto s = status(job);
  EXPECT_EQ(s["state"], "failed");
  EXPECT_EQ(s["verified"].get<uint64_t>(), 0u);
  const auto& p0 = s["partition_states"][0];
  EXPECT_EQ(p0["attempts"].get<uint64_t>(), 5u) << "coordinator.max_attempts (default 5)";
  EXPECT_EQ(p0["recorded"].get<uint64_t>(), 0u);
  EXPECT_TRUE(contains(p0["error"].get<std::string>(), "does not verify against the key's verifying key")) << p0.dump();
}

// Accepted witnesses live in Redis, not in the coordinator: killed (-9) and restarted
// mid-job, it still finds every partition's witness and the job completes. No prove worker
// runs until the restart, so the job is certainly mid-way when the coordinator dies (with one
// running, 12 tiny partitions could all be proved before the kill).
TEST_P(ZkeyFarmTest, CoordinatorKilledMidJobStillFindsTheWitnesses) {
  const std::vector<std::string> witnesses(12, fixture(curve(), "multiplier.wtns"));
  start(1, 0);
  auto sub = submit_zkey(witnesses);
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  const std::string job = id_of(sub.out);
  // Mid-job: a partition already checked by the synth worker (its bundle held there).
  bool synthesized = false;
  for (int i = 0; i < 300 && !synthesized; ++i) {
    synthesized = status(job)["counts"].value("synthesized", 0) > 0;
    if (!synthesized) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(synthesized) << status(job).dump();
  kill9("coordinator");
  EXPECT_NE(redis_keys("zk:wtns:" + job + ":*"), "") << "the unfinished partitions' witnesses are in Redis";
  farm_.spawn("coordinator", {zkmill_binary(), "coordinator", "--config", (farm_dir() / "farm.yaml").string()});
  farm_.spawn_worker("prove-late", "prove", "");
  ASSERT_EQ(wait(job), 0);
  auto s = status(job);
  EXPECT_EQ(s["verified"].get<uint64_t>(), witnesses.size());
  for (const auto& p : s["partition_states"]) EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << p.dump();
  EXPECT_EQ(redis_keys("zk:wtns:*"), "");
}

INSTANTIATE_TEST_SUITE_P(Curves, ZkeyFarmTest, ::testing::Values("bn128", "bls12381"));

}  // namespace
}  // namespace zkmill::test

namespace zkmill::test {
namespace {

// `zkmill demo` runs the farm embedded: Redis, coordinator and workers are started and
// stopped by the command itself, which leaves no redis-server behind.
TEST(EmbeddedFarmDemo, RunsAJobThroughTheFarmAndCleansUp) {
  auto r =
      run_zkmill({"demo", "--size", "300", "--partitions", "3", "--curve", "bn254", "--synth", "2", "--prove", "1"});
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
