// zk:workers / zk:drain (schema: worker_registry.hpp).
#include "coordinator/common/worker_registry.hpp"

namespace zkmill::farm {

namespace {

const char* kReplace = R"lua(
redis.call('DEL', KEYS[1])
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return #ARGV / 2
)lua";

const char* kRequestDrain = R"lua(
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
)lua";

}  // namespace

void WorkerRegistry::replace(const std::map<std::string, nlohmann::json>& workers) {
  std::vector<std::string> args;
  args.reserve(workers.size() * 2);
  for (const auto& [id, record] : workers) {
    args.push_back(id);
    args.push_back(record.dump());
  }
  r_.eval(kReplace, {"zk:workers"}, args);
}

std::map<std::string, nlohmann::json> WorkerRegistry::list() {
  std::map<std::string, nlohmann::json> out;
  for (const auto& [id, text] : r_.command({"HGETALL", "zk:workers"}).as_map()) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    out[id] = j.is_discarded() ? nlohmann::json::object() : j;
  }
  return out;
}

bool WorkerRegistry::request_drain(const std::string& worker, uint64_t now_ms) {
  return r_.eval(kRequestDrain, {"zk:workers", "zk:drain"}, {worker, std::to_string(now_ms)}).as_int() == 1;
}

std::map<std::string, uint64_t> WorkerRegistry::drain_requests() {
  std::map<std::string, uint64_t> out;
  for (const auto& [id, ms] : r_.command({"HGETALL", "zk:drain"}).as_map()) {
    try {
      out[id] = std::stoull(ms);
    } catch (const std::exception&) {
      out[id] = 0;  // unparsable: treated as ancient, so it is dropped
    }
  }
  return out;
}

void WorkerRegistry::clear_drain_request(const std::string& worker) { r_.command({"HDEL", "zk:drain", worker}); }

}  // namespace zkmill::farm
