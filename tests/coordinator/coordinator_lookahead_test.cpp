// SPDX-License-Identifier: MIT
// Lookahead assignment against hostile workers, in-process (the real Coordinator, a private
// redis-server, fake workers speaking the protocol by hand): a worker's hello advertises how
// many assignments it holds (`slots`) and how many of them wait queued (`lookahead`). A worker
// advertising the protocol's maximum is capped at coordinator.max_worker_slots, so it cannot
// hoard the queue; an assignment handed back unstarted (task_failed `returned`, what a draining
// worker does with its queue) costs the partition no attempt only if the worker's own last
// report had it queued: a worker cannot hide the failure of work it ran by calling it returned.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/in_process_coordinator.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using farm::WorkerRole;

class CoordinatorLookahead : public InProcessCoordinatorTest {
 protected:
  // synth_lookahead is high so that only the worker's slots bound what it is given.
  void SetUp() override {
    start(
        "  heartbeat_ms: 100\n  liveness: 50\n  lease_ms: 60000\n  backoff_ms: 50\n  backoff_max_ms: 200\n"
        "  max_attempts: 5\n  synth_lookahead: 100\n  max_worker_slots: 2\n");
  }
  // A synth worker advertising `slots` held at once, `lookahead` of them queued.
  std::unique_ptr<FakeWorker> synth_worker(const std::string& id, uint64_t slots, uint64_t lookahead) {
    auto w = std::make_unique<FakeWorker>(endpoint_, id);
    farm::Hello h;
    h.worker = id;
    h.role = WorkerRole::Synth;
    h.cores = 1;
    h.memory_mb = 1024;
    h.circuits = {key_->circuit_id()};
    h.bundle_endpoint = "tcp://127.0.0.1:1";
    h.slots = slots;
    h.lookahead = lookahead;
    w->send(h);
    EXPECT_TRUE(w->wait_for(farm::MessageType::Welcome, 10s)) << id << " was not welcomed";
    return w;
  }
  // Every synth assignment that arrives within `limit`, the worker reporting them all as held
  // (the first synthesizing, the others queued) so that none is taken back.
  std::vector<farm::Synth> collect(FakeWorker& w, std::chrono::milliseconds limit, std::vector<farm::Synth> got = {}) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      const auto s = next<farm::Synth>(
          w, std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()));
      if (!s) break;
      got.push_back(*s);
      std::vector<farm::TaskReport> tasks;
      for (const auto& g : got)
        tasks.push_back({g.at, tasks.empty() ? farm::TaskStage::Synthesizing : farm::TaskStage::Queued});
      w.set_tasks(tasks);
    }
    return got;
  }
};

TEST_F(CoordinatorLookahead, AWorkerAdvertisingHugeCapacityIsCappedByTheCoordinator) {
  auto hoarder = synth_worker("hoarder", farm::ControlLimits::kMaxSlots, farm::ControlLimits::kMaxSlots - 1);
  const auto job = submit(8, 5);
  // Eight partitions are queued and it asked for 64: it gets max_worker_slots = 2, no more.
  auto got = collect(*hoarder, 1500ms);
  ASSERT_EQ(got.size(), 2u) << "the coordinator gave a worker more than coordinator.max_worker_slots";
  // One reported done frees one slot: exactly one more comes.
  const auto honest = key_->prove(5, got[0].at.part);
  hoarder->send(farm::SynthDone{got[0].at, "bundle-" + got[0].at.token, honest.public_inputs, 1.0, 1000});
  ASSERT_TRUE(acked(*hoarder, got[0].at.token));
  got.erase(got.begin());
  got = collect(*hoarder, 1500ms, got);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(client_->status(job)["state"], "running");
}

TEST_F(CoordinatorLookahead, OnlyAQueuedAssignmentIsReturnedWithoutCostingAnAttempt) {
  auto w = synth_worker("returner", 2, 1);
  const auto job = submit(4, 9);
  const auto got = collect(*w, 1500ms);
  ASSERT_EQ(got.size(), 2u);
  const farm::AttemptRef running = got[0].at, queued = got[1].at;
  // Its reports (every 100 ms) have the first synthesizing and the second queued.
  w->wait_for([](const farm::ControlMessage&) { return false; }, 300ms);

  farm::TaskFailed back{queued, "returned unstarted: the worker is draining", false};
  back.returned = true;
  w->send(back);
  ASSERT_TRUE(acked(*w, queued.token));
  EXPECT_EQ(partition(job, queued.part)["attempts"], 0) << partition(job, queued.part).dump();

  // The one it reported synthesizing "returned" too: a failed attempt like any other.
  farm::TaskFailed lie{running, "returned unstarted (not really)", false};
  lie.returned = true;
  w->send(lie);
  ASSERT_TRUE(acked(*w, running.token));
  EXPECT_EQ(partition(job, running.part)["attempts"], 1) << partition(job, running.part).dump();
}

}  // namespace
}  // namespace zkmill::test
