// SPDX-License-Identifier: MIT
// Test support for whole-farm tests that build the farm piece by piece: a private redis-server
// (unix socket in a scratch dir, optionally with an ACL user), the real coordinator and worker
// processes, each a child of the test with its own log, stopped in TearDown (workers first).
// Used by farm_security_test (CURVE, ACLs, drain, GPUs) and farm_integrity_test (hostile
// peers, quarantine, the coordinator lease). Every wait is bounded.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/child_processes.hpp"
#include "tests/support/tls_redis.hpp"

namespace zkmill::test {

using nlohmann::json;
using namespace std::chrono_literals;

// Debian's libfaketime (scripts/setup.sh installs the faketime package), the build for
// multi-threaded programs. faketime_prefix(offset) is what runs a child with its clock shifted
// by `offset` ("+7200s", "-3600s"): `env` execs it, so the pid is the child's own.
constexpr const char* kFaketimeLib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
inline std::vector<std::string> faketime_prefix(const std::string& offset) {
  return {"env", std::string("LD_PRELOAD=") + kFaketimeLib, "FAKETIME=" + offset};
}

class FarmProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    procs_.set_log_dir(dir_);
    fs::create_directories(dir_ / "keys");
    fs::create_directories(dir_ / "curve");
    key_ = (dir_ / "keys" / "chain.key").string();
    auto r =
        run_zkmill({"setup", "--circuit", "chain", "--size", "400", "--curve", "bn254", "--seed", "7", "--out", key_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    coordinator_port_ = free_port();
  }
  // Workers first (SIGTERM drains them), then the coordinator, then Redis.
  void TearDown() override { procs_.stop_all(); }

  // SIGTERM, up to 10 s, then SIGKILL; returns the exit code (or 128 + signal). The child is
  // forgotten, so TearDown never signals its (possibly reused) pid.
  int stop(pid_t p) { return procs_.stop(p); }
  // Waits (bounded) for a child to exit by itself; -1 if it did not.
  int wait_exit(pid_t p, std::chrono::seconds limit) { return procs_.wait_exit(p, limit); }
  pid_t spawn(const std::string& name, const std::vector<std::string>& args) { return procs_.spawn(name, args); }
  fs::path log_path(const std::string& name) const { return procs_.log_path(name); }
  std::string log(const std::string& name) const { return procs_.log(name); }
  std::string all_logs() const { return procs_.all_logs(); }

  // Redis on a unix socket in the scratch dir; with `user`, the default user is switched off
  // and only `user`/`password` may connect (limited to the farm's zk: keys and channels).
  void start_redis(const std::string& user = "", const std::string& password = "") {
    redis_socket_ = zkmill::test::start_redis(procs_, "redis", user, password);
    ASSERT_FALSE(redis_socket_.empty());
    redis_user_ = user;
    redis_password_ = password;
  }
  // Redis with TLS on a loopback port (a CA of the test's, client certificates asked for): the
  // farm's configs connect over TLS (redis_yaml), redis-cli over the plain unix socket.
  void start_tls_redis() {
    tls_files_ = make_tls_files(dir_, "farm");
    const TlsRedis r = zkmill::test::start_tls_redis(procs_, tls_files_);
    ASSERT_NE(r.port, 0);
    redis_socket_ = r.socket;
    redis_tls_port_ = r.port;
  }
  // The redis section over TLS with these files (the test's own by default).
  std::string redis_tls_yaml(const std::string& ca, const std::string& cert, const std::string& key) const {
    std::string y =
        "redis:\n  host: 127.0.0.1\n  port: " + std::to_string(redis_tls_port_) + "\n  tls_ca: " + ca + "\n";
    if (!cert.empty()) y += "  tls_cert: " + cert + "\n  tls_key: " + key + "\n";
    return y;
  }
  // redis-cli against the test's Redis; its output without the trailing newlines.
  std::string redis_cli(const std::vector<std::string>& args) {
    std::vector<std::string> a{"-s", redis_socket_};
    if (!redis_user_.empty())
      a.insert(a.end(), {"--user", redis_user_, "--pass", redis_password_, "--no-auth-warning"});
    a.insert(a.end(), args.begin(), args.end());
    auto r = run_program("redis-cli", a);
    std::string out = r.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  std::string redis_yaml(const std::string& password_override = "") const {
    if (redis_tls_port_) return redis_tls_yaml(tls_files_.ca, tls_files_.client_cert, tls_files_.client_key);
    std::string y = "redis:\n  unix_socket: " + redis_socket_ + "\n";
    if (!redis_user_.empty())
      y += "  user: " + redis_user_ +
           "\n  password: " + (password_override.empty() ? redis_password_ : password_override) + "\n";
    return y;
  }
  std::string coordinator_yaml() const {
    return "coordinator:\n  endpoint: tcp://127.0.0.1:" + std::to_string(coordinator_port_) +
           "\n  heartbeat_ms: 200\n  liveness: 10\n  lease_ms: 2000\n  backoff_ms: 50\n  backoff_max_ms: 1000\n  "
           "max_attempts: 50\n";
  }
  std::string write_config(const std::string& name, const std::string& text) const {
    const auto p = dir_ / (name + ".yaml");
    std::ofstream(p) << text;
    return p.string();
  }
  std::string client() const { return write_config("client", redis_yaml()); }

  // `zkmill keygen --out curve/NAME`; returns the public key it printed.
  std::string keygen(const std::string& name) {
    auto r = run_zkmill({"keygen", "--out", (dir_ / "curve" / name).string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string pub = r.out.substr(0, r.out.find('\n'));
    EXPECT_EQ(pub.size(), 40u) << r.out;
    EXPECT_EQ(slurp(dir_ / "curve" / (name + ".pub")), pub + "\n");
    return pub;
  }
  std::string curve_yaml(const std::string& name, const std::string& allowed = "allowed") const {
    const auto k = dir_ / "curve";
    return "zmq:\n  curve: true\n  key_file: " + (k / (name + ".key")).string() +
           "\n  coordinator_public_key_file: " + (k / "coordinator.pub").string() +
           "\n  allowed_keys_file: " + (k / allowed).string() + "\n";
  }

  pid_t start_coordinator(const std::string& zmq_yaml) {
    auto cfg = write_config("coordinator", redis_yaml() + coordinator_yaml() + zmq_yaml);
    return spawn("coordinator", {zkmill_binary(), "coordinator", "--config", cfg});
  }
  std::string endpoint() const { return "tcp://127.0.0.1:" + std::to_string(coordinator_port_); }
  pid_t start_worker(const std::string& name, const std::string& role, const std::string& zmq_yaml,
                     const std::vector<std::string>& extra = {}) {
    auto cfg = write_config(name, redis_yaml() + coordinator_yaml() + zmq_yaml + "worker:\n  id: " + name +
                                      "\n  key_dir: " + (dir_ / "keys").string() + "\n");
    std::vector<std::string> args{zkmill_binary(), "worker", "--config", cfg, "--role", role};
    args.insert(args.end(), extra.begin(), extra.end());
    return spawn(name, args);
  }
  // The smallest whole farm without CURVE: the coordinator, synth-1 and prove-1, registered.
  void start_plain_farm() {
    start_coordinator("");
    start_worker("synth-1", "synth", "");
    start_worker("prove-1", "prove", "");
    wait_registered(2);
  }
  // Until the coordinator has registered `n` workers (bounded).
  void wait_registered(size_t n) {
    for (int i = 0; i < 500 && count_of(log("coordinator"), "registered (role") < n; ++i)
      std::this_thread::sleep_for(20ms);
    ASSERT_GE(count_of(log("coordinator"), "registered (role"), n) << all_logs();
  }

  // Another proving key in the workers' key directory (start workers after this).
  std::string make_key(const std::string& name, uint64_t size) {
    const auto path = (dir_ / "keys" / (name + ".key")).string();
    auto r = run_zkmill({"setup", "--circuit", "chain", "--size", std::to_string(size), "--curve", "bn254", "--seed",
                         "3", "--out", path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return path;
  }
  std::string submit(uint64_t n, const std::string& key = "", uint64_t seed = 11) {
    auto r = run_zkmill({"submit", "--config", client(), "--key", key.empty() ? key_ : key, "--partitions",
                         std::to_string(n), "--seed", std::to_string(seed)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  json status(const std::string& job) {
    auto r = run_zkmill({"status", "--config", client(), job, "--json"});
    return r.exit_code == 0 ? json::parse(r.out) : json(nullptr);
  }
  void wait_verified(const std::string& job, uint64_t n) {
    for (int i = 0; i < 600; ++i) {
      auto s = status(job);
      if (!s.is_null() && s["verified"].get<uint64_t>() >= n) return;
      std::this_thread::sleep_for(50ms);
    }
    FAIL() << "job " << job << " made no progress\n" << all_logs();
  }
  // Done within 120 s, each partition recorded once, and the proofs verify on their own
  // (snarkjs-format files checked by `zkmill verify` against the verifying key).
  void expect_done_and_verified(const std::string& job, uint64_t n, const std::string& key = "") {
    auto w = run_zkmill({"wait", "--config", client(), job, "--timeout", "120"});
    ASSERT_EQ(w.exit_code, 0) << w.err << all_logs();
    auto s = status(job);
    ASSERT_FALSE(s.is_null());
    EXPECT_EQ(s["state"], "done");
    EXPECT_EQ(s["verified"].get<uint64_t>(), n);
    const auto out = (dir_ / ("out-" + job)).string();
    auto r = run_zkmill({"result", "--config", client(), job, "--out", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (uint64_t i = 0; i < n; ++i) {
      auto v = run_zkmill({"verify", (key.empty() ? key_ : key) + ".vk.json",
                           out + "/partition-" + std::to_string(i) + ".public.json",
                           out + "/partition-" + std::to_string(i) + ".proof.json"});
      EXPECT_EQ(v.exit_code, 0) << "partition " << i << ": " << v.out << v.err;
    }
  }
  // Until `zkmill status --workers` lists `n` workers (it is refreshed every heartbeat).
  json wait_workers(size_t n) {
    json ws;
    for (int i = 0; i < 250; ++i) {
      ws = workers();
      if (ws.size() == n) break;
      std::this_thread::sleep_for(20ms);
    }
    EXPECT_EQ(ws.size(), n) << ws.dump();
    return ws;
  }
  json workers() {
    auto r = run_zkmill({"status", "--config", client(), "--workers", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out) : json::array();
  }

  fs::path dir_;
  std::string key_, redis_socket_, redis_user_, redis_password_;
  TlsFiles tls_files_;
  int redis_tls_port_ = 0;  // set by start_tls_redis
  int coordinator_port_ = 0;
  ChildProcesses procs_;  // in start order
};

}  // namespace zkmill::test
