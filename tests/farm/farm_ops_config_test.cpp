// SPDX-License-Identifier: MIT
// coordinator.metrics_listen: parsed strictly like every farm key (docs/config.md), so a typo
// in the metrics address stops the coordinator instead of silently serving no metrics.
#include <gtest/gtest.h>

#include "farm/farm_config.hpp"

namespace zkmill::test {
using namespace zkmill::farm;
namespace {

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

}  // namespace
}  // namespace zkmill::test
