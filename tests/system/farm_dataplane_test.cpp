// SPDX-License-Identifier: MIT
// The data plane end to end (real redis-server, coordinator and worker processes on loopback).
// Prefetching: a prove worker holds the partition it proves plus worker.prefetch fetched ahead,
// `zkmill status --workers` shows both, a kill -9 loses neither (the prefetched partition is
// reassigned like any other), a drain finishes both, and every partition's wire bytes reach
// `zkmill status JOB --json` as bundle_bytes. Witness-only bundles (the default): what travels
// is the packed witness, and a corrupted one fails its checksum and is retried. The slow-prove
// test hook stretches each proof to
// 3 s, so that the held work can be seen and acted on deterministically.
#include <signal.h>

#include <regex>
#include <set>

#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;

class FarmDataPlaneTest : public ::testing::Test {
 protected:
  FarmDataPlaneTest() : farm_(scratch_dir()) {}

  // `zkmill status --workers --json`: the registered workers, id -> record.
  std::map<std::string, json> workers() {
    auto r = run_zkmill({"status", "--config", farm_.client(), "--workers", "--json"});
    std::map<std::string, json> out;
    if (r.exit_code != 0) return out;
    for (const auto& w : json::parse(r.out)) out[w["worker"].get<std::string>()] = w;
    return out;
  }
  // Waits until `worker` reports one partition proving and one prefetched; returns them as
  // "job/part" -> stage (empty if that never happened).
  std::map<std::string, std::string> proving_and_prefetched(const std::string& worker) {
    std::map<std::string, std::string> held;
    const bool seen = LocalFarm::eventually([&] {
      held.clear();
      auto ws = workers();
      if (!ws.count(worker)) return false;
      std::multiset<std::string> stages;
      for (const auto& t : ws[worker]["tasks"]) {
        held[t["job"].get<std::string>() + "/" + std::to_string(t["part"].get<uint64_t>())] = t["stage"];
        stages.insert(t["stage"].get<std::string>());
      }
      return stages == std::multiset<std::string>{"prefetched", "proving"};
    });
    if (!seen)
      ADD_FAILURE() << "worker " << worker << " never held a proving and a prefetched partition:\n"
                    << farm_.log(worker);
    return seen ? held : std::map<std::string, std::string>{};
  }
  static json partition(const json& status, const std::string& job_part) {
    const uint64_t part = std::stoull(job_part.substr(job_part.find('/') + 1));
    return status["partition_states"].at(part);
  }

  LocalFarm farm_;
};

TEST_F(FarmDataPlaneTest, PrefetchedPartitionOfAKilledProveWorkerIsReassignedAndTheJobCompletes) {
  auto r = farm_.start(2, 0);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const pid_t slow = farm_.spawn_worker("prove-slow", "prove", "slow-prove");
  const auto job = farm_.submit(6);
  auto held = proving_and_prefetched("prove-slow");
  ASSERT_EQ(held.size(), 2u);
  auto ws = workers();
  EXPECT_EQ(ws["prove-slow"]["slots"], 2) << "one CPU slot plus worker.prefetch = 1";
  EXPECT_TRUE(ws["prove-slow"]["busy"].get<bool>());

  ASSERT_EQ(kill(slow, SIGKILL), 0);
  EXPECT_EQ(farm_.wait_exit(slow, std::chrono::seconds(5)), 128 + SIGKILL);
  farm_.spawn_worker("prove-2", "prove", "");
  ASSERT_EQ(farm_.wait(job), 0);

  auto s = farm_.status(job);
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["state"], "done");
  EXPECT_EQ(s["verified"], 6);
  for (const auto& [jp, stage] : held) {
    ASSERT_EQ(jp.substr(0, jp.find('/')), job);
    // The prefetched partition cannot have been proved before the kill (its proof would have
    // started after the current one's and takes 3 s): it was leased to the dead worker,
    // requeued (one failed attempt: `attempts` counts failures) and proved by the other
    // worker. (The one proving may just have finished in time, so it is only checked below,
    // with the others: recorded once.)
    if (stage != "prefetched") continue;
    const json p = partition(s, jp);
    EXPECT_GE(p["attempts"].get<uint64_t>(), 1u) << p.dump();
    EXPECT_EQ(p["worker"], "prove-2") << p.dump();
  }
  for (const auto& p : s["partition_states"]) EXPECT_EQ(p["recorded"], 1) << p.dump();
}

TEST_F(FarmDataPlaneTest, DrainFinishesTheCurrentAndThePrefetchedPartitions) {
  auto r = farm_.start(1, 0);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const pid_t slow = farm_.spawn_worker("prove-slow", "prove", "slow-prove");
  const auto job = farm_.submit(4);
  auto held = proving_and_prefetched("prove-slow");
  ASSERT_EQ(held.size(), 2u);

  ASSERT_EQ(kill(slow, SIGTERM), 0);
  // Two proofs of 3 s each, then bye: it exits cleanly, having taken nothing new.
  EXPECT_EQ(farm_.wait_exit(slow, std::chrono::seconds(30)), 0) << farm_.log("prove-slow");
  auto s = farm_.status(job);
  ASSERT_FALSE(s.is_null());
  for (const auto& [jp, stage] : held) {
    const json p = partition(s, jp);
    EXPECT_EQ(p["state"], "verified") << stage << " " << p.dump();
    EXPECT_EQ(p["attempts"], 0) << stage << " " << p.dump();  // no failed attempt
    EXPECT_EQ(p["worker"], "prove-slow") << stage << " " << p.dump();
  }
  // Nothing it was given was left half-done: every partition it was last given is verified.
  for (const auto& p : s["partition_states"])
    if (p["worker"] == "prove-slow") {
      EXPECT_EQ(p["state"], "verified") << p.dump();
    }
  const std::string log = farm_.log("prove-slow");
  EXPECT_TRUE(contains(log, "drained, exiting")) << log;

  // The rest of the job goes to a fresh worker.
  farm_.spawn_worker("prove-2", "prove", "");
  ASSERT_EQ(farm_.wait(job), 0);
}

// prove_done carries the bytes the prove worker fetched for the partition; status --json shows
// them per partition, and they are the bundle the synth worker reported making.
TEST_F(FarmDataPlaneTest, StatusJsonShowsEachPartitionsWireBytes) {
  auto r = farm_.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto job = farm_.submit(3);
  ASSERT_EQ(farm_.wait(job), 0);
  // "partition 0 synthesized (123456 bytes, ...": what the synth worker published.
  const std::string synth_log = farm_.log("synth-1");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(synth_log, m, std::regex("synthesized \\((\\d+) bytes"))) << synth_log;
  const uint64_t bytes = std::stoull(m[1].str());
  EXPECT_GT(bytes, 400u * 32) << "a 400-constraint bundle carries at least one 32-byte value per constraint";
  auto s = farm_.status(job);
  ASSERT_FALSE(s.is_null());
  ASSERT_EQ(s["partition_states"].size(), 3u);
  for (const auto& p : s["partition_states"]) {
    ASSERT_TRUE(p.contains("bundle_bytes")) << p.dump();
    EXPECT_EQ(p["bundle_bytes"].get<uint64_t>(), bytes) << p.dump();
    EXPECT_TRUE(p.contains("slot_wait_ms")) << p.dump();
  }
}

// A witness-only bundle corrupted on the wire (one flipped byte) fails the receiver's
// checksum; the attempt fails, the partition is re-synthesized and the job completes.
TEST_F(FarmDataPlaneTest, CorruptedWitnessOnlyBundleFailsItsChecksumAndIsRetried) {
  auto r = farm_.start(0, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  farm_.spawn_worker("synth-bad", "synth", "corrupt-bundle-once");
  const auto job = farm_.submit(3);
  ASSERT_EQ(farm_.wait(job), 0);
  auto s = farm_.status(job);
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["verified"], 3);
  uint64_t attempts = 0;
  for (const auto& p : s["partition_states"]) attempts += p["attempts"].get<uint64_t>();
  EXPECT_GE(attempts, 1u) << "one attempt (attempts counts failures) failed on the corrupted transfer";
  const std::string coordinator = farm_.log("coordinator");
  EXPECT_TRUE(contains(coordinator, "checksum mismatch")) << coordinator;
  // What travelled was the packed witness: no a, b, c (3 x 32 bytes per row), so well under
  // the 32 x 4 bytes per constraint of a full bundle of this 400-constraint chain.
  const std::string synth_log = farm_.log("synth-bad");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(synth_log, m, std::regex("synthesized \\((\\d+) bytes"))) << synth_log;
  const uint64_t bytes = std::stoull(m[1].str());
  EXPECT_LT(bytes, 400u * 32 * 2);
  for (const auto& p : s["partition_states"]) EXPECT_EQ(p["bundle_bytes"].get<uint64_t>(), bytes) << p.dump();
}

// worker.bundle_kind: full still works end to end (the kind older prove workers take), and
// ships about 4x the bytes of the default witness-only bundles for this chain.
TEST_F(FarmDataPlaneTest, FullBundlesStillWorkAndCostFourTimesTheBytes) {
  auto r = farm_.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto witness_job = farm_.submit(2);
  ASSERT_EQ(farm_.wait(witness_job), 0);
  r = farm_.script({"scale", "--synth", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  farm_.spawn_worker("synth-full", "synth", "", "  bundle_kind: full\n");
  const auto full_job = farm_.submit(2);
  ASSERT_EQ(farm_.wait(full_job), 0);
  auto a = farm_.status(witness_job), b = farm_.status(full_job);
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  const uint64_t witness_bytes = a["partition_states"][0]["bundle_bytes"],
                 full_bytes = b["partition_states"][0]["bundle_bytes"];
  EXPECT_EQ(b["partition_states"][0]["synth_worker"], "synth-full");
  EXPECT_GE(double(full_bytes) / double(witness_bytes), 3.9) << full_bytes << " vs " << witness_bytes;
  EXPECT_EQ(b["verified"], 2);
}

}  // namespace
}  // namespace zkmill::test
