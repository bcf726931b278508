// SPDX-License-Identifier: MIT
// Test support for in-process coordinator tests (tests/coordinator): the real
// farm::Coordinator on a thread of the test against a private redis-server, a small native key,
// and fake workers (fake_worker.hpp: DEALERs on loopback) that speak the typed protocol to it.
// A test fixture derives from InProcessCoordinatorTest and calls start() from its SetUp with the
// coordinator timings it needs; TearDown stops the coordinator and fails the test if it stopped
// with an error.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/coordinator.hpp"
#include "coordinator/farm_client.hpp"
#include "tests/support/child_processes.hpp"
#include "tests/support/fake_worker.hpp"
#include "tests/support/native_key.hpp"

namespace zkmill::test {

// A prove worker's result, without the optional telemetry.
inline farm::ProveDone prove_done(const farm::AttemptRef& at, const nlohmann::json& proof,
                                  const std::vector<std::string>& public_inputs) {
  farm::ProveDone d;
  d.at = at;
  d.proof = proof;
  d.public_inputs = public_inputs;
  return d;
}

class InProcessCoordinatorTest : public ::testing::Test {
 protected:
  // Redis, a 64-constraint chain key and the coordinator; `timings` are the coordinator
  // section's lines after its endpoint (heartbeat_ms, liveness, lease_ms, ...).
  // `verify_delay_ms`: Coordinator::inject_verify_delay, set before it runs.
  void start(const std::string& timings, uint64_t verify_delay_ms = 0) {
    dir_ = scratch_dir();
    children_.set_log_dir(dir_);
    const std::string socket = start_redis(children_);
    ASSERT_FALSE(socket.empty());
    key_ = std::make_unique<NativeKey>((dir_ / "chain.key").string(), "chain", 64);
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(free_port());
    cfg_ = farm::parse_farm_config(
        "redis:\n  unix_socket: " + socket + "\ncoordinator:\n  endpoint: " + endpoint_ + "\n" + timings, "test");
    client_ = std::make_unique<farm::FarmClient>(cfg_.redis);
    verify_delay_ms_ = verify_delay_ms;
    run_coordinator();
  }
  void TearDown() override {
    stop_coordinator();
    EXPECT_EQ(error_, "") << "the coordinator stopped with an error";
  }
  // Stops the coordinator (it releases its lease) and starts a new one on the same Redis and
  // endpoint, as after a restart or a standby's takeover: it knows only what Redis kept. The
  // fake workers' DEALERs reconnect; they say hello again (worker()) to be known.
  void restart_coordinator() {
    stop_coordinator();
    ASSERT_EQ(error_, "") << "the coordinator stopped with an error";
    run_coordinator();
  }

  // A fake worker of `role` serving the test's key, registered (welcomed).
  std::unique_ptr<FakeWorker> worker(const std::string& id, farm::WorkerRole role) {
    auto w = std::make_unique<FakeWorker>(endpoint_, id);
    w->hello(id, role, {key_->circuit_id()});
    EXPECT_TRUE(w->wait_for(farm::MessageType::Welcome, std::chrono::seconds(10))) << id << " was not welcomed";
    return w;
  }
  std::string submit(uint64_t partitions, uint64_t seed) {
    farm::SubmitRequest req;
    req.key_path = key_->path();
    req.partitions = partitions;
    req.seed = seed;
    return client_->submit(req).first;
  }
  nlohmann::json partition(const std::string& job, uint64_t part) {
    return client_->status(job)["partition_states"][part];
  }
  // The message of type T the worker gets next (null when none comes within `limit`).
  template <class T>
  std::optional<T> next(FakeWorker& w, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    auto m = w.wait_for(T::kType, limit);
    if (!m) return std::nullopt;
    return *m->template as<T>();
  }
  static bool acked(FakeWorker& w, const std::string& token) {
    return w
        .wait_for([&](const farm::ControlMessage& m) { return m.as<farm::Ack>() && m.as<farm::Ack>()->token == token; },
                  std::chrono::seconds(10))
        .has_value();
  }

  // Plays `synth` for the `n` partitions of a job submitted with `seed`: takes each synth
  // assignment and reports it done with the partition's honest statement (acked by the
  // coordinator). Returns the honest statement and proof of each partition, by partition.
  std::map<uint64_t, HonestResult> synthesize_all(FakeWorker& synth, uint64_t n, uint64_t seed) {
    std::map<uint64_t, HonestResult> honest;
    for (uint64_t i = 0; i < n; ++i) {
      const auto s = next<farm::Synth>(synth);
      EXPECT_TRUE(s) << "no synth assignment " << i;
      if (!s) break;
      honest.emplace(s->at.part, key_->prove(seed, s->at.part));
      synth.send(farm::SynthDone{s->at, "bundle-" + s->at.token, honest.at(s->at.part).public_inputs, 1.0, 1000});
      EXPECT_TRUE(acked(synth, s->at.token)) << "synth_done " << i << " not acked";
    }
    return honest;
  }

  void run_coordinator() {
    stop_ = false;
    coordinator_ = std::make_unique<farm::Coordinator>(cfg_);
    coordinator_->inject_verify_delay(verify_delay_ms_);
    thread_ = std::thread([this] {
      try {
        coordinator_->run(stop_);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  void stop_coordinator() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    coordinator_.reset();  // its sockets closed (its context terminated) before a new one binds
  }

  fs::path dir_;
  ChildProcesses children_;
  std::unique_ptr<NativeKey> key_;
  std::string endpoint_;
  farm::FarmConfig cfg_;
  std::unique_ptr<farm::FarmClient> client_;
  std::unique_ptr<farm::Coordinator> coordinator_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::string error_;
  uint64_t verify_delay_ms_ = 0;
};

}  // namespace zkmill::test
