// SPDX-License-Identifier: MIT
// FarmStore's one-round-trip paths against a private redis-server: the claim script that picks
// and leases a queue entry in one call (circuit filter, the prove worker's own bundle first,
// stale entries dropped), and the batch prove_done the coordinator records a loop turn's
// verified proofs with (and the batch synth_done for its syntheses). What a batch must guarantee: every proof in it is
// recorded once; refused items change nothing; a batch retried after a failure (a lost reply, an error in the middle of
// the script) records nothing twice and loses nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "farm/clock.hpp"
#include "farm/coordinator_lease.hpp"
#include "farm/farm_store.hpp"
#include "farm/redis_client.hpp"
#include "tests/farm/farm_store_fixture.hpp"

namespace zkmill::test {
namespace {

using farm::FarmStore;

class FarmStoreBatch : public FarmStoreFixture {
 protected:
  // A job of `n` partitions on circuit "c1", each synthesized by "synth-1" and leased to
  // "prove-1" for proving; returns what each prove_done must name.
  std::vector<FarmStore::ProveRecord> proving(uint64_t n) {
    farm::JobSpec spec;
    spec.circuit = "c1";
    spec.curve = "bn254";
    spec.partitions = n;
    job_ = store_->submit(spec, 1).first;
    for (uint64_t i = 0; i < n; ++i) {
      auto s = store_->claim("synth", "synth-1", "", {"c1"}, 32, 2, 60000);
      EXPECT_TRUE(s.ok) << s.reason;
      auto o =
          store_->synth_done(s.ref, {"synth-1", "", s.token}, "tcp://x", s.ref.job + "/" + std::to_string(s.ref.part),
                             "[\"" + std::to_string(s.ref.part) + "\"]", 3, 60000, {{"synth_ms", "1.5"}});
      EXPECT_TRUE(o.ok) << o.reason;
    }
    std::vector<FarmStore::ProveRecord> out;
    for (uint64_t i = 0; i < n; ++i) {
      auto p = store_->claim("prove", "prove-1", "", {"c1"}, 32, 4, 60000);
      EXPECT_TRUE(p.ok) << p.reason;
      out.push_back(
          {p.ref, {"prove-1", "", p.token}, "{\"proof\":" + std::to_string(p.ref.part) + "}", {{"prove_ms", "2"}}});
    }
    return out;
  }
  std::string part_field(uint64_t part, const std::string& field) {
    return redis_->command({"HGET", "zk:part:" + job_ + ":" + std::to_string(part), field}).as_string();
  }
  std::string job_field(const std::string& field) {
    return redis_->command({"HGET", "zk:job:" + job_, field}).as_string();
  }

  std::string job_;
};

// The batch synth_done the coordinator records a loop turn's syntheses with: each recorded
// once with its statement and telemetry and queued for proving; a stale or foreign item and a
// re-send in the same batch change nothing; the batch run again (a lost reply) records nothing
// twice.
TEST_F(FarmStoreBatch, RecordsEachSynthesisOnceRefusesTheRest) {
  farm::JobSpec spec;
  spec.circuit = "c1";
  spec.curve = "bn254";
  spec.partitions = 4;
  job_ = store_->submit(spec, 1).first;
  std::vector<FarmStore::SynthRecord> batch;
  for (int i = 0; i < 4; ++i) {
    auto s = store_->claim("synth", "synth-1", "", {"c1"}, 32, 2, 60000);
    ASSERT_TRUE(s.ok) << s.reason;
    batch.push_back({s.ref,
                     {"synth-1", "", s.token},
                     "tcp://x",
                     "b" + std::to_string(s.ref.part),
                     "[\"" + std::to_string(s.ref.part) + "\"]",
                     {{"synth_ms", "1.5"}}});
  }
  auto stale = batch[1];
  stale.from.token = "not-the-token";
  auto intruder = batch[2];
  intruder.from.worker = "synth-2";
  std::vector<FarmStore::SynthRecord> all{stale, intruder};
  all.insert(all.end(), batch.begin(), batch.end());
  all.push_back(batch[0]);  // a re-send in the same turn
  auto out = store_->synth_done(all, 3, 60000);
  ASSERT_EQ(out.size(), all.size());
  EXPECT_EQ(out[0].reason, "stale token");
  EXPECT_EQ(out[1].reason, "not from the worker the lease names");
  for (size_t i = 0; i < batch.size(); ++i) EXPECT_TRUE(out[2 + i].ok) << out[2 + i].reason;
  EXPECT_FALSE(out.back().ok);
  EXPECT_EQ(out.back().reason, "partition synthesized");
  for (uint64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(part_field(i, "state"), "synthesized");
    EXPECT_EQ(part_field(i, "statement"), "[\"" + std::to_string(i) + "\"]");
    EXPECT_EQ(part_field(i, "bundle_key"), "b" + std::to_string(i));
    EXPECT_EQ(part_field(i, "synth_ms"), "1.5");
  }
  EXPECT_EQ(redis_->command({"ZCARD", "zk:q:prove"}).as_int(), 4);
  for (const auto& o : store_->synth_done(batch, 4, 60000)) EXPECT_EQ(o.reason, "partition synthesized");
  EXPECT_EQ(redis_->command({"ZCARD", "zk:q:prove"}).as_int(), 4);
}

TEST_F(FarmStoreBatch, RecordsEachProofOnceRefusesTheRest) {
  auto batch = proving(6);
  auto stale = batch[2];
  stale.from.token = "not-the-token";
  auto intruder = batch[3];
  intruder.from.worker = "prove-2";
  // Refused items first: they must change nothing, and the real ones after them still count.
  std::vector<FarmStore::ProveRecord> all{stale, intruder};
  all.insert(all.end(), batch.begin(), batch.end());
  all.push_back(batch[0]);  // the same result twice in one batch (a re-send)
  auto out = store_->prove_done(all, 10);
  ASSERT_EQ(out.size(), all.size());
  EXPECT_FALSE(out[0].recorded);
  EXPECT_EQ(out[0].reason, "stale token");
  EXPECT_FALSE(out[1].recorded);
  EXPECT_EQ(out[1].reason, "not from the worker the lease names");
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_TRUE(out[2 + i].recorded) << out[2 + i].reason;
    EXPECT_EQ(out[2 + i].verified, i + 1);
    EXPECT_EQ(out[2 + i].total, 6u);
    EXPECT_EQ(out[2 + i].synth_worker, "synth-1");
    EXPECT_EQ(out[2 + i].bundle_key, job_ + "/" + std::to_string(batch[i].ref.part));
  }
  EXPECT_FALSE(out.back().recorded);
  EXPECT_EQ(out.back().reason, "partition verified");
  EXPECT_EQ(job_field("n_verified"), "6");
  for (uint64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(part_field(i, "state"), "verified");
    EXPECT_EQ(part_field(i, "recorded"), "1");
    EXPECT_EQ(part_field(i, "proof"), "{\"proof\":" + std::to_string(i) + "}");
    EXPECT_EQ(part_field(i, "public"), "[\"" + std::to_string(i) + "\"]");  // the statement, not the prover's
    EXPECT_EQ(part_field(i, "prove_ms"), "2");                              // telemetry written by the same script
    EXPECT_EQ(part_field(i, "synth_ms"), "1.5");
  }
  EXPECT_EQ(redis_->command({"ZCARD", "zk:leases"}).as_int(), 0);
}

TEST_F(FarmStoreBatch, RetryAfterLostReplyRecordsNothingTwice) {
  auto batch = proving(4);
  ASSERT_EQ(store_->prove_done(batch, 10).size(), 4u);
  // The coordinator never saw the reply (connection lost after the script ran): it records the
  // same batch again on its next turn. Nothing is recorded twice; each item says why.
  for (const auto& d : store_->prove_done(batch, 11)) {
    EXPECT_FALSE(d.recorded);
    EXPECT_EQ(d.reason, "partition verified");
  }
  EXPECT_EQ(job_field("n_verified"), "4");
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(part_field(i, "recorded"), "1");
}

TEST_F(FarmStoreBatch, ErrorMidBatchLosesNoneRecordsNoneTwice) {
  auto batch = proving(5);
  // Partition 3's hash becomes a string: the script fails there with WRONGTYPE, after it
  // recorded partitions 0..2 (Redis does not roll a script back).
  const std::string p3 = "zk:part:" + job_ + ":3";
  const auto saved = redis_->command({"HGETALL", p3}).as_map();
  redis_->command({"DEL", p3});
  redis_->command({"SET", p3, "x"});
  EXPECT_THROW(store_->prove_done(batch, 10), farm::RedisReplyError);
  // Repaired (in the coordinator: the next turn after an outage), the same batch is retried.
  redis_->command({"DEL", p3});
  for (const auto& [k, v] : saved) redis_->command({"HSET", p3, k, v});
  const std::string done_before = job_field("n_verified");
  auto out = store_->prove_done(batch, 11);
  uint64_t recorded = 0;
  for (const auto& d : out) recorded += d.recorded;
  // Every partition recorded exactly once across the two attempts.
  EXPECT_EQ(std::stoull(done_before) + recorded, 5u);
  EXPECT_EQ(job_field("n_verified"), "5");
  for (uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(part_field(i, "state"), "verified") << i;
    EXPECT_EQ(part_field(i, "recorded"), "1") << i;
  }
}

TEST_F(FarmStoreBatch, AFencedBatchRecordsNone) {
  auto batch = proving(3);
  // Another coordinator took the lease: the whole batch is refused, nothing written.
  redis_->command({"SET", farm::CoordinatorLease::kKey, "other-token {}"});
  EXPECT_THROW(store_->prove_done(batch, 10), farm::CoordinatorLeaseLost);
  EXPECT_EQ(job_field("n_verified"), "0");
  for (uint64_t i = 0; i < 3; ++i) EXPECT_EQ(part_field(i, "state"), "proving");
}

// Each recording keeps the recording coordinator's fence and Redis's time, and every tenure of
// the lease is in zk:lease:history: the chaos run checks each proof against the tenure that was
// current when it was recorded. A second coordinator that takes the lease over adds a tenure;
// proofs recorded after that carry its fence, inside its tenure.
TEST_F(FarmStoreBatch, RecordingsNameTheFenceOfTheTenureTheyFallIn) {
  auto batch = proving(4);
  ASSERT_EQ(store_->prove_done({batch[0], batch[1]}, 10).size(), 2u);
  // Another coordinator takes the lease (the first one's expired) and records the rest.
  redis_->command({"DEL", farm::CoordinatorLease::kKey});
  farm::CoordinatorLease second(*redis_, "second", 60000);
  ASSERT_FALSE(second.acquire(farm::now_ms()));
  ASSERT_NE(second.token(), lease_->token());
  FarmStore other(*redis_);
  other.set_fence(second.token());
  EXPECT_THROW(store_->prove_done({batch[2]}, 11), farm::CoordinatorLeaseLost);  // the old one is fenced
  auto out = other.prove_done({batch[2], batch[3]}, 11);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].recorded && out[1].recorded);

  const auto history = redis_->command({"LRANGE", farm::CoordinatorLease::kHistoryKey, "0", "-1"});
  ASSERT_EQ(history.elements.size(), 2u);
  std::vector<std::pair<uint64_t, std::string>> tenures;  // (start µs, token)
  for (const auto& e : history.elements) {
    const std::string& v = e.as_string();
    const size_t a = v.find(' '), b = v.find(' ', a + 1);
    ASSERT_NE(b, std::string::npos) << v;
    tenures.emplace_back(std::stoull(v.substr(0, a)), v.substr(a + 1, b - a - 1));
  }
  EXPECT_EQ(tenures[0].second, lease_->token());
  EXPECT_EQ(tenures[1].second, second.token());
  EXPECT_LT(tenures[0].first, tenures[1].first);
  for (uint64_t i = 0; i < 4; ++i) {
    const uint64_t at = std::stoull(part_field(i, "recorded_at_us"));
    const auto& want = i < 2 ? tenures[0] : tenures[1];
    EXPECT_EQ(part_field(i, "recorded_fence"), want.second) << i;
    EXPECT_GE(at, want.first) << i;
    if (i < 2) {
      EXPECT_LT(at, tenures[1].first) << i;
    }
  }
}

TEST_F(FarmStoreBatch, ClaimTakesOwnBundleFirstDropsStale) {
  farm::JobSpec other;
  other.circuit = "c2";
  other.curve = "bn254";
  other.partitions = 2;
  const std::string j_other = store_->submit(other, 1).first;
  // Only c2 is queued: a worker serving c1 gets nothing, and nothing is taken from the queue.
  auto none = store_->claim("synth", "synth-1", "", {"c1"}, 32, 2, 60000);
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.reason, "none");
  EXPECT_EQ(redis_->command({"ZCARD", "zk:q:synth"}).as_int(), 2);
  // A cancelled job's entry left in the queue (as by a crash between two scripts) is stale:
  // dropped by the claim that meets it, and nothing is leased.
  EXPECT_EQ(store_->cancel(j_other, 3), "cancelled");
  redis_->command({"ZADD", "zk:q:synth", "0", farm::PartRef{j_other, 1}.member()});
  auto stale = store_->claim("synth", "synth-1", "", {"c2"}, 32, 2, 60000);
  EXPECT_FALSE(stale.ok);
  EXPECT_EQ(stale.reason, "none");
  auto empty = store_->claim("synth", "synth-1", "", {"c2"}, 32, 2, 60000);
  EXPECT_FALSE(empty.ok);
  EXPECT_EQ(empty.reason, "empty");
  EXPECT_EQ(redis_->command({"ZCARD", "zk:leases"}).as_int(), 0);

  // Two synth workers make bundles for partitions 0 and 1; prove-2 serves c1 and made none,
  // synth-b also proves: it gets partition 1 (its own bundle), though 0 is ahead in the queue.
  farm::JobSpec spec;
  spec.circuit = "c1";
  spec.curve = "bn254";
  spec.partitions = 2;
  job_ = store_->submit(spec, 1).first;
  for (const char* w : {"synth-a", "synth-b"}) {
    auto s = store_->claim("synth", w, "", {"c1"}, 32, 2, 60000);
    ASSERT_TRUE(s.ok) << s.reason;
    ASSERT_TRUE(store_->synth_done(s.ref, {w, "", s.token}, "tcp://" + std::string(w), "b", "[]", 3, 60000).ok);
  }
  auto own = store_->claim("prove", "synth-b", "", {"c1"}, 32, 4, 60000);
  ASSERT_TRUE(own.ok) << own.reason;
  EXPECT_EQ(own.ref.part, 1u);
  EXPECT_EQ(own.part["state"], "proving");
  EXPECT_EQ(own.part["worker"], "synth-b");
  EXPECT_EQ(own.job["state"], "running");
  auto best = store_->claim("prove", "prove-2", "", {"c1"}, 32, 4, 60000);
  ASSERT_TRUE(best.ok) << best.reason;
  EXPECT_EQ(best.ref.part, 0u);
  EXPECT_NE(best.token, own.token);
  EXPECT_EQ(redis_->command({"ZCARD", "zk:leases"}).as_int(), 2);
  // Fenced like every coordinator write.
  redis_->command({"SET", farm::CoordinatorLease::kKey, "other-token {}"});
  EXPECT_THROW(store_->claim("synth", "synth-1", "", {"c1"}, 32, 5, 60000), farm::CoordinatorLeaseLost);
}

}  // namespace
}  // namespace zkmill::test
