// SPDX-License-Identifier: MIT
// WorkerPauses: the failed-attempt streaks and pauses (worker_pauses.hpp says why).
#include "coordinator/worker_pauses.hpp"

#include <algorithm>

namespace zkmill::farm {

uint64_t WorkerPauses::failed(const std::string& worker, const std::string& error, uint64_t now_ms) {
  if (limit_ == 0) return 0;
  if (streaks_.size() >= kMaxTracked && !streaks_.count(worker))
    std::erase_if(streaks_, [&](const auto& kv) { return kv.second.until_ms <= now_ms; });
  Streak& s = streaks_[worker];
  s.last_error = error;
  ++s.failures;
  if (s.failures < limit_ || s.until_ms > now_ms) return 0;
  // The limit reached, or the try after a pause failed: each pause twice the last.
  const uint64_t pause = base_ms_ << std::min(s.pauses, kMaxDoublings);
  ++s.pauses;
  s.until_ms = now_ms + pause;
  return pause;
}

bool WorkerPauses::paused(const std::string& worker, uint64_t now_ms) const {
  const auto it = streaks_.find(worker);
  return it != streaks_.end() && it->second.until_ms > now_ms;
}

nlohmann::json WorkerPauses::describe(const std::string& worker, uint64_t now_ms) const {
  if (!paused(worker, now_ms)) return nullptr;
  const Streak& s = streaks_.at(worker);
  return {{"until_ms", s.until_ms}, {"failures", s.failures}, {"pauses", s.pauses}, {"last_error", s.last_error}};
}

}  // namespace zkmill::farm
