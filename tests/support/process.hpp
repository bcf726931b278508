// SPDX-License-Identifier: MIT
// Test support: run a real program (no shell) with captured stdout/stderr, in a
// per-test scratch directory, so integration tests drive binaries through their public CLI.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/util/process_state.hpp"

extern char** environ;

namespace zkmill::test {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A per-test scratch directory, so tests can run in parallel (ctest -j). Emptied the first time
// this process asks for it: the name holds the pid, and pids recur across runs, so a directory
// left by an earlier run (kept for its logs) could otherwise hand this test that run's files,
// e.g. a farm's Redis data with its jobs (seen: a status that counted an earlier run's jobs).
inline fs::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(::testing::TempDir()) / ("zkmill_" + std::string(info->test_suite_name()) + "_" +
                                                   std::string(info->name()) + "_" + std::to_string(getpid()));
  for (char& c : const_cast<std::string&>(dir.native()))
    if (c == '<' || c == '>' || c == ':' || c == ' ') c = '_';
  static std::mutex mu;
  static std::set<fs::path> fresh;  // the directories this process has emptied already
  std::lock_guard<std::mutex> lock(mu);
  if (fresh.insert(dir).second) fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline std::string slurp(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p, std::ios::binary).rdbuf();
  return s.str();
}

// Runs `program` (a path, or a name looked up in PATH) with `args`; waits for it.
inline Result run_program(const std::string& program, const std::vector<std::string>& args) {
  const fs::path dir = scratch_dir();
  static int counter = 0;
  const std::string tag = std::to_string(counter++);
  const std::string out_path = (dir / ("stdout." + tag)).string(), err_path = (dir / ("stderr." + tag)).string();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  Result r;
  const int rc = posix_spawnp(&pid, program.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << program << ": " << std::strerror(rc);
    return r;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

// Starts `args` (args[0] looked up in PATH) in the background with stdout and stderr appended
// to `log`; the caller owns the child (kill + waitpid). For services a test runs alongside.
inline pid_t spawn_background(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  EXPECT_EQ(rc, 0) << "cannot start " << args[0];
  return pid;
}

// Whether the process `pid` has exited: gone, or a zombie. A process that local-farm.sh started
// is not our child; once it exits, init reaps it, on some machines only every few seconds, and
// meanwhile it answers kill(pid, 0) as if it still ran (common/util/process_state.hpp).
using zkmill::util::process_exited;

inline std::string zkmill_binary() { return std::string(ZKMILL_BINARY_DIR) + "/bin/zkmill"; }
inline Result run_zkmill(const std::vector<std::string>& args) { return run_program(zkmill_binary(), args); }

// Runs zkmill under a file-size limit of `kib` KiB (bash's `ulimit -f` unit) with SIGXFSZ
// ignored, so every write(2) past it fails with EFBIG as on a full disk (the shell's `trap ""` is
// inherited by exec). `timeout` turns a hang (e.g. a FIFO read forever) into exit 124.
inline Result run_zkmill_fsize(unsigned kib, const std::vector<std::string>& args) {
  // Only zkmill runs under the limit: its stdout and stderr go through `cat`, so the files the
  // test harness captures them in are written without it (else the error message is lost).
  std::string cmd = "set -o pipefail; { (trap '' XFSZ; ulimit -f " + std::to_string(kib) + "; exec timeout 60 '" +
                    zkmill_binary() + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += ") 2>&1 >&3 3>&- | cat >&2; } 3>&1 | cat";
  return run_program("bash", {"-c", cmd});
}
inline Result run_zkmill_fsize0(const std::vector<std::string>& args) { return run_zkmill_fsize(0, args); }

inline bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

}  // namespace zkmill::test
