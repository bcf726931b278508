// SPDX-License-Identifier: MIT
// ProverPool: a FIFO counting semaphore over device indices.
#include "worker/prover_pool.hpp"

#include <algorithm>

#include "common/util/cancellation.hpp"

namespace zkmill::farm {

ProverPool::ProverPool(std::vector<int> devices)
    : all_(devices.empty() ? std::vector<int>{kCpu} : std::move(devices)), free_(all_) {}

ProverPool::Lease ProverPool::acquire(std::stop_token stop) {
  std::unique_lock lock(mu_);
  const uint64_t ticket = next_ticket_++;
  // Served strictly by ticket: a slot freed while an older waiter sleeps goes to that waiter.
  if (!cv_.wait(lock, stop, [&] { return ticket == serving_ && !free_.empty(); })) {
    // Stopped first: the ticket is given up, and skipped when its turn comes (or now).
    abandoned_.insert(ticket);
    while (abandoned_.erase(serving_)) ++serving_;
    lock.unlock();
    cv_.notify_all();
    util::throw_if_cancelled(stop, "waiting for a proving slot");
  }
  ++serving_;
  while (abandoned_.erase(serving_)) ++serving_;
  const int device = free_.front();
  free_.erase(free_.begin());
  lock.unlock();
  cv_.notify_all();  // the next ticket may find another free slot
  return Lease(this, device);
}

void ProverPool::release(int device) {
  {
    std::lock_guard lock(mu_);
    // Back in listing order, so an idle worker always starts on its first device.
    free_.insert(std::lower_bound(free_.begin(), free_.end(), device,
                                  [&](int a, int b) {
                                    return std::find(all_.begin(), all_.end(), a) <
                                           std::find(all_.begin(), all_.end(), b);
                                  }),
                 device);
  }
  cv_.notify_all();
}

size_t ProverPool::waiting() const {
  std::lock_guard lock(mu_);
  return next_ticket_ - serving_ - abandoned_.size();
}

size_t ProverPool::busy() const {
  std::lock_guard lock(mu_);
  return all_.size() - free_.size();
}

}  // namespace zkmill::farm
