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
//
// The streaks are kept in Redis too (zk:pauses, WorkerRegistry), written as they change
// (take_changed), so a coordinator that takes over (a restart, a standby) pauses the same
// workers for the same time instead of letting each fail `limit` attempts again; and an
// operator who fixed a worker lifts its pause by deleting its streak there (`zkmill worker clear`).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace zkmill::farm {

class WorkerPauses {
 public:
  // limit 0: never pause.
  WorkerPauses(uint32_t limit, uint64_t base_ms) : limit_(limit), base_ms_(base_ms) {}

  // A failed attempt of `worker` at `now_ms`, with its error. Returns the pause it starts
  // (ms), 0 when it starts none.
  uint64_t failed(const std::string& worker, const std::string& error, uint64_t now_ms);
  // A result of `worker` was recorded: its streak and its pauses are forgotten.
  void succeeded(const std::string& worker) { forget(worker); }
  // Forgets `worker`'s streak (a success, or an operator lifted its pause); false when it had none.
  bool forget(const std::string& worker);
  bool paused(const std::string& worker, uint64_t now_ms) const;
  // {until_ms, failures (in a row), pauses (in a row), last_error} while `worker` is paused;
  // null otherwise.
  nlohmann::json describe(const std::string& worker, uint64_t now_ms) const;
  // Workers with a streak remembered (bounded by kMaxTracked).
  size_t tracked() const { return streaks_.size(); }
  // Ids of the workers with a streak remembered.
  std::set<std::string> workers() const;

  // Persistence. `worker`'s streak as {failures, pauses, until_ms, last_error}, null when none.
  nlohmann::json record(const std::string& worker) const;
  // Replaces the streaks with `records` (id -> record(), as read back from Redis). Records that
  // do not parse, and those past kMaxTracked, are skipped (listed in `skipped`) and marked
  // changed, so the next write deletes them.
  void restore(const std::map<std::string, nlohmann::json>& records, std::vector<std::string>* skipped = nullptr);
  // The workers whose streak was added, changed or forgotten since the last call (to be written
  // or deleted); `mark_changed` puts one back when its write failed.
  std::set<std::string> take_changed() { return std::exchange(changed_, {}); }
  void mark_changed(const std::string& worker) { changed_.insert(worker); }
  bool pending(const std::string& worker) const { return changed_.count(worker) != 0; }
  // Forgets `worker`'s streak whose record was deleted elsewhere (an operator lifted its pause):
  // nothing to write. True when it was paused at `now_ms`.
  bool drop(const std::string& worker, uint64_t now_ms);

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
  std::set<std::string> changed_;
};

}  // namespace zkmill::farm
