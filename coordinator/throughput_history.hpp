// SPDX-License-Identifier: MIT
// Proofs verified per 10-second bucket over the last 15 minutes, kept by the coordinator and
// published with its summary (zk:coordinator "throughput"), so `zkmill status --json`, the
// HTTP API and the dashboard's chart all read one series from Redis. In memory only: a
// restarted coordinator starts a fresh window (Prometheus' zkmill_proofs_verified_total is
// the long-term record). Used from the coordinator's event loop only (no locking).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace zkmill::farm {

class ThroughputHistory {
 public:
  static constexpr uint64_t kBucketMs = 10000;
  static constexpr size_t kBuckets = 90;  // 15 minutes

  ThroughputHistory() : counts_(kBuckets, 0) {}

  void add(uint64_t now_ms, uint64_t n = 1) {
    advance(now_ms);
    counts_[index(now_ms / kBucketMs)] += n;
  }

  // {"bucket_s": 10, "end_ms": end of the newest bucket, "verified": [oldest .. newest],
  //  "last_minute": proofs verified in the last six buckets}. The newest bucket is the
  // current, partly elapsed one.
  nlohmann::json to_json(uint64_t now_ms) {
    advance(now_ms);
    const uint64_t newest = now_ms / kBucketMs;
    nlohmann::json series = nlohmann::json::array();
    uint64_t last_minute = 0;
    for (size_t i = kBuckets; i-- > 0;) {
      const uint64_t b = newest - i;
      const uint64_t n = b <= newest && newest - b < kBuckets ? counts_[index(b)] : 0;
      series.push_back(n);
      if (i < 6) last_minute += n;
    }
    return {{"bucket_s", kBucketMs / 1000},
            {"end_ms", (newest + 1) * kBucketMs},
            {"verified", std::move(series)},
            {"last_minute", last_minute}};
  }

 private:
  size_t index(uint64_t bucket) const { return size_t(bucket % kBuckets); }
  // Zeroes the buckets that time has moved past since the last call.
  void advance(uint64_t now_ms) {
    const uint64_t b = now_ms / kBucketMs;
    if (b <= head_) return;
    const uint64_t steps = std::min<uint64_t>(b - head_, kBuckets);
    for (uint64_t i = 1; i <= steps; ++i) counts_[index(head_ + i)] = 0;
    head_ = b;
  }

  std::vector<uint64_t> counts_;
  uint64_t head_ = 0;
};

}  // namespace zkmill::farm
