// SPDX-License-Identifier: MIT
// One active coordinator per farm: a lease in Redis that the coordinator takes at start, renews
// with every heartbeat and releases when it stops, and a fencing token that every Redis write
// of the coordinator checks (inside its Lua script), so a coordinator that has been deposed,
// or that was stalled past its lease while another took over, cannot change the farm.
//
//   zk:lease:coordinator  string  "<fencing token> <holder JSON>", PX = the lease period
//                                 holder JSON: {endpoint, host, pid, boot_id, pid_ns, started_ms}
//   zk:lease:history      list    one entry per tenure, oldest first (the last 1000):
//                                 "<Redis time, µs> <fencing token> <holder JSON>"
//
// A second coordinator finds the key and refuses to start, naming the holder. When the holder
// dies its lease expires after one period, and a new coordinator may start. One shortcut: a
// lease whose holder is a process of this same machine and pid namespace that no longer exists
// (a crash, kill -9) is taken over at once rather than after the period, so a restart by
// systemd or by hand does not wait. Renewal re-takes a lease that simply lapsed (Redis
// restarted without persistence, an outage longer than the period) when nobody else took it.
//
// A standby coordinator (coordinator.standby) calls acquire() until it succeeds (the holder it
// returns says whom it waits for): Coordinator::take_lease.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "farm/redis_client.hpp"

// The Lua check every fenced script runs first: its last argument is the caller's fencing
// token, and it must be the one the lease holds (an error reply "ZKFENCED" otherwise, which
// FarmStore turns into CoordinatorLeaseLost).
#define ZK_LUA_FENCE_CHECK                                                                          \
  "do\n"                                                                                            \
  "  local fence = ARGV[#ARGV]\n"                                                                   \
  "  local held = redis.call('GET', 'zk:lease:coordinator')\n"                                      \
  "  if fence == '' or not held or string.sub(held, 1, #fence + 1) ~= fence .. ' ' then\n"          \
  "    return redis.error_reply('ZKFENCED this coordinator does not hold the coordinator lease')\n" \
  "  end\n"                                                                                         \
  "end\n"

namespace zkmill::farm {

// Another coordinator holds the lease: this one must not start.
class CoordinatorLeaseHeld : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// This coordinator no longer holds the lease (another one took it): it must stop.
class CoordinatorLeaseLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CoordinatorLease {
 public:
  static constexpr const char* kKey = "zk:lease:coordinator";
  static constexpr const char* kHistoryKey = "zk:lease:history";

  struct Holder {
    std::string token, endpoint, host, boot_id, pid_ns;
    uint64_t pid = 0, started_ms = 0;
    // "coordinator pid 1234 on host-a serving tcp://0.0.0.0:7000 (since ...)"
    std::string describe() const;
    static std::optional<Holder> parse(const std::string& value);
  };

  // `endpoint`: what this coordinator serves (shown to a refused second one).
  CoordinatorLease(RedisClient& redis, std::string endpoint, uint64_t period_ms);

  // Takes the lease; nullopt on success, else the live holder (nothing changed). Throws
  // RedisError when Redis cannot be reached.
  std::optional<Holder> acquire(uint64_t now_ms);
  enum class Renewal { Renewed, Retaken, Lost };
  // Extends the lease by one period. Retaken: it had lapsed and nobody else held it, so it is
  // ours again. Lost: another coordinator holds it (`by` says who).
  Renewal renew(Holder* by = nullptr);
  // Gives the lease up (only if still ours), so a successor need not wait.
  void release();
  // The current holder, if any.
  std::optional<Holder> holder();

  const std::string& token() const { return mine_.token; }
  // Runs a script that starts with ZK_LUA_FENCE_CHECK, with `fence` appended as its last
  // argument; a refusal by the check throws CoordinatorLeaseLost.
  static RedisReply fenced_eval(RedisClient& r, const std::string& script, const std::vector<std::string>& keys,
                                std::vector<std::string> args, const std::string& fence);
  uint64_t period_ms() const { return period_ms_; }

 private:
  std::string value() const;

  RedisClient& r_;
  uint64_t period_ms_;
  Holder mine_;
};

}  // namespace zkmill::farm
