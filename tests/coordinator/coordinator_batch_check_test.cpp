// SPDX-License-Identifier: MIT
// The coordinator's proof checks in groups (Coordinator::flush_checks), in-process against a
// private redis-server with fake workers: proofs that arrive while every verify thread is busy
// are checked together with one multi-pairing when a thread frees, and a group that holds a bad
// proof is checked again proof by proof, so the bad one alone is rejected (its sender
// quarantined) and the good ones of its group are recorded, each once. One verify thread,
// each check made 400 ms slow (inject_verify_delay), so that the first proof occupies the
// thread while the others gather. With idle threads too, proofs that arrive while a check of
// their circuit is in flight wait for it until four have gathered.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/coordinator/batch_farm.hpp"

namespace zkmill::test {
namespace {

using namespace std::chrono_literals;
using farm::WorkerRole;

class CoordinatorBatchCheck : public BatchFarmTest {
 protected:
  static constexpr uint64_t kParts = 6;
  void SetUp() override { start_farm(kParts, 31, "  verify_threads: " + std::to_string(verify_threads_) + "\n", 400); }
  // Prover 0's result first (a group of one: it takes the only verify thread), then the
  // others' while that check runs; `result(i)` is what prover i sends.
  template <class F>
  void send_results(F result) {
    provers_[0]->send(result(0));
    std::this_thread::sleep_for(100ms);
    for (uint64_t i = 1; i < kParts; ++i) provers_[i]->send(result(i));
  }

  unsigned verify_threads_ = 1;
};

TEST_F(CoordinatorBatchCheck, ProofsThatGatherAreCheckedTogetherAndRecordedOnce) {
  send_results([&](uint64_t i) { return honest_result(i); });
  for (uint64_t i = 0; i < kParts; ++i) EXPECT_TRUE(acked(*provers_[i], assigned_[i].at.token)) << i;
  ASSERT_TRUE(eventually(20s, [&] { return client_->status(job_)["state"] == "done"; }))
      << client_->status(job_).dump();
  for (uint64_t i = 0; i < kParts; ++i) {
    const auto part = partition(job_, i);
    EXPECT_EQ(part["recorded"].get<uint64_t>(), 1u) << i;
    EXPECT_EQ(part["attempts"].get<uint64_t>(), 0u) << i;
  }
  const auto& c = coordinator_->check_counts();
  EXPECT_EQ(c.alone.load(), 1u);
  EXPECT_EQ(c.batched.load(), kParts - 1) << "the proofs that arrived while the thread was busy were not batched";
  EXPECT_EQ(c.rechecked.load(), 0u);
  EXPECT_TRUE(quarantined().empty());
}

// Four verify threads, three of them idle when the other five proofs arrive, 50 ms apart
// (within the first proof's 400 ms check): they wait for that check until four have gathered,
// and go as a group; the fifth goes alone or with them, depending on when the loop reads it.
// Handed to idle threads one each (before), three or more would have been checked alone.
class CoordinatorIdleThreads : public CoordinatorBatchCheck {
 protected:
  void SetUp() override {
    verify_threads_ = 4;
    CoordinatorBatchCheck::SetUp();
  }
};

TEST_F(CoordinatorIdleThreads, ProofsGatherWhileTheirCircuitIsChecked) {
  provers_[0]->send(honest_result(0));
  for (uint64_t i = 1; i < kParts; ++i) {
    std::this_thread::sleep_for(50ms);
    provers_[i]->send(honest_result(i));
  }
  for (uint64_t i = 0; i < kParts; ++i) EXPECT_TRUE(acked(*provers_[i], assigned_[i].at.token)) << i;
  ASSERT_TRUE(eventually(20s, [&] { return client_->status(job_)["state"] == "done"; }))
      << client_->status(job_).dump();
  for (uint64_t i = 0; i < kParts; ++i) EXPECT_EQ(partition(job_, i)["recorded"].get<uint64_t>(), 1u) << i;
  const auto& c = coordinator_->check_counts();
  EXPECT_LE(c.alone.load(), 2u) << "proofs went alone to idle threads while their circuit was being checked";
  EXPECT_GE(c.batched.load(), kParts - 2);
  EXPECT_EQ(c.alone.load() + c.batched.load(), kParts);
  EXPECT_EQ(c.rechecked.load(), 0u);
}

TEST_F(CoordinatorBatchCheck, ABadProofInAGroupIsRejectedAloneTheOthersAreRecorded) {
  // Prover 3 sends partition 4's valid proof as its own: it does not verify for partition 3's
  // statement, and it spoils its group's multi-pairing.
  const uint64_t bad = 3;
  send_results([&](uint64_t i) {
    if (i != bad) return honest_result(i);
    const auto& other = honest_.at(assigned_[bad + 1].at.part);
    return prove_done(assigned_[bad].at, other.proof, honest_.at(assigned_[bad].at.part).public_inputs);
  });
  for (uint64_t i = 0; i < kParts; ++i) EXPECT_TRUE(acked(*provers_[i], assigned_[i].at.token)) << i;
  const uint64_t bad_part = assigned_[bad].at.part;
  ASSERT_TRUE(eventually(20s, [&] { return partition(job_, bad_part)["attempts"].get<uint64_t>() == 1; }))
      << partition(job_, bad_part).dump();
  EXPECT_EQ(partition(job_, bad_part)["recorded"].get<uint64_t>(), 0u);
  ASSERT_TRUE(eventually(20s, [&] { return client_->status(job_)["verified"].get<uint64_t>() == kParts - 1; }))
      << client_->status(job_).dump();
  for (uint64_t i = 0; i < kParts; ++i) {
    if (assigned_[i].at.part == bad_part) continue;
    const auto part = partition(job_, assigned_[i].at.part);
    EXPECT_EQ(part["recorded"].get<uint64_t>(), 1u) << i;
    EXPECT_EQ(part["attempts"].get<uint64_t>(), 0u) << i;
  }
  ASSERT_EQ(quarantined().count("prove-" + std::to_string(bad)), 1u);
  EXPECT_EQ(quarantined().size(), 1u);
  const auto& c = coordinator_->check_counts();
  EXPECT_EQ(c.alone.load(), 1u);
  EXPECT_EQ(c.batched.load(), 0u);
  EXPECT_EQ(c.rechecked.load(), kParts - 1) << "the bad proof's group was not checked again one by one";
  EXPECT_NE(client_->status(job_)["state"], "done");
}

}  // namespace
}  // namespace zkmill::test
