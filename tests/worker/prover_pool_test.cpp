// SPDX-License-Identifier: MIT
// ProverPool: the prove worker's scheduling of partitions onto devices (worker/prover_pool.hpp),
// exercised with CPU threads standing in for proofs: one partition per device at a time, all
// devices at once, first come first served, and the CPU's single slot.
#include "worker/prover_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stop_token>
#include <thread>
#include <vector>

#include "common/util/cancellation.hpp"

namespace zkmill::test {
using namespace zkmill::farm;
namespace {

using namespace std::chrono_literals;

TEST(ProverPool, NoDevicesMeansOneCpuSlot) {
  ProverPool pool({});
  EXPECT_EQ(pool.slots(), 1u);
  EXPECT_EQ(pool.window(0), 1u);
  EXPECT_EQ(pool.window(1), 2u);
  auto lease = pool.acquire();
  EXPECT_EQ(lease.device(), ProverPool::kCpu);
  EXPECT_EQ(pool.busy(), 1u);
}

TEST(ProverPool, WindowScalesWithTheDeviceCount) {
  ProverPool pool({0, 1, 3});
  EXPECT_EQ(pool.slots(), 3u);
  EXPECT_EQ(pool.window(0), 3u);
  EXPECT_EQ(pool.window(1), 6u);
  EXPECT_EQ(pool.window(2), 9u);
}

// A worker's window of tasks on three devices: each "fetches" (a random sleep), takes a slot
// and "proves" (another). No device ever runs two proofs, all three run at once, every task
// finishes, and the devices handed out are exactly the listed ones.
TEST(ProverPool, EveryDeviceProvesOnePartitionAtATimeAndAllAtOnce) {
  const std::vector<int> devices{0, 2, 5};
  ProverPool pool(devices);
  const size_t tasks = 24;
  std::mutex mu;
  std::map<int, int> running;  // device -> proofs running on it now
  std::set<int> used;
  int concurrent = 0, max_concurrent = 0;
  bool overlap_on_one_device = false;
  std::atomic<size_t> done{0};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < tasks; ++i) {
    threads.emplace_back([&, i] {
      std::mt19937 rng{uint32_t(i)};
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 5));  // the fetch
      auto lease = pool.acquire();
      {
        std::lock_guard lock(mu);
        if (++running[lease.device()] > 1) overlap_on_one_device = true;
        used.insert(lease.device());
        max_concurrent = std::max(max_concurrent, ++concurrent);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10 + rng() % 10));  // the proof
      {
        std::lock_guard lock(mu);
        --running[lease.device()];
        --concurrent;
      }
      ++done;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(done.load(), tasks);
  EXPECT_FALSE(overlap_on_one_device);
  EXPECT_EQ(max_concurrent, 3);  // 24 tasks of >= 10 ms: the three devices were busy together
  EXPECT_EQ(used, std::set<int>(devices.begin(), devices.end()));
  EXPECT_EQ(pool.busy(), 0u);
}

// With the only slot taken, waiters are served in the order they asked (the order their
// bundles arrived in), not in whatever order the scheduler wakes them.
TEST(ProverPool, WaitersAreServedFirstComeFirstServed) {
  ProverPool pool({7});
  std::vector<int> order;
  std::mutex mu;
  std::vector<std::thread> threads;
  {
    auto first = pool.acquire();
    EXPECT_EQ(first.device(), 7);
    for (int i = 0; i < 6; ++i) {
      threads.emplace_back([&, i] {
        auto lease = pool.acquire();
        std::lock_guard lock(mu);
        order.push_back(i);
      });
      // Each waiter is queued before the next one starts.
      while (pool.waiting() < size_t(i) + 1) std::this_thread::sleep_for(1ms);
    }
  }  // releases the slot
  for (auto& t : threads) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

// A task whose job ended stops waiting for a slot (its stop_token): it throws Cancelled, its
// place in the queue is given up, and the waiters behind it are served in order as before,
// whether it stopped at the head of the queue or further back.
TEST(ProverPool, AWaiterThatIsStoppedGivesUpItsPlace) {
  for (const int stopped : {0, 1}) {  // the waiter that stops: the first in line, or the second
    ProverPool pool({3});
    std::vector<int> order;
    std::mutex mu;
    std::vector<std::stop_source> stops(3);
    std::atomic<int> cancelled{-1};
    std::vector<std::thread> threads;
    {
      auto held = pool.acquire();
      for (int i = 0; i < 3; ++i) {
        threads.emplace_back([&, i] {
          try {
            auto lease = pool.acquire(stops[size_t(i)].get_token());
            std::lock_guard lock(mu);
            order.push_back(i);
          } catch (const util::Cancelled& e) {
            EXPECT_NE(std::string(e.what()).find("proving slot"), std::string::npos) << e.what();
            cancelled = i;
          }
        });
        while (pool.waiting() < size_t(i) + 1) std::this_thread::sleep_for(1ms);
      }
      stops[size_t(stopped)].request_stop();
      threads[size_t(stopped)].join();
      EXPECT_EQ(cancelled.load(), stopped);
      EXPECT_EQ(pool.waiting(), 2u);
      EXPECT_EQ(pool.busy(), 1u);  // the slot is still the holder's
    }                              // releases it: the two left get it in turn
    for (size_t i = 0; i < threads.size(); ++i)
      if (int(i) != stopped) threads[i].join();
    EXPECT_EQ(order, stopped == 0 ? (std::vector<int>{1, 2}) : (std::vector<int>{0, 2})) << stopped;
    EXPECT_EQ(pool.busy(), 0u);
    EXPECT_EQ(pool.waiting(), 0u);
  }
}

// A released slot goes back in listing order: an idle worker starts on its first device.
TEST(ProverPool, AnIdlePoolHandsOutTheFirstListedDeviceFirst) {
  ProverPool pool({4, 1});
  {
    auto a = pool.acquire();
    auto b = pool.acquire();
    EXPECT_EQ(a.device(), 4);
    EXPECT_EQ(b.device(), 1);
    EXPECT_EQ(pool.busy(), 2u);
  }
  EXPECT_EQ(pool.busy(), 0u);
  auto c = pool.acquire();
  EXPECT_EQ(c.device(), 4);
}

}  // namespace
}  // namespace zkmill::test
