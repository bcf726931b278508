// SPDX-License-Identifier: MIT
// ThreadPool: workers sleep on a condition variable and claim task indices of the
// current batch with an atomic counter; the submitting thread works too.
#include "common/util/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <stdexcept>

namespace zkmill::util {

namespace {
thread_local bool t_inside_pool = false;
}

struct ThreadPool::Batch {
  size_t tasks;
  const std::function<void(size_t)>* fn;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::atomic<size_t> users{0};  // workers holding a pointer to this batch
  std::mutex err_mu;
  std::exception_ptr error;

  void drain() {
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= tasks) return;
      try {
        (*fn)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(err_mu);
        if (!error) error = std::current_exception();
      }
      done.fetch_add(1);
    }
  }
};

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0) threads = std::max<size_t>(1, std::thread::hardware_concurrency());
  for (size_t i = 0; i + 1 < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop() {
  t_inside_pool = true;
  size_t seen = 0;
  for (;;) {
    Batch* b;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stop_ || (batch_ && generation_ != seen); });
      if (stop_) return;
      seen = generation_;
      b = batch_;
      b->users.fetch_add(1);
    }
    b->drain();
    b->users.fetch_sub(1);
  }
}

void ThreadPool::run_tasks(size_t tasks, const std::function<void(size_t)>& fn) {
  if (tasks == 0) return;
  if (t_inside_pool || workers_.empty() || tasks == 1) {
    for (size_t i = 0; i < tasks; ++i) fn(i);
    return;
  }
  Batch b;
  b.tasks = tasks;
  b.fn = &fn;
  {
    std::unique_lock<std::mutex> lk(mu_);
    // One batch at a time: a second submitter from outside waits its turn.
    idle_cv_.wait(lk, [&] { return batch_ == nullptr; });
    batch_ = &b;
    ++generation_;
  }
  cv_.notify_all();
  t_inside_pool = true;
  b.drain();
  t_inside_pool = false;
  while (b.done.load() < tasks) std::this_thread::yield();
  {
    std::lock_guard<std::mutex> lk(mu_);
    batch_ = nullptr;
  }
  idle_cv_.notify_one();
  // A worker may still hold &b between claiming it and finding no task left.
  while (b.users.load() != 0) std::this_thread::yield();
  if (b.error) std::rethrow_exception(b.error);
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t grain) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  size_t chunks = std::min(size() * 4, (n + grain - 1) / grain);
  chunks = std::max<size_t>(chunks, 1);
  size_t per = (n + chunks - 1) / chunks;
  run_tasks(chunks, [&](size_t c) {
    size_t b = c * per, e = std::min(n, b + per);
    if (b < e) fn(b, e);
  });
}

namespace {
// Guards the pair below so that a set_global_threads racing the first global() either takes
// effect or throws; it never silently loses.
std::mutex g_global_mu;
size_t g_global_threads = 0;
bool g_global_created = false;
}  // namespace

ThreadPool& ThreadPool::global() {
  static ThreadPool pool([] {
    std::lock_guard<std::mutex> lk(g_global_mu);
    g_global_created = true;
    return g_global_threads;
  }());
  return pool;
}

void ThreadPool::set_global_threads(size_t threads) {
  std::lock_guard<std::mutex> lk(g_global_mu);
  if (g_global_created) {
    throw std::logic_error("ThreadPool::set_global_threads called after the global pool was created");
  }
  g_global_threads = threads;
}

}  // namespace zkmill::util
