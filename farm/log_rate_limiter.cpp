// SPDX-License-Identifier: MIT
// LogRateLimiter: one-second windows per key; stale windows are dropped when the table fills.
#include "farm/log_rate_limiter.hpp"

#include <iterator>

namespace zkmill::farm {

LogRateLimiter::Decision LogRateLimiter::allow(const std::string& key, uint64_t now_ms) {
  Decision d;
  d.key = key;
  auto it = windows_.find(key);
  if (it == windows_.end()) {
    if (windows_.size() >= max_keys_) {
      // Forget windows idle for a second or more (their suppressed counts are lost, but they
      // were reported on the last line of that key or were below the limit).
      for (auto w = windows_.begin(); w != windows_.end();)
        w = now_ms - w->second.start_ms >= 1000 && w->second.suppressed == 0 ? windows_.erase(w) : std::next(w);
    }
    if (windows_.size() >= max_keys_) d.key = kOverflowKey;
    it = windows_.try_emplace(d.key).first;
  }
  Window& w = it->second;
  if (w.logged == 0 || now_ms - w.start_ms >= 1000) {
    w.start_ms = now_ms;
    w.logged = 0;
  }
  if (w.logged < per_second_) {
    ++w.logged;
    d.log = true;
    d.suppressed = w.suppressed;
    w.suppressed = 0;
  } else {
    ++w.suppressed;
  }
  return d;
}

}  // namespace zkmill::farm
