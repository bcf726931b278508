// zk:workers / zk:coordinator / zk:drain (schema: worker_registry.hpp).
#include "farm/worker_registry.hpp"

namespace zkmill::farm {

namespace {

// KEYS: zk:workers, zk:coordinator. ARGV: summary, ttl ms, then id, record pairs.
const char* kPublish = R"lua(
redis.call('DEL', KEYS[1])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return (#ARGV - 2) / 2
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
  r_.eval(kPublish, {kWorkersKey, kCoordinatorKey}, args);
}

std::map<std::string, nlohmann::json> WorkerRegistry::list() {
  std::map<std::string, nlohmann::json> out;
  for (const auto& [id, text] : r_.command({"HGETALL", kWorkersKey}).as_map()) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    out[id] = j.is_discarded() ? nlohmann::json::object() : j;
  }
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

void WorkerRegistry::clear_drain_request(const std::string& worker) { r_.command({"HDEL", kDrainKey, worker}); }

}  // namespace zkmill::farm
