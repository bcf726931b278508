// SPDX-License-Identifier: MIT
// DecodedKeyCache: the decoded snarkjs keys (.zkey proving keys, .r1cs constraint matrices) a
// worker keeps in memory, least-recently-used first out, within a byte budget
// (worker.zkey_cache_mb).
//
// Why: decoding a .zkey's points or an .r1cs's matrices costs seconds for a large circuit, far
// more than one small partition. Keeping one key per curve made a worker that serves two
// circuits of a curve decode again at every switch, and the coordinator interleaves the
// partitions of concurrent jobs, so two jobs of different circuits made every partition pay it.
// Now each decoded key stays while it fits the budget; the most recently used one always
// stays, even alone above the budget (a key larger than the budget still proves, as before).
//
// Entries are named by the caller (the file's path and content digest, so a file replaced in
// place is a new entry) and hold a shared pointer: an entry evicted while a task uses it lives
// until that task lets go. Before decoding, entries are evicted to make room for the new one's
// estimated size (its file's), so a switch between two keys that each fill the budget never
// holds both decoded at once. Thread-safe; a load holds the cache's lock, so two tasks wanting
// the same key decode it once (tasks wanting other keys wait meanwhile, as before).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

namespace zkmill::farm {

class DecodedKeyCache {
 public:
  explicit DecodedKeyCache(uint64_t budget_bytes) : budget_(budget_bytes) {}

  // The entry `name`, decoded by load() (returning a T) when absent. `estimate`: its size
  // before loading (the file's bytes); `size_of(const T&)`: its size once decoded. Exceptions
  // from load() propagate and leave nothing cached.
  template <class T, class Load, class SizeOf>
  std::shared_ptr<const T> get(const std::string& name, uint64_t estimate, Load&& load, SizeOf&& size_of) {
    std::lock_guard lock(mu_);
    if (auto hit = find(name)) return std::static_pointer_cast<const T>(hit);
    make_room(estimate);
    auto value = std::make_shared<const T>(load());
    const uint64_t bytes = size_of(*value);
    insert(name, value, bytes);
    ++loads_;
    return value;
  }

  // Decodes so far (misses), entries and their bytes now.
  uint64_t loads() const;
  size_t entries() const;
  uint64_t bytes() const;

 private:
  struct Entry {
    std::string name;
    std::shared_ptr<const void> value;
    uint64_t bytes;
  };
  // Under mu_: the entry, moved to the front (most recent); null when absent.
  std::shared_ptr<const void> find(const std::string& name);
  // Under mu_: evicts from the back until `incoming` more bytes fit (or nothing is left).
  void make_room(uint64_t incoming);
  // Under mu_: adds at the front, then evicts older entries past the budget.
  void insert(const std::string& name, std::shared_ptr<const void> value, uint64_t bytes);
  // Under mu_: drops the least recently used entry (logged).
  void evict_oldest();

  const uint64_t budget_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // front: most recently used
  uint64_t bytes_ = 0, loads_ = 0;
};

}  // namespace zkmill::farm
