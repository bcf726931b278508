// SPDX-License-Identifier: MIT
// The coordinator's handling of control messages, in-process: the real farm::Coordinator runs
// on a thread of the test against a private redis-server, and fake workers in the same
// process (tests/support/fake_worker.hpp: DEALERs on loopback) speak the typed protocol to it.
// What it must do with each message is checked on the messages it answers with and on the
// farm's state in Redis (FarmClient, WorkerRegistry), without any worker process:
//   - assignment: a synth and then a prove assignment go to workers serving the circuit, and
//     carry the partition's attempt (token), the seed and the coordinator's statement;
//   - results end an attempt only from its assignee with its token: prove_done from another
//     identity, or with a stale token, is acked but changes nothing; the assignee's proof is
//     verified against the statement and recorded, and the job finishes;
//   - quarantine: a synth_done whose statement is not the circuit's shape or not the
//     partition's (another instance's, computed by the coordinator), or a proof of another
//     statement, fails the attempt and quarantines its sender, which gets no more work;
//   - task_failed: permanent from a synth worker fails the job; permanent from a prove worker
//     (whose witness a synth worker checked) is downgraded to a failed attempt, retried;
//   - abort: a worker reporting a task of a job that ended (cancelled), or an attempt that is
//     not the partition's current one (a made-up one, or an older one after a hello), is told
//     once to abort it, and never the current attempt of a running job; its report of the
//     stopped task costs no attempt.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/coordinator.hpp"
#include "coordinator/farm_client.hpp"
#include "farm/redis_client.hpp"
#include "farm/worker_registry.hpp"
#include "tests/support/in_process_coordinator.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using farm::ControlMessage;
using farm::MessageType;
using farm::WorkerRole;

class CoordinatorMessages : public InProcessCoordinatorTest {
 protected:
  // Leases far longer than a test: an attempt ends only through the messages under test,
  // never because the fake workers' heartbeats do not list what they hold.
  void SetUp() override {
    start(
        "  heartbeat_ms: 100\n  liveness: 50\n  lease_ms: 60000\n  backoff_ms: 50\n  backoff_max_ms: 200\n"
        "  max_attempts: 5\n");
  }
  std::map<std::string, nlohmann::json> quarantined() {
    farm::RedisClient redis(cfg_.redis);
    return farm::WorkerRegistry(redis).quarantined();
  }
  // The sender's result for partition 0 of `job` was a failed attempt, and `worker` is
  // quarantined for a reason that says `why`.
  void expect_failed_and_quarantined(const std::string& job, const std::string& worker, const std::string& why) {
    ASSERT_TRUE(eventually(10s, [&] { return partition(job, 0)["attempts"].get<uint64_t>() == 1; }))
        << partition(job, 0).dump();
    const auto q = quarantined();
    ASSERT_EQ(q.count(worker), 1u);
    EXPECT_NE(q.at(worker)["reason"].get<std::string>().find(why), std::string::npos) << q.at(worker).dump();
  }
  // Synthesis of partition `part` reported honestly by `synth`: the Prove the prove worker gets.
  std::optional<farm::Prove> synthesized(FakeWorker& synth, FakeWorker& prove, uint64_t seed,
                                         const HonestResult& honest) {
    auto s = next<farm::Synth>(synth);
    if (!s) return std::nullopt;
    EXPECT_EQ(s->seed, seed);
    synth.send(farm::SynthDone{s->at, "bundle-" + s->at.token, honest.public_inputs, 1.0, 1000});
    EXPECT_TRUE(acked(synth, s->at.token));
    return next<farm::Prove>(prove);
  }
};

TEST_F(CoordinatorMessages, OnlyTheAssigneesResultCounts) {
  auto synth = worker("synth-1", WorkerRole::Synth);
  auto prove = worker("prove-1", WorkerRole::Prove);
  const std::string job = submit(1, 11);
  const HonestResult honest = key_->prove(11, 0);

  const auto s = next<farm::Synth>(*synth);
  ASSERT_TRUE(s) << "no synth assignment";
  EXPECT_EQ(s->at.job, job);
  EXPECT_EQ(s->at.part, 0u);
  EXPECT_EQ(s->at.token.size(), 32u);
  EXPECT_EQ(s->circuit, key_->circuit_id());
  EXPECT_EQ(s->curve, "bn254");
  EXPECT_EQ(s->seed, 11u);
  EXPECT_EQ(partition(job, 0)["state"], "synthesizing");
  EXPECT_EQ(partition(job, 0)["worker"], "synth-1");

  // A synth_done naming the attempt, from a peer that is not its assignee: acked, ignored.
  auto other = worker("synth-2", WorkerRole::Synth);
  other->send(farm::SynthDone{s->at, "bundle-x", honest.public_inputs, 1.0, 1000});
  EXPECT_TRUE(acked(*other, s->at.token));
  EXPECT_EQ(partition(job, 0)["state"], "synthesizing");

  synth->send(farm::SynthDone{s->at, "bundle-0", honest.public_inputs, 1.0, 1000});
  EXPECT_TRUE(acked(*synth, s->at.token));
  const auto p = next<farm::Prove>(*prove);
  ASSERT_TRUE(p) << "no prove assignment";
  EXPECT_EQ(p->at.job, job);
  EXPECT_NE(p->at.token, s->at.token) << "each attempt has its own token";
  EXPECT_EQ(p->bundle_endpoint, "tcp://127.0.0.1:1") << "the synth worker's bundle server (its hello)";
  EXPECT_EQ(p->bundle_key, "bundle-0");
  EXPECT_EQ(p->public_inputs, honest.public_inputs) << "the statement the synth worker reported";
  EXPECT_EQ(partition(job, 0)["state"], "proving");

  // The right proof, from another identity: acked (its re-sends stop) but not recorded.
  auto intruder = worker("prove-2", WorkerRole::Prove);
  intruder->send(prove_done(p->at, honest.proof, honest.public_inputs));
  EXPECT_TRUE(acked(*intruder, p->at.token));
  // From the assignee with a stale token (a guessed or earlier attempt's): the same.
  farm::AttemptRef stale = p->at;
  stale.token = std::string(32, 'a');
  prove->send(prove_done(stale, honest.proof, honest.public_inputs));
  EXPECT_TRUE(acked(*prove, stale.token));
  EXPECT_EQ(partition(job, 0)["state"], "proving");
  EXPECT_EQ(partition(job, 0)["recorded"].get<uint64_t>(), 0u);

  prove->send(prove_done(p->at, honest.proof, honest.public_inputs));
  EXPECT_TRUE(acked(*prove, p->at.token));
  ASSERT_TRUE(eventually(10s, [&] { return client_->status(job)["state"] == "done"; })) << client_->status(job).dump();
  const auto part = partition(job, 0);
  EXPECT_EQ(part["recorded"].get<uint64_t>(), 1u);
  EXPECT_EQ(part["attempts"].get<uint64_t>(), 0u) << "nothing the other peers sent counted as an attempt";
  // The proved partition's bundle is released on its synth worker.
  EXPECT_TRUE(synth->wait_for(
      [](const ControlMessage& m) { return m.as<farm::Release>() && m.as<farm::Release>()->bundle_key == "bundle-0"; },
      10s));
  EXPECT_TRUE(quarantined().empty()) << "refused results are not evidence against their sender";
}

TEST_F(CoordinatorMessages, TasksOfAnEndedJobOrNotTheCurrentAttemptAreAbortedOnce) {
  auto synth = worker("synth-1", WorkerRole::Synth);
  const std::string cancelled = submit(1, 11);
  const auto s = next<farm::Synth>(*synth);
  ASSERT_TRUE(s) << "no synth assignment";
  ASSERT_EQ(s->at.job, cancelled);
  const std::string running = submit(1, 12);
  // It reports its synthesis, and (as a confused or hostile worker might) a task of the other,
  // running job that it was never given: an attempt that is not the partition's.
  const farm::AttemptRef other{running, 0, std::string(32, 'b')};
  synth->set_current(s->at.token);
  synth->set_tasks({{s->at, farm::TaskStage::Synthesizing}, {other, farm::TaskStage::Synthesizing}});
  ASSERT_FALSE(client_->status(running).is_null());
  EXPECT_EQ(client_->cancel(cancelled), "cancelled");

  auto is_abort = [](const ControlMessage& m) { return m.as<farm::Abort>() != nullptr; };
  std::map<std::string, std::string> told;  // token -> reason
  while (told.size() < 2) {
    const auto abort = synth->wait_for(is_abort, 10s);
    ASSERT_TRUE(abort) << "aborts so far: " << told.size();
    const auto& a = *abort->as<farm::Abort>();
    EXPECT_EQ(a.at.part, 0u);
    EXPECT_EQ(a.at.job, a.at.token == s->at.token ? cancelled : running);
    EXPECT_TRUE(told.emplace(a.at.token, a.reason).second) << "told twice about " << a.at.token;
  }
  EXPECT_EQ(told[s->at.token], "job cancelled");
  EXPECT_NE(told[other.token].find("superseded"), std::string::npos) << told[other.token];
  // Told once each, although it still reports both (several sweeps of 0.5 s).
  EXPECT_FALSE(synth->wait_for(is_abort, 2s)) << "a second abort";

  // Its report of the stopped task frees it without costing the partition an attempt, and it
  // gets the running job's synthesis next.
  synth->set_current("");
  synth->set_tasks({});
  synth->send(farm::TaskFailed{s->at, "aborted (job cancelled): synthesis cancelled", false});
  EXPECT_TRUE(acked(*synth, s->at.token));
  const auto next_synth = next<farm::Synth>(*synth);
  ASSERT_TRUE(next_synth) << "the worker was not given work after its abort";
  EXPECT_EQ(next_synth->at.job, running);
  EXPECT_EQ(partition(cancelled, 0)["attempts"].get<uint64_t>(), 0u);
  EXPECT_EQ(partition(cancelled, 0)["state"], "cancelled");
}

TEST_F(CoordinatorMessages, AHelloWithASupersededAttemptIsToldToAbortIt) {
  auto synth = worker("synth-1", WorkerRole::Synth);
  const std::string job = submit(1, 11);
  const auto s = next<farm::Synth>(*synth);
  ASSERT_TRUE(s) << "no synth assignment";
  // Another worker (presumed lost earlier, say) comes back holding an older attempt of the same
  // partition; the assignee says hello again with the current one (as after a restart here).
  auto hello_holding = [&](const std::string& id, const farm::AttemptRef& at) {
    farm::Hello h;
    h.circuits = {key_->circuit_id()};
    h.worker = id;
    h.role = WorkerRole::Synth;
    h.cores = 1;
    h.memory_mb = 1024;
    h.bundle_endpoint = "tcp://127.0.0.1:1";
    h.current = at.token;
    h.tasks = {{at, farm::TaskStage::Synthesizing}};
    return h;
  };
  const farm::AttemptRef old{job, 0, std::string(32, 'c')};
  FakeWorker zombie(endpoint_, "synth-old");
  zombie.send(hello_holding("synth-old", old));
  zombie.set_current(old.token);
  zombie.set_tasks({{old, farm::TaskStage::Synthesizing}});
  synth->send(hello_holding("synth-1", s->at));
  synth->set_current(s->at.token);
  synth->set_tasks({{s->at, farm::TaskStage::Synthesizing}});
  auto is_abort = [](const ControlMessage& m) { return m.as<farm::Abort>() != nullptr; };
  const auto abort = zombie.wait_for(is_abort, 10s);
  ASSERT_TRUE(abort) << "no abort for the superseded attempt";
  EXPECT_EQ(abort->as<farm::Abort>()->at.token, old.token);
  EXPECT_NE(abort->as<farm::Abort>()->reason.find("superseded"), std::string::npos) << abort->as<farm::Abort>()->reason;
  EXPECT_FALSE(synth->wait_for(is_abort, 2s)) << "the current attempt was aborted";
  EXPECT_EQ(partition(job, 0)["state"], "synthesizing");
  EXPECT_EQ(partition(job, 0)["worker"], "synth-1");
}

// Proofs that arrive together are checked together and recorded in one batch (one script per
// loop turn): each is recorded exactly once, re-sends of them (while checked, or after) change
// nothing, every sender is acked, and the job finishes.
TEST_F(CoordinatorMessages, ProofsArrivingTogetherAreAllRecordedOnce) {
  constexpr uint64_t n = 6;
  auto synth = worker("synth-1", WorkerRole::Synth);
  std::vector<std::unique_ptr<FakeWorker>> provers;
  for (uint64_t i = 0; i < n; ++i) provers.push_back(worker("prove-" + std::to_string(i), WorkerRole::Prove));
  const std::string job = submit(n, 21);
  const std::map<uint64_t, HonestResult> honest = synthesize_all(*synth, n, 21);
  ASSERT_EQ(honest.size(), n);
  std::vector<farm::Prove> assigned;
  for (auto& p : provers) {
    const auto a = next<farm::Prove>(*p);
    ASSERT_TRUE(a) << "no prove assignment";
    assigned.push_back(*a);
  }
  for (int round = 0; round < 2; ++round)  // each result twice: a worker re-sends until acked
    for (uint64_t i = 0; i < n; ++i) {
      const auto& h = honest.at(assigned[i].at.part);
      provers[i]->send(prove_done(assigned[i].at, h.proof, h.public_inputs));
    }
  for (uint64_t i = 0; i < n; ++i) EXPECT_TRUE(acked(*provers[i], assigned[i].at.token)) << i;
  ASSERT_TRUE(eventually(10s, [&] { return client_->status(job)["state"] == "done"; })) << client_->status(job).dump();
  for (uint64_t i = 0; i < n; ++i) {
    const auto part = partition(job, i);
    EXPECT_EQ(part["recorded"].get<uint64_t>(), 1u) << i;
    EXPECT_EQ(part["attempts"].get<uint64_t>(), 0u) << i;
  }
  EXPECT_TRUE(quarantined().empty());
}

TEST_F(CoordinatorMessages, WrongStatementShapeQuarantinesTheSynthWorker) {
  auto bad = worker("synth-bad", WorkerRole::Synth);
  const std::string job = submit(1, 11);
  const auto s = next<farm::Synth>(*bad);
  ASSERT_TRUE(s);
  std::vector<std::string> statement = key_->prove(11, 0).public_inputs;
  statement.push_back("5");  // one public input more than the circuit has
  bad->send(farm::SynthDone{s->at, "bundle-bad", statement, 1.0, 1000});
  EXPECT_TRUE(acked(*bad, s->at.token));

  // The attempt is failed right after the quarantine is recorded.
  ASSERT_TRUE(eventually(10s, [&] { return partition(job, 0)["attempts"].get<uint64_t>() == 1; }))
      << partition(job, 0).dump();
  ASSERT_EQ(quarantined().count("synth-bad"), 1u);
  const auto record = quarantined().at("synth-bad");
  EXPECT_EQ(record["job"], job);
  EXPECT_NE(record["reason"].get<std::string>().find("synth_done for " + job + " partition 0"), std::string::npos)
      << record.dump();
  EXPECT_NE(client_->status(job)["state"], "failed") << "the job is not the worker's to fail";
  // The partition is synthesized again, but not by the quarantined worker.
  EXPECT_FALSE(next<farm::Synth>(*bad, 2s)) << "a quarantined worker got work";
  auto good = worker("synth-good", WorkerRole::Synth);
  const auto again = next<farm::Synth>(*good);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->at.job, job);
  EXPECT_NE(again->at.token, s->at.token);
}

// The attack the native statement check closes: a synth worker reports another instance's
// statement (seed 12's partition 0: well formed, of the right count) for a seed-11 job, which a
// prover could then prove validly, so that a proof of the wrong statement were recorded. The
// coordinator computes the partition's statement itself: the report is refused, its sender
// quarantined, nothing recorded; an honest synthesis of the same partition is accepted.
TEST_F(CoordinatorMessages, AnotherInstancesStatementQuarantinesTheSynthWorker) {
  auto liar = worker("synth-liar", WorkerRole::Synth);
  const std::string job = submit(1, 11);
  const auto s = next<farm::Synth>(*liar);
  ASSERT_TRUE(s);
  const HonestResult other = key_->prove(12, 0), honest = key_->prove(11, 0);
  ASSERT_NE(other.public_inputs, honest.public_inputs);
  liar->send(farm::SynthDone{s->at, "bundle-liar", other.public_inputs, 1.0, 1000});
  EXPECT_TRUE(acked(*liar, s->at.token));
  expect_failed_and_quarantined(job, "synth-liar", "the circuit's statement");
  if (HasFatalFailure()) return;
  EXPECT_NE(partition(job, 0)["state"], "synthesized") << partition(job, 0).dump();

  auto good = worker("synth-good", WorkerRole::Synth);
  const auto again = next<farm::Synth>(*good);
  ASSERT_TRUE(again);
  good->send(farm::SynthDone{again->at, "bundle-good", honest.public_inputs, 1.0, 1000});
  EXPECT_TRUE(acked(*good, again->at.token));
  ASSERT_TRUE(eventually(10s, [&] { return partition(job, 0)["state"] == "synthesized"; })) << partition(job, 0).dump();
  EXPECT_EQ(quarantined().count("synth-good"), 0u);
}

TEST_F(CoordinatorMessages, ProofOfAnotherStatementQuarantinesTheProver) {
  auto synth = worker("synth-1", WorkerRole::Synth);
  auto evil = worker("prove-evil", WorkerRole::Prove);
  const std::string job = submit(1, 11);
  const auto p = synthesized(*synth, *evil, 11, key_->prove(11, 0));
  ASSERT_TRUE(p);
  // A valid proof, but of seed 12's partition 0: another statement.
  const HonestResult other = key_->prove(12, 0);
  ASSERT_NE(other.public_inputs, p->public_inputs);
  ASSERT_TRUE(key_->verifies(other.proof, other.public_inputs));
  evil->send(prove_done(p->at, other.proof, other.public_inputs));
  EXPECT_TRUE(acked(*evil, p->at.token));
  expect_failed_and_quarantined(job, "prove-evil", "a proof of another statement");
  if (HasFatalFailure()) return;
  EXPECT_EQ(partition(job, 0)["recorded"].get<uint64_t>(), 0u) << partition(job, 0).dump();
  EXPECT_FALSE(next<farm::Prove>(*evil, 2s)) << "a quarantined worker got work";
}

TEST_F(CoordinatorMessages, PermanentFailureFailsTheJobOnlyFromSynth) {
  auto synth = worker("synth-1", WorkerRole::Synth);
  auto prove = worker("prove-1", WorkerRole::Prove);
  const std::string a = submit(1, 11);
  const auto p = synthesized(*synth, *prove, 11, key_->prove(11, 0));
  ASSERT_TRUE(p);
  // A stale token changes nothing.
  farm::AttemptRef stale = p->at;
  stale.token = std::string(32, 'b');
  prove->send(farm::TaskFailed{stale, "guessed", true});
  EXPECT_TRUE(acked(*prove, stale.token));
  EXPECT_EQ(partition(a, 0)["attempts"].get<uint64_t>(), 0u);
  // The prove worker's "permanent": the witness was checked by a synth worker, so this is the
  // prove worker's failure: one failed attempt, and the partition is done again.
  prove->send(farm::TaskFailed{p->at, "the bundle does not satisfy the circuit", true});
  EXPECT_TRUE(acked(*prove, p->at.token));
  ASSERT_TRUE(eventually(10s, [&] { return partition(a, 0)["attempts"].get<uint64_t>() == 1; }))
      << partition(a, 0).dump();
  EXPECT_NE(client_->status(a)["state"], "failed");
  const auto redo = next<farm::Synth>(*synth);
  ASSERT_TRUE(redo) << "the partition was not retried";
  EXPECT_EQ(redo->at.job, a);
  EXPECT_TRUE(quarantined().empty());

  // The synth worker's "permanent" (the job's input itself is wrong) fails the job at once.
  synth->send(farm::TaskFailed{redo->at, "the witness does not satisfy constraint 3", true});
  EXPECT_TRUE(acked(*synth, redo->at.token));
  ASSERT_TRUE(eventually(10s, [&] { return client_->status(a)["state"] == "failed"; })) << client_->status(a).dump();
  EXPECT_NE(client_->status(a)["error"].get<std::string>().find("constraint 3"), std::string::npos)
      << client_->status(a).dump();
}

TEST_F(CoordinatorMessages, UnknownPeersMustSayHelloFirst) {
  FakeWorker stranger(endpoint_, "stranger");
  stranger.send(farm::TaskFailed{{"j1", 0, std::string(32, 'c')}, "x", false});
  EXPECT_TRUE(stranger.wait_for(MessageType::Reconnect, 10s)) << "a result from an unknown peer asks for a hello";
  // A hello naming another worker than its routing id registers nothing.
  FakeWorker liar(endpoint_, "liar");
  liar.hello("someone-else", WorkerRole::Synth, {key_->circuit_id()});
  EXPECT_FALSE(liar.wait_for(MessageType::Welcome, 1s));
  const std::string job = submit(1, 11);
  EXPECT_FALSE(liar.wait_for(MessageType::Synth, 2s)) << "an unregistered peer got work";
  auto synth = worker("synth-1", WorkerRole::Synth);
  const auto s = next<farm::Synth>(*synth);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->at.job, job);
}

}  // namespace
}  // namespace zkmill::test
