// SPDX-License-Identifier: MIT
// Pauses a worker that keeps failing its attempts (a circuit breaker): after `limit` failed
// attempts in a row it gets no new work for `base_ms`, then one more try: its failure pauses it
// again for twice as long (up to 32 x base_ms), and so on; one success clears it. Failures that
// arrive while it is paused (work it held before) are counted but start no pause.
//
// Why: a worker that fails every task fast (its key admitted by the coordinator but not by the
// synth workers' bundle servers, a broken GPU, a full disk) would otherwise take partition after
// partition and fail each, costing every partition it touches an attempt while the good workers
// are busy, until `max_attempts` fails whole jobs. Paused, it costs a few attempts and then one
// per pause, doubling. A failure that is the job's, not the worker's (a witness the synth worker
// calls hopeless), and lost leases (a dead worker gets nothing anyway) are not counted here.
// Quarantine (a proof of another statement) is the stronger, operator-cleared measure.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace zkmill::farm {

class WorkerPauses {
 public:
  // limit 0: never pause.
  WorkerPauses(uint32_t limit, uint64_t base_ms) : limit_(limit), base_ms_(base_ms) {}

  // A failed attempt of `worker` at `now_ms`, with its error. Returns the pause it starts
  // (ms), 0 when it starts none.
  uint64_t failed(const std::string& worker, const std::string& error, uint64_t now_ms);
  // A result of `worker` was recorded: its streak and its pauses are forgotten.
  void succeeded(const std::string& worker) { streaks_.erase(worker); }
  bool paused(const std::string& worker, uint64_t now_ms) const;
  // {until_ms, failures (in a row), pauses (in a row), last_error} while `worker` is paused;
  // null otherwise.
  nlohmann::json describe(const std::string& worker, uint64_t now_ms) const;
  // Workers with a streak remembered (bounded by kMaxTracked).
  size_t tracked() const { return streaks_.size(); }

  // The most workers with a streak that are remembered (a streak of a worker that never comes
  // back would stay forever; past this the ones not paused are forgotten).
  static constexpr size_t kMaxTracked = 4096;
  static constexpr uint32_t kMaxDoublings = 5;  // the longest pause: 32 x base_ms

 private:
  struct Streak {
    uint32_t failures = 0;  // in a row
    uint32_t pauses = 0;    // pauses in a row
    uint64_t until_ms = 0;  // paused until then
    std::string last_error;
  };
  uint32_t limit_;
  uint64_t base_ms_;
  std::map<std::string, Streak> streaks_;
};

}  // namespace zkmill::farm
