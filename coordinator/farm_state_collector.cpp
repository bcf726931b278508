// SPDX-License-Identifier: MIT
// FarmStateCollector: a FarmOverview snapshot turned into Prometheus gauge families.
#include "coordinator/farm_state_collector.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <string>

namespace zkmill::farm {

namespace {

uint64_t steady_ms() {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

prometheus::MetricFamily gauge_family(const std::string& name, const std::string& help) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = prometheus::MetricType::Gauge;
  return f;
}

void add_gauge(prometheus::MetricFamily& f, double value, const std::string& label = "", const std::string& v = "") {
  prometheus::ClientMetric m;
  if (!label.empty()) m.label.push_back({label, v});
  m.gauge.value = value;
  f.metric.push_back(std::move(m));
}

prometheus::MetricFamily by_label(const std::string& name, const std::string& help, const std::string& label,
                                  const std::map<std::string, uint64_t>& counts) {
  auto f = gauge_family(name, help);
  for (const auto& [k, n] : counts) add_gauge(f, double(n), label, k);
  return f;
}

}  // namespace

FarmStateCollector::FarmStateCollector(const RedisConfig& redis, uint64_t min_interval_ms)
    : redis_(redis), min_interval_ms_(min_interval_ms) {}

std::vector<prometheus::MetricFamily> FarmStateCollector::Collect() const {
  std::lock_guard lock(mu_);
  const uint64_t now = steady_ms();
  bool up = true;
  if (!last_ || now - last_ms_ >= min_interval_ms_) {
    try {
      last_ = FarmOverview(redis_).take();
      last_ms_ = now;
    } catch (const RedisError& e) {
      redis_.disconnect();  // reconnects on the next scrape
      spdlog::debug("metrics: farm state unavailable: {}", e.what());
      last_.reset();
      up = false;
    }
  }
  std::vector<prometheus::MetricFamily> out;
  auto redis_up = gauge_family("zkmill_redis_up", "1 when the metrics endpoint could read the farm state from Redis");
  add_gauge(redis_up, up ? 1 : 0);
  out.push_back(std::move(redis_up));
  if (!last_) return out;
  const auto& s = *last_;
  out.push_back(by_label("zkmill_jobs", "Jobs kept in Redis, by state", "state", s.jobs));
  out.push_back(by_label("zkmill_partitions", "Partitions of unfinished (queued or running) jobs, by state", "state",
                         s.partitions));
  out.push_back(by_label("zkmill_queue_depth", "Entries in the farm's queues (synth, prove, delayed retries)", "queue",
                         s.queues));
  auto leases = gauge_family("zkmill_leases", "Partitions leased to a worker (in flight)");
  add_gauge(leases, double(s.leases));
  out.push_back(std::move(leases));
  auto active = gauge_family("zkmill_active_jobs", "Jobs not yet final");
  add_gauge(active, double(s.active_jobs));
  out.push_back(std::move(active));
  return out;
}

}  // namespace zkmill::farm
