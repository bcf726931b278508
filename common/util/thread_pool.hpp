// SPDX-License-Identifier: MIT
// A fixed pool of worker threads with a blocking parallel_for, used by NTT, MSM and
// synthesis. Chosen over OpenMP so that a process hosting several in-process workers
// (zkmill demo) can give each its own bounded pool instead of one global team, and so
// nested calls from inside a task run inline rather than oversubscribing the cores.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace zkmill::util {

class ThreadPool {
 public:
  // threads == 0 means one per hardware thread.
  explicit ThreadPool(size_t threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t size() const { return workers_.size() + 1; }  // the caller takes part too

  // Runs fn(begin, end) over [0, n) split into about `size() * 4` contiguous chunks of at
  // least `grain` items; returns when all are done. Re-entrant calls run inline.
  void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t grain = 1);

  // Runs fn(i) for i in [0, tasks), one task per index; for coarse work items.
  void run_tasks(size_t tasks, const std::function<void(size_t)>& fn);

  // The process-wide default pool; its size is fixed when first used: the value given to
  // set_global_threads (config key `threads`), else one thread per hardware thread.
  static ThreadPool& global();

  // Sizes the global pool (0 = all cores). Call before the first global(); afterwards it
  // throws std::logic_error, since resizing a pool that may be mid-batch is not supported.
  static void set_global_threads(size_t threads);

 private:
  struct Batch;
  void worker_loop();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  Batch* batch_ = nullptr;
  size_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace zkmill::util
