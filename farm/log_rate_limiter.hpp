// SPDX-License-Identifier: MIT
// Rate limit for warnings a peer can trigger at will (malformed control messages): at most
// `per_second` lines per key and second; what is suppressed is counted and reported with the
// key's next allowed line. The table is bounded: keys beyond `max_keys` (a peer inventing
// routing ids) share one overflow key, so neither the log nor memory grows with an attack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace zkmill::farm {

class LogRateLimiter {
 public:
  static constexpr const char* kOverflowKey = "(other peers)";

  explicit LogRateLimiter(uint32_t per_second = 5, size_t max_keys = 1024)
      : per_second_(per_second), max_keys_(max_keys) {}

  struct Decision {
    bool log = false;         // write this line
    uint64_t suppressed = 0;  // lines of this key dropped since the last one written
    std::string key;          // the key counted (kOverflowKey when the table is full)
  };
  Decision allow(const std::string& key, uint64_t now_ms);

 private:
  struct Window {
    uint64_t start_ms = 0;
    uint32_t logged = 0;
    uint64_t suppressed = 0;
  };
  uint32_t per_second_;
  size_t max_keys_;
  std::map<std::string, Window> windows_;
};

}  // namespace zkmill::farm
