// SPDX-License-Identifier: MIT
// The prove worker's proving slots: one per CUDA device listed in --gpus, or a single one for
// the CPU prover (which spreads one proof over every core itself). A prove task fetches its
// bundle first and only then asks here for a slot, so a worker holding more tasks than slots
// (worker.prefetch ahead per slot) fetches the next bundles while the current ones prove, and
// every device proves one partition at a time, all devices at once.
//
// Slots are granted first come, first served (a ticket queue): the task that asked first, i.e.
// whose bundle arrived first, proves first, and no task can be overtaken forever.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <stop_token>
#include <vector>

namespace zkmill::farm {

class ProverPool {
 public:
  static constexpr int kCpu = -1;  // the slot of the CPU prover

  // `devices`: the CUDA device indices, one slot each; empty: one CPU slot.
  explicit ProverPool(std::vector<int> devices);
  ProverPool(const ProverPool&) = delete;
  ProverPool& operator=(const ProverPool&) = delete;

  // A granted slot; gives it back when destroyed.
  class Lease {
   public:
    Lease(Lease&& o) noexcept : pool_(o.pool_), device_(o.device_) { o.pool_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (pool_) pool_->release(device_);
    }
    int device() const { return device_; }  // kCpu for the CPU slot

   private:
    friend class ProverPool;
    Lease(ProverPool* pool, int device) : pool_(pool), device_(device) {}
    ProverPool* pool_;
    int device_;
  };

  // Blocks until a slot is free (FIFO among waiters). A `stop` request while waiting gives up
  // the place in the queue and throws util::Cancelled (a task whose job ended).
  Lease acquire(std::stop_token stop = {});

  size_t slots() const { return all_.size(); }
  size_t busy() const;
  size_t waiting() const;  // tasks blocked in acquire()
  // Tasks a worker takes at once: every slot busy plus `prefetch` fetched ahead per slot.
  size_t window(uint32_t prefetch) const { return slots() * (1 + size_t(prefetch)); }

 private:
  void release(int device);

  const std::vector<int> all_;
  mutable std::mutex mu_;
  std::condition_variable_any cv_;  // _any: waits on a stop_token too
  std::vector<int> free_;           // devices not leased, in the order they were listed
  uint64_t next_ticket_ = 0, serving_ = 0;
  std::set<uint64_t> abandoned_;  // tickets whose waiter stopped waiting: skipped when reached
};

}  // namespace zkmill::farm
