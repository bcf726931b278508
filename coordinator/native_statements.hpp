// SPDX-License-Identifier: MIT
// The statements of native partitions, computed off the coordinator's event loop. A native
// job's partition statement is the built-in circuit's public inputs for (seed, partition),
// computed natively (ProofChecker::builtin_fn): microseconds for a small circuit, ~0.3 s for a
// 130M-constraint PoRep partition on one core (bench_synth BM_NativeStatement). The coordinator
// starts the computation when it dispatches the synthesis and takes the result when the synth
// worker reports, seconds later: by then it is done, and the loop never waits for it (a report
// that comes first waits for the one computation in progress, or computes a queued one itself).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace zkmill::farm {

class NativeStatements {
 public:
  using Statement = std::vector<std::string>;
  using Compute = std::function<Statement()>;

  explicit NativeStatements(size_t threads);
  ~NativeStatements();
  NativeStatements(const NativeStatements&) = delete;
  NativeStatements& operator=(const NativeStatements&) = delete;

  // Starts computing the statement under `key` (a partition's queue member); one already
  // there is replaced (a retry's dispatch).
  void start(const std::string& key, Compute compute);
  // The statement under `key`, taken out: waits while it is being computed, computes it here
  // when it is still queued. nullopt with `why` empty when none was started (a restarted
  // coordinator), with `why` set when the computation threw.
  std::optional<Statement> take(const std::string& key, std::string* why);
  size_t pending() const;

  // Entries kept at most: past it, the finished ones nobody took (partitions whose synthesis
  // never reported) are dropped; a miss is computed on the loop.
  static constexpr size_t kMaxEntries = 10000;

 private:
  struct Entry {
    Compute compute;
    bool claimed = false;  // a thread (or take) is computing it
    bool done = false;
    std::optional<Statement> result;
    std::string error;
  };
  static void compute(Entry& e);
  void run();

  mutable std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::shared_ptr<Entry>> queue_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace zkmill::farm
