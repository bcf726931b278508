// SPDX-License-Identifier: MIT
// ThreadPool covers every index exactly once, propagates exceptions and allows nesting.
#include "common/util/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>

namespace zkmill::test {

using zkmill::util::ThreadPool;

TEST(ThreadPool, ParallelForCoversEveryIndexOnce) {
  ThreadPool pool(4);
  for (size_t n : {size_t(1), size_t(7), size_t(1000), size_t(100003)}) {
    std::vector<std::atomic<int>> hits(n);
    pool.parallel_for(n, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n;
  }
}

TEST(ThreadPool, ExceptionsReachTheCaller) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.run_tasks(10,
                              [](size_t i) {
                                if (i == 7) throw std::runtime_error("task 7");
                              }),
               std::runtime_error);
  // The pool is still usable afterwards.
  std::atomic<size_t> sum{0};
  pool.run_tasks(100, [&](size_t i) { sum += i; });
  EXPECT_EQ(sum.load(), 4950u);
}

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(2);
  std::atomic<size_t> count{0};
  pool.run_tasks(8, [&](size_t) { pool.parallel_for(10, [&](size_t b, size_t e) { count += e - b; }); });
  EXPECT_EQ(count.load(), 80u);
}

TEST(ThreadPool, ManySmallBatchesFromTwoSubmitters) {
  ThreadPool pool(3);
  std::atomic<size_t> total{0};
  auto submit = [&] {
    for (int r = 0; r < 200; ++r) pool.run_tasks(5, [&](size_t) { total.fetch_add(1); });
  };
  std::thread a(submit), b(submit);
  a.join();
  b.join();
  EXPECT_EQ(total.load(), 2000u);
}

}  // namespace zkmill::test
