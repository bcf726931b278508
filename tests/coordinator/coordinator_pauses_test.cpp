// SPDX-License-Identifier: MIT
// A worker that fails attempt after attempt, in-process (the real Coordinator, a private
// redis-server, fake workers speaking the protocol by hand): after worker_failure_limit
// failures in a row it gets no work while the queue still has some and another worker takes
// it; after the pause it gets one try, whose failure pauses it twice as long, whose success
// clears it. `zkmill status --workers`'s JSON shows the pause. A failure that is the job's (a
// witness the synth side calls hopeless) does not count against the worker. The streaks are kept
// in Redis: a restarted coordinator pauses the same worker, and `zkmill worker clear` lifts a
// pause.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "farm/clock.hpp"
#include "tests/support/in_process_coordinator.hpp"
#include "tests/support/process.hpp"

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
        "  max_attempts: 20\n  synth_lookahead: 100\n  worker_failure_limit: 3\n  worker_pause_ms: " +
        std::to_string(pause_ms()) + "\n");
  }
  virtual uint32_t pause_ms() const { return 1500; }
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
  // `id`'s pause as the coordinator publishes it (its table is rewritten every heartbeat), once
  // it is its `nth` pause in a row (the table may still show the one before); null when no such
  // pause is shown within a few seconds.
  nlohmann::json published_pause(const std::string& id, uint32_t nth = 1) {
    for (int i = 0; i < 100; ++i) {
      const auto rec = record_of(id);
      if (rec.is_object() && rec.contains("paused") && rec["paused"].value("pauses", 0u) >= nth) return rec["paused"];
      std::this_thread::sleep_for(50ms);
    }
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

// Pauses long enough (6 s) that a worker getting work within one is told apart from one whose
// pause ran out.
class CoordinatorPausesKept : public CoordinatorPauses {
 protected:
  uint32_t pause_ms() const override { return 6000; }
  // Submits a job of 20 partitions and fails three of them on `w` (worker `id`): its published
  // pause, null when it is not paused.
  nlohmann::json pause_with_work_queued(FakeWorker& w, const std::string& id) {
    submit(20, 5);
    for (int i = 0; i < 3; ++i)
      if (!fail_next(w)) return nullptr;
    return published_pause(id);
  }
  // A client config for the zkmill CLI on this farm's Redis.
  std::string client_config() {
    const auto client = dir_ / "client.yaml";
    std::ofstream(client) << "redis:\n  unix_socket: " << cfg_.redis.unix_socket << "\n";
    return client.string();
  }
};

// A coordinator that takes over (here a restart on the same Redis) pauses the worker its
// predecessor paused, for the rest of that pause, instead of letting it fail three more
// partitions' attempts.
TEST_F(CoordinatorPausesKept, APauseOutlivesACoordinatorRestart) {
  auto broken = worker("a-broken", WorkerRole::Synth);
  const auto before = pause_with_work_queued(*broken, "a-broken");
  ASSERT_TRUE(before.is_object()) << "not paused";

  restart_coordinator();
  broken.reset();
  broken = worker("a-broken", WorkerRole::Synth);  // says hello to the new coordinator
  auto good = worker("b-good", WorkerRole::Synth);
  ASSERT_TRUE(next<farm::Synth>(*good, 5s)) << "the new coordinator dispatches nothing";
  EXPECT_FALSE(next<farm::Synth>(*broken, 1500ms)) << "the new coordinator forgot the pause";
  const auto after = published_pause("a-broken");
  ASSERT_TRUE(after.is_object()) << "the new coordinator does not show the pause";
  EXPECT_EQ(after["until_ms"], before["until_ms"]);
  EXPECT_EQ(after["failures"], 3u);
  EXPECT_EQ(after["pauses"], 1u);
  EXPECT_EQ(after["last_error"], "no space left on device");
  // Its pause runs out as it would have: one try, whose failure doubles the pause.
  ASSERT_TRUE(fail_next(*broken, false, 8s)) << "no try after the pause";
  EXPECT_TRUE(published_pause("a-broken", 2).is_object()) << "the failed try did not pause it again";
}

// An operator who fixed a paused worker lifts its pause with `zkmill worker clear` (exit 0);
// it gets work within a heartbeat, long before its pause would end. A second clear finds
// nothing to lift (exit 1).
TEST_F(CoordinatorPausesKept, WorkerClearLiftsAPause) {
  auto broken = worker("a-broken", WorkerRole::Synth);
  const auto pause = pause_with_work_queued(*broken, "a-broken");
  ASSERT_TRUE(pause.is_object()) << "not paused";
  const uint64_t until = pause["until_ms"].get<uint64_t>();
  EXPECT_FALSE(next<farm::Synth>(*broken, 500ms)) << "a paused worker got work";

  const auto client = client_config();
  const auto clear = run_zkmill({"worker", "clear", "a-broken", "--config", client});
  ASSERT_EQ(clear.exit_code, 0) << clear.err;
  EXPECT_NE(clear.out.find("pause lifted"), std::string::npos) << clear.out;
  EXPECT_EQ(clear.out.find("quarantine"), std::string::npos) << clear.out;
  ASSERT_TRUE(next<farm::Synth>(*broken, 4s)) << "no work after the clear";
  EXPECT_LT(farm::now_ms(), until) << "it got work only when its pause ran out";
  EXPECT_FALSE(record_of("a-broken").contains("paused"));

  const auto again = run_zkmill({"worker", "clear", "a-broken", "--config", client});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("neither quarantined nor paused"), std::string::npos) << again.err;
}

// A paused worker that leaves (drained, restarted) stays listed by `zkmill status --workers`, not
// connected and PAUSED for the rest of its pause, as a quarantined one stays listed: it is paused
// again when it comes back, and the operator who means to `worker clear` it must see it.
TEST_F(CoordinatorPausesKept, APausedWorkerThatLeftIsStillListed) {
  auto broken = worker("a-broken", WorkerRole::Synth);
  const auto pause = pause_with_work_queued(*broken, "a-broken");
  ASSERT_TRUE(pause.is_object()) << "not paused";
  broken->send(farm::Bye{});
  nlohmann::json rec;
  for (int i = 0; i < 100; ++i) {  // until the coordinator's table no longer has it connected
    rec = record_of("a-broken");
    if (!rec.is_object() || !rec.value("connected", true)) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(rec.is_object()) << "a paused worker that left is not listed";
  EXPECT_FALSE(rec.value("connected", true)) << rec.dump();
  ASSERT_TRUE(rec.contains("paused")) << rec.dump();
  EXPECT_EQ(rec["paused"]["until_ms"], pause["until_ms"]);
  EXPECT_EQ(rec["paused"]["failures"], 3u);

  const auto st = run_zkmill({"status", "--workers", "--config", client_config()});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  EXPECT_NE(st.out.find("worker a-broken"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("not connected"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("PAUSED for"), std::string::npos) << st.out;
}

}  // namespace
}  // namespace zkmill::test
