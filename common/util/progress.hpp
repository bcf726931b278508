// SPDX-License-Identifier: MIT
// A progress bar with rate and ETA for long single-process jobs (prepare phase2, zkey new):
// the snarkjs complaint this answers is hours with no output. Drawn on stderr only when
// stderr is a terminal (a log file or a pipe gets one line per stage from the caller instead),
// at most ~8 times a second; add() is thread-safe and cheap (one relaxed atomic add).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace zkmill::util {

class Progress {
 public:
  // `total` work units in all; `enabled` false (or stderr not a TTY) draws nothing.
  explicit Progress(uint64_t total, bool enabled = true);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The label shown before the bar (e.g. "tauG1 2^16").
  void stage(const std::string& label);
  void add(uint64_t units);
  // Resets the total (when it is known only after reading the input) and the count.
  void reset(uint64_t total);
  // Clears the bar's line (also done by the destructor).
  void finish();
  bool drawing() const { return tty_; }

 private:
  void draw(bool force);
  std::atomic<uint64_t> total_;
  bool tty_ = false;
  std::atomic<uint64_t> done_{0};
  std::atomic<int64_t> last_draw_ns_{0};
  std::mutex mu_;
  std::string label_;
  std::chrono::steady_clock::time_point start_;
  bool finished_ = false;
};

}  // namespace zkmill::util
