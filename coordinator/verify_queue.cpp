// SPDX-License-Identifier: MIT
// VerifyQueue: a mutex-guarded deque of checks, N threads taking from it, verdicts handed back
// through a second list and an eventfd counter.
#include "coordinator/verify_queue.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace zkmill::farm {

VerifyQueue::VerifyQueue(size_t threads) {
  fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  if (threads == 0) threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

VerifyQueue::~VerifyQueue() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  close(fd_);
}

uint64_t VerifyQueue::submit(Check check) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = ++next_id_;
    todo_.emplace_back(id, std::move(check));
  }
  cv_.notify_one();
  return id;
}

std::vector<VerifyQueue::Verdict> VerifyQueue::done() {
  uint64_t n = 0;
  if (read(fd_, &n, sizeof n) < 0) n = 0;  // EAGAIN: nothing signalled since the last call
  std::lock_guard lock(mu_);
  return std::exchange(done_, {});
}

size_t VerifyQueue::in_flight() const {
  std::lock_guard lock(mu_);
  return todo_.size() + running_ + done_.size();
}

void VerifyQueue::run() {
  for (;;) {
    std::pair<uint64_t, Check> task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !todo_.empty(); });
      if (stop_) return;
      task = std::move(todo_.front());
      todo_.pop_front();
      ++running_;
    }
    Verdict v;
    v.id = task.first;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      v.good = task.second(&v.why);
    } catch (const std::exception& e) {
      v.good = false;
      v.why = std::string("proof or public inputs malformed: ") + e.what();
    }
    v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    {
      std::lock_guard lock(mu_);
      --running_;
      done_.push_back(std::move(v));
    }
    const uint64_t one = 1;
    if (write(fd_, &one, sizeof one) < 0) {
      // The counter cannot overflow at one write per verdict; the loop also polls on a timeout.
    }
  }
}

}  // namespace zkmill::farm
