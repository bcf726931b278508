// SPDX-License-Identifier: MIT
// Proof verification runs off the coordinator's event loop (coordinator/verify_queue.hpp):
// with every proof check made 3 s slower (zkmill coordinator --inject-fault slow-verify), longer
// than the 2 s dead-peer window, the loop must go on heartbeating, dispatching and answering
// while checks are pending. Real processes: a private Redis, the coordinator, one synth and
// two prove workers.
#include "tests/system/farm_processes.hpp"

namespace zkmill::test {
namespace {

class FarmVerifyTest : public FarmProcessesTest {};

TEST_F(FarmVerifyTest, SlowVerificationDoesNotStallTheEventLoop) {
  start_redis();
  auto cfg = write_config("coordinator", redis_yaml() + coordinator_yaml() + "  verify_threads: 4\n");
  spawn("coordinator", {zkmill_binary(), "coordinator", "--config", cfg, "--inject-fault", "slow-verify"});
  start_worker("synth-1", "synth", "");
  start_worker("prove-1", "prove", "");
  start_worker("prove-2", "prove", "");
  wait_registered(3);

  const uint64_t n = 8;
  const auto job = submit(n);
  expect_done_and_verified(job, n);
  const std::string coord = log("coordinator");
  EXPECT_EQ(count_of(coord, " verified ("), n) << coord;
  // Nobody presumed anybody dead: the loop kept heartbeating through every check.
  for (const auto& name : {"synth-1", "prove-1", "prove-2"})
    EXPECT_FALSE(contains(log(name), "coordinator silent")) << name << ":\n" << log(name);
  EXPECT_FALSE(contains(coord, "declared dead")) << coord;
  for (const auto& p : status(job)["partition_states"]) {
    EXPECT_EQ(p["attempts"].get<uint64_t>(), 0u) << p.dump();
    EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << p.dump();
  }
}

}  // namespace
}  // namespace zkmill::test
