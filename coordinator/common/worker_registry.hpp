// The farm's registered workers as Redis sees them, for `zkmill status --workers` and
// `zkmill worker drain`. The coordinator is the only writer of zk:workers (it replaces the
// whole hash with its worker table every heartbeat period, so a worker it dropped vanishes);
// clients only read it and append drain requests to zk:drain, which the coordinator turns
// into `drain` control messages.
//
//   zk:workers  hash  worker id -> JSON {role, gpus[], busy, draining, last_seen_ms, updated_ms}
//   zk:drain    hash  worker id -> when the drain was requested (unix ms)
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "coordinator/common/redis_client.hpp"

namespace zkmill::farm {

class WorkerRegistry {
 public:
  explicit WorkerRegistry(RedisClient& redis) : r_(redis) {}

  // Coordinator: replaces zk:workers with `workers` (id -> record), atomically.
  void replace(const std::map<std::string, nlohmann::json>& workers);
  // Clients: every registered worker, id -> record.
  std::map<std::string, nlohmann::json> list();

  // Clients: records a drain request. False (nothing recorded) when `worker` is not
  // registered; checked and written in one script, so a request never names a stranger.
  bool request_drain(const std::string& worker, uint64_t now_ms);
  // Coordinator: the pending requests (id -> requested ms), and removing one once handled.
  std::map<std::string, uint64_t> drain_requests();
  void clear_drain_request(const std::string& worker);

 private:
  RedisClient& r_;
};

}  // namespace zkmill::farm
