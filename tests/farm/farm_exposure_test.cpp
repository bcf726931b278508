// SPDX-License-Identifier: MIT
// Refusing unsafe exposure (farm::check_exposure): a coordinator or worker that would speak
// plaintext ZeroMQ beyond loopback stops at config validation unless zmq.insecure is set.
// What counts as loopback is is_loopback_endpoint's table below.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "farm/farm_config.hpp"

namespace zkmill::test {
using namespace zkmill::farm;
namespace {

TEST(FarmExposure, LoopbackEndpoints) {
  for (const char* ok :
       {"tcp://127.0.0.1:7710", "tcp://127.8.9.10:0", "tcp://localhost:7710", "tcp://lo:7710", "tcp://[::1]:7710",
        "tcp://[::ffff:127.0.0.1]:7710", "ipc:///run/zkmill.sock", "inproc://farm", "tcp://10.0.0.5:0;127.0.0.1:7710"})
    EXPECT_TRUE(is_loopback_endpoint(ok)) << ok;
  for (const char* exposed :
       {"tcp://0.0.0.0:7710", "tcp://*:7710", "tcp://10.77.0.3:7710", "tcp://eth0:7710", "tcp://[::]:7710",
        "tcp://farm.example.org:7710", "tcp://128.0.0.1:7710", "tcp://127.0.0.1.example.org:7710",
        "tcp://127.0.0.1:0;10.0.0.5:7710", "tcp://[fe80::1]:7710", "tcp://7710", "udp://127.0.0.1:7710"})
    EXPECT_FALSE(is_loopback_endpoint(exposed)) << exposed;
}

std::string refusal(const std::string& yaml, FarmRole role, bool serves_bundles) {
  try {
    check_exposure(parse_farm_config(yaml, "farm.yaml"), role, serves_bundles);
  } catch (const util::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FarmExposure, DefaultsAreLoopbackAndAccepted) {
  EXPECT_EQ(refusal("", FarmRole::kCoordinator, false), "");
  EXPECT_EQ(refusal("", FarmRole::kWorker, true), "");
}

TEST(FarmExposure, CoordinatorBoundBeyondLoopbackWithoutCurveIsRefused) {
  const std::string e = refusal("coordinator:\n  bind: tcp://0.0.0.0:7710\n", FarmRole::kCoordinator, false);
  EXPECT_NE(e.find("farm.yaml: key 'coordinator.bind' is tcp://0.0.0.0:7710"), std::string::npos) << e;
  EXPECT_NE(e.find("zmq.curve is off"), std::string::npos) << e;
  EXPECT_NE(e.find("zmq.insecure: true"), std::string::npos) << e;
  // The endpoint alone (bind defaults to it) counts the same.
  EXPECT_NE(refusal("coordinator:\n  endpoint: tcp://10.1.2.3:7710\n", FarmRole::kCoordinator, false), "");
}

TEST(FarmExposure, WorkerChecksItsCoordinatorLinkAndItsBundleServer) {
  const std::string far = "coordinator:\n  endpoint: tcp://10.1.2.3:7710\n";
  EXPECT_NE(refusal(far, FarmRole::kWorker, false).find("key 'coordinator.endpoint'"), std::string::npos);
  const std::string bundles = "worker:\n  bundle_bind: tcp://*:7800\n";
  EXPECT_NE(refusal(bundles, FarmRole::kWorker, true).find("key 'worker.bundle_bind' is tcp://*:7800"),
            std::string::npos);
  // A prove-only worker serves no bundles: its bundle_bind is never bound.
  EXPECT_EQ(refusal(bundles, FarmRole::kWorker, false), "");
  // The coordinator does not bind the workers' bundle servers.
  EXPECT_EQ(refusal(bundles, FarmRole::kCoordinator, false), "");
}

TEST(FarmExposure, CurveOrInsecureAllowIt) {
  const std::string exposed = "coordinator:\n  bind: tcp://0.0.0.0:7710\nworker:\n  bundle_bind: tcp://0.0.0.0:0\n";
  EXPECT_EQ(refusal(exposed + "zmq:\n  curve: true\n", FarmRole::kCoordinator, false), "");
  EXPECT_EQ(refusal(exposed + "zmq:\n  curve: true\n", FarmRole::kWorker, true), "");
  EXPECT_EQ(refusal(exposed + "zmq:\n  insecure: true\n", FarmRole::kCoordinator, false), "");
  EXPECT_EQ(refusal(exposed + "zmq:\n  insecure: true\n", FarmRole::kWorker, true), "");
}

TEST(FarmExposure, InsecureMustBeABoolean) {
  try {
    parse_farm_config("zmq:\n  insecure: yes please\n", "farm.yaml");
    FAIL() << "accepted a non-boolean zmq.insecure";
  } catch (const util::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'zmq.insecure' must be true or false"), std::string::npos) << e.what();
  }
}

TEST(FarmExposure, PlaintextRedisBeyondLoopbackIsWarnedOf) {
  auto warnings = [](const std::string& yaml) { return plaintext_redis_warnings(parse_farm_config(yaml, "c.yaml")); };
  EXPECT_TRUE(warnings("").empty());  // 127.0.0.1
  EXPECT_TRUE(warnings("redis:\n  host: localhost\n").empty());
  EXPECT_TRUE(warnings("redis:\n  host: \"::1\"\n").empty());
  EXPECT_TRUE(warnings("redis:\n  unix_socket: /run/redis.sock\n").empty());
  const auto w = warnings("redis:\n  host: 10.0.0.10\n  user: zk\n  password: pw\n");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("c.yaml: 'redis.host' is 10.0.0.10:6379, beyond loopback, without TLS: the farm's state and "
                      "the Redis password cross the network unencrypted"),
            std::string::npos)
      << w[0];
  EXPECT_EQ(w[0].find("pw"), std::string::npos) << "the password was printed";
  const auto v6 = warnings("redis:\n  host: \"fd00::10\"\n");
  ASSERT_EQ(v6.size(), 1u);
  EXPECT_NE(v6[0].find("[fd00::10]:6379"), std::string::npos) << v6[0];
  EXPECT_EQ(v6[0].find("password"), std::string::npos) << v6[0];
  // Sentinels: each one beyond loopback, not the unused host.
  const auto s = warnings("redis:\n  sentinels: [\"127.0.0.1:26379\", \"10.0.0.11:26379\"]\n  master_name: m\n");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].find("'redis.sentinels' is 10.0.0.11:26379"), std::string::npos) << s[0];
  // TLS on: nothing to say.
  const auto ca = std::filesystem::temp_directory_path() / ("zkmill_exposure_ca_" + std::to_string(::getpid()));
  std::ofstream(ca) << "-\n";
  EXPECT_TRUE(warnings("redis:\n  host: 10.0.0.10\n  tls_ca: " + ca.string() + "\n").empty());
  std::filesystem::remove(ca);
}

}  // namespace
}  // namespace zkmill::test
