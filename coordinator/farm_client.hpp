// The client side of the farm (submit, status, wait, cancel, result): talks to Redis only,
// since Redis is the source of truth; the coordinator picks submitted work up from the queues.
// Used by the `zkmill submit|status|wait|cancel|result` commands and by tests.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "coordinator/common/farm_store.hpp"

namespace zkmill::farm {

struct SubmitRequest {
  std::string key_path;
  uint64_t partitions = 1;
  uint64_t seed = 0;
  int64_t priority = 0;
  std::string idempotency_key;
  uint64_t deadline_s = 0;  // seconds from now; 0: none
};

class FarmClient {
 public:
  explicit FarmClient(const RedisConfig& cfg) : redis_(cfg), store_(redis_) {}

  // Registers the key's verifying key under its circuit id, then submits. Returns (id, new?).
  std::pair<std::string, bool> submit(const SubmitRequest& req);
  // One job with its partitions; null when there is no such job.
  nlohmann::json status(const std::string& job);
  // The most recent jobs (summaries).
  nlohmann::json list(size_t limit);
  // The farm as a whole (FarmOverview: jobs and partitions by state, queues, the coordinator's
  // worker table) plus the `recent` most recent jobs under "recent_jobs". Schema: docs/farm.md.
  nlohmann::json overview(size_t recent);
  // Polls until the job is final or `timeout_s` passes (0: forever); prints progress lines
  // to stderr. Returns 0 when done (every proof verified), 1 failed/cancelled, 2 timeout, 3 unknown.
  int wait(const std::string& job, uint64_t timeout_s, bool quiet);
  std::string cancel(const std::string& job);
  // Writes partition-<i>.proof.json, partition-<i>.public.json and proofs.bin into `dir`.
  // Throws unless the job is done.
  void write_result(const std::string& job, const std::string& dir);

 private:
  RedisClient redis_;
  FarmStore store_;
};

}  // namespace zkmill::farm
