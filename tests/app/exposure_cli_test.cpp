// SPDX-License-Identifier: MIT
// `zkmill coordinator` and `zkmill worker` refuse plaintext ZeroMQ beyond loopback at config
// validation, before they bind or connect anything (farm::check_exposure), and start with a
// logged warning when zmq.insecure is set. Only binds are exposed here (0.0.0.0, *), and Redis
// is a closed loopback port, so a broken check cannot send traffic anywhere: it would show as
// the process getting past validation (a "redis unavailable" line, and `timeout` ending it).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/process.hpp"

namespace zkmill::test {
namespace {
namespace fs = std::filesystem;

fs::path write_config(const std::string& name, const std::string& text) {
  const fs::path p = scratch_dir() / name;
  std::ofstream(p) << "redis:\n  port: 1\n  connect_timeout_ms: 100\n" << text;
  return p;
}

// At most `seconds`: `timeout` exits 124 if zkmill is still running then.
Result run_bounded(int seconds, const std::vector<std::string>& args) {
  std::vector<std::string> a{std::to_string(seconds), zkmill_binary()};
  a.insert(a.end(), args.begin(), args.end());
  return run_program("timeout", a);
}

TEST(ExposureCli, CoordinatorBoundToAllInterfacesWithoutCurveRefusesToStart) {
  const fs::path cfg = write_config("open.yaml", "coordinator:\n  bind: tcp://0.0.0.0:0\n");
  const Result r = run_bounded(20, {"coordinator", "--config", cfg.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, cfg.string() + ": key 'coordinator.bind' is tcp://0.0.0.0:0")) << r.err;
  EXPECT_FALSE(contains(r.err, "redis unavailable")) << "it tried Redis before refusing: " << r.err;
}

TEST(ExposureCli, SynthWorkerServingBundlesToAllInterfacesRefusesToStart) {
  const fs::path cfg =
      write_config("open.yaml", "coordinator:\n  endpoint: tcp://127.0.0.1:1\nworker:\n  bundle_bind: tcp://*:0\n");
  const Result r = run_bounded(20, {"worker", "--role", "synth", "--config", cfg.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "key 'worker.bundle_bind' is tcp://*:0")) << r.err;
  EXPECT_FALSE(contains(r.err, "role synth, coordinator")) << "the worker started: " << r.err;
}

TEST(ExposureCli, InsecureStartsWithAWarning) {
  const fs::path cfg = write_config("insecure.yaml", "coordinator:\n  bind: tcp://0.0.0.0:0\nzmq:\n  insecure: true\n");
  const Result r = run_bounded(3, {"coordinator", "--config", cfg.string()});
  EXPECT_EQ(r.exit_code, 124) << "it should run (and wait for Redis) until timeout ends it: " << r.err;
  EXPECT_TRUE(contains(r.err, "INSECURE: 'coordinator.bind' is tcp://0.0.0.0:0")) << r.err;
  EXPECT_TRUE(contains(r.err, "redis unavailable")) << r.err;
}

}  // namespace
}  // namespace zkmill::test
