// SPDX-License-Identifier: MIT
// DecodedKeyCache: lookup, room before a load, eviction past the budget (decoded_key_cache.hpp).
#include "worker/decoded_key_cache.hpp"

#include <spdlog/spdlog.h>

namespace zkmill::farm {

uint64_t DecodedKeyCache::loads() const {
  std::lock_guard lock(mu_);
  return loads_;
}

size_t DecodedKeyCache::entries() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

uint64_t DecodedKeyCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

std::shared_ptr<const void> DecodedKeyCache::find(const std::string& name) {
  for (auto it = lru_.begin(); it != lru_.end(); ++it)
    if (it->name == name) {
      lru_.splice(lru_.begin(), lru_, it);
      return it->value;
    }
  return nullptr;
}

void DecodedKeyCache::evict_oldest() {
  spdlog::info("worker: dropping the decoded {} ({} MiB) to make room (worker.zkey_cache_mb)", lru_.back().name,
               lru_.back().bytes >> 20);
  bytes_ -= lru_.back().bytes;
  lru_.pop_back();
}

void DecodedKeyCache::make_room(uint64_t incoming) {
  while (!lru_.empty() && bytes_ + incoming > budget_) evict_oldest();
}

void DecodedKeyCache::insert(const std::string& name, std::shared_ptr<const void> value, uint64_t bytes) {
  lru_.push_front({name, std::move(value), bytes});
  bytes_ += bytes;
  // The new entry stays even alone above the budget; older ones go while the total is over it
  // (its decoded size can exceed the file's, the estimate room was made for).
  while (lru_.size() > 1 && bytes_ > budget_) evict_oldest();
}

}  // namespace zkmill::farm
