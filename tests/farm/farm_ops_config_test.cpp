// SPDX-License-Identifier: MIT
// coordinator.metrics_listen: parsed strictly like every farm key (docs/config.md), so a typo
// in the metrics address stops the coordinator instead of silently serving no metrics; the
// same for worker.gpu_pce, worker.zkey_cache_mb, the retention, the HTTP API's per-client share and
// the coordinator's proof-check batching keys (one refused() check for every bad value).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "farm/farm_config.hpp"

namespace zkmill::test {
using namespace zkmill::farm;
namespace {

// Whether `section.key: value` is refused with a ConfigError naming `section.key`.
::testing::AssertionResult refused(const std::string& section, const std::string& key, const std::string& value) {
  try {
    parse_farm_config(section + ":\n  " + key + ": " + value + "\n", "farm.yaml");
  } catch (const util::ConfigError& e) {
    if (std::string(e.what()).find(section + "." + key) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "refused without naming " << section << "." << key << ": " << e.what();
  }
  return ::testing::AssertionFailure() << "accepted " << section << "." << key << ": " << value;
}

std::string metrics_error(const std::string& value) {
  try {
    auto cfg = parse_farm_config("coordinator:\n  metrics_listen: \"" + value + "\"\n", "farm.yaml");
    EXPECT_EQ(cfg.coordinator.metrics_listen, value);
  } catch (const util::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FarmConfigMetrics, OffByDefault) {
  EXPECT_EQ(parse_farm_config("", "farm.yaml").coordinator.metrics_listen, "");
  EXPECT_EQ(parse_farm_config("coordinator:\n  heartbeat_ms: 100\n", "farm.yaml").coordinator.metrics_listen, "");
}

TEST(FarmConfigMetrics, AcceptsHostPort) {
  for (const char* ok : {"127.0.0.1:9464", "0.0.0.0:1", "localhost:65535", "[::1]:9464", "metrics.farm.lan:9100"})
    EXPECT_EQ(metrics_error(ok), "") << ok;
  EXPECT_EQ(metrics_error(""), "");  // explicitly off
}

TEST(FarmConfigMetrics, RejectsWhatIsNotHostPort) {
  for (const char* bad : {"9464", ":9464", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:94x4",
                          "http://127.0.0.1:9464", "::1:9464", "127.0.0.1:-1"}) {
    const std::string e = metrics_error(bad);
    EXPECT_NE(e.find("farm.yaml: key 'coordinator.metrics_listen' must be HOST:PORT"), std::string::npos)
        << bad << " -> '" << e << "'";
  }
}

// worker.gpu_pce: on by default (GPU prove workers compute a, b, c on the device), off by
// choice, and a non-boolean is a named error.
TEST(FarmConfigWorker, GpuPceDefaultsOnAndParsesStrictly) {
  EXPECT_TRUE(parse_farm_config("", "farm.yaml").worker.gpu_pce);
  EXPECT_FALSE(parse_farm_config("worker:\n  gpu_pce: false\n", "farm.yaml").worker.gpu_pce);
  try {
    parse_farm_config("worker:\n  gpu_pce: sometimes\n", "farm.yaml");
    ADD_FAILURE() << "accepted gpu_pce: sometimes";
  } catch (const util::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("worker.gpu_pce"), std::string::npos) << e.what();
  }
}

// worker.lookahead (assignments queued behind the running one): 1 by default, 0..16.
TEST(FarmConfigWorker, LookaheadDefaultAndBounds) {
  EXPECT_EQ(parse_farm_config("", "farm.yaml").worker.lookahead, 1u);
  EXPECT_EQ(parse_farm_config("worker:\n  lookahead: 0\n", "farm.yaml").worker.lookahead, 0u);
  for (const char* bad : {"lookahead: 17", "lookahead: -1", "lookahead: two"}) {
    try {
      parse_farm_config(std::string("worker:\n  ") + bad + "\n", "farm.yaml");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const util::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("worker.lookahead"), std::string::npos) << e.what();
    }
  }
}

// The proof checks' batch window and size, and the final check's mode: defaults as documented
// (docs/config.md), values outside their ranges named errors.
TEST(FarmConfigCoordinator, ProofCheckBatchingDefaultsAndBounds) {
  const auto d = parse_farm_config("", "farm.yaml").coordinator;
  EXPECT_EQ(d.verify_batch_window_us, 0u);
  EXPECT_EQ(d.verify_batch_max, 64u);
  EXPECT_FALSE(d.final_check_all);
  EXPECT_EQ(d.max_worker_slots, 16u);
  const auto c =
      parse_farm_config(
          "coordinator:\n  verify_batch_window_us: 2000\n  verify_batch_max: 1\n  final_check_all: true\n", "farm.yaml")
          .coordinator;
  EXPECT_EQ(c.verify_batch_window_us, 2000u);
  EXPECT_EQ(c.verify_batch_max, 1u);
  EXPECT_TRUE(c.final_check_all);
  for (const auto& [key, bad] : std::vector<std::pair<std::string, std::string>>{{"verify_batch_window_us", "10000001"},
                                                                                 {"verify_batch_window_us", "-1"},
                                                                                 {"verify_batch_max", "0"},
                                                                                 {"verify_batch_max", "4097"},
                                                                                 {"final_check_all", "maybe"},
                                                                                 {"max_worker_slots", "0"},
                                                                                 {"max_worker_slots", "65"}})
    EXPECT_TRUE(refused("coordinator", key, bad));
}

// The result retention: 7 days unless set, 0 (keep every job) accepted, at most ten years,
// anything else a named error.
TEST(FarmConfigCoordinator, RetentionDefaultsAndBounds) {
  EXPECT_EQ(parse_farm_config("", "farm.yaml").coordinator.retention_s, 7u * 24 * 3600);
  EXPECT_EQ(parse_farm_config("coordinator:\n  retention_s: 0\n", "farm.yaml").coordinator.retention_s, 0u);
  EXPECT_EQ(parse_farm_config("coordinator:\n  retention_s: 3600\n", "farm.yaml").coordinator.retention_s, 3600u);
  for (const char* bad : {"-1", "316224001", "1w", "\"\""}) EXPECT_TRUE(refused("coordinator", "retention_s", bad));
}

// The decoded snarkjs key cache's budget: 16 GiB unless set, 0 (the last key only) accepted,
// a negative or non-numeric value a named error.
TEST(FarmConfigWorker, ZkeyCacheDefaultsAndBounds) {
  EXPECT_EQ(parse_farm_config("", "farm.yaml").worker.zkey_cache_mb, 16384u);
  EXPECT_EQ(parse_farm_config("worker:\n  zkey_cache_mb: 0\n", "farm.yaml").worker.zkey_cache_mb, 0u);
  for (const char* bad : {"-1", "lots"}) EXPECT_TRUE(refused("worker", "zkey_cache_mb", bad));
}

// The HTTP API's per-client share: 4 of its 8 threads unless set, 8 (no share) accepted, 0 and 9
// named errors.
TEST(FarmConfigCoordinator, HttpThreadsPerClientDefaultsAndBounds) {
  EXPECT_EQ(parse_farm_config("", "farm.yaml").coordinator.http_threads_per_client, 4u);
  EXPECT_EQ(parse_farm_config("coordinator:\n  http_threads_per_client: 8\n", "farm.yaml")
                .coordinator.http_threads_per_client,
            8u);
  for (const char* bad : {"0", "9"}) EXPECT_TRUE(refused("coordinator", "http_threads_per_client", bad));
}

}  // namespace
}  // namespace zkmill::test
