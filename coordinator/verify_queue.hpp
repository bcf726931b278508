// SPDX-License-Identifier: MIT
// Proof verification off the coordinator's event loop: a few threads run the pairing checks
// (milliseconds each, the coordinator's largest per-partition cost), and the loop collects
// the verdicts when the queue's eventfd polls readable. The loop stays the only thread that
// touches Redis, ZeroMQ and the coordinator's tables; a task carries only what the check
// needs (the prepared key inside `check`, the proof and the statement).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace zkmill::farm {

class VerifyQueue {
 public:
  struct Verdict {
    uint64_t id = 0;  // the caller's handle, from submit
    bool good = false;
    std::string why;  // when not good
    double seconds = 0;
  };
  // The check: true when the proof verifies; false with `why` (thrown exceptions become `why`).
  using Check = std::function<bool(std::string* why)>;

  // threads == 0: one per hardware thread, at most 8.
  explicit VerifyQueue(size_t threads);
  ~VerifyQueue();
  VerifyQueue(const VerifyQueue&) = delete;
  VerifyQueue& operator=(const VerifyQueue&) = delete;

  // Queues a check; its verdict comes back from done() with this id.
  uint64_t submit(Check check);
  // The verdicts ready now (drains the eventfd); never blocks.
  std::vector<Verdict> done();
  // Readable while verdicts wait: poll it next to the ROUTER.
  int fd() const { return fd_; }
  size_t in_flight() const;
  size_t threads() const { return threads_.size(); }

 private:
  void run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<uint64_t, Check>> todo_;
  std::vector<Verdict> done_;
  size_t running_ = 0;
  uint64_t next_id_ = 0;
  bool stop_ = false;
  int fd_ = -1;
  std::vector<std::thread> threads_;
};

}  // namespace zkmill::farm
