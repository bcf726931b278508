// SPDX-License-Identifier: MIT
// Test support for farms on a replicated Redis reached over loopback TCP (a primary, its
// replica and, for Sentinel tests, a sentinel): real redis-server processes on free ports in a
// scratch directory, the real coordinator(s) and worker, every child with its own log and
// killed (not drained) at the end. Used by redis_failover_test (Sentinel failovers) and
// redis_min_replicas_test (a primary that refuses writes without its replica). Every wait is
// bounded.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/child_processes.hpp"

namespace zkmill::test {

using nlohmann::json;
using namespace std::chrono_literals;

class ReplicatedRedisFarmTest : public ::testing::Test {
 protected:
  // A scratch directory and a `chain` key of `size` constraints in its keys/ folder.
  void make_farm_dir(uint64_t size) {
    dir_ = scratch_dir();
    procs_.set_log_dir(dir_);
    fs::create_directories(dir_ / "keys");
    key_ = (dir_ / "keys" / "chain.key").string();
    auto r = run_zkmill({"setup", "--circuit", "chain", "--size", std::to_string(size), "--curve", "bn254", "--seed",
                         "5", "--out", key_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // redis-server NAME on a loopback port, its files in dir_/NAME, answering PING (bounded).
  void start_redis(const std::string& name, int port, const std::vector<std::string>& extra) {
    fs::create_directories(dir_ / name);
    std::vector<std::string> args{
        "redis-server",        "--port", std::to_string(port), "--bind", "127.0.0.1", "--save", "", "--dir",
        (dir_ / name).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    spawn(name, args);
    ASSERT_TRUE(until(10s, [&] { return cli(port, {"PING"}) == "PONG\n"; })) << log(name);
  }
  static std::vector<std::string> replica_of(int primary) {
    return {"--replicaof", "127.0.0.1", std::to_string(primary)};
  }
  // Timings short enough that a lost worker or lease shows within seconds.
  static std::string coordinator_yaml(int port) {
    return "coordinator:\n  endpoint: tcp://127.0.0.1:" + std::to_string(port) +
           "\n  heartbeat_ms: 200\n  liveness: 10\n  lease_ms: 2000\n  backoff_ms: 50\n  backoff_max_ms: 1000\n"
           "  max_attempts: 20\n";
  }
  std::string worker_yaml() const {
    return "threads: 1\nworker:\n  id: w1\n  key_dir: " + (dir_ / "keys").string() + "\n";
  }

  template <class F>
  static bool until(std::chrono::seconds limit, F f) {
    return eventually(limit, f, 50ms);
  }
  // redis-cli against a loopback port; its raw output.
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

  // `zkmill submit` of n partitions of the key through client_ (optionally idempotent).
  Result submit(uint64_t n, const std::string& idempotency_key = "") {
    std::vector<std::string> args{"submit", "--config", client_, "--key", key_, "--partitions", std::to_string(n)};
    if (!idempotency_key.empty()) args.insert(args.end(), {"--idempotency-key", idempotency_key});
    return run_zkmill(args);
  }
  // A submit that must succeed; the job id.
  std::string submit_job(uint64_t n) {
    auto r = submit(n);
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
  // Until the job has 2 verified proofs, and it must still be running then (so that what the
  // test does next happens mid-job).
  void wait_mid_job(const std::string& job, uint64_t n) {
    ASSERT_TRUE(until(90s, [&] { return verified(job) >= 2; })) << all_logs();
    ASSERT_LT(verified(job), n) << "the job finished before the fault: make it bigger";
  }
  // The job is done with n verified proofs, each partition recorded exactly once, and every
  // proof of `zkmill result` verifies on its own (`zkmill verify` against the verifying key).
  void expect_done_once_each(const std::string& job, uint64_t n) {
    const auto s = status(job);
    ASSERT_FALSE(s.is_null());
    EXPECT_EQ(s["state"], "done") << s.dump() << all_logs();
    EXPECT_EQ(s["verified"].get<uint64_t>(), n) << s.dump();
    for (const auto& p : s["partition_states"])
      EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << "a partition recorded other than once: " << p.dump();
    const auto out = dir_ / ("result-" + job);
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
  // Children still running are killed: a clean shutdown of the servers is not what these
  // tests are about.
  ChildProcesses procs_{{}, ChildProcesses::Teardown::Kill};
};

}  // namespace zkmill::test
