// SPDX-License-Identifier: MIT
// The coordinator's liveness model, in-process (the real farm::Coordinator on a thread of the
// test, a private redis-server, fake workers on loopback): a slow link must not look like a
// dead worker (issue 18, "calm under loss"), and a dead one must still be found at once.
//   - silence with the connection open (what a lossy link retransmitting looks like): the
//     worker gets no new work but keeps its partitions; its late result counts, no attempt is
//     failed, even though its silence is many times the liveness period and the lease period;
//   - a closed connection (a killed worker: its kernel closes the socket): declared dead after
//     the liveness period, its partition requeued, long before dead_silence_ms;
//   - a hello again from a live worker (it heard nothing from the coordinator for a while)
//     while an assignment is still in flight to it: the assignment keeps its slot, so the
//     coordinator does not fill the slot twice (the worker would refuse the second one).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "coordinator/coordinator.hpp"
#include "coordinator/farm_client.hpp"
#include "tests/support/in_process_coordinator.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using farm::ControlMessage;
using farm::MessageType;
using farm::WorkerRole;

class CoordinatorLiveness : public InProcessCoordinatorTest {
 protected:
  // Silent after 500 ms, dead after 20 s of silence with the connection open; leases
  // re-checked every 500 ms, so a worker wrongly declared dead loses its partition at once.
  void SetUp() override {
    start(
        "  heartbeat_ms: 100\n  liveness: 5\n  dead_silence_ms: 20000\n  lease_ms: 500\n  backoff_ms: 50\n"
        "  backoff_max_ms: 200\n  max_attempts: 5\n");
  }
  // Partition `part` synthesized honestly by `synth`: the bundle's statement is reported.
  static bool synthesize(FakeWorker& synth, const HonestResult& honest, std::string* token = nullptr) {
    auto s = synth.wait_for(MessageType::Synth, 10s);
    if (!s) return false;
    const auto& at = s->as<farm::Synth>()->at;
    if (token) *token = at.token;
    synth.send(farm::SynthDone{at, "bundle-" + at.token, honest.public_inputs, 1.0, 1000});
    return acked(synth, at.token);
  }
  static farm::ProveDone proved(const farm::AttemptRef& at, const HonestResult& honest) {
    return prove_done(at, honest.proof, honest.public_inputs);
  }
};

TEST_F(CoordinatorLiveness, SilenceWithAnOpenConnectionIsNotDeath) {
  auto synth = worker("synth-1", WorkerRole::Synth);
  auto prove = worker("prove-1", WorkerRole::Prove);
  const std::string job = submit(1, 21);
  const HonestResult honest = key_->prove(21, 0);
  ASSERT_TRUE(synthesize(*synth, honest));
  const auto p = next<farm::Prove>(*prove);
  ASSERT_TRUE(p) << "no prove assignment";
  // Nothing from the prove worker for 2.5 s: 5 liveness periods, 5 lease periods. Its TCP
  // connection stays open, as on a link retransmitting a lost segment with backoff.
  std::this_thread::sleep_for(2500ms);
  EXPECT_EQ(partition(job, 0)["state"], "proving");
  EXPECT_EQ(partition(job, 0)["attempts"].get<uint64_t>(), 0u) << "a silent worker's attempt was failed";
  // Its result, late, is the partition's proof: it was never declared dead (a dead worker's
  // message is answered with `reconnect`, and its attempt would have been failed).
  prove->set_current(p->at.token);
  prove->send(proved(p->at, honest));
  EXPECT_TRUE(acked(*prove, p->at.token));
  ASSERT_TRUE(eventually(10s, [&] { return client_->status(job)["state"] == "done"; })) << client_->status(job).dump();
  EXPECT_EQ(partition(job, 0)["attempts"].get<uint64_t>(), 0u);
  EXPECT_EQ(partition(job, 0)["recorded"].get<uint64_t>(), 1u);
}

TEST_F(CoordinatorLiveness, AClosedConnectionIsDeathAfterTheLivenessPeriod) {
  auto synth = worker("synth-1", WorkerRole::Synth);
  auto prove = worker("prove-1", WorkerRole::Prove);
  const std::string job = submit(1, 22);
  const HonestResult honest = key_->prove(22, 0);
  ASSERT_TRUE(synthesize(*synth, honest));
  const auto p = next<farm::Prove>(*prove);
  ASSERT_TRUE(p) << "no prove assignment";
  // Killed: its socket closes (linger 0). Declared dead once silent for the liveness period
  // (500 ms), its lease then failed by the reaper: well inside 4 s, not after dead_silence_ms.
  const auto t0 = std::chrono::steady_clock::now();
  prove.reset();
  ASSERT_TRUE(eventually(4s, [&] { return partition(job, 0)["attempts"].get<uint64_t>() == 1; }))
      << "the killed worker's partition was not requeued within 4 s: " << partition(job, 0).dump();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "killed worker's partition requeued after " << ms << " ms\n";
  // And it is done elsewhere: the synth worker redoes it, another prove worker proves it.
  auto other = worker("prove-2", WorkerRole::Prove);
  ASSERT_TRUE(synthesize(*synth, honest));
  const auto again = next<farm::Prove>(*other);
  ASSERT_TRUE(again) << "the requeued partition was not assigned again";
  other->send(proved(again->at, honest));
  EXPECT_TRUE(acked(*other, again->at.token));
  ASSERT_TRUE(eventually(10s, [&] { return client_->status(job)["state"] == "done"; })) << client_->status(job).dump();
}

TEST_F(CoordinatorLiveness, HelloAgainKeepsAnAssignmentInFlight) {
  auto synth = worker("synth-1", WorkerRole::Synth);
  auto prove = worker("prove-1", WorkerRole::Prove);  // one slot (no `slots` in its hello)
  const std::string job = submit(2, 23);
  std::vector<HonestResult> honest{key_->prove(23, 0), key_->prove(23, 1)};
  // Both partitions synthesized (the second `synth` may come before the first one's ack), and
  // their bundles reported held, as a synth worker's heartbeats do.
  std::vector<std::string> held;
  for (int acks = 0; acks < 2;) {
    auto m = synth->wait_for([](const ControlMessage& m) { return m.as<farm::Synth>() || m.as<farm::Ack>(); }, 10s);
    ASSERT_TRUE(m) << "the partitions were not both synthesized";
    if (const auto* s = m->as<farm::Synth>()) {
      held.push_back(s->at.token);
      synth->set_held(held);
      synth->send(farm::SynthDone{s->at, "bundle-" + s->at.token, honest[s->at.part].public_inputs, 1.0, 1000});
    } else {
      ++acks;
    }
  }
  synth->wait_for(MessageType::Ack, 150ms);  // heartbeats listing both bundles
  const auto p = next<farm::Prove>(*prove);
  ASSERT_TRUE(p) << "no prove assignment";
  prove->set_current(p->at.token);  // its heartbeats list it from now on
  const size_t a = p->at.part;
  EXPECT_EQ(partition(job, 1 - a)["state"], "synthesized") << "the other partition waits for a slot";

  // A hello again that crossed the assignment on the wire: it has not seen it yet.
  farm::Hello h;
  h.worker = "prove-1";
  h.role = WorkerRole::Prove;
  h.cores = 1;
  h.memory_mb = 1024;
  h.circuits = {key_->circuit_id()};
  h.seen = p->seq - 1;
  prove->send(h);
  // Its one slot is still taken by the assignment in flight: no second one.
  const auto second = prove->wait_for(MessageType::Prove, 1500ms);
  EXPECT_FALSE(second) << "the slot was filled twice: " << second->as<farm::Prove>()->at.part;

  // Once the slot is free the other partition comes (possibly before the ack: both are sent
  // in the same loop turn, the ack last).
  prove->set_current("");
  prove->send(proved(p->at, honest[a]));
  std::optional<farm::Prove> b;
  if (second) b = *second->as<farm::Prove>();
  for (bool ack = false; !ack || !b;) {
    auto m = prove->wait_for([](const ControlMessage& m) { return m.as<farm::Prove>() || m.as<farm::Ack>(); }, 10s);
    ASSERT_TRUE(m) << "no ack, or the other partition was not assigned once the slot was free";
    if (const auto* q = m->as<farm::Prove>()) b = *q;
    ack = ack || m->as<farm::Ack>();
  }
  prove->send(proved(b->at, honest[b->at.part]));
  EXPECT_TRUE(acked(*prove, b->at.token));
  ASSERT_TRUE(eventually(10s, [&] { return client_->status(job)["state"] == "done"; })) << client_->status(job).dump();
  for (uint64_t i = 0; i < 2; ++i) EXPECT_EQ(partition(job, i)["attempts"].get<uint64_t>(), 0u);
}

// A worker whose link was cut reconnects (its ZeroMQ heartbeat dropped the connection) while
// the coordinator still holds the old, half-open connection under the same routing id. The
// new connection must take the routing id over (ROUTER_HANDOVER). Without it libzmq ignores
// the newcomer's messages while the old one lives, and the worker was black-holed: its hellos
// went unanswered for a minute in the chaos run, and a drain then dropped its held bundles.
TEST_F(CoordinatorLiveness, AReconnectionTakesItsRoutingIdOver) {
  auto half_open = worker("synth-1", WorkerRole::Synth);  // never read again, never closed: a cut link
  FakeWorker fresh(endpoint_, "synth-1");
  fresh.hello("synth-1", WorkerRole::Synth, {key_->circuit_id()});
  ASSERT_TRUE(fresh.wait_for(MessageType::Welcome, 5s))
      << "a reconnection under a routing id the coordinator still held was not answered";
  const std::string job = submit(1, 23);
  ASSERT_TRUE(fresh.wait_for(MessageType::Synth, 10s)) << "the reconnected worker got no work";
  half_open.reset();  // the old connection closes at last: the new one keeps the routing id
  fresh.hello("synth-1", WorkerRole::Synth, {key_->circuit_id()});
  EXPECT_TRUE(fresh.wait_for(MessageType::Welcome, 5s)) << "the reconnected worker lost its routing id";
}

}  // namespace
}  // namespace zkmill::test
