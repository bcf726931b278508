// SPDX-License-Identifier: MIT
// End-to-end tests of the real build/bin/zkmill binary: help, `info` in both output forms, and
// that usage and config mistakes fail with "zkmill: error: ..." naming the culprit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "zkmill/build_info.hpp"

namespace zkmill::test {
namespace {
namespace fs = std::filesystem;

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path p = scratch_dir() / name;
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST(Cli, HelpListsSubcommandsAndGlobalFlags) {
  const Result r = run_zkmill({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "info")) << r.out;
  EXPECT_TRUE(contains(r.out, "--log-level")) << r.out;
  EXPECT_TRUE(contains(r.out, "--config")) << r.out;
}

TEST(Cli, SubcommandHelpListsItsOptions) {
  const Result r = run_zkmill({"info", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "--json")) << r.out;
}

TEST(Cli, VersionFlag) {
  const Result r = run_zkmill({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, zkmill::build::kVersion)) << r.out;
}

TEST(Cli, NoSubcommandPrintsHelpAndFails) {
  const Result r = run_zkmill({});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "info")) << "help should list the commands: " << r.err;
  EXPECT_TRUE(contains(r.err, "zkmill: error:")) << r.err;
}

TEST(Cli, UnknownSubcommandFails) {
  const Result r = run_zkmill({"frobnicate"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "zkmill: error:")) << r.err;
  EXPECT_TRUE(contains(r.err, "frobnicate")) << r.err;
}

TEST(Cli, InfoText) {
  const Result r = run_zkmill({"info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, std::string("zkmill ") + zkmill::build::kVersion)) << r.out;
  EXPECT_TRUE(contains(r.out, std::string("commit:     ") + zkmill::build::kGitCommit)) << r.out;
  EXPECT_TRUE(contains(r.out, "backends:   cpu")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n  GPUs:       ")) << r.out;
  EXPECT_TRUE(contains(r.out, "CPU cores:")) << r.out;
}

TEST(Cli, InfoJson) {
  const Result r = run_zkmill({"info", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << "not JSON: " << r.out;
  EXPECT_EQ(j.at("version"), zkmill::build::kVersion);
  EXPECT_EQ(j.at("git_commit"), zkmill::build::kGitCommit);
  EXPECT_EQ(j.at("build_type"), zkmill::build::kBuildType);
  EXPECT_TRUE(j.at("compiler").is_string());
  ASSERT_TRUE(j.at("backends").is_array());
  EXPECT_EQ(j.at("backends").at(0), "cpu");
  EXPECT_GE(j.at("cpu_cores").get<int>(), 1);
  EXPECT_GE(j.at("threads").get<int>(), 1);
  ASSERT_TRUE(j.at("gpus").is_array());
  // Exactly one of: a device list, or the reason there is none.
  const auto& reason = j.at("gpus_unavailable_reason");
  if (j.at("gpus").empty()) {
    ASSERT_TRUE(reason.is_string());
    EXPECT_FALSE(reason.get<std::string>().empty());
  } else {
    EXPECT_TRUE(reason.is_null());
    for (const auto& g : j.at("gpus")) {
      EXPECT_TRUE(g.at("name").is_string());
      EXPECT_GT(g.at("total_mem_bytes").get<uint64_t>(), 0u);
      EXPECT_GT(g.at("sm_count").get<int>(), 0);
      EXPECT_TRUE(g.at("compute_capability").is_string());
    }
  }
  // CUDA listed as a backend iff the reason is not "not compiled".
  const bool has_cuda = j.at("backends").size() == 2 && j.at("backends").at(1) == "cuda";
  EXPECT_EQ(has_cuda, !(reason.is_string() && reason.get<std::string>() == "CUDA backend not compiled")) << j.dump();
  // The device code (cmake/cuda_archs.cmake) is named exactly when the CUDA backend is in.
  const auto& code = j.at("cuda_device_code");
  EXPECT_EQ(code.is_string(), has_cuda) << j.dump();
  if (code.is_string()) {
    EXPECT_FALSE(code.get<std::string>().empty()) << j.dump();
  }
}

TEST(Cli, ConfigThreadsSizesTheGlobalPool) {
  const fs::path cfg = write_file("threads.yaml", "threads: 3\n");
  const Result r = run_zkmill({"--config", cfg.string(), "info", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("threads"), 3) << r.out;
}

TEST(Cli, ConfigWithUnknownKeyFailsNamingKeyAndFile) {
  const fs::path cfg = write_file("typo.yaml", "log:\n  levle: debug\n");
  const Result r = run_zkmill({"--config", cfg.string(), "info"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "zkmill: error: " + cfg.string() + ": unknown key 'log.levle'")) << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing should run: " << r.out;
}

TEST(Cli, MissingConfigFileFails) {
  const std::string missing = (scratch_dir() / "absent.yaml").string();
  const Result r = run_zkmill({"--config", missing, "info"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, missing + ": cannot read file")) << r.err;
}

TEST(Cli, BadLogLevelFails) {
  const Result r = run_zkmill({"--log-level", "loud", "info"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "zkmill: error:")) << r.err;
  EXPECT_TRUE(contains(r.err, "loud")) << r.err;
}

TEST(Cli, LogLevelFlagOverridesConfigAndLogFileIsWritten) {
  const fs::path log = scratch_dir() / "zkmill.log";
  const fs::path cfg = write_file("quiet.yaml", "log:\n  level: off\n  file: " + log.string() + "\n");
  // Config alone: level off, so the startup debug line is not logged.
  Result r = run_zkmill({"--config", cfg.string(), "info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(slurp(log), "command 'info'")) << slurp(log);
  // The flag wins (and works after the subcommand too).
  r = run_zkmill({"--config", cfg.string(), "info", "--log-level", "debug"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(slurp(log), "command 'info'")) << slurp(log);
  EXPECT_TRUE(contains(r.err, "command 'info'")) << "logs go to stderr too: " << r.err;
}

// `zkmill bench gpu` takes zkmill_gpu_bench's options (one definition, cuda/bench/gpu_bench_cli.hpp):
// all of them listed (--h-beside was once only the standalone's), and a bad value refused with
// the option named before any device is looked for, in a build with or without CUDA.
TEST(Cli, BenchGpuTakesTheSuitesOptionsAndRefusesBadValues) {
  Result r = run_zkmill({"bench", "gpu", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* opt : {"--msm-sizes", "--prove-sizes", "--porep-bundle", "--h-beside", "--h-basis", "--ceilings"})
    EXPECT_TRUE(contains(r.out, opt)) << opt << " missing from: " << r.out;
  r = run_zkmill({"bench", "gpu", "--runs", "abc"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "zkmill: error:") && contains(r.err, "--runs")) << r.err;
  r = run_zkmill({"bench", "gpu", "--porep-bundle", "half"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "--porep-bundle")) << r.err;
  EXPECT_FALSE(contains(r.err, "cudaError")) << r.err;
}

}  // namespace zkmill::test
