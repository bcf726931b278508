// SPDX-License-Identifier: MIT
#include "farm/farm_clock.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "farm/clock.hpp"
#include "farm/redis_client.hpp"

namespace zkmill::farm {

uint64_t FarmClock::now_ms() {
  std::lock_guard lock(mu_);
  // Before the first sample, this host's clock, which the first sample may move back by any
  // amount: only the server's times are held monotonic.
  if (!sampled_) return farm::now_ms();
  const uint64_t t =
      server_ms_ + uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - at_).count());
  last_ms_ = std::max(last_ms_, t);
  return last_ms_;
}

void FarmClock::refresh(uint64_t period_ms) {
  {
    std::lock_guard lock(mu_);
    if (sampled_ && period_ms && Steady::now() - at_ < std::chrono::milliseconds(period_ms)) return;
  }
  // Outside the lock: a round trip (or a timeout) must not hold up readers.
  const auto before = Steady::now();
  const uint64_t server = redis_.server_time_ms();
  const auto after = Steady::now();
  const auto mid = before + (after - before) / 2;
  const auto half = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(after - mid).count());
  take_sample(server, mid, farm::now_ms() - half);
}

void FarmClock::take_sample(uint64_t server_ms, Steady::time_point at, uint64_t system_ms) {
  std::lock_guard lock(mu_);
  // A server clock that moved back by more than the round trips' jitter (a Sentinel failover to
  // a host whose clock is behind, or the server's clock set back): followed at once rather than
  // held until it catches up (hours, perhaps, with no heartbeat falling due meanwhile).
  if (sampled_) {
    const uint64_t extrapolated =
        server_ms_ + uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(at - at_).count());
    if (server_ms + kStepBackMs < extrapolated) {
      spdlog::warn(
          "coordinator: the Redis server's clock moved back {:.1f} s (a failover to another host, or its "
          "clock was set); the farm's clock follows it",
          double(extrapolated - server_ms) / 1000.0);
      last_ms_ = 0;
    }
  }
  sampled_ = true;
  server_ms_ = server_ms;
  at_ = at;
  skew_ms_ = int64_t(server_ms) - int64_t(system_ms);
  // A skew worth telling the operator about: over a second, and not the one already told.
  if (std::llabs(skew_ms_) > 1000 && std::llabs(skew_ms_ - logged_skew_ms_) > 1000) {
    logged_skew_ms_ = skew_ms_;
    spdlog::warn(
        "coordinator: this host's clock is {:.1f} s {} the Redis server's; the farm's times (leases, deadlines, "
        "retention, pauses) follow the Redis server's clock (synchronize the hosts with NTP)",
        double(std::llabs(skew_ms_)) / 1000.0, skew_ms_ > 0 ? "behind" : "ahead of");
  } else if (std::llabs(skew_ms_) <= 1000 && logged_skew_ms_) {
    logged_skew_ms_ = 0;
    spdlog::info("coordinator: this host's clock is within a second of the Redis server's again");
  }
}

std::optional<int64_t> FarmClock::skew_ms() const {
  std::lock_guard lock(mu_);
  if (!sampled_) return std::nullopt;
  return skew_ms_;
}

}  // namespace zkmill::farm
