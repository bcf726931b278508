// SPDX-License-Identifier: MIT
// Proof verification runs off the coordinator's event loop (coordinator/verify_queue.hpp):
// with every proof check made 3 s slower (zkmill coordinator --inject-fault slow-verify), longer
// than the 2 s dead-peer window, the loop must go on heartbeating, dispatching and answering
// while checks are pending, and a verdict that comes back while Redis is unreachable must be
// recorded once Redis answers again. Real processes: a private Redis, the coordinator, one
// synth and two prove workers.
#include <signal.h>

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

// Redis stops answering (SIGSTOP) while proofs are being checked, so their verdicts come back
// during the outage; the coordinator's Redis calls time out (300 ms) and throw. Every verdict
// must survive that and be recorded after SIGCONT: once, a lost verdict kept its partition's
// attempt "being checked" forever (its lease renewed, a re-sent result ignored) and the job
// never finished (seen in CI as FarmTest.RedisRestartWithAofLosesNoJob).
TEST_F(FarmVerifyTest, VerdictsThatComeBackWhileRedisIsDownAreRecordedAfterwards) {
  start_redis();
  auto cfg = write_config("coordinator",
                          redis_yaml() + "  command_timeout_ms: 300\n" + coordinator_yaml() + "  verify_threads: 4\n");
  spawn("coordinator", {zkmill_binary(), "coordinator", "--config", cfg, "--inject-fault", "slow-verify"});
  start_worker("synth-1", "synth", "");
  start_worker("prove-1", "prove", "");
  start_worker("prove-2", "prove", "");
  wait_registered(3);

  const uint64_t n = 8;
  const auto job = submit(n);
  // Proving a 400-constraint partition takes milliseconds and every check 3 s: a second in,
  // proofs are being checked and none is recorded yet.
  std::this_thread::sleep_for(1s);
  ASSERT_EQ(status(job)["verified"].get<uint64_t>(), 0u) << log("coordinator");
  const pid_t redis = procs_.pid("redis");
  ASSERT_GT(redis, 0);
  ASSERT_EQ(::kill(redis, SIGSTOP), 0);
  std::this_thread::sleep_for(4500ms);  // the first checks end about 3 s after they began
  ASSERT_EQ(::kill(redis, SIGCONT), 0);

  expect_done_and_verified(job, n);
  const std::string coord = log("coordinator");
  EXPECT_TRUE(contains(coord, "redis unavailable")) << "the outage was not seen; the test proved nothing:\n" << coord;
  for (const auto& p : status(job)["partition_states"]) EXPECT_EQ(p["recorded"].get<uint64_t>(), 1u) << p.dump();
}

}  // namespace
}  // namespace zkmill::test
