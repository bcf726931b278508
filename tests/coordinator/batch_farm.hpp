// SPDX-License-Identifier: MIT
// The farm of the coordinator's batched-check tests (coordinator_batch_check_test,
// coordinator_batch_window_test): the in-process coordinator (in_process_coordinator.hpp) with
// one fake synth worker and one fake prove worker per partition. start_farm() submits a job,
// plays the synth worker honestly for all its partitions and collects every prover's `prove`
// assignment, so a test only decides what each prover sends back and when.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "farm/redis_client.hpp"
#include "farm/worker_registry.hpp"
#include "tests/support/in_process_coordinator.hpp"

namespace zkmill::test {

class BatchFarmTest : public InProcessCoordinatorTest {
 protected:
  // `extra`: coordinator lines after the shared timings (verify_threads, the batch window ...);
  // `verify_delay_ms`: each proof check made that much slower (Coordinator::inject_verify_delay).
  void start_farm(uint64_t parts, uint64_t seed, const std::string& extra, uint64_t verify_delay_ms = 0) {
    parts_ = parts;
    start(
        "  heartbeat_ms: 100\n  liveness: 50\n  lease_ms: 60000\n  backoff_ms: 50\n  backoff_max_ms: 200\n"
        "  max_attempts: 5\n" +
            extra,
        verify_delay_ms);
    synth_ = worker("synth-1", farm::WorkerRole::Synth);
    for (uint64_t i = 0; i < parts; ++i)
      provers_.push_back(worker("prove-" + std::to_string(i), farm::WorkerRole::Prove));
    job_ = submit(parts, seed);
    honest_ = synthesize_all(*synth_, parts, seed);
    ASSERT_EQ(honest_.size(), parts);
    for (auto& p : provers_) {
      const auto a = next<farm::Prove>(*p);
      ASSERT_TRUE(a) << "no prove assignment";
      assigned_.push_back(*a);
    }
  }
  // Prover i's honest result: the proof of the partition it was assigned.
  farm::ProveDone honest_result(uint64_t i) {
    const auto& h = honest_.at(assigned_[i].at.part);
    return prove_done(assigned_[i].at, h.proof, h.public_inputs);
  }
  std::map<std::string, nlohmann::json> quarantined() {
    farm::RedisClient redis(cfg_.redis);
    return farm::WorkerRegistry(redis).quarantined();
  }

  uint64_t parts_ = 0;
  std::unique_ptr<FakeWorker> synth_;
  std::vector<std::unique_ptr<FakeWorker>> provers_;
  std::string job_;
  std::map<uint64_t, HonestResult> honest_;
  std::vector<farm::Prove> assigned_;
};

}  // namespace zkmill::test
