// SPDX-License-Identifier: MIT
// The worker's task handling, in-process: the real farm::Worker runs on a thread of the test,
// connected to a fake coordinator in the same process (a ZeroMQ ROUTER on loopback that speaks
// the typed control protocol), with a small native key in its key directory. No Redis and no
// other process: what the worker does with each assignment is read off the messages it sends.
//   - hello names its role, circuits and bundle server; a synth assignment gives a synth_done
//     with the partition's honest statement, re-sent until acked;
//   - a prove assignment of that bundle gives a proof that verifies against the statement,
//     the bundle taken from the worker's own bundle server without a network fetch when the
//     assignment names that server's endpoint, and fetched over TCP when it names another
//     address of it; a prove whose statement is not the bundle's is a (retryable) task_failed,
//     and so is a synth for a circuit it has no key for;
//   - a prove sent to a synth-only worker is not taken; release retracts a held bundle; drain
//     finishes the work it holds, then bye, and run() returns 0.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <zmq_addon.hpp>

#include "tests/support/native_key.hpp"
#include "tests/support/process.hpp"
#include "worker/worker.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using farm::ControlMessage;
using farm::MessageType;
using farm::WorkerRole;

// The coordinator's side of one worker's connection: a ROUTER that answers nothing by itself
// but heartbeats while the test waits, so the worker never presumes it dead.
class FakeCoordinator {
 public:
  FakeCoordinator() : ctx_(1), sock_(ctx_, zmq::socket_type::router) {
    sock_.set(zmq::sockopt::linger, 0);
    sock_.bind("tcp://127.0.0.1:0");
    endpoint_ = sock_.get(zmq::sockopt::last_endpoint);
  }
  const std::string& endpoint() const { return endpoint_; }

  // To the worker that spoke last.
  void send(const ControlMessage& m) { ASSERT_TRUE(m.send_to(sock_, peer_)) << "cannot send " << m.type_name(); }
  // The next message from the worker satisfying `want` within `limit` (others are dropped).
  std::optional<ControlMessage> wait_for(const std::function<bool(const ControlMessage&)>& want,
                                         std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    auto next_beat = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() < end) {
      if (beating_ && !peer_.empty() && std::chrono::steady_clock::now() >= next_beat) {
        send(farm::Heartbeat{++seq_});
        next_beat += 100ms;
      }
      zmq::pollitem_t items[] = {{sock_.handle(), 0, ZMQ_POLLIN, 0}};
      zmq::poll(items, 1, 20ms);
      if (!(items[0].revents & ZMQ_POLLIN)) continue;
      std::vector<zmq::message_t> frames;
      if (!zmq::recv_multipart(sock_, std::back_inserter(frames), zmq::recv_flags::dontwait) || frames.size() < 2)
        continue;
      peer_ = frames.front().to_string();
      frames.erase(frames.begin());
      std::string why;
      auto m = ControlMessage::decode(frames, 1 << 20, &why);
      EXPECT_TRUE(m) << "the worker sent a malformed message: " << why;
      if (m && want(*m)) return m;
    }
    return std::nullopt;
  }
  std::optional<ControlMessage> wait_for(MessageType type, std::chrono::milliseconds limit = 20s) {
    return wait_for([type](const ControlMessage& m) { return m.type() == type; }, limit);
  }
  // The next result (synth_done, prove_done, task_failed) for attempt `token`.
  std::optional<ControlMessage> result(const std::string& token, std::chrono::milliseconds limit = 20s) {
    return wait_for([&](const ControlMessage& m) { return token_of(m) == token; }, limit);
  }
  // The next heartbeat satisfying `want`.
  std::optional<farm::WorkerHeartbeat> heartbeat(const std::function<bool(const farm::WorkerHeartbeat&)>& want,
                                                 std::chrono::milliseconds limit = 5s) {
    auto m = wait_for(
        [&](const ControlMessage& x) { return x.as<farm::WorkerHeartbeat>() && want(*x.as<farm::WorkerHeartbeat>()); },
        limit);
    if (!m) return std::nullopt;
    return *m->as<farm::WorkerHeartbeat>();
  }
  uint64_t next_seq() { return ++seq_; }
  // Off: wait_for listens without sending heartbeats (a coordinator the worker cannot hear).
  void beating(bool on) { beating_ = on; }
  // Until the worker has handled everything sent so far: messages to it arrive in order, so a
  // heartbeat of its that has seen a numbered heartbeat sent now was sent after the rest.
  bool settled() {
    const uint64_t mark = next_seq();
    send(farm::Heartbeat{mark});
    return heartbeat([&](const farm::WorkerHeartbeat& h) { return h.seen && *h.seen >= mark; }).has_value();
  }

  static std::string token_of(const ControlMessage& m) {
    if (const auto* s = m.as<farm::SynthDone>()) return s->at.token;
    if (const auto* p = m.as<farm::ProveDone>()) return p->at.token;
    if (const auto* f = m.as<farm::TaskFailed>()) return f->at.token;
    return "";
  }

 private:
  zmq::context_t ctx_;
  zmq::socket_t sock_;
  std::string endpoint_, peer_;
  uint64_t seq_ = 1000;
  bool beating_ = true;
};

std::string token(char c) { return std::string(32, c); }

class WorkerTasks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir();
    fs::create_directories(dir_ / "keys");
    key_ = std::make_unique<NativeKey>((dir_ / "keys" / "chain.key").string(), "chain", 64);
  }
  void TearDown() override { stop(); }

  // Starts a worker of `role`; it says hello, and is welcomed (heartbeats of 100 ms, declared
  // gone after 1 s of silence).
  farm::Hello start(WorkerRole role, uint32_t drain_hold_s = 1) {
    cfg_ = farm::parse_farm_config("coordinator:\n  endpoint: " + coordinator_.endpoint() +
                                       "\nworker:\n  id: w1\n  key_dir: " + (dir_ / "keys").string() +
                                       "\n  drain_hold_s: " + std::to_string(drain_hold_s) +
                                       "\n  key_rescan_s: 0\n  cores: 2\n  memory_mb: 1024\n",
                                   "test");
    farm::WorkerOptions opts;
    opts.role = role;
    worker_ = std::make_unique<farm::Worker>(cfg_, opts);
    thread_ = std::thread([this] {
      try {
        exit_code_ = worker_->run(stop_);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "the worker stopped with an error: " << e.what();
      }
    });
    auto h = coordinator_.wait_for(MessageType::Hello);
    EXPECT_TRUE(h) << "no hello";
    if (!h) return {};
    coordinator_.send(farm::Welcome{100, 10});
    return *h->as<farm::Hello>();
  }
  // SIGTERM's drain: until it says bye, its results are acked and its held bundles released.
  void stop() {
    stop_ = true;
    if (!thread_.joinable()) return;
    coordinator_.wait_for(
        [&](const ControlMessage& m) {
          if (const std::string t = FakeCoordinator::token_of(m); !t.empty()) coordinator_.send(farm::Ack{t});
          if (const auto* h = m.as<farm::WorkerHeartbeat>())
            for (const auto& key : h->held) coordinator_.send(farm::Release{key});
          return m.type() == MessageType::Bye;
        },
        20s);
    thread_.join();
  }
  // A synth worker that has synthesized one bundle, its result acked, and then heard nothing
  // from the coordinator for longer than a liveness period (1 s): the key of the bundle it holds.
  std::string synthesize_then_hear_nothing() {
    coordinator_.send(synth(token('a'), 21));
    auto r = coordinator_.result(token('a'));
    EXPECT_TRUE(r && r->as<farm::SynthDone>()) << (r ? std::string(r->type_name()) : "no result");
    if (!r || !r->as<farm::SynthDone>()) return "";
    coordinator_.send(farm::Ack{token('a')});
    EXPECT_TRUE(coordinator_.settled());
    std::this_thread::sleep_for(1500ms);
    return r->as<farm::SynthDone>()->bundle_key;
  }
  farm::Synth synth(const std::string& tok, uint64_t seed, const std::string& circuit = "") {
    farm::Synth s;
    s.at = {"j1", 0, tok};
    s.circuit = circuit.empty() ? key_->circuit_id() : circuit;
    s.curve = "bn254";
    s.seed = seed;
    s.seq = coordinator_.next_seq();
    return s;
  }
  farm::Prove prove(const std::string& tok, const farm::Hello& hello, const std::string& bundle_key,
                    const std::vector<std::string>& statement) {
    farm::Prove p;
    p.at = {"j1", 0, tok};
    p.circuit = key_->circuit_id();
    p.curve = "bn254";
    p.bundle_endpoint = hello.bundle_endpoint;
    p.bundle_key = bundle_key;
    p.public_inputs = statement;
    p.seq = coordinator_.next_seq();
    return p;
  }

  fs::path dir_;
  std::unique_ptr<NativeKey> key_;
  FakeCoordinator coordinator_;
  farm::FarmConfig cfg_;
  std::unique_ptr<farm::Worker> worker_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int exit_code_ = -1;
};

TEST_F(WorkerTasks, SynthesizesProvesAndResendsResultsUntilAcked) {
  const farm::Hello hello = start(WorkerRole::Both);
  EXPECT_EQ(hello.worker, "w1");
  EXPECT_EQ(hello.role, WorkerRole::Both);
  EXPECT_EQ(hello.circuits, std::vector<std::string>{key_->circuit_id()});
  EXPECT_EQ(hello.bundle_endpoint.rfind("tcp://127.0.0.1:", 0), 0u) << hello.bundle_endpoint;
  EXPECT_EQ(hello.cores, 2u);
  const HonestResult honest = key_->prove(11, 0);

  coordinator_.send(synth(token('1'), 11));
  auto r = coordinator_.result(token('1'));
  ASSERT_TRUE(r && r->as<farm::SynthDone>()) << (r ? std::string(r->type_name()) : "no result");
  const farm::SynthDone done = *r->as<farm::SynthDone>();
  EXPECT_EQ(done.at.job, "j1");
  EXPECT_EQ(done.public_inputs, honest.public_inputs) << "the partition's statement, as `zkmill prove` computes it";
  EXPECT_TRUE(done.bundle_bytes.has_value());
  // Not acked: sent again (it must survive a coordinator restart); acked: no more.
  ASSERT_TRUE(coordinator_.result(token('1'), 3s)) << "an unacked result was not re-sent";
  coordinator_.send(farm::Ack{token('1')});
  ASSERT_TRUE(coordinator_.settled());
  EXPECT_FALSE(coordinator_.result(token('1'), 1s)) << "an acked result was re-sent";
  // It holds the bundle, under the synth attempt's token.
  EXPECT_TRUE(coordinator_.heartbeat(
      [](const auto& h) { return std::find(h.tokens.begin(), h.tokens.end(), token('1')) != h.tokens.end(); }));

  // A prove of that bundle with another statement is refused before proving: the statement
  // is the coordinator's, not the bundle's.
  coordinator_.send(prove(token('2'), hello, done.bundle_key, key_->prove(12, 0).public_inputs));
  r = coordinator_.result(token('2'));
  ASSERT_TRUE(r && r->as<farm::TaskFailed>()) << (r ? std::string(r->type_name()) : "no result");
  EXPECT_FALSE(r->as<farm::TaskFailed>()->permanent);
  EXPECT_NE(r->as<farm::TaskFailed>()->error.find("not the partition's statement"), std::string::npos)
      << r->as<farm::TaskFailed>()->error;
  coordinator_.send(farm::Ack{token('2')});

  // With the right statement: a proof that verifies.
  coordinator_.send(prove(token('3'), hello, done.bundle_key, honest.public_inputs));
  r = coordinator_.result(token('3'), 60s);
  ASSERT_TRUE(r && r->as<farm::ProveDone>()) << (r ? std::string(r->type_name()) : "no result");
  const farm::ProveDone proved = *r->as<farm::ProveDone>();
  EXPECT_TRUE(key_->verifies(proved.proof, honest.public_inputs)) << proved.proof.dump();
  EXPECT_EQ(proved.public_inputs, honest.public_inputs);
  EXPECT_TRUE(proved.prove_ms.has_value());
  coordinator_.send(farm::Ack{token('3')});
  // Both proves named the worker's own bundle server: taken from it, not fetched.
  EXPECT_EQ(worker_->bundles_proved_locally(), 2u);

  // The same server under another address (a prove worker elsewhere would name it so): fetched
  // over TCP, checked and proved the same.
  farm::Hello other = hello;
  other.bundle_endpoint.replace(0, std::string("tcp://127.0.0.1").size(), "tcp://localhost");
  coordinator_.send(prove(token('4'), other, done.bundle_key, honest.public_inputs));
  r = coordinator_.result(token('4'), 60s);
  ASSERT_TRUE(r && r->as<farm::ProveDone>()) << (r ? std::string(r->type_name()) : "no result");
  EXPECT_TRUE(key_->verifies(r->as<farm::ProveDone>()->proof, honest.public_inputs));
  EXPECT_EQ(worker_->bundles_proved_locally(), 2u) << "a fetch from another address was taken locally";
  coordinator_.send(farm::Ack{token('4')});

  // Released: the bundle is no longer held.
  coordinator_.send(farm::Release{done.bundle_key});
  ASSERT_TRUE(coordinator_.settled());
  EXPECT_TRUE(coordinator_.heartbeat([](const auto& h) {
    return std::find(h.tokens.begin(), h.tokens.end(), token('1')) == h.tokens.end();
  })) << "a released bundle is still held";
}

TEST_F(WorkerTasks, SynthOfAnUnknownCircuitIsARetryableFailure) {
  start(WorkerRole::Synth);
  coordinator_.send(synth(token('4'), 11, "sha256:" + std::string(64, '0')));
  auto r = coordinator_.result(token('4'));
  ASSERT_TRUE(r && r->as<farm::TaskFailed>()) << (r ? std::string(r->type_name()) : "no result");
  EXPECT_NE(r->as<farm::TaskFailed>()->error.find("has no key for circuit"), std::string::npos)
      << r->as<farm::TaskFailed>()->error;
  EXPECT_FALSE(r->as<farm::TaskFailed>()->permanent) << "another worker may hold the key";
  coordinator_.send(farm::Ack{token('4')});
}

TEST_F(WorkerTasks, AssignmentsOutsideItsRoleAreNotTaken) {
  const farm::Hello hello = start(WorkerRole::Synth);
  EXPECT_EQ(hello.role, WorkerRole::Synth);
  coordinator_.send(prove(token('5'), hello, "j1/0/x", key_->prove(11, 0).public_inputs));
  EXPECT_FALSE(coordinator_.result(token('5'), 2s)) << "a synth worker answered a prove";
  ASSERT_TRUE(coordinator_.settled());
  EXPECT_TRUE(coordinator_.heartbeat([](const auto& h) { return h.tasks.empty() && h.current.empty(); }))
      << "a synth worker took a prove";
}

TEST_F(WorkerTasks, DrainFinishesHeldWorkThenSaysBye) {
  start(WorkerRole::Both);
  coordinator_.send(synth(token('6'), 11));
  coordinator_.send(farm::Drain{});
  // The synthesis it already holds finishes and is reported; nothing new is taken.
  auto r = coordinator_.result(token('6'));
  ASSERT_TRUE(r && r->as<farm::SynthDone>()) << (r ? std::string(r->type_name()) : "no result");
  ASSERT_TRUE(coordinator_.heartbeat([](const auto& h) { return h.draining; })) << "no draining heartbeat";
  coordinator_.send(synth(token('7'), 12));
  coordinator_.send(farm::Ack{token('6')});
  coordinator_.send(farm::Release{r->as<farm::SynthDone>()->bundle_key});
  bool took = false;
  EXPECT_TRUE(coordinator_.wait_for(
      [&](const ControlMessage& m) {
        took = took || FakeCoordinator::token_of(m) == token('7');
        return m.type() == MessageType::Bye;
      },
      10s))
      << "a drained worker did not say bye";
  EXPECT_FALSE(took) << "a draining worker took new work";
  thread_.join();
  EXPECT_EQ(exit_code_, 0);
}

// CI's chaos run drained a synth worker 3 s after its link healed: the coordinator heard the
// worker again, but its own heartbeats were still in TCP's retransmission backoff, and the worker
// dropped its held bundles at once. A drain after a silence gives the coordinator four liveness
// periods, counted from the drain's start, to be heard and release them.
TEST_F(WorkerTasks, DrainAfterASilenceWaitsForTheCoordinator) {
  start(WorkerRole::Synth, 300);
  const std::string bundle = synthesize_then_hear_nothing();
  ASSERT_FALSE(bundle.empty());
  coordinator_.beating(false);
  stop_ = true;
  ASSERT_TRUE(coordinator_.heartbeat([&](const auto& h) {
    return h.draining && std::find(h.held.begin(), h.held.end(), bundle) != h.held.end();
  })) << "no draining heartbeat naming the held bundle";
  EXPECT_FALSE(coordinator_.wait_for(MessageType::Bye, 1500ms))
      << "a worker drained after a silence gave up its held bundle at once";
  coordinator_.beating(true);
  coordinator_.send(farm::Release{bundle});
  EXPECT_TRUE(coordinator_.wait_for(MessageType::Bye, 10s)) << "released, the drained worker did not say bye";
  thread_.join();
  EXPECT_EQ(exit_code_, 0);
}

// A coordinator gone for good: the drained worker still exits, four liveness periods (4 s here)
// after the drain began, not worker.drain_hold_s later.
TEST_F(WorkerTasks, DrainWithTheCoordinatorGoneEndsAfterFourLivenessPeriods) {
  start(WorkerRole::Synth, 300);  // drain_hold_s is not the bound that ends this drain
  const std::string bundle = synthesize_then_hear_nothing();
  ASSERT_FALSE(bundle.empty());
  coordinator_.beating(false);
  const auto t0 = std::chrono::steady_clock::now();
  stop_ = true;
  EXPECT_TRUE(coordinator_.wait_for(MessageType::Bye, 20s)) << "a worker with a silent coordinator never said bye";
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 3500ms) << "it gave up its held bundle before four liveness periods of silence";
  thread_.join();
  EXPECT_EQ(exit_code_, 0);
}

}  // namespace
}  // namespace zkmill::test
