// SPDX-License-Identifier: MIT
// Log levels: the six names map to spdlog's levels, anything else is rejected by name (spdlog's
// own parser would silently turn a typo into "off"); init_logging applies level and file.
#include "common/util/log.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace zkmill::test {

using zkmill::util::init_logging;
using zkmill::util::is_log_level;
using zkmill::util::parse_log_level;

TEST(Log, KnownLevelsParse) {
  EXPECT_EQ(parse_log_level("trace"), spdlog::level::trace);
  EXPECT_EQ(parse_log_level("debug"), spdlog::level::debug);
  EXPECT_EQ(parse_log_level("info"), spdlog::level::info);
  EXPECT_EQ(parse_log_level("warn"), spdlog::level::warn);
  EXPECT_EQ(parse_log_level("error"), spdlog::level::err);
  EXPECT_EQ(parse_log_level("off"), spdlog::level::off);
  EXPECT_TRUE(is_log_level("warn"));
}

TEST(Log, BadLevelIsRejectedByName) {
  for (const char* bad : {"", "verbose", "INFO", "warning", "err", "info "}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(is_log_level(bad));
    try {
      parse_log_level(bad);
      FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("'" + std::string(bad) + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("trace|debug|info|warn|error|off"), std::string::npos) << msg;
    }
  }
  EXPECT_THROW(init_logging("loud"), std::invalid_argument);
}

TEST(Log, InitSetsLevelAndWritesFile) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "zkmill_log_test.log";
  std::filesystem::remove(path);
  init_logging("warn", path.string());
  EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::warn);
  spdlog::info("hidden line");
  spdlog::warn("visible line {}", 42);
  spdlog::default_logger()->flush();
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  EXPECT_NE(text.str().find("visible line 42"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("hidden line"), std::string::npos) << text.str();
  init_logging("info");  // drop the file sink before removing the file
  std::filesystem::remove(path);
}

TEST(Log, UnopenableFileIsNamed) {
  // Under a regular file, so the directory can neither exist nor be created (spdlog creates
  // missing parent directories, so a merely absent one would not do).
  const auto blocker = std::filesystem::path(::testing::TempDir()) / "zkmill_log_blocker";
  std::ofstream(blocker) << "x";
  const std::string bad = (blocker / "x.log").string();
  try {
    init_logging("info", bad);
    ADD_FAILURE() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  std::filesystem::remove(blocker);
}

}  // namespace zkmill::test
