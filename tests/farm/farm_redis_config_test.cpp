// SPDX-License-Identifier: MIT
// The redis section's Sentinel and durability keys (docs/reliability.md, "Redis failover"):
// parsed strictly, and combinations that cannot work are refused naming the key. Also the
// coordinator's standby keys (docs/reliability.md, "Standby coordinator").
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "farm/farm_config.hpp"

namespace zkmill::test {
using namespace zkmill::farm;
namespace fs = std::filesystem;
namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_farm_config(yaml, "farm.yaml");
  } catch (const util::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FarmRedisConfig, SentinelsAndDurability) {
  const auto cfg = parse_farm_config(
      "redis:\n  sentinels: [\"10.0.0.5:26379\", \"sentinel-b:26379\"]\n  master_name: zkfarm\n"
      "  sentinel_password: s3\n  min_replicas: 1\n  wait_timeout_ms: 1500\n",
      "farm.yaml");
  EXPECT_EQ(cfg.redis.sentinels, (std::vector<std::string>{"10.0.0.5:26379", "sentinel-b:26379"}));
  EXPECT_EQ(cfg.redis.master_name, "zkfarm");
  EXPECT_EQ(cfg.redis.sentinel_password, "s3");
  EXPECT_EQ(cfg.redis.min_replicas, 1u);
  EXPECT_EQ(cfg.redis.wait_timeout_ms, 1500u);
}

TEST(FarmRedisConfig, DefaultsAreALoneRedis) {
  const auto cfg = parse_farm_config("", "farm.yaml");
  EXPECT_TRUE(cfg.redis.sentinels.empty());
  EXPECT_EQ(cfg.redis.min_replicas, 0u);
}

TEST(FarmRedisConfig, RefusesWhatCannotWork) {
  EXPECT_NE(error_of("redis:\n  sentinels: [\"127.0.0.1:26379\"]\n")
                .find("key 'redis.sentinels' needs "
                      "'redis.master_name' too"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  master_name: zkfarm\n").find("key 'redis.master_name' needs 'redis.sentinels'"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  sentinels: \"127.0.0.1:26379\"\n  master_name: m\n")
                .find("key 'redis.sentinels' must be a list of strings"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  sentinels: [\"26379\"]\n  master_name: m\n")
                .find("key 'redis.sentinels' must be "
                      "HOST:PORT"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  sentinels: [\"a:1\"]\n  master_name: m\n  unix_socket: /run/r.sock\n")
                .find("exclude each other"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  min_replicas: -1\n").find("key 'redis.min_replicas' must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  wait_timeout_ms: 0\n").find("key 'redis.wait_timeout_ms' must be an integer"),
            std::string::npos);
}

TEST(FarmRedisConfig, TlsKeys) {
  const fs::path dir = fs::temp_directory_path() / ("zkmill_tls_config_" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (const char* f : {"ca.crt", "client.crt", "client.key"}) std::ofstream(dir / f) << "-\n";
  const std::string ca = (dir / "ca.crt").string(), crt = (dir / "client.crt").string(),
                    key = (dir / "client.key").string();
  const auto cfg = parse_farm_config("redis:\n  host: redis1\n  tls_ca: " + ca + "\n  tls_cert: " + crt +
                                         "\n  tls_key: " + key + "\n  tls_server_name: redis.farm\n",
                                     "farm.yaml");
  EXPECT_EQ(cfg.redis.tls_ca, ca);
  EXPECT_EQ(cfg.redis.tls_cert, crt);
  EXPECT_EQ(cfg.redis.tls_key, key);
  EXPECT_EQ(cfg.redis.tls_server_name, "redis.farm");
  EXPECT_TRUE(parse_farm_config("", "farm.yaml").redis.tls_ca.empty());  // off by default

  EXPECT_NE(error_of("redis:\n  tls_cert: " + crt + "\n  tls_key: " + key + "\n")
                .find("key 'redis.tls_cert' needs 'redis.tls_ca' too"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  tls_server_name: r\n").find("key 'redis.tls_server_name' needs 'redis.tls_ca'"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  tls_ca: " + ca + "\n  tls_cert: " + crt + "\n")
                .find("key 'redis.tls_cert' needs 'redis.tls_key' too"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  tls_ca: " + ca + "\n  tls_key: " + key + "\n")
                .find("key 'redis.tls_key' needs 'redis.tls_cert' too"),
            std::string::npos);
  EXPECT_NE(error_of("redis:\n  tls_ca: " + ca + "\n  unix_socket: /run/r.sock\n").find("exclude each other"),
            std::string::npos);
  EXPECT_NE(
      error_of("redis:\n  tls_ca: /nonexistent/ca.crt\n").find("key 'redis.tls_ca': cannot read '/nonexistent/ca.crt'"),
      std::string::npos);
  fs::remove_all(dir);
}

TEST(FarmStandbyConfig, StandbyAndStandbyEndpoints) {
  const auto cfg = parse_farm_config(
      "coordinator:\n  endpoint: tcp://127.0.0.1:7710\n  standby: true\n"
      "  standby_endpoints: [\"tcp://127.0.0.1:7711\", \"ipc:///run/zk/c3\"]\n",
      "farm.yaml");
  EXPECT_TRUE(cfg.coordinator.standby);
  EXPECT_EQ(cfg.coordinator.standby_endpoints, (std::vector<std::string>{"tcp://127.0.0.1:7711", "ipc:///run/zk/c3"}));
  EXPECT_FALSE(parse_farm_config("", "farm.yaml").coordinator.standby);
  EXPECT_NE(error_of("coordinator:\n  standby_endpoints: [\"10.0.0.3:7710\"]\n")
                .find("key 'coordinator.standby_endpoints' must be a ZeroMQ endpoint"),
            std::string::npos);
  EXPECT_NE(error_of("coordinator:\n  standby: maybe\n").find("coordinator.standby"), std::string::npos);
}

TEST(FarmStandbyConfig, StandbyEndpointsFollowTheExposureRule) {
  // A worker's plaintext connection to a standby beyond loopback is refused like `endpoint`.
  const auto cfg = parse_farm_config("coordinator:\n  standby_endpoints: [\"tcp://10.0.0.3:7710\"]\n", "farm.yaml");
  try {
    check_exposure(cfg, FarmRole::kWorker, false);
    ADD_FAILURE() << "a plaintext standby endpoint beyond loopback was accepted";
  } catch (const util::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'coordinator.standby_endpoints' is tcp://10.0.0.3:7710"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(
      check_exposure(parse_farm_config("coordinator:\n  standby_endpoints: [\"tcp://127.0.0.1:7711\"]\n", "farm.yaml"),
                     FarmRole::kWorker, false));
}

}  // namespace
}  // namespace zkmill::test
