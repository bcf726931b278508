// SPDX-License-Identifier: MIT
// ProverPool: a FIFO counting semaphore over device indices.
#include "worker/prover_pool.hpp"

#include <algorithm>

namespace zkmill::farm {

ProverPool::ProverPool(std::vector<int> devices)
    : all_(devices.empty() ? std::vector<int>{kCpu} : std::move(devices)), free_(all_) {}

ProverPool::Lease ProverPool::acquire() {
  std::unique_lock lock(mu_);
  const uint64_t ticket = next_ticket_++;
  // Served strictly by ticket: a slot freed while an older waiter sleeps goes to that waiter.
  cv_.wait(lock, [&] { return ticket == serving_ && !free_.empty(); });
  ++serving_;
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

size_t ProverPool::busy() const {
  std::lock_guard lock(mu_);
  return all_.size() - free_.size();
}

}  // namespace zkmill::farm
