// SPDX-License-Identifier: MIT
// zk:workers / zk:coordinator / zk:drain / zk:quarantine / zk:pauses (schema: worker_registry.hpp).
#include "farm/worker_registry.hpp"

#include "farm/coordinator_lease.hpp"

namespace zkmill::farm {

namespace {

// KEYS: zk:workers, zk:coordinator. ARGV: summary, ttl ms, then id, record pairs, the fence.
const char* kPublish = ZK_LUA_FENCE_CHECK R"lua(
redis.call('DEL', KEYS[1])
for i = 3, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return (#ARGV - 3) / 2
)lua";

// KEYS[1] the hash; ARGV: field, value (empty: delete), the fence.
const char* kFencedHset = ZK_LUA_FENCE_CHECK R"lua(
if ARGV[2] == '' then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
)lua";

const char* kRequestDrain = R"lua(
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
)lua";

}  // namespace

void WorkerRegistry::publish(const std::map<std::string, nlohmann::json>& workers, const nlohmann::json& summary,
                             uint64_t ttl_ms) {
  std::vector<std::string> args{summary.dump(), std::to_string(ttl_ms)};
  args.reserve(2 + workers.size() * 2);
  for (const auto& [id, record] : workers) {
    args.push_back(id);
    args.push_back(record.dump());
  }
  CoordinatorLease::fenced_eval(r_, kPublish, {kWorkersKey, kCoordinatorKey}, std::move(args), fence_);
}

std::map<std::string, nlohmann::json> WorkerRegistry::json_hash(const char* key) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& [id, text] : r_.command({"HGETALL", key}).as_map()) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    out[id] = j.is_discarded() ? nlohmann::json() : std::move(j);
  }
  return out;
}

std::map<std::string, nlohmann::json> WorkerRegistry::list() {
  auto out = json_hash(kWorkersKey);
  for (auto& [id, record] : out)
    if (record.is_null()) record = nlohmann::json::object();
  return out;
}

bool WorkerRegistry::request_drain(const std::string& worker, uint64_t now_ms) {
  return r_.eval(kRequestDrain, {kWorkersKey, kDrainKey}, {worker, std::to_string(now_ms)}).as_int() == 1;
}

std::map<std::string, uint64_t> WorkerRegistry::drain_requests() {
  std::map<std::string, uint64_t> out;
  for (const auto& [id, ms] : r_.command({"HGETALL", kDrainKey}).as_map()) {
    try {
      out[id] = std::stoull(ms);
    } catch (const std::exception&) {
      out[id] = 0;  // unparsable: treated as ancient, so it is dropped
    }
  }
  return out;
}

void WorkerRegistry::clear_drain_request(const std::string& worker) {
  CoordinatorLease::fenced_eval(r_, kFencedHset, {kDrainKey}, {worker, ""}, fence_);
}

void WorkerRegistry::quarantine(const std::string& worker, const nlohmann::json& record) {
  CoordinatorLease::fenced_eval(r_, kFencedHset, {kQuarantineKey}, {worker, record.dump()}, fence_);
}

std::map<std::string, nlohmann::json> WorkerRegistry::quarantined() {
  auto out = json_hash(kQuarantineKey);
  for (auto& [id, record] : out)
    if (!record.is_object()) record = {{"reason", "(unreadable record)"}};
  return out;
}

bool WorkerRegistry::clear_quarantine(const std::string& worker) {
  return r_.command({"HDEL", kQuarantineKey, worker}).as_int() == 1;
}

void WorkerRegistry::save_pause(const std::string& worker, const nlohmann::json& record) {
  CoordinatorLease::fenced_eval(r_, kFencedHset, {kPausesKey}, {worker, record.is_null() ? "" : record.dump()}, fence_);
}

std::map<std::string, nlohmann::json> WorkerRegistry::pauses() { return json_hash(kPausesKey); }

std::set<std::string> WorkerRegistry::pause_ids() {
  std::set<std::string> out;
  for (const auto& e : r_.command({"HKEYS", kPausesKey}).elements) out.insert(e.as_string());
  return out;
}

bool WorkerRegistry::clear_pause(const std::string& worker) {
  return r_.command({"HDEL", kPausesKey, worker}).as_int() == 1;
}

}  // namespace zkmill::farm
