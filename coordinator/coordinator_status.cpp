// The coordinator's reporting side: the `zk:coordinator` status key that `zkmill status --json`
// reads (workers by role and state), the worker gauges, and the failure/latency bookkeeping
// for FarmMetrics. Kept apart from the event loop in coordinator.cpp.
#include <algorithm>

#include "coordinator/common/farm_overview.hpp"
#include "coordinator/coordinator.hpp"

namespace zkmill::farm {

double Coordinator::since_submit_s(const std::string& job) {
  const uint64_t created = job_info(job).created_ms, now = now_ms();
  return created && now > created ? double(now - created) / 1000.0 : 0.0;
}

void Coordinator::count_failure(const std::string& reason, const PartRef& ref, const FarmStore::Failed& f) {
  metrics_.attempt_failed(reason, f.outcome);
  if (f.outcome == 2) metrics_.job_finished("failed", since_submit_s(ref.job));
}

void Coordinator::publish_status() {
  const uint64_t now = now_ms();
  if (now - last_status_ms_ < 1000) return;
  last_status_ms_ = now;
  nlohmann::json counts = nlohmann::json::object(), list = nlohmann::json::array();
  for (const char* role : {"synth", "prove", "both"}) counts[role] = {{"idle", 0}, {"busy", 0}, {"draining", 0}};
  for (const auto& [id, w] : workers_) {
    const char* state = w.draining ? "draining" : w.busy_token ? "busy" : "idle";
    counts[w.role][state] = counts[w.role][state].get<uint64_t>() + 1;
    if (list.size() < 1000)  // the key stays small on a huge farm; the counts stay exact
      list.push_back({{"id", id}, {"role", w.role}, {"state", state}, {"last_seen_ms", w.last_seen_ms}});
  }
  metrics_.set_workers(counts);
  // Expires after a few seconds without a coordinator, so readers can tell it is gone.
  FarmOverview(redis_).publish_coordinator(
      {{"updated_ms", now},
       {"started_ms", started_ms_},
       {"workers", counts},
       {"worker_list", list},
       {"metrics", cfg_.coordinator.metrics_listen}},
      std::max<uint64_t>(5000, 3ull * cfg_.coordinator.heartbeat_ms * cfg_.coordinator.liveness));
}

}  // namespace zkmill::farm
