// SPDX-License-Identifier: MIT
// The farm's operations side end to end, with real processes on loopback: the coordinator's
// Prometheus endpoint (scraped over HTTP) and `zkmill status --json` must reflect what a job
// really did, a failed attempt must show in the counters, and `local-farm.sh scale` must add
// workers and drain them (SIGTERM: the current partition finishes) while a job keeps running.
#include <cmath>
#include <map>
#include <set>

#include "tests/support/prometheus_scrape.hpp"
#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

using nlohmann::json;

// Workers the coordinator reports for `role`, from `zkmill status --json`.
uint64_t workers_of(const json& farm, const std::string& role, const std::string& state = "") {
  if (farm.is_null() || farm["coordinator"].is_null()) return 0;
  uint64_t n = 0;
  for (const auto& [s, k] : farm["coordinator"]["workers"][role].items())
    if (state.empty() || s == state) n += k.get<uint64_t>();
  return n;
}

class FarmOpsTest : public ::testing::Test {
 protected:
  FarmOpsTest() : farm_(scratch_dir()) {}
  LocalFarm farm_;
};

TEST_F(FarmOpsTest, MetricsAndStatusJsonReflectACompletedJob) {
  auto r = farm_.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const int port = farm_.metrics_port();
  EXPECT_TRUE(contains(r.out, "metrics: http://127.0.0.1:" + std::to_string(port) + "/metrics")) << r.out;

  auto before = scrape(port);
  EXPECT_EQ(sample(before, "zkmill_redis_up"), 1);
  EXPECT_EQ(sample(before, "zkmill_proofs_verified_total"), 0);
  EXPECT_EQ(sample(before, "zkmill_jobs{state=\"done\"}"), 0);
  ASSERT_TRUE(LocalFarm::eventually([&] {
    auto m = scrape(port);
    return m["zkmill_workers{role=\"synth\",state=\"idle\"}"] == 1 &&
           m["zkmill_workers{role=\"prove\",state=\"idle\"}"] == 1;
  })) << "the worker gauges never showed the two registered workers";

  const uint64_t n = 6;
  auto job = farm_.submit(n);
  ASSERT_EQ(farm_.wait(job), 0);

  // The Redis-derived gauges are cached for a second between scrapes, and the worker counts
  // are republished every heartbeat period: wait until both show the finished job.
  std::map<std::string, double> m;
  ASSERT_TRUE(LocalFarm::eventually([&] {
    m = scrape(port);
    return m["zkmill_jobs{state=\"done\"}"] == 1 && m["zkmill_workers{role=\"prove\",state=\"idle\"}"] == 1;
  })) << "the gauges never showed the job done and the prove worker idle";
  EXPECT_EQ(sample(m, "zkmill_proofs_verified_total"), double(n));
  EXPECT_EQ(sample(m, "zkmill_proofs_rejected_total"), 0);
  EXPECT_GE(sample(m, "zkmill_partitions_synthesized_total"), double(n));
  EXPECT_EQ(sample(m, "zkmill_jobs_finished_total{state=\"done\"}"), 1);
  EXPECT_EQ(sample(m, "zkmill_jobs_finished_total{state=\"failed\"}"), 0);
  EXPECT_EQ(sample(m, "zkmill_job_duration_seconds_count{state=\"done\"}"), 1);
  EXPECT_GT(sample(m, "zkmill_job_duration_seconds_sum{state=\"done\"}"), 0);
  EXPECT_EQ(sample(m, "zkmill_partition_latency_seconds_count"), double(n));
  for (const char* phase : {"fetch", "prove", "verify"})
    EXPECT_EQ(sample(m, std::string("zkmill_phase_duration_seconds_count{phase=\"") + phase + "\"}"), double(n))
        << phase;
  EXPECT_GE(sample(m, "zkmill_phase_duration_seconds_count{phase=\"synth\"}"), double(n));
  EXPECT_EQ(sample(m, "zkmill_phase_duration_seconds_count{phase=\"batch_verify\"}"), 1);
  // Every fetched bundle was one the synth side reported, and none is empty.
  const double fetched = sample(m, "zkmill_bundle_fetched_bytes_total");
  EXPECT_GT(fetched, 0);
  EXPECT_GE(sample(m, "zkmill_bundle_synthesized_bytes_total"), fetched);
  EXPECT_EQ(std::fmod(fetched, double(n)), 0) << "six equal partitions: the bytes divide evenly";
  // Redis-derived gauges: the job is done, nothing is queued or in flight.
  EXPECT_EQ(sample(m, "zkmill_jobs{state=\"done\"}"), 1);
  EXPECT_EQ(sample(m, "zkmill_jobs{state=\"running\"}"), 0);
  EXPECT_EQ(sample(m, "zkmill_active_jobs"), 0);
  EXPECT_EQ(sample(m, "zkmill_leases"), 0);
  for (const char* q : {"synth", "prove", "delayed"})
    EXPECT_EQ(sample(m, std::string("zkmill_queue_depth{queue=\"") + q + "\"}"), 0) << q;
  EXPECT_EQ(sample(m, "zkmill_attempts_failed_total{reason=\"task_failed\"}"), 0);

  // status --json, farm-wide: the same picture, plus the coordinator's worker counts.
  json farm;
  ASSERT_TRUE(LocalFarm::eventually([&] {
    farm = farm_.status();
    return workers_of(farm, "prove", "idle") == 1;
  })) << farm.dump();
  ASSERT_FALSE(farm.is_null());
  EXPECT_EQ(farm["jobs"]["done"], 1);
  EXPECT_EQ(farm["jobs"]["running"], 0);
  EXPECT_EQ(farm["active_jobs"], 0);
  EXPECT_EQ(farm["queues"], json({{"synth", 0}, {"prove", 0}, {"delayed", 0}}));
  EXPECT_EQ(farm["leases"], 0);
  for (const auto& [state, count] : farm["partitions"].items()) EXPECT_EQ(count, 0) << state;
  ASSERT_EQ(farm["recent_jobs"].size(), 1u) << farm.dump();
  EXPECT_EQ(farm["recent_jobs"][0]["job"], job);
  EXPECT_EQ(farm["recent_jobs"][0]["verified"], n);
  EXPECT_EQ(farm["recent_jobs"][0]["priority"], 0);
  ASSERT_FALSE(farm["coordinator"].is_null()) << farm.dump();
  EXPECT_EQ(farm["coordinator"]["metrics"], "127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(workers_of(farm, "synth", "idle"), 1u);
  EXPECT_EQ(workers_of(farm, "prove", "idle"), 1u);
  // The worker list itself is zk:workers (`status --workers`), published with those counts.
  auto listed = run_zkmill({"status", "--config", farm_.client(), "--workers", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  std::set<std::string> ids;
  for (const auto& w : json::parse(listed.out)) ids.insert(w["worker"].get<std::string>());
  EXPECT_EQ(ids, (std::set<std::string>{"synth-1", "prove-1"}));
  // status JOB --json (the per-job object) agrees with the metrics.
  auto js = farm_.status(job);
  EXPECT_EQ(js["state"], "done");
  EXPECT_EQ(js["verified"], n);
  EXPECT_EQ(js["counts"]["done"], n);
}

TEST_F(FarmOpsTest, RejectedProofAndRetriesAreCountedAndPartitionStatesAddUp) {
  auto r = farm_.start(1, 0);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  farm_.spawn_worker("prove-bad", "prove", "bad-proof-once");
  const uint64_t n = 20;
  auto job = farm_.submit(n);
  // Its wrong proof quarantines it (no more work until cleared): an honest prover takes over.
  ASSERT_TRUE(LocalFarm::eventually([&] { return contains(farm_.log("coordinator"), "worker prove-bad QUARANTINED"); }))
      << farm_.log("coordinator");
  r = farm_.scale(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // While the job runs, the derived partition states always account for every partition.
  bool saw_running = false;
  for (int i = 0; i < 200; ++i) {
    auto f = farm_.status();
    ASSERT_FALSE(f.is_null());
    if (f["jobs"]["running"] == 1) {
      uint64_t sum = 0;
      for (const auto& [state, k] : f["partitions"].items()) sum += k.get<uint64_t>();
      EXPECT_EQ(sum, n) << f.dump();
      saw_running = true;
    }
    if (f["jobs"]["done"] == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(farm_.wait(job), 0);
  auto m = scrape(farm_.metrics_port());
  EXPECT_EQ(sample(m, "zkmill_proofs_rejected_total"), 1);
  EXPECT_EQ(sample(m, "zkmill_attempts_failed_total{reason=\"proof_rejected\"}"), 1);
  EXPECT_GE(sample(m, "zkmill_retries_total"), 1);
  EXPECT_EQ(sample(m, "zkmill_proofs_verified_total"), double(n));
  EXPECT_EQ(sample(m, "zkmill_phase_duration_seconds_count{phase=\"verify\"}"), double(n + 1));
  EXPECT_TRUE(saw_running) << "the job was never seen running, so the partition sums went unchecked";
}

TEST_F(FarmOpsTest, MetricsAddressInUseIsAClearError) {
  auto r = farm_.start(0, 0);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // A second coordinator whose metrics address is the first one's.
  const auto cfg = farm_.farm_dir() / "second.yaml";
  std::ofstream(cfg) << "redis:\n  port: " << slurp(farm_.farm_dir() / "redis.port")
                     << "coordinator:\n  endpoint: ipc://" << (farm_.farm_dir() / "second.sock").string()
                     << "\n  metrics_listen: 127.0.0.1:" << farm_.metrics_port() << "\n";
  // Bounded: were the address not refused, this coordinator would serve until killed.
  auto second = run_program("timeout", {"20", zkmill_binary(), "coordinator", "--config", cfg.string()});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_TRUE(contains(
      second.err, "coordinator.metrics_listen: cannot listen on 127.0.0.1:" + std::to_string(farm_.metrics_port())))
      << second.err;
  // A malformed address is a config error naming the key.
  std::ofstream(cfg) << "coordinator:\n  metrics_listen: 9464\n";
  auto bad = run_program("timeout", {"20", zkmill_binary(), "coordinator", "--config", cfg.string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "coordinator.metrics_listen")) << bad.err;
}

// A drained synth worker keeps serving the bundles it holds until their partitions are proved.
// With no prove worker yet, the synth worker holds the look-ahead's bundles (unfetched); it is
// drained; only then do a prove worker and another synth worker arrive. Every partition must be
// proved from its first synthesis (no failed attempt, n syntheses in all), and the drained
// worker must exit 0 once its bundles are released.
TEST_F(FarmOpsTest, DrainedSynthWorkerServesItsHeldBundlesUntilReleased) {
  auto r = farm_.start(0, 0);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const pid_t held = farm_.spawn_worker("synth-held", "synth", "");
  const uint64_t n = 8;
  auto job = farm_.submit(n);
  // No prover: synthesis runs coordinator.synth_lookahead (2) partitions ahead, then waits.
  ASSERT_TRUE(LocalFarm::eventually([&] { return farm_.status(job)["counts"].value("synthesized", 0) == 2; }))
      << farm_.status(job).dump() << farm_.log("synth-held");

  // `worker drain` accepts only a worker in the published registry (refreshed every heartbeat).
  ASSERT_TRUE(LocalFarm::eventually([&] {
    return contains(run_zkmill({"status", "--config", farm_.client(), "--workers"}).out, "synth-held");
  }));
  auto d = run_zkmill({"worker", "drain", "synth-held", "--config", farm_.client()});
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  ASSERT_TRUE(LocalFarm::eventually([&] {
    return contains(farm_.log("synth-held"), "drained; serving 2 held bundle(s) until the coordinator");
  })) << farm_.log("synth-held");
  // Several heartbeat periods (250 ms) and a whole liveness period later it still serves them.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(farm_.wait_exit(held, std::chrono::milliseconds(0)), -1)
      << "the drained synth worker exited while holding unfetched bundles:\n"
      << farm_.log("synth-held");

  r = farm_.scale(1, 1);  // synth-1 and prove-1 (synth-held is not the script's)
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_EQ(farm_.wait(job), 0);
  EXPECT_EQ(farm_.wait_exit(held, std::chrono::seconds(20)), 0) << farm_.log("synth-held");
  EXPECT_TRUE(contains(farm_.log("synth-held"), "drained, exiting")) << farm_.log("synth-held");
  EXPECT_FALSE(contains(farm_.log("synth-held"), "never released")) << farm_.log("synth-held");

  auto s = farm_.status(job);
  uint64_t by_held = 0;
  for (const auto& p : s["partition_states"]) {
    EXPECT_EQ(p["attempts"], 0) << p.dump();
    EXPECT_EQ(p["recorded"], 1) << p.dump();
    by_held += p["synth_worker"] == "synth-held";
  }
  EXPECT_EQ(by_held, 2u) << s.dump();
  auto m = scrape(farm_.metrics_port());
  EXPECT_EQ(sample(m, "zkmill_partitions_synthesized_total"), double(n));
  EXPECT_EQ(sample(m, "zkmill_proofs_verified_total"), double(n));
}

// Bundles nothing will fetch (here: their job was cancelled) are released by the coordinator
// as soon as the draining worker's heartbeat names them, so the drain does not wait out
// worker.drain_hold_s (300 s) for them.
TEST_F(FarmOpsTest, DrainedSynthWorkerIsReleasedFromBundlesOfACancelledJob) {
  auto r = farm_.start(0, 0);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const pid_t held = farm_.spawn_worker("synth-held", "synth", "");
  auto job = farm_.submit(4);
  ASSERT_TRUE(LocalFarm::eventually([&] { return farm_.status(job)["counts"].value("synthesized", 0) == 2; }))
      << farm_.status(job).dump() << farm_.log("synth-held");
  auto c = run_zkmill({"cancel", "--config", farm_.client(), job});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  ASSERT_TRUE(LocalFarm::eventually([&] {
    return contains(run_zkmill({"status", "--config", farm_.client(), "--workers"}).out, "synth-held");
  }));
  auto d = run_zkmill({"worker", "drain", "synth-held", "--config", farm_.client()});
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  EXPECT_EQ(farm_.wait_exit(held, std::chrono::seconds(15)), 0) << farm_.log("synth-held");
  EXPECT_TRUE(contains(farm_.log("synth-held"), "drained; serving 2 held bundle(s)")) << farm_.log("synth-held");
  EXPECT_FALSE(contains(farm_.log("synth-held"), "never released")) << farm_.log("synth-held");
  EXPECT_TRUE(contains(farm_.log("coordinator"), "held by draining worker synth-held (no partition needs it)"))
      << farm_.log("coordinator");
}

TEST_F(FarmOpsTest, ScaleUpThenDrainDownWhileAJobRunsThenStop) {
  auto r = farm_.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = farm_.scale(2, 2);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "scaled: 2 synth + 2 prove workers (started: synth-2 prove-2; drained: none)")) << r.out;
  ASSERT_TRUE(LocalFarm::eventually([&] {
    auto f = farm_.status();
    return workers_of(f, "synth") == 2 && workers_of(f, "prove") == 2;
  })) << farm_.status().dump();

  const uint64_t n = 40;
  auto job = farm_.submit(n);
  ASSERT_TRUE(LocalFarm::eventually([&] { return farm_.status(job)["verified"].get<uint64_t>() >= 2; }));
  r = farm_.scale(1, 1);  // returns once both drained workers have exited
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "scaled: 1 synth + 1 prove workers (started: none; drained: synth-2 prove-2)")) << r.out;
  for (const char* name : {"synth-2", "prove-2"}) {
    EXPECT_FALSE(fs::exists(farm_.farm_dir() / (std::string(name) + ".pid"))) << name;
    EXPECT_TRUE(contains(farm_.log(name), "drained, exiting")) << name << ":\n" << farm_.log(name);
    EXPECT_FALSE(contains(farm_.log(name), "zkmill: error")) << name << ":\n" << farm_.log(name);
    EXPECT_TRUE(contains(farm_.log("coordinator"), std::string("worker ") + name + " left (drained)")) << name;
  }
  ASSERT_EQ(farm_.wait(job), 0);
  auto s = farm_.status(job);
  EXPECT_EQ(s["verified"], n);
  for (const auto& p : s["partition_states"]) EXPECT_EQ(p["recorded"], 1) << p.dump();
  ASSERT_TRUE(LocalFarm::eventually([&] {
    auto f = farm_.status();
    return workers_of(f, "synth") == 1 && workers_of(f, "prove") == 1;
  })) << farm_.status().dump();

  auto st = farm_.script({"status"});
  EXPECT_EQ(st.exit_code, 0) << st.out << st.err;
  EXPECT_TRUE(contains(st.out, "synth-1      running")) << st.out;
  EXPECT_FALSE(contains(st.out, "synth-2")) << st.out;
  EXPECT_TRUE(contains(st.out, "jobs:       cancelled 0, done 1")) << st.out;

  // Scaling one role leaves the other alone; the drained name is reused.
  r = farm_.script({"scale", "--prove", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "scaled: 1 synth + 2 prove workers (started: prove-2; drained: none)")) << r.out;
  auto again = farm_.submit(4);
  ASSERT_EQ(farm_.wait(again), 0);

  auto stop = farm_.script({"stop"});
  EXPECT_EQ(stop.exit_code, 0) << stop.err;
  auto down = farm_.script({"status"});
  EXPECT_EQ(down.exit_code, 1) << down.out;
  EXPECT_TRUE(contains(down.out, "coordinator  DOWN")) << down.out;
  EXPECT_NE(farm_.script({"scale", "--synth", "1"}).exit_code, 0);
}

}  // namespace
}  // namespace zkmill::test
