// SPDX-License-Identifier: MIT
// The farm's registered workers as Redis sees them: the one place the coordinator publishes its
// worker table, and where clients read it. The coordinator is the only writer: once per
// heartbeat period one script replaces the whole of zk:workers (so a worker it dropped
// vanishes) and rewrites zk:coordinator, its own summary of that same table, with an expiry.
// Clients read zk:workers (`zkmill status --workers`, `zkmill worker drain` validation) and
// zk:coordinator (`zkmill status` farm summary and --json, via FarmOverview; the coordinator
// sets its zkmill_workers gauges from the same counts), and append drain requests to zk:drain,
// which the coordinator turns into `drain` control messages. The coordinator's writes are
// fenced by its lease (coordinator_lease.hpp).
//
// Quarantine: a worker that sent a result for another statement (a proof that does not verify
// against the partition's public inputs, a synthesis whose public inputs are not the
// partition's) gets no more work until an operator clears it (`zkmill worker clear ID`). It
// is kept in Redis, so a coordinator restart does not forgive it.
//   zk:workers      hash    worker id -> JSON {role, gpus[], circuits[], busy, draining, last_seen_ms,
//                           updated_ms}
//   zk:coordinator  string  JSON {updated_ms, started_ms, workers: {role: {idle, busy, draining}},
//                           metrics}; expires a few heartbeat periods after the last write, so a
//                           missing key means no coordinator is alive (zk:workers has no expiry:
//                           it is the last table a coordinator published)
//   zk:drain        hash    worker id -> when the drain was requested (unix ms)
//   zk:quarantine   hash    worker id -> JSON {reason, job, part, since_ms, key (CURVE public key or "")}
//   zk:pauses       hash    worker id -> JSON {failures, pauses, until_ms, last_error}: the failed-attempt
//                           streaks (coordinator/worker_pauses.hpp), so a coordinator that takes over
//                           pauses the same workers; an operator deletes one to lift its pause
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "farm/redis_client.hpp"

namespace zkmill::farm {

class WorkerRegistry {
 public:
  static constexpr const char* kWorkersKey = "zk:workers";
  static constexpr const char* kCoordinatorKey = "zk:coordinator";
  static constexpr const char* kDrainKey = "zk:drain";
  static constexpr const char* kQuarantineKey = "zk:quarantine";
  static constexpr const char* kPausesKey = "zk:pauses";

  explicit WorkerRegistry(RedisClient& redis) : r_(redis) {}
  // The coordinator's fencing token, checked by its writes (publish, clear_drain_request, quarantine).
  void set_fence(std::string fence) { fence_ = std::move(fence); }

  // Coordinator: replaces zk:workers with `workers` (id -> record) and sets zk:coordinator to
  // `summary` for `ttl_ms`, atomically (readers never see a table and a summary that disagree).
  void publish(const std::map<std::string, nlohmann::json>& workers, const nlohmann::json& summary, uint64_t ttl_ms);
  // Clients: every registered worker, id -> record.
  std::map<std::string, nlohmann::json> list();

  // Clients: records a drain request. False (nothing recorded) when `worker` is not
  // registered; checked and written in one script, so a request never names a stranger.
  bool request_drain(const std::string& worker, uint64_t now_ms);
  // Coordinator: the pending requests (id -> requested ms), and removing one once handled.
  std::map<std::string, uint64_t> drain_requests();
  void clear_drain_request(const std::string& worker);

  // Coordinator: quarantines `worker` with `record` ({reason, job, part, since_ms, key}).
  void quarantine(const std::string& worker, const nlohmann::json& record);
  // Everyone: the quarantined workers, id -> record.
  std::map<std::string, nlohmann::json> quarantined();
  // Operator (`zkmill worker clear ID`): false when `worker` was not quarantined.
  bool clear_quarantine(const std::string& worker);

  // Coordinator: writes `worker`'s failed-attempt streak (WorkerPauses::record), or deletes it
  // when `record` is null.
  void save_pause(const std::string& worker, const nlohmann::json& record);
  // Everyone: the streaks, id -> record (unreadable ones as null).
  std::map<std::string, nlohmann::json> pauses();
  // Coordinator: the ids that have a streak (HKEYS: the records are not read).
  std::set<std::string> pause_ids();
  // Operator (`zkmill worker clear ID`): false when `worker` had no streak.
  bool clear_pause(const std::string& worker);

 private:
  // HGETALL of a hash of JSON records, id -> record (null where the text does not parse).
  std::map<std::string, nlohmann::json> json_hash(const char* key);

  RedisClient& r_;
  std::string fence_;
};

}  // namespace zkmill::farm
