// SPDX-License-Identifier: MIT
// The coordinator's reporting side: its worker table as published through WorkerRegistry
// (zk:workers and the zk:coordinator summary), the worker gauges, and the failure/latency bookkeeping
// for FarmMetrics. Kept apart from the event loop in coordinator.cpp.
#include <algorithm>

#include "coordinator/coordinator.hpp"

namespace zkmill::farm {

double Coordinator::since_submit_s(const std::string& job) {
  const uint64_t created = job_info(job).created_ms, now = clock_.now_ms();
  return created && now > created ? double(now - created) / 1000.0 : 0.0;
}

void Coordinator::count_failure(const std::string& reason, const PartRef& ref, const FarmStore::Failed& f) {
  metrics_.attempt_failed(reason, f.outcome);
  if (f.outcome == 2) metrics_.job_finished("failed", since_submit_s(ref.job));
}

void Coordinator::publish_workers() {
  const uint64_t now = clock_.now_ms();
  nlohmann::json counts = nlohmann::json::object();
  for (const char* role : {"synth", "prove", "both"}) counts[role] = {{"idle", 0}, {"busy", 0}, {"draining", 0}};
  std::map<std::string, nlohmann::json> records;
  for (const auto& [id, w] : workers_) {
    const bool busy = !w.busy.empty() || !w.tasks.empty();
    const char* state = w.draining ? "draining" : busy ? "busy" : "idle";
    const std::string role(role_name(w.role));
    counts[role][state] = counts[role][state].get<uint64_t>() + 1;
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : w.gpus) gpus.push_back({{"index", g.index}, {"name", g.name}, {"memory_mb", g.memory_mb}});
    // tasks: what it holds, {job, part, stage} with stage synthesizing, fetching, prefetched
    // (fetched, waiting for a proving slot) or proving; slots: how many it takes at once.
    nlohmann::json tasks = nlohmann::json::array();
    for (const auto& t : w.tasks)
      tasks.push_back({{"job", t.at.job}, {"part", t.at.part}, {"stage", stage_name(t.stage)}});
    records[id] = {{"role", role},
                   {"gpus", std::move(gpus)},
                   {"circuits", w.circuits},
                   {"held", w.tokens.size()},
                   {"busy", busy},
                   {"slots", w.slots},
                   {"tasks", std::move(tasks)},
                   {"draining", w.draining},
                   {"last_seen_ms", w.last_seen_ms},
                   {"updated_ms", now}};
    // Quarantined workers stay registered (heartbeats, held bundles) but get no work.
    if (auto q = quarantined_.find(id); q != quarantined_.end())
      records[id]["quarantined"] = q->second;
    else if (quarantined(id, w))
      records[id]["quarantined"] = {{"reason", "its CURVE key is quarantined"}};
    // Paused for failing attempt after attempt (WorkerPauses): gets no work until `until_ms`.
    if (auto p = pauses_.describe(id, now); !p.is_null()) records[id]["paused"] = std::move(p);
  }
  metrics_.set_workers(counts);
  // The summary expires after a few heartbeat periods without a coordinator, so readers can
  // tell it is gone.
  registry_.publish(records,
                    {{"updated_ms", now},
                     {"started_ms", started_ms_},
                     {"workers", counts},
                     {"throughput", metrics_.throughput(now)},
                     {"metrics", cfg_.coordinator.metrics_listen},
                     {"retention_s", cfg_.coordinator.retention_s}},
                    std::max<uint64_t>(5000, 3ull * cfg_.coordinator.heartbeat_ms * cfg_.coordinator.liveness));
}

}  // namespace zkmill::farm
