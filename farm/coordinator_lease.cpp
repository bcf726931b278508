// SPDX-License-Identifier: MIT
// CoordinatorLease: scripts to take it (SET NX PX), renew, take over and release it, each start of
// a tenure appended to the history.
#include "farm/coordinator_lease.hpp"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/util/process_state.hpp"
#include "farm/random_token.hpp"

namespace zkmill::farm {

namespace {

// Every time a lease starts (taken, taken over, or re-taken after it lapsed) the holder's token
// is appended to the tenure history, stamped with Redis's clock, so anyone can tell afterwards
// which coordinator held the lease when a proof was recorded (each recording stores its fence
// and Redis's time too: FarmStore's prove-done script). Kept to the last 1000 tenures.
// KEYS[1] is the lease, KEYS[2] the history, in every script below.
const std::string kTenure = R"lua(
local function tenure(value)
  local t = redis.call('TIME')
  redis.call('RPUSH', KEYS[2], t[1] .. string.format('%06d', tonumber(t[2])) .. ' ' .. value)
  redis.call('LTRIM', KEYS[2], -1000, -1)
end
)lua";

// ARGV: our value, period ms. 1 taken, 0 held by someone.
const std::string kAcquire = kTenure + R"lua(
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
tenure(ARGV[1])
return 1
)lua";

// ARGV: expected value, new value, period ms. Replaces the value only if it is still the
// expected one (a dead local holder's).
const std::string kTakeOver = kTenure + R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
tenure(ARGV[2])
return 1
)lua";

// ARGV: our value, period ms. 1 renewed, 2 re-taken (had lapsed), else the holder's value.
const std::string kRenew = kTenure + R"lua(
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  tenure(ARGV[1])
  return 2
end
return v
)lua";

const char* kRelease = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
)lua";

std::string read_line(const char* path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

std::string pid_namespace() {
  char buf[128] = {};
  const ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

}  // namespace

std::string CoordinatorLease::Holder::describe() const {
  std::string s = "coordinator pid " + std::to_string(pid) + " on " + (host.empty() ? "?" : host);
  if (!endpoint.empty()) s += " serving " + endpoint;
  return s;
}

std::optional<CoordinatorLease::Holder> CoordinatorLease::Holder::parse(const std::string& value) {
  const size_t sp = value.find(' ');
  if (sp == std::string::npos) return std::nullopt;
  Holder h;
  h.token = value.substr(0, sp);
  auto j = nlohmann::json::parse(value.substr(sp + 1), nullptr, false);
  if (!j.is_object()) return h;  // a holder we cannot describe is still a holder
  h.endpoint = j.value("endpoint", std::string());
  h.host = j.value("host", std::string());
  h.boot_id = j.value("boot_id", std::string());
  h.pid_ns = j.value("pid_ns", std::string());
  h.pid = j.value("pid", uint64_t(0));
  h.started_ms = j.value("started_ms", uint64_t(0));
  return h;
}

CoordinatorLease::CoordinatorLease(RedisClient& redis, std::string endpoint, uint64_t period_ms)
    : r_(redis), period_ms_(period_ms) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  mine_.token = random_token();
  mine_.endpoint = std::move(endpoint);
  mine_.host = host;
  mine_.boot_id = read_line("/proc/sys/kernel/random/boot_id");
  mine_.pid_ns = pid_namespace();
  mine_.pid = uint64_t(getpid());
}

std::string CoordinatorLease::value() const {
  nlohmann::json j{{"endpoint", mine_.endpoint}, {"host", mine_.host},     {"pid", mine_.pid},
                   {"boot_id", mine_.boot_id},   {"pid_ns", mine_.pid_ns}, {"started_ms", mine_.started_ms}};
  return mine_.token + " " + j.dump();
}

std::optional<CoordinatorLease::Holder> CoordinatorLease::acquire(uint64_t now_ms) {
  mine_.started_ms = now_ms;
  const std::string period = std::to_string(period_ms_);
  for (int tries = 0; tries < 3; ++tries) {
    if (r_.eval(kAcquire, {kKey, kHistoryKey}, {value(), period}).as_int() == 1) return std::nullopt;
    const auto held = r_.command({"GET", kKey});
    if (held.is_nil()) continue;  // expired between the two commands
    auto h = Holder::parse(held.str);
    if (!h) h = Holder{};
    // A holder on this machine (same boot, same pid namespace) whose process has exited.
    const bool local = !h->boot_id.empty() && h->boot_id == mine_.boot_id && h->pid_ns == mine_.pid_ns;
    if (local && h->pid && h->pid != mine_.pid && util::process_exited(pid_t(h->pid))) {
      if (r_.eval(kTakeOver, {kKey, kHistoryKey}, {held.str, value(), period}).as_int() == 1) return std::nullopt;
      continue;
    }
    return h;
  }
  return holder().value_or(Holder{});
}

CoordinatorLease::Renewal CoordinatorLease::renew(Holder* by) {
  auto r = r_.eval(kRenew, {kKey, kHistoryKey}, {value(), std::to_string(period_ms_)});
  if (r.type == RedisReply::Type::Integer) return r.integer == 1 ? Renewal::Renewed : Renewal::Retaken;
  if (by) *by = Holder::parse(r.as_string()).value_or(Holder{});
  return Renewal::Lost;
}

RedisReply CoordinatorLease::fenced_eval(RedisClient& r, const std::string& script,
                                         const std::vector<std::string>& keys, std::vector<std::string> args,
                                         const std::string& fence) {
  args.push_back(fence);
  try {
    return r.eval(script, keys, args);
  } catch (const RedisReplyError& e) {
    if (std::string(e.what()).find("ZKFENCED") != std::string::npos) throw CoordinatorLeaseLost(e.what());
    throw;
  }
}

void CoordinatorLease::release() { r_.eval(kRelease, {kKey}, {value()}); }

std::optional<CoordinatorLease::Holder> CoordinatorLease::holder() {
  auto r = r_.command({"GET", kKey});
  if (r.is_nil()) return std::nullopt;
  return Holder::parse(r.str);
}

}  // namespace zkmill::farm
