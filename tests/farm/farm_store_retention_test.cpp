// SPDX-License-Identifier: MIT
// Result retention against a private redis-server: the scripts that make a job final index it
// in zk:ended, expire_ended deletes exactly the jobs that ended by the cutoff with every key
// they left (and no active job, and nothing of another job), index_ended catches up jobs that
// ended before the index existed, and nothing a hostile or late worker sends about a deleted job
// (a proof, a synthesis, a failure, telemetry) is recorded or brings a key back.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "farm/coordinator_lease.hpp"
#include "farm/farm_config.hpp"
#include "farm/farm_store.hpp"
#include "farm/redis_client.hpp"
#include "tests/farm/farm_store_fixture.hpp"

namespace zkmill::test {
namespace {

using farm::FarmStore;

class FarmStoreRetention : public FarmStoreFixture {
 protected:
  // A job of `n` partitions on circuit "c1", submitted at `at` (ms), optionally with an
  // idempotency key.
  std::string submit(uint64_t n, uint64_t at, const std::string& idem = "") {
    farm::JobSpec spec;
    spec.circuit = "c1";
    spec.curve = "bn254";
    spec.partitions = n;
    spec.idempotency_key = idem;
    spec.params = "builtin c1 " + std::to_string(n);
    return store_->submit(spec, at).first;
  }

  // Every partition of the queue's first job synthesized and proved (recorded), at time `at`.
  void prove_all(uint64_t n, uint64_t at) {
    for (uint64_t i = 0; i < n; ++i) {
      auto s = store_->claim("synth", "synth-1", "", {"c1"}, 32, at, 60000);
      ASSERT_TRUE(s.ok) << s.reason;
      ASSERT_TRUE(store_->synth_done(s.ref, {"synth-1", "", s.token}, "tcp://x", "b", "[\"1\"]", at, 60000).ok);
      auto p = store_->claim("prove", "prove-1", "", {"c1"}, 32, at, 60000);
      ASSERT_TRUE(p.ok) << p.reason;
      ASSERT_TRUE(store_->prove_done(p.ref, {"prove-1", "", p.token}, "{\"proof\":1}", at).recorded);
    }
  }

  // Every key of the farm's schema that names `job` (its hash, partitions, inputs).
  std::set<std::string> keys_of(const std::string& job) {
    std::set<std::string> out;
    for (const char* pattern : {"zk:job:", "zk:part:", "zk:wtns:"})
      for (auto& e : redis_->command({"KEYS", std::string(pattern) + job + (pattern[3] == 'j' ? "" : ":*")}).elements)
        out.insert(e.as_string());
    return out;
  }
  bool in_zset(const std::string& key, const std::string& member) {
    return !redis_->command({"ZSCORE", key, member}).is_nil();
  }
  std::string state(const std::string& job) {
    auto r = redis_->command({"HGET", "zk:job:" + job, "state"});
    return r.is_nil() ? "" : r.as_string();
  }
};

// Done, failed and cancelled jobs are indexed when they end, at the time they end; an active
// job is not.
TEST_F(FarmStoreRetention, EveryWayAJobEndsIndexesItAtItsEnd) {
  const std::string done = submit(2, 10);
  prove_all(2, 11);
  ASSERT_TRUE(store_->finish(done, "done", "", 100));
  const std::string cancelled = submit(1, 20);
  ASSERT_EQ(store_->cancel(cancelled, 200), "cancelled");
  const std::string failed = submit(1, 30);
  auto s = store_->claim("synth", "synth-1", "", {"c1"}, 32, 31, 60000);
  ASSERT_TRUE(s.ok);
  farm::CoordinatorConfig cc;
  cc.max_attempts = 1;
  EXPECT_EQ(store_->fail(s.ref, {"synth-1", "", s.token}, "boom", false, 300, cc).outcome, 2);
  const std::string active = submit(1, 40);

  EXPECT_EQ(redis_->command({"ZSCORE", "zk:ended", done}).as_string(), "100");
  EXPECT_EQ(redis_->command({"ZSCORE", "zk:ended", cancelled}).as_string(), "200");
  EXPECT_EQ(redis_->command({"ZSCORE", "zk:ended", failed}).as_string(), "300");
  EXPECT_FALSE(in_zset("zk:ended", active));
}

// The cutoff is inclusive, jobs go oldest first, and everything of a deleted job goes: its
// hash, partitions (proofs), its entries in zk:jobs and zk:ended, and its idempotency key.
// Jobs that ended later, and active jobs, keep every key.
TEST_F(FarmStoreRetention, DeletesExactlyTheJobsThatEndedByTheCutoffWithAllTheirKeys) {
  const std::string a = submit(3, 10, "key-a");
  prove_all(3, 11);
  ASSERT_TRUE(store_->finish(a, "done", "", 100));
  const std::string b = submit(2, 20, "key-b");
  ASSERT_EQ(store_->cancel(b, 150), "cancelled");
  const std::string c = submit(1, 30);
  ASSERT_EQ(store_->cancel(c, 151), "cancelled");
  const std::string active = submit(2, 40, "key-active");
  ASSERT_EQ(keys_of(a).size(), 4u);

  EXPECT_TRUE(store_->expire_ended(99, 100).empty());
  const auto gone = store_->expire_ended(150, 100);
  EXPECT_EQ(gone, (std::vector<std::string>{a, b}));
  for (const auto& j : {a, b}) {
    EXPECT_TRUE(keys_of(j).empty()) << j;
    EXPECT_FALSE(in_zset("zk:jobs", j));
    EXPECT_FALSE(in_zset("zk:ended", j));
  }
  EXPECT_TRUE(redis_->command({"GET", "zk:idem:key-a"}).is_nil());
  EXPECT_TRUE(redis_->command({"GET", "zk:idem:key-b"}).is_nil());
  // c ended after the cutoff; the active job never ended.
  EXPECT_EQ(state(c), "cancelled");
  EXPECT_EQ(keys_of(c).size(), 2u);
  EXPECT_EQ(state(active), "queued");
  EXPECT_EQ(keys_of(active).size(), 3u);
  EXPECT_EQ(redis_->command({"GET", "zk:idem:key-active"}).as_string(), active);
  EXPECT_EQ(redis_->command({"ZCARD", "zk:q:synth"}).as_int(), 2);
  EXPECT_EQ(store_->expire_ended(1000, 100), std::vector<std::string>{c});
  EXPECT_EQ(store_->list_jobs(10), std::vector<std::string>{active});
}

// The budget bounds one call's work in partitions (whole jobs, at least one): a backlog goes
// over several calls, oldest first, and nothing is skipped.
TEST_F(FarmStoreRetention, ABacklogGoesInSlicesOfTheBudget) {
  std::vector<std::string> jobs;
  for (uint64_t i = 0; i < 5; ++i) {
    jobs.push_back(submit(3, 10 + i));
    ASSERT_EQ(store_->cancel(jobs.back(), 100 + i), "cancelled");
  }
  EXPECT_EQ(store_->expire_ended(1000, 1), std::vector<std::string>{jobs[0]});
  EXPECT_EQ(store_->expire_ended(1000, 6), (std::vector<std::string>{jobs[1], jobs[2]}));
  EXPECT_EQ(store_->expire_ended(1000, 7), (std::vector<std::string>{jobs[3], jobs[4]}));
  EXPECT_TRUE(store_->expire_ended(1000, 100).empty());
  EXPECT_EQ(redis_->command({"DBSIZE"}).as_int(),
            redis_->command({"EVAL", "return #redis.call('KEYS', 'zk:lease:*') + #redis.call('KEYS', 'zk:seq:*')", "0"})
                .as_int());
}

// An idempotency key reused by a later job (after the first job's key was deleted by hand and
// the key taken again) is not deleted with the first job; after deletion a submit with the
// first job's key makes a new job instead of naming the deleted one.
TEST_F(FarmStoreRetention, TheIdempotencyKeyGoesOnlyWhileItNamesTheDeletedJob) {
  const std::string a = submit(1, 10, "k");
  ASSERT_EQ(store_->cancel(a, 100), "cancelled");
  redis_->command({"SET", "zk:idem:k", "j999"});
  EXPECT_EQ(store_->expire_ended(100, 10), std::vector<std::string>{a});
  EXPECT_EQ(redis_->command({"GET", "zk:idem:k"}).as_string(), "j999");
  redis_->command({"DEL", "zk:idem:k"});

  const std::string b = submit(1, 200, "k2");
  ASSERT_EQ(store_->cancel(b, 300), "cancelled");
  EXPECT_EQ(store_->expire_ended(300, 10), std::vector<std::string>{b});
  const auto again = submit(1, 400, "k2");
  EXPECT_NE(again, b);
  EXPECT_EQ(state(again), "queued");
}

// Jobs that ended before zk:ended existed (the index removed, as a farm upgraded in place has
// it) are indexed at their updated_ms, in chunks; active ones and ones already indexed are left.
TEST_F(FarmStoreRetention, IndexEndedCatchesUpJobsThatEndedBeforeTheIndex) {
  std::vector<std::string> ended;
  for (uint64_t i = 0; i < 5; ++i) {
    ended.push_back(submit(1, 10 + i));
    ASSERT_EQ(store_->cancel(ended.back(), 100 + i), "cancelled");
  }
  const std::string active = submit(1, 20);
  redis_->command({"DEL", "zk:ended"});
  redis_->command({"ZADD", "zk:ended", "7", ended[4]});  // one already indexed keeps its score
  EXPECT_EQ(store_->index_ended(0, 4), 4u);
  EXPECT_EQ(store_->index_ended(4, 4), 2u);  // the end of zk:jobs: fewer than asked
  for (uint64_t i = 0; i < 4; ++i)
    EXPECT_EQ(redis_->command({"ZSCORE", "zk:ended", ended[i]}).as_string(), std::to_string(100 + i));
  EXPECT_EQ(redis_->command({"ZSCORE", "zk:ended", ended[4]}).as_string(), "7");
  EXPECT_FALSE(in_zset("zk:ended", active));
  EXPECT_EQ(store_->expire_ended(101, 100), (std::vector<std::string>{ended[4], ended[0], ended[1]}));
}

// A worker that still holds an attempt of a job when it is deleted (a hostile one replaying an
// old token, or one cut off through the job's end and its retention) gets every write refused,
// and no script recreates a key of the deleted job.
TEST_F(FarmStoreRetention, NothingAboutADeletedJobIsRecordedOrRecreated) {
  const std::string job = submit(2, 10);
  auto s = store_->claim("synth", "synth-1", "", {"c1"}, 32, 11, 60000);
  ASSERT_TRUE(s.ok);
  ASSERT_TRUE(store_->synth_done(s.ref, {"synth-1", "", s.token}, "tcp://x", "b", "[\"1\"]", 12, 60000).ok);
  auto p = store_->claim("prove", "prove-1", "", {"c1"}, 32, 13, 60000);
  ASSERT_TRUE(p.ok);
  auto s2 = store_->claim("synth", "synth-2", "", {"c1"}, 32, 14, 60000);
  ASSERT_TRUE(s2.ok);
  ASSERT_EQ(store_->cancel(job, 100), "cancelled");
  ASSERT_EQ(store_->expire_ended(100, 10), std::vector<std::string>{job});
  ASSERT_TRUE(keys_of(job).empty());

  EXPECT_FALSE(store_->prove_done(p.ref, {"prove-1", "", p.token}, "{\"proof\":1}", 200).recorded);
  EXPECT_FALSE(store_->synth_done(s2.ref, {"synth-2", "", s2.token}, "tcp://y", "b2", "[\"1\"]", 200, 60000).ok);
  farm::CoordinatorConfig cc;
  EXPECT_EQ(store_->fail(s2.ref, {"synth-2", "", s2.token}, "late", false, 200, cc).outcome, 0);
  EXPECT_EQ(store_->fail(p.ref, {"prove-1", "", ""}, "reaped", false, 200, cc).outcome, 0);
  store_->record_timings(p.ref, {{"prove_ms", 5.0}});
  store_->renew_lease(p.ref.member(), 999999);
  EXPECT_TRUE(keys_of(job).empty());
  EXPECT_EQ(redis_->command({"ZCARD", "zk:leases"}).as_int(), 0);
  EXPECT_EQ(redis_->command({"ZCARD", "zk:q:prove"}).as_int(), 0);
  EXPECT_FALSE(in_zset("zk:jobs", job));
  EXPECT_TRUE(store_->job(job).empty());
}

// Only the coordinator that holds the lease deletes (the scripts are fenced like every
// coordinator write).
TEST_F(FarmStoreRetention, ExpiryIsFencedByTheCoordinatorLease) {
  const std::string job = submit(1, 10);
  ASSERT_EQ(store_->cancel(job, 100), "cancelled");
  FarmStore other(*redis_);
  other.set_fence("1");
  EXPECT_THROW(other.expire_ended(100, 10), farm::CoordinatorLeaseLost);
  EXPECT_THROW(other.index_ended(0, 10), farm::CoordinatorLeaseLost);
  EXPECT_EQ(state(job), "cancelled");
}

}  // namespace
}  // namespace zkmill::test
