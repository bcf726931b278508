// SPDX-License-Identifier: MIT
// Lookahead assignment end to end (real redis-server, coordinator and worker processes on
// loopback): a worker of role `both` holds a second assignment queued behind the one it runs
// (worker.lookahead), reported as `queued` in its heartbeats. The queued partition is never
// lost or recorded twice: kill -9 of the worker holding it requeues it like the running one; a
// drain hands it back unstarted (no attempt counted) and finishes the running one; a job
// cancelled while its partition sits queued stays cancelled and records nothing more: the
// worker is told to abort both held partitions (the proof stops, the queued one is dropped
// unstarted) and goes on with other work. The slow-prove test hook stretches each proof to 3 s
// (stuck-prove-once: the first until aborted), so that the next partition waits queued behind a
// proof long enough to act on.
#include <signal.h>

#include <set>

#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;

class FarmLookaheadTest : public ::testing::Test {
 protected:
  FarmLookaheadTest() : farm_(scratch_dir()) {}
  // The slow worker without prefetch: its second slot is then a queued assignment (a prove
  // waiting for its 3 s proof) within a second of the job's start, not a prefetched one.
  static constexpr const char* kNoPrefetch = "  prefetch: 0\n";

  void SetUp() override {
    auto r = farm_.start(0, 0);  // Redis and the coordinator; the workers are the test's
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  // Waits until `worker` reports one partition proving and one queued behind it; returns them
  // as "job/part" -> stage (empty if that never happened).
  std::map<std::string, std::string> proving_and_queued(const std::string& worker) {
    std::map<std::string, std::string> held;
    const bool seen = LocalFarm::eventually([&] {
      held.clear();
      auto r = run_zkmill({"status", "--config", farm_.client(), "--workers", "--json"});
      if (r.exit_code != 0) return false;
      std::multiset<std::string> stages;
      for (const auto& w : json::parse(r.out)) {
        if (w["worker"] != worker) continue;
        for (const auto& t : w["tasks"]) {
          held[t["job"].get<std::string>() + "/" + std::to_string(t["part"].get<uint64_t>())] = t["stage"];
          stages.insert(t["stage"].get<std::string>());
        }
      }
      return stages == std::multiset<std::string>{"proving", "queued"};
    });
    if (!seen)
      ADD_FAILURE() << "worker " << worker << " never held a proving and a queued partition:\n" << farm_.log(worker);
    return seen ? held : std::map<std::string, std::string>{};
  }
  static std::string queued_one(const std::map<std::string, std::string>& held) {
    for (const auto& [jp, stage] : held)
      if (stage == "queued") return jp;
    return "";
  }
  static json partition(const json& status, const std::string& job_part) {
    const uint64_t part = std::stoull(job_part.substr(job_part.find('/') + 1));
    return status["partition_states"].at(part);
  }
  std::string redis_cli(const std::vector<std::string>& args) {
    const std::string yaml = slurp(farm_.farm_dir() / "client.yaml");
    const auto at = yaml.find("port: ");
    std::vector<std::string> a{"-p", yaml.substr(at + 6, yaml.find('\n', at) - at - 6)};
    a.insert(a.end(), args.begin(), args.end());
    return run_program("redis-cli", a).out;
  }

  LocalFarm farm_;
};

TEST_F(FarmLookaheadTest, KilledWorkerWithTwoHeldAssignmentsLosesAndDuplicatesNothing) {
  const pid_t slow = farm_.spawn_worker("both-slow", "both", "slow-prove", kNoPrefetch);
  const auto job = farm_.submit(4);
  const auto held = proving_and_queued("both-slow");
  ASSERT_EQ(held.size(), 2u);
  ASSERT_EQ(kill(slow, SIGKILL), 0);
  EXPECT_EQ(farm_.wait_exit(slow, std::chrono::seconds(5)), 128 + SIGKILL);
  farm_.spawn_worker("both-2", "both", "");
  ASSERT_EQ(farm_.wait(job), 0);
  const auto s = farm_.status(job);
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["state"], "done");
  EXPECT_EQ(s["verified"], 4);
  // The queued partition never started on the dead worker: it was requeued (one failed
  // attempt) and done by the other. The one proving may have finished just in time, so it is
  // only checked with the rest: every partition recorded exactly once.
  const json q = partition(s, queued_one(held));
  EXPECT_GE(q["attempts"].get<uint64_t>(), 1u) << q.dump();
  EXPECT_EQ(q["worker"], "both-2") << q.dump();
  for (const auto& p : s["partition_states"]) EXPECT_EQ(p["recorded"], 1) << p.dump();
}

TEST_F(FarmLookaheadTest, DrainReturnsTheQueuedAssignmentAndFinishesTheRunningOne) {
  const pid_t slow = farm_.spawn_worker("both-slow", "both", "slow-prove", kNoPrefetch);
  const auto job = farm_.submit(4);
  const auto held = proving_and_queued("both-slow");
  ASSERT_EQ(held.size(), 2u);
  ASSERT_EQ(kill(slow, SIGTERM), 0);
  EXPECT_EQ(farm_.wait_exit(slow, std::chrono::seconds(30)), 0) << farm_.log("both-slow");
  const std::string log = farm_.log("both-slow");
  EXPECT_TRUE(contains(log, "returning " + queued_one(held).substr(0, queued_one(held).find('/')))) << log;
  auto s = farm_.status(job);
  ASSERT_FALSE(s.is_null());
  for (const auto& [jp, stage] : held) {
    const json p = partition(s, jp);
    EXPECT_EQ(p["attempts"], 0) << stage << " " << p.dump();  // handed back: no failed attempt
    // The running one finished; the returned one was not proved by the draining worker.
    EXPECT_EQ(p["state"] == "verified", stage == "proving") << stage << " " << p.dump();
  }
  farm_.spawn_worker("both-2", "both", "");
  ASSERT_EQ(farm_.wait(job), 0);
  s = farm_.status(job);
  for (const auto& p : s["partition_states"]) EXPECT_EQ(p["recorded"], 1) << p.dump();
  EXPECT_EQ(partition(s, queued_one(held))["worker"], "both-2");
}

// A job cancelled while the worker proves one partition and holds another queued: the cancel
// reaches the worker (`abort`), its proof stops at once (the stuck-prove-once hook would hold
// the worker's only proving slot for 600 s otherwise) and the queued partition is dropped
// unstarted (or stopped while it waits for the slot, when the worker had started it). The job stays cancelled with
// nothing recorded and no attempt counted, no lease or queue entry of it is left, and the worker proves the next job.
TEST_F(FarmLookaheadTest, CancelAbortsTheRunningProofAndDropsTheQueuedPartition) {
  farm_.spawn_worker("both-stuck", "both", "stuck-prove-once", kNoPrefetch);
  const auto job = farm_.submit(4);
  const auto held = proving_and_queued("both-stuck");
  ASSERT_EQ(held.size(), 2u);
  auto r = run_zkmill({"cancel", "--config", farm_.client(), job});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto next = farm_.submit(1);
  ASSERT_EQ(farm_.wait(next), 0) << farm_.log("both-stuck");
  EXPECT_EQ(farm_.status(next)["partition_states"][0]["worker"], "both-stuck");
  const std::string log = farm_.log("both-stuck");
  const auto s = farm_.status(job);
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["state"], "cancelled");
  for (const auto& [jp, stage] : held) {
    const std::string part = jp.substr(jp.find('/') + 1);
    const std::string aborted = "aborting " + job + " partition " + part + " (proving): job cancelled";
    const std::string stopped = job + " partition " + part + " stopped: aborted (job cancelled)";
    if (stage == "proving") {
      EXPECT_TRUE(contains(log, aborted) && contains(log, stopped)) << aborted << "\n" << log;
    } else {
      // The queued one is dropped unstarted, or, when the worker had already started it and it
      // waits for the proving slot, stopped there (ProverPool::acquire): either way unproved.
      const std::string dropped = "dropped queued " + job + " partition " + part + " unstarted";
      EXPECT_TRUE(contains(log, dropped) || (contains(log, aborted) && contains(log, stopped))) << dropped << "\n"
                                                                                                << log;
    }
    EXPECT_EQ(partition(s, jp)["recorded"], 0) << jp;
    EXPECT_EQ(partition(s, jp)["attempts"], 0) << jp;
  }
  for (const char* key : {"zk:leases", "zk:q:synth", "zk:q:prove"}) EXPECT_EQ(redis_cli({"ZCARD", key}), "0\n") << key;
}

}  // namespace
}  // namespace zkmill::test
