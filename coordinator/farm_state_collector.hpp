// SPDX-License-Identifier: MIT
// The Redis-derived half of the coordinator's /metrics: jobs by state, partitions of the
// unfinished jobs by state, queue depths and leases (FarmOverview), computed when Prometheus
// scrapes, on the HTTP server's thread and with a Redis connection of its own, so scraping
// never stalls the coordinator's event loop. Scrapes closer together than `min_interval_ms`
// reuse the last snapshot, which bounds the load that frequent scrapers put on Redis.
// When Redis is unreachable the scrape still answers: zkmill_redis_up is 0 and the state
// gauges are left out (absent beats stale on a dashboard).
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "farm/farm_overview.hpp"
#include "farm/redis_client.hpp"

namespace zkmill::farm {

class FarmStateCollector : public prometheus::Collectable {
 public:
  FarmStateCollector(const RedisConfig& redis, uint64_t min_interval_ms);
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  mutable std::mutex mu_;
  mutable RedisClient redis_;
  mutable std::optional<FarmOverview::Snapshot> last_;
  mutable uint64_t last_ms_ = 0;
  uint64_t min_interval_ms_;
};

}  // namespace zkmill::farm
