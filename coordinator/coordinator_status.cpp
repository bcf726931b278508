// The coordinator's reporting side: its worker table as published through WorkerRegistry
// (zk:workers and the zk:coordinator summary), the worker gauges, and the failure/latency bookkeeping
// for FarmMetrics. Kept apart from the event loop in coordinator.cpp.
#include <algorithm>

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

void Coordinator::publish_workers() {
  const uint64_t now = now_ms();
  nlohmann::json counts = nlohmann::json::object();
  for (const char* role : {"synth", "prove", "both"}) counts[role] = {{"idle", 0}, {"busy", 0}, {"draining", 0}};
  std::map<std::string, nlohmann::json> records;
  for (const auto& [id, w] : workers_) {
    const char* state = w.draining ? "draining" : w.busy_token ? "busy" : "idle";
    counts[w.role][state] = counts[w.role][state].get<uint64_t>() + 1;
    records[id] = {{"role", w.role},
                   {"gpus", w.gpus},
                   {"circuits", w.circuits},  // what it serves: `zkmill status` warns of jobs no one serves
                   {"busy", w.busy_token != 0},
                   {"draining", w.draining},
                   {"last_seen_ms", w.last_seen_ms},
                   {"updated_ms", now}};
  }
  metrics_.set_workers(counts);
  // The summary expires after a few heartbeat periods without a coordinator, so readers can
  // tell it is gone.
  registry_.publish(records,
                    {{"updated_ms", now},
                     {"started_ms", started_ms_},
                     {"workers", counts},
                     {"metrics", cfg_.coordinator.metrics_listen}},
                    std::max<uint64_t>(5000, 3ull * cfg_.coordinator.heartbeat_ms * cfg_.coordinator.liveness));
}

}  // namespace zkmill::farm
