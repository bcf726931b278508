// SPDX-License-Identifier: MIT
// Test support for farm tests: one farm started by deploy/local-farm.sh in a scratch directory
// (real redis-server, coordinator and worker processes on loopback), driven through the
// script and the zkmill CLI; stopped by the destructor. Every wait is bounded.
#pragma once

#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/child_processes.hpp"

namespace zkmill::test {

class LocalFarm {
 public:
  // Writes a small BN254 chain key (400 constraints) into DIR/keys.
  explicit LocalFarm(fs::path dir) : dir_(std::move(dir)), extra_(farm_dir(), ChildProcesses::Teardown::Kill) {
    fs::create_directories(dir_ / "keys");
    key_ = (dir_ / "keys" / "chain.key").string();
    auto r =
        run_zkmill({"setup", "--circuit", "chain", "--size", "400", "--curve", "bn254", "--seed", "7", "--out", key_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  ~LocalFarm() {
    extra_.stop_all();
    script({"stop"});
  }
  LocalFarm(const LocalFarm&) = delete;
  LocalFarm& operator=(const LocalFarm&) = delete;

  static std::string script_path() { return std::string(ZKMILL_SOURCE_DIR) + "/deploy/local-farm.sh"; }
  // Runs `local-farm.sh CMD --dir DIR ARGS...`.
  Result script(const std::vector<std::string>& args) const {
    std::vector<std::string> a{script_path(), args.at(0), "--dir", farm_dir().string()};
    a.insert(a.end(), args.begin() + 1, args.end());
    return run_program("bash", a);
  }
  // `settings`: SECTION.KEY=VALUE config settings, each passed as local-farm.sh's --set.
  Result start(int synth, int prove, const std::vector<std::string>& settings = {}) const {
    std::vector<std::string> a{"start",
                               "--keys",
                               (dir_ / "keys").string(),
                               "--synth",
                               std::to_string(synth),
                               "--prove",
                               std::to_string(prove),
                               "--bin",
                               zkmill_binary()};
    for (const auto& s : settings) a.insert(a.end(), {"--set", s});
    return script(a);
  }
  Result scale(int synth, int prove) const {
    return script({"scale", "--synth", std::to_string(synth), "--prove", std::to_string(prove)});
  }

  fs::path farm_dir() const { return dir_ / "farm"; }
  const std::string& key() const { return key_; }
  std::string client() const { return (farm_dir() / "client.yaml").string(); }
  std::string log(const std::string& name) const { return slurp(farm_dir() / (name + ".log")); }
  int metrics_port() const { return std::stoi(slurp(farm_dir() / "metrics.port")); }

  // A process outside the script's bookkeeping (a restarted coordinator or Redis), its output
  // appended to NAME.log in the farm's directory, killed at the end.
  pid_t spawn(const std::string& name, const std::vector<std::string>& args) { return extra_.spawn(name, args); }
  // The pid the script recorded for one of its processes (NAME.pid).
  pid_t pid_of(const std::string& name) const { return pid_t(std::stol(slurp(farm_dir() / (name + ".pid")))); }
  // kill -9 of one of the script's processes; it is not our child, so this waits (bounded)
  // until it is gone.
  void kill9(const std::string& name) {
    const pid_t p = pid_of(name);
    ASSERT_EQ(kill(p, SIGKILL), 0) << name;
    zkmill::test::eventually(std::chrono::seconds(2), [&] { return process_exited(p); });
  }

  // A worker outside the script's bookkeeping (with a --inject-fault), killed at the end.
  // `worker_lines`: more keys of its worker section, indented ("  prefetch: 2\n").
  pid_t spawn_worker(const std::string& name, const std::string& role, const std::string& fault,
                     const std::string& worker_lines = "") {
    std::ofstream(farm_dir() / (name + ".yaml")) << slurp(farm_dir() / "farm.yaml") << "worker:\n  id: " << name
                                                 << "\n  key_dir: " << (dir_ / "keys").string() << "\n"
                                                 << worker_lines;
    std::vector<std::string> args{zkmill_binary(), "worker", "--config", (farm_dir() / (name + ".yaml")).string(),
                                  "--role",        role};
    if (!fault.empty()) args.insert(args.end(), {"--inject-fault", fault});
    return spawn(name, args);
  }
  // A spawn_worker process's exit code (128 + signal if killed), once it exits within `limit`;
  // -1 while it still runs.
  int wait_exit(pid_t pid, std::chrono::milliseconds limit) { return extra_.wait_exit(pid, limit); }

  std::string submit(uint64_t partitions) const {
    auto r = run_zkmill(
        {"submit", "--config", client(), "--key", key_, "--partitions", std::to_string(partitions), "--seed", "11"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out;
    while (!id.empty() && id.back() == '\n') id.pop_back();
    return id;
  }
  // `zkmill status [JOB] --json`; null when the command fails.
  nlohmann::json status(const std::string& job = "") const {
    std::vector<std::string> args{"status", "--config", client(), "--json"};
    if (!job.empty()) args.push_back(job);
    auto r = run_zkmill(args);
    if (r.exit_code != 0) return nullptr;
    return nlohmann::json::parse(r.out);
  }
  int wait(const std::string& job) const {
    auto r = run_zkmill({"wait", "--config", client(), job, "--timeout", "120", "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r.err << "\n" << log("coordinator");
    return r.exit_code;
  }
  // Polls (bounded, ~15 s) until `pred` holds; false if it never did.
  template <class Pred>
  static bool eventually(Pred pred) {
    return zkmill::test::eventually(std::chrono::seconds(15), pred, std::chrono::milliseconds(50));
  }

 private:
  fs::path dir_;
  std::string key_;
  ChildProcesses extra_;  // processes outside the script's bookkeeping
};

}  // namespace zkmill::test
