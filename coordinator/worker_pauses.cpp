// SPDX-License-Identifier: MIT
// WorkerPauses: the failed-attempt streaks and pauses (worker_pauses.hpp says why).
#include "coordinator/worker_pauses.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace zkmill::farm {

uint64_t WorkerPauses::failed(const std::string& worker, const std::string& error, uint64_t now_ms) {
  if (limit_ == 0) return 0;
  if (streaks_.size() >= kMaxTracked && !streaks_.count(worker))
    std::erase_if(streaks_, [&](const auto& kv) {
      if (kv.second.until_ms > now_ms) return false;
      changed_.insert(kv.first);
      return true;
    });
  changed_.insert(worker);
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

bool WorkerPauses::forget(const std::string& worker) {
  if (streaks_.erase(worker) == 0) return false;
  changed_.insert(worker);
  return true;
}

bool WorkerPauses::drop(const std::string& worker, uint64_t now_ms) {
  const bool was = paused(worker, now_ms);
  streaks_.erase(worker);
  return was;
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

std::set<std::string> WorkerPauses::workers() const {
  std::set<std::string> out;
  for (const auto& kv : streaks_) out.insert(kv.first);
  return out;
}

nlohmann::json WorkerPauses::record(const std::string& worker) const {
  const auto it = streaks_.find(worker);
  if (it == streaks_.end()) return nullptr;
  const Streak& s = it->second;
  return {{"failures", s.failures}, {"pauses", s.pauses}, {"until_ms", s.until_ms}, {"last_error", s.last_error}};
}

void WorkerPauses::restore(const std::map<std::string, nlohmann::json>& records, std::vector<std::string>* skipped) {
  streaks_.clear();
  if (limit_ == 0) return;  // this coordinator never pauses (the records are left as they are)
  for (const auto& [worker, r] : records) {
    const auto count = [&](const char* name) {
      const auto it = r.is_object() ? r.find(name) : r.end();
      return it != r.end() && it->is_number_unsigned() ? std::optional<uint64_t>(it->get<uint64_t>()) : std::nullopt;
    };
    const auto failures = count("failures"), pauses = count("pauses"), until = count("until_ms");
    if (!failures || !pauses || !until || *failures > UINT32_MAX || *pauses > UINT32_MAX ||
        streaks_.size() >= kMaxTracked) {
      if (skipped) skipped->push_back(worker);
      changed_.insert(worker);  // deleted at the next write
      continue;
    }
    const auto e = r.find("last_error");
    streaks_[worker] = {uint32_t(*failures), uint32_t(*pauses), *until,
                        e != r.end() && e->is_string() ? e->get<std::string>() : std::string()};
  }
}

}  // namespace zkmill::farm
