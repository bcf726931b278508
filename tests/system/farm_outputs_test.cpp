// SPDX-License-Identifier: MIT
// The operator's side of a farm, on a real local farm (deploy/local-farm.sh): `zkmill result`
// writes a folder whole or not at all, an idempotency key is bound to its job's parameters, and
// a job no live worker serves says so (submit warns, status shows it). local-farm.sh itself is
// tested by local_farm_script_test.sh, README's walkthrough by readme_walkthrough_test.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "tests/support/fixtures.hpp"
#include "tests/system/local_farm.hpp"

namespace zkmill::test {
namespace {

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class FarmOutputs : public ::testing::Test {
 protected:
  fs::path d_ = scratch_dir();
  LocalFarm farm_{d_};

  std::string submit_done(uint64_t partitions) {
    const std::string job = farm_.submit(partitions);
    EXPECT_EQ(farm_.wait(job), 0);
    return job;
  }
};

TEST_F(FarmOutputs, ResultFolderAppearsWholeOrNotAtAll) {
  auto r = farm_.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string job = submit_done(2);
  const std::vector<std::string> files = {"partition-0.proof.json", "partition-0.public.json", "partition-1.proof.json",
                                          "partition-1.public.json", "proofs.bin"};

  // A good result first, and its proofs verify.
  const fs::path good = d_ / "good";
  r = run_zkmill({"result", "--config", farm_.client(), job, "--out", good.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listing(good), files);
  EXPECT_EQ(run_zkmill({"verify", farm_.key() + ".vk.json", (good / "partition-1.public.json").string(),
                        (good / "partition-1.proof.json").string()})
                .exit_code,
            0);

  // Over an existing folder under a file-size limit: the old files stay as they were.
  const fs::path old = d_ / "old";
  fs::create_directories(old);
  for (const auto& f : files) std::ofstream(old / f) << "old " << f;
  r = run_zkmill_fsize0({"result", "--config", farm_.client(), job, "--out", old.string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "File too large")) << r.err;
  EXPECT_EQ(listing(old), files) << "a temporary was left behind";
  for (const auto& f : files) EXPECT_EQ(slurp(old / f), "old " + f);

  // Into a new folder: the folder is not left behind either.
  r = run_zkmill_fsize0({"result", "--config", farm_.client(), job, "--out", (d_ / "fresh").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(d_ / "fresh"));

  // A failure in the last step (proofs.bin cannot replace a directory): the proofs already
  // renamed into place are removed again, so no partial folder results.
  const fs::path blocked = d_ / "blocked";
  fs::create_directories(blocked / "proofs.bin");
  r = run_zkmill({"result", "--config", farm_.client(), job, "--out", blocked.string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "proofs.bin")) << r.err;
  EXPECT_EQ(listing(blocked), std::vector<std::string>{"proofs.bin"});
}

TEST_F(FarmOutputs, IdempotencyKeyIsBoundToTheJobsParameters) {
  auto r = farm_.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto submit = [&](const std::string& partitions, const std::string& seed, const std::string& key) {
    return run_zkmill({"submit", "--config", farm_.client(), "--key", farm_.key(), "--partitions", partitions, "--seed",
                       seed, "--idempotency-key", key});
  };
  r = submit("1", "11", "batch-7");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string job = r.out;
  // Same parameters: the same job, as before.
  r = submit("1", "11", "batch-7");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, job);
  EXPECT_TRUE(contains(r.err, "idempotency key already used")) << r.err;
  // Other parameters under the same key: refused, exit 1, nothing new submitted.
  for (auto [parts, seed] : {std::pair{"1", "12"}, std::pair{"2", "11"}}) {
    r = submit(parts, seed, "batch-7");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(contains(r.err, "idempotency key 'batch-7' already names job " + job.substr(0, job.size() - 1)))
        << r.err;
    EXPECT_TRUE(contains(r.err, "other parameters")) << r.err;
  }
  auto list = farm_.status();
  ASSERT_FALSE(list.is_null());
  EXPECT_EQ(list["recent_jobs"].size(), 1u) << list.dump();
}

TEST_F(FarmOutputs, UnservedCircuitIsReportedBySubmitAndStatus) {
  auto r = farm_.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // A key the workers do not have (outside their key directory).
  const std::string other = (d_ / "other.key").string();
  r = run_zkmill({"setup", "--circuit", "chain", "--size", "300", "--curve", "bn254", "--seed", "8", "--out", other});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_zkmill({"submit", "--config", farm_.client(), "--key", other, "--partitions", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string job = r.out;
  job.pop_back();
  EXPECT_TRUE(contains(r.err, "zkmill: warning: job " + job + ": no live synth or prove worker serves circuit"))
      << r.err;
  auto s = farm_.status(job);
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["state"], "queued");
  EXPECT_EQ(s["workers_serving"]["synth"], 0);
  EXPECT_EQ(s["workers_serving"]["prove"], 0);
  EXPECT_TRUE(contains(s.value("warning", std::string()), "no live synth or prove worker")) << s.dump();
  r = run_zkmill({"status", "--config", farm_.client(), job});
  EXPECT_TRUE(contains(r.out, "warning: no live synth or prove worker")) << r.out;
  r = run_zkmill({"status", "--config", farm_.client()});
  EXPECT_TRUE(contains(r.out, "warning: no live")) << r.out;

  // A served circuit: no warning, and the status counts the workers.
  r = run_zkmill({"submit", "--config", farm_.client(), "--key", farm_.key(), "--partitions", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
  std::string served = r.out;
  served.pop_back();
  EXPECT_EQ(farm_.wait(served), 0);
  EXPECT_EQ(run_zkmill({"cancel", "--config", farm_.client(), job}).exit_code, 0);
}

// Result retention (coordinator.retention_s): a job that ended is served (status, result)
// until its retention has passed, then deleted with its proofs; status, result, wait and
// cancel then say so (exit 1, 3, 1), its idempotency key makes a new job, and a running job
// is never deleted, however old.
TEST_F(FarmOutputs, EndedJobsAreDeletedAfterTheirRetention) {
  auto r = farm_.start(1, 1, {"coordinator.retention_s=6"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_zkmill({"submit", "--config", farm_.client(), "--key", farm_.key(), "--partitions", "1", "--seed", "3",
                  "--idempotency-key", "kept-6s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string job = r.out.substr(0, r.out.find('\n'));
  ASSERT_EQ(farm_.wait(job), 0);
  // Its status says when it ends its retention: 6 s after it ended.
  const auto ended = farm_.status(job);
  ASSERT_TRUE(ended.contains("ended_ms") && ended.contains("deleted_after_ms")) << ended.dump();
  EXPECT_EQ(ended["deleted_after_ms"].get<uint64_t>(), ended["ended_ms"].get<uint64_t>() + 6000) << ended.dump();
  r = run_zkmill({"status", "--config", farm_.client(), job});
  EXPECT_TRUE(contains(r.out, "kept until ")) << r.out;
  const fs::path out = d_ / "proofs";
  r = run_zkmill({"result", "--config", farm_.client(), job, "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(run_zkmill({"verify", farm_.key() + ".vk.json", (out / "partition-0.public.json").string(),
                        (out / "partition-0.proof.json").string()})
                .exit_code,
            0);
  // A job no worker serves (its .zkey is in no worker's key_dir) stays queued past the
  // retention: only ended jobs are deleted.
  const std::string zkey = (d_ / "multiplier.zkey").string();
  fs::copy_file(interop_fixture("bn128", "multiplier", "zkey"), zkey);
  r = run_zkmill({"submit", "--config", farm_.client(), "--zkey", zkey, "--witness",
                  interop_fixture("bn128", "multiplier", "wtns")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string queued = r.out.substr(0, r.out.find('\n'));

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (!farm_.status(job).is_null() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(farm_.status(job).is_null()) << "job " << job << " still there after 40 s (retention 6 s)";
  const std::string gone = "job '" + job + "' no longer exists";
  EXPECT_TRUE(contains(run_zkmill({"status", "--config", farm_.client(), job}).err, "(here 6 s)"));
  r = run_zkmill({"status", "--config", farm_.client(), job});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, gone)) << r.err;
  r = run_zkmill({"result", "--config", farm_.client(), job, "--out", (d_ / "late").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, gone)) << r.err;
  EXPECT_FALSE(fs::exists(d_ / "late"));
  r = run_zkmill({"wait", "--config", farm_.client(), job});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, gone)) << r.err;
  r = run_zkmill({"cancel", "--config", farm_.client(), job});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, gone)) << r.err;
  r = run_zkmill({"status", "--config", farm_.client(), "j999999"});
  EXPECT_TRUE(contains(r.err, "no job 'j999999'")) << r.err;                        // never given out: not "deleted"
  r = run_zkmill({"status", "--config", farm_.client(), "j99999999999999999999"});  // 20 digits: no job id at all
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "no job 'j99999999999999999999'")) << r.err;
  EXPECT_TRUE(contains(farm_.log("coordinator"), "deleted 1 job(s) that ended more than 6 s ago"))
      << farm_.log("coordinator");
  const auto still = farm_.status(queued);
  ASSERT_FALSE(still.is_null()) << "a queued job was deleted";
  EXPECT_EQ(still["state"], "queued");

  // The idempotency key went with its job: the same submit is a new job now.
  r = run_zkmill({"submit", "--config", farm_.client(), "--key", farm_.key(), "--partitions", "1", "--seed", "3",
                  "--idempotency-key", "kept-6s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.substr(0, r.out.find('\n')), job);
  EXPECT_FALSE(contains(r.err, "idempotency key already used")) << r.err;
}

// `submit --circuit ID`: a native circuit the farm has registered (an earlier --key submit)
// is submitted by its id, no key file read or hashed; the job is the same job a --key submit of
// the same parameters gives (one idempotency key serves both), its proofs verify; an unknown,
// malformed or .zkey id is refused (exit 1, as every zkmill error) saying what to do instead.
TEST_F(FarmOutputs, SubmitByCircuitIdNeedsNoKeyFile) {
  auto r = farm_.start(1, 1);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string first = farm_.submit(1);
  ASSERT_EQ(farm_.wait(first), 0);
  const std::string id = farm_.status(first)["circuit"].get<std::string>();
  ASSERT_EQ(id.size(), 64u);

  auto submit = [&](std::vector<std::string> extra) {
    std::vector<std::string> a{"submit", "--config", farm_.client()};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_zkmill(a);
  };
  auto job_of = [](Result res) {
    while (!res.out.empty() && res.out.back() == '\n') res.out.pop_back();
    return res.out;
  };
  r = submit({"--key", farm_.key(), "--partitions", "2", "--seed", "5", "--idempotency-key", "same"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string by_key = job_of(r);
  r = submit({"--circuit", id, "--partitions", "2", "--seed", "5", "--idempotency-key", "same"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(job_of(r), by_key) << "the same parameters by id are the same job";
  r = submit({"--circuit", id, "--partitions", "2", "--seed", "6", "--idempotency-key", "same"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // other parameters under that key: refused
  EXPECT_TRUE(contains(r.err, "other parameters")) << r.err;

  r = submit({"--circuit", id, "--partitions", "3", "--seed", "9", "--wait", "--timeout", "120"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string by_id = job_of(r).substr(0, job_of(r).find('\n'));
  const fs::path out = d_ / "by-id";
  r = run_zkmill({"result", "--config", farm_.client(), by_id, "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int i = 0; i < 3; ++i) {
    const std::string p = (out / ("partition-" + std::to_string(i))).string();
    EXPECT_EQ(run_zkmill({"verify", farm_.key() + ".vk.json", p + ".public.json", p + ".proof.json"}).exit_code, 0);
  }
  EXPECT_EQ(farm_.status(by_id)["circuit"], id);

  // Refusals, before anything reaches a job.
  const std::string unknown(64, 'a');
  r = submit({"--circuit", unknown, "--partitions", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "no such circuit; submit once with --key")) << r.err;
  r = submit({"--circuit", id.substr(0, 16), "--partitions", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "64 lowercase hex digits")) << r.err;
  r = submit({"--circuit", id});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // --partitions is required with it
  r = submit({"--circuit", id, "--key", farm_.key(), "--partitions", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // A copy in this test's scratch directory: submit writes the key's circuit-id memo
  // (KEY.id.json, farm/key_id.hpp) beside the key, which must not land among the committed fixtures.
  const std::string zkey = (d_ / "multiplier.zkey").string();
  fs::copy_file(interop_fixture("bn128", "multiplier", "zkey"), zkey);
  r = submit({"--zkey", zkey, "--witness", interop_fixture("bn128", "multiplier", "wtns")});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // registers the .zkey circuit (served or not)
  const std::string zkey_job = job_of(r).substr(0, job_of(r).find('\n'));
  const std::string zkey_id = farm_.status(zkey_job)["circuit"].get<std::string>();
  r = submit({"--circuit", zkey_id, "--partitions", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "a .zkey circuit")) << r.err;
  EXPECT_EQ(run_zkmill({"cancel", "--config", farm_.client(), zkey_job}).exit_code, 0);
  const auto list = farm_.status();
  ASSERT_FALSE(list.is_null());
  EXPECT_EQ(list["recent_jobs"].size(), 4u) << "first, by key (= by id), by id, the zkey job: " << list.dump();
}

}  // namespace
}  // namespace zkmill::test
