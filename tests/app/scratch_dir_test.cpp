// SPDX-License-Identifier: MIT
// tests/support/process.hpp's scratch_dir(), which every CLI and farm test writes into: the first
// call of a process gives an empty directory even where an earlier run with the same pid left
// files there (pids recur; a leftover farm's Redis data once leaked its jobs into a later run's
// status), and later calls of the same test keep what the test wrote.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/process.hpp"

namespace zkmill::test {

TEST(ScratchDir, FirstCallEmptiesWhatAnEarlierRunLeftAndLaterCallsKeepTheTestsFiles) {
  // The directory scratch_dir() will name, filled before its first call as an earlier run
  // with this pid would have left it.
  const fs::path expected = fs::path(::testing::TempDir()) /
                            ("zkmill_ScratchDir_FirstCallEmptiesWhatAnEarlierRunLeftAndLaterCallsKeepTheTestsFiles_" +
                             std::to_string(getpid()));
  fs::create_directories(expected / "farm" / "redis");
  std::ofstream(expected / "farm" / "redis" / "appendonly.aof") << "stale";
  std::ofstream(expected / "stdout.0") << "stale";

  const fs::path dir = scratch_dir();
  ASSERT_EQ(dir, expected);
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::is_empty(dir)) << "an earlier run's files are still in " << dir;

  std::ofstream(dir / "mine.txt") << "kept";
  EXPECT_EQ(scratch_dir(), dir);
  EXPECT_EQ(slurp(dir / "mine.txt"), "kept");
  const Result r = run_program("/bin/true", {});  // run_program puts its output files there too
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(slurp(dir / "mine.txt"), "kept");
}

}  // namespace zkmill::test
