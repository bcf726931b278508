// SPDX-License-Identifier: MIT
// A farm-wide picture for dashboards and scripts: jobs by state, partitions of the unfinished
// jobs by state, queue depths, leases, and what the coordinator last published about itself
// and its workers. Read from Redis (the source of truth) by `zkmill status --json` and by the
// coordinator's Prometheus endpoint, so both report the same numbers.
//
// Cost per snapshot: one pipelined HGET per job kept in Redis (job states), one HMGET per
// unfinished job and one HGET per lease (in-flight partitions; bounded by the worker count),
// plus a few ZCARDs. Partition states are derived, not scanned: an unfinished job's partition
// is verified (n_verified), in flight (it holds a lease, and the partition hash says which
// phase) or queued (everything else, including retries waiting in zk:q:delayed).
//
// The coordinator's own summary (workers by role and state, metrics address) is read from
// `zk:coordinator` (WorkerRegistry publishes it, with an expiry of a few heartbeat periods: a
// missing key means no coordinator has been alive recently).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "farm/redis_client.hpp"

namespace zkmill::farm {

class FarmOverview {
 public:
  // Every state a job or an unfinished job's partition can be in (all reported, zeros too,
  // so dashboards get stable series).
  static const std::vector<std::string>& job_states();
  static const std::vector<std::string>& partition_states();

  struct Snapshot {
    std::map<std::string, uint64_t> jobs;        // job state -> count, over every job in Redis
    std::map<std::string, uint64_t> partitions;  // partition state -> count, unfinished jobs only
    std::map<std::string, uint64_t> queues;      // synth, prove, delayed -> entries
    uint64_t leases = 0;
    uint64_t active_jobs = 0;
    nlohmann::json coordinator;  // what the coordinator published, or null when none is alive
  };

  explicit FarmOverview(RedisClient& redis) : r_(redis) {}

  // Throws RedisError when Redis cannot be reached.
  Snapshot take();
  static nlohmann::json to_json(const Snapshot& s);

 private:
  RedisClient& r_;
};

}  // namespace zkmill::farm
