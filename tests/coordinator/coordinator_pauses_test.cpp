// SPDX-License-Identifier: MIT
// A worker that fails attempt after attempt, in-process (the real Coordinator, a private
// redis-server, fake workers speaking the protocol by hand): after worker_failure_limit
// failures in a row it gets no work while the queue still has some and another worker takes
// it; after the pause it gets one try, whose failure pauses it twice as long, whose success
// clears it. `zkmill status --workers`'s JSON shows the pause. A failure that is the job's (a
// witness the synth side calls hopeless) does not count against the worker.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "tests/support/in_process_coordinator.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using farm::WorkerRole;

class CoordinatorPauses : public InProcessCoordinatorTest {
 protected:
  // synth_lookahead is high so that the synthesized partitions never hold synthesis back.
  void SetUp() override {
    start(
        "  heartbeat_ms: 100\n  liveness: 50\n  lease_ms: 60000\n  backoff_ms: 50\n  backoff_max_ms: 100\n"
        "  max_attempts: 20\n  synth_lookahead: 100\n  worker_failure_limit: 3\n  worker_pause_ms: 1500\n");
  }
  // Takes the worker's next synth assignment (within `limit`) and reports it failed.
  bool fail_next(FakeWorker& w, bool permanent = false, std::chrono::milliseconds limit = 10s) {
    const auto s = next<farm::Synth>(w, limit);
    if (!s) return false;
    w.send(farm::TaskFailed{s->at, "no space left on device", permanent});
    return acked(w, s->at.token);
  }
  nlohmann::json record_of(const std::string& id) {
    for (const auto& w : client_->workers())
      if (w.value("worker", std::string()) == id) return w;
    return nullptr;
  }
};

TEST_F(CoordinatorPauses, AWorkerFailingEveryAttemptIsPausedThenTriedThenCleared) {
  auto broken = worker("a-broken", WorkerRole::Synth);
  const auto job = submit(20, 5);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(fail_next(*broken)) << "failure " << i;

  // Paused: nothing for it while 20 partitions wait, and the next worker gets the work.
  EXPECT_FALSE(next<farm::Synth>(*broken, 900ms)) << "a paused worker got work";
  const auto rec = record_of("a-broken");
  ASSERT_TRUE(rec.is_object() && rec.contains("paused")) << rec.dump();
  EXPECT_EQ(rec["paused"]["failures"], 3u);
  EXPECT_EQ(rec["paused"]["last_error"], "no space left on device");
  auto good = worker("b-good", WorkerRole::Synth);
  const auto took = next<farm::Synth>(*good, 5s);
  ASSERT_TRUE(took) << "the other worker got nothing during the pause";
  good->set_current(took->at.token);  // it holds that one (no result yet)

  // After the pause one try; it fails: paused twice as long (3 s).
  ASSERT_TRUE(fail_next(*broken, false, 3s)) << "no try after the pause";
  EXPECT_FALSE(next<farm::Synth>(*broken, 2000ms)) << "the failed try did not pause it again";
  EXPECT_EQ(record_of("a-broken")["paused"]["pauses"], 2u);

  // The next try succeeds: the streak is gone, it gets work again at once.
  const auto s = next<farm::Synth>(*broken, 4s);
  ASSERT_TRUE(s) << "no try after the second pause";
  broken->send(farm::SynthDone{s->at, "bundle-" + s->at.token, key_->prove(5, s->at.part).public_inputs, 1.0, 1000});
  ASSERT_TRUE(acked(*broken, s->at.token));
  // Cleared: a failure after it starts a new streak (two are not yet the limit of three).
  ASSERT_TRUE(fail_next(*broken, false, 2s)) << "no work after a success";
  ASSERT_TRUE(fail_next(*broken, false, 2s)) << "paused after one failure of a new streak";
  EXPECT_EQ(client_->status(job)["state"], "running");
}

// Witnesses the synth worker calls hopeless (permanent) fail their jobs; the worker is not at
// fault and keeps getting work.
TEST_F(CoordinatorPauses, TheJobsFailuresDoNotPauseTheWorker) {
  auto w = worker("checker", WorkerRole::Synth);
  for (int i = 0; i < 4; ++i) {
    const auto job = submit(1, 10 + i);
    ASSERT_TRUE(fail_next(*w, true, 3s)) << "job " << i << ": no assignment (paused?)";
    EXPECT_EQ(client_->status(job)["state"], "failed");
  }
  EXPECT_FALSE(record_of("checker").contains("paused"));
}

}  // namespace
}  // namespace zkmill::test
