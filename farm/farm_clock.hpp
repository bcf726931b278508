// SPDX-License-Identifier: MIT
// The farm's clock: the Redis server's, as seen from the coordinator's host.
//
// Every time the farm keeps (partition leases in zk:leases, job deadlines and end times, the
// result retention, worker pauses and quarantines) is compared across processes and hosts, and
// the clients already stamp theirs with the Redis server's TIME (FarmClient). A coordinator
// that stamped with its own host's clock broke that as soon as the hosts disagreed: a host two
// hours ahead failed every job with a deadline at once, and a standby two hours behind the
// coordinator it replaced left the partitions of a worker that died with it leased for two
// hours more. So the coordinator keeps the server's clock instead: it samples TIME (refresh(),
// each heartbeat), takes the sample to be the server's time at the middle of the round trip,
// and between samples adds this host's steady clock, which no NTP step or operator's
// `date -s` moves. A new sample a little behind the extrapolation (less than
// kStepBackMs: the round trips' jitter) holds the clock until it catches up, so that now_ms()
// does not go back; one further behind is a step of the server's clock (a Sentinel failover to
// a host whose clock is off) and is followed, with a warning, as a step of a host's clock is.
//
// Thread-safe: the coordinator's event loop refreshes it; other threads may read it.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>

namespace zkmill::farm {

class RedisClient;

class FarmClock {
 public:
  // How often the coordinator samples TIME (at a heartbeat): a step of the server's clock shows
  // within this; between samples a steady clock drifts by microseconds.
  static constexpr uint64_t kSamplePeriodMs = 5000;
  // A sample this far behind the extrapolation is a step back of the server's clock.
  static constexpr uint64_t kStepBackMs = 1000;

  explicit FarmClock(RedisClient& redis) : redis_(redis) {}
  FarmClock(const FarmClock&) = delete;
  FarmClock& operator=(const FarmClock&) = delete;

  // Milliseconds since the Unix epoch on the Redis server's clock; this host's system clock
  // until the first sample.
  uint64_t now_ms();
  // Samples TIME again if the last sample is older than `period_ms` (0: always). Throws
  // RedisError when Redis cannot answer (the clock keeps running on the last sample). Logs a
  // warning when this host's clock is more than a second off the server's, once per such skew.
  void refresh(uint64_t period_ms = 0);
  // What refresh() does with a sample: the server's clock read `server_ms` at `at` (this host's
  // steady clock), when this host's system clock read `system_ms`. Public for the tests, which
  // feed it the steps a real server's clock cannot be made to take.
  using Steady = std::chrono::steady_clock;
  void take_sample(uint64_t server_ms, Steady::time_point at, uint64_t system_ms);
  // The server's clock minus this host's system clock at the last sample, ms; nullopt before
  // the first sample.
  std::optional<int64_t> skew_ms() const;

 private:
  RedisClient& redis_;
  mutable std::mutex mu_;
  bool sampled_ = false;
  uint64_t server_ms_ = 0;      // the server's time at the last sample
  Steady::time_point at_{};     // this host's steady clock then
  int64_t skew_ms_ = 0;         // server minus system clock then
  int64_t logged_skew_ms_ = 0;  // the skew last warned about (0: none)
  uint64_t last_ms_ = 0;        // the largest now_ms() returned since the first sample or a step back
};

}  // namespace zkmill::farm
