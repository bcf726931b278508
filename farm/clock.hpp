// SPDX-License-Identifier: MIT
// Wall-clock milliseconds since the Unix epoch: the one time base of the farm's state.
// Leases, heartbeats and job timestamps are stored in Redis and compared across processes
// (and hosts), so they use the system clock, not a per-process steady clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace zkmill::farm {

inline uint64_t now_ms() {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

}  // namespace zkmill::farm
