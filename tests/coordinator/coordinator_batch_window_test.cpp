// SPDX-License-Identifier: MIT
// The coordinator's batch window (coordinator.verify_batch_window_us / verify_batch_max) and
// its final check's reuse of the per-proof checks, in-process against a private redis-server
// with fake workers speaking the protocol (tests/support/fake_worker.hpp) as hostile peers
// would: proofs that arrive within the window are checked with one multi-pairing; a group
// holding a replayed proof (another partition's valid proof) and a proof of another statement
// (wrong public inputs) is checked again proof by proof, the two are refused and their senders
// quarantined, the good ones of the group recorded once, and a re-sent recorded result is not
// recorded again. The final check passes the proofs read back byte-identical to the checked
// ones without a pairing, and checks with the pairing (and fails the job on) one changed in
// Redis after it was recorded. One verify thread, so that a gathered group is not split.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "farm/redis_client.hpp"
#include "tests/coordinator/batch_farm.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using farm::WorkerRole;

// One verify thread (a gathered group is not split) and a window given per test, mostly far
// longer than the test takes to send every result: they all gather, unless verify_batch_max
// sends a group first.
class CoordinatorBatchWindow : public BatchFarmTest {
 protected:
  void start_farm(uint64_t parts, const std::string& extra) {
    BatchFarmTest::start_farm(parts, 47, "  verify_threads: 1\n" + extra);
  }
  bool job_state_is(const std::string& state) {
    return eventually(20s, [&] { return client_->status(job_)["state"] == state; });
  }
};

TEST_F(CoordinatorBatchWindow, WindowGroupsProofsNoFinalPairing) {
  start_farm(6, "  verify_batch_window_us: 300000\n");
  for (uint64_t i = 0; i < parts_; ++i) provers_[i]->send(honest_result(i));
  for (uint64_t i = 0; i < parts_; ++i) EXPECT_TRUE(acked(*provers_[i], assigned_[i].at.token)) << i;
  ASSERT_TRUE(job_state_is("done")) << client_->status(job_).dump();
  for (uint64_t i = 0; i < parts_; ++i) EXPECT_EQ(partition(job_, i)["recorded"].get<uint64_t>(), 1u) << i;
  const auto& c = coordinator_->check_counts();
  EXPECT_EQ(c.alone.load(), 0u) << "a proof went alone although the others came within its window";
  EXPECT_EQ(c.batched.load(), parts_);
  EXPECT_EQ(c.rechecked.load(), 0u);
  // Read back byte-identical to what was checked: no pairing again.
  EXPECT_EQ(c.final_matched.load(), parts_);
  EXPECT_EQ(c.final_checked.load(), 0u);
  EXPECT_TRUE(quarantined().empty());
}

TEST_F(CoordinatorBatchWindow, AFullGroupGoesBeforeItsWindowEnds) {
  // A 10 s window: only verify_batch_max = 3 can send these groups within 8 s. The proofs go in
  // two waves of exactly 3: sent at once, 4 of them could be due together and split into two
  // groups of 2 (due groups are shared among idle threads), leaving the last 2 to their window.
  start_farm(6, "  verify_batch_window_us: 10000000\n  verify_batch_max: 3\n");
  for (uint64_t wave = 0; wave < 2; ++wave) {
    for (uint64_t i = 3 * wave; i < 3 * wave + 3; ++i) provers_[i]->send(honest_result(i));
    ASSERT_TRUE(eventually(8s, [&] { return client_->status(job_)["verified"] == 3 * (wave + 1); }))
        << "wave " << wave << ": " << client_->status(job_).dump();
  }
  ASSERT_TRUE(eventually(8s, [&] { return client_->status(job_)["state"] == "done"; })) << client_->status(job_).dump();
  const auto& c = coordinator_->check_counts();
  EXPECT_EQ(c.alone.load(), 0u);
  EXPECT_EQ(c.batched.load(), parts_);
}

TEST_F(CoordinatorBatchWindow, ReplayAndOtherStatementRefused) {
  start_farm(6, "  verify_batch_window_us: 300000\n");
  // Prover 1 replays partition 2's valid proof as its own (claiming its own public inputs);
  // prover 3 sends partition 4's valid proof with partition 4's public inputs: a proof of
  // another statement. Both spoil the group's multi-pairing.
  const uint64_t replay = 1, other_statement = 3;
  for (uint64_t i = 0; i < parts_; ++i) {
    farm::ProveDone d = honest_result(i);
    if (i == replay) d.proof = honest_.at(assigned_[replay + 1].at.part).proof;
    if (i == other_statement) {
      const auto& other = honest_.at(assigned_[other_statement + 1].at.part);
      d.proof = other.proof;
      d.public_inputs = other.public_inputs;
    }
    provers_[i]->send(d);
  }
  for (uint64_t i = 0; i < parts_; ++i) EXPECT_TRUE(acked(*provers_[i], assigned_[i].at.token)) << i;
  ASSERT_TRUE(eventually(20s, [&] { return client_->status(job_)["verified"].get<uint64_t>() == parts_ - 2; }))
      << client_->status(job_).dump();
  for (uint64_t i = 0; i < parts_; ++i) {
    const auto part = partition(job_, assigned_[i].at.part);
    const bool bad = i == replay || i == other_statement;
    EXPECT_EQ(part["recorded"].get<uint64_t>(), bad ? 0u : 1u) << i;
    EXPECT_EQ(part["attempts"].get<uint64_t>(), bad ? 1u : 0u) << i << ": " << part.dump();
  }
  const auto q = quarantined();
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.count("prove-" + std::to_string(replay)), 1u);
  ASSERT_EQ(q.count("prove-" + std::to_string(other_statement)), 1u);
  EXPECT_NE(q.at("prove-" + std::to_string(other_statement))["reason"].get<std::string>().find("another statement"),
            std::string::npos)
      << q.at("prove-" + std::to_string(other_statement)).dump();
  const auto& c = coordinator_->check_counts();
  EXPECT_EQ(c.alone.load(), 0u);
  EXPECT_EQ(c.batched.load(), 0u);
  EXPECT_EQ(c.rechecked.load(), parts_) << "the group was not checked again one by one";

  // A recorded result sent again (same attempt, same proof): acked, not recorded twice.
  provers_[0]->send(honest_result(0));
  EXPECT_TRUE(acked(*provers_[0], assigned_[0].at.token));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(partition(job_, assigned_[0].at.part)["recorded"].get<uint64_t>(), 1u);
  EXPECT_EQ(c.rechecked.load() + c.batched.load() + c.alone.load(), parts_) << "a recorded proof was checked again";
  EXPECT_NE(client_->status(job_)["state"], "done");
}

TEST_F(CoordinatorBatchWindow, ProofChangedInRedisFailsTheJob) {
  start_farm(2, "  verify_batch_window_us: 0\n");
  provers_[0]->send(honest_result(0));
  ASSERT_TRUE(acked(*provers_[0], assigned_[0].at.token));
  // Partition 0's stored proof replaced by partition 1's (valid for partition 1's statement
  // only) after it was checked and recorded: only the final check can see it.
  const uint64_t p0 = assigned_[0].at.part, p1 = assigned_[1].at.part;
  {
    farm::RedisClient redis(cfg_.redis);
    redis.command({"HSET", "zk:part:" + job_ + ":" + std::to_string(p0), "proof", honest_.at(p1).proof.dump()});
  }
  provers_[1]->send(honest_result(1));
  ASSERT_TRUE(job_state_is("failed")) << client_->status(job_).dump();
  EXPECT_NE(client_->status(job_)["error"].get<std::string>().find("final batch verification failed"),
            std::string::npos)
      << client_->status(job_).dump();
  const auto& c = coordinator_->check_counts();
  EXPECT_EQ(c.final_matched.load(), 1u);
  EXPECT_EQ(c.final_checked.load(), 1u);
}

TEST_F(CoordinatorBatchWindow, FinalCheckAllUsesThePairing) {
  start_farm(3, "  final_check_all: true\n");
  for (uint64_t i = 0; i < parts_; ++i) provers_[i]->send(honest_result(i));
  ASSERT_TRUE(job_state_is("done")) << client_->status(job_).dump();
  const auto& c = coordinator_->check_counts();
  EXPECT_EQ(c.final_matched.load(), 0u);
  EXPECT_EQ(c.final_checked.load(), parts_);
}

}  // namespace
}  // namespace zkmill::test
