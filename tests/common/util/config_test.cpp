// SPDX-License-Identifier: MIT
// The config schema: defaults, a full valid file, and that every kind of mistake (unknown key,
// wrong type, out-of-range value, bad YAML, missing file) is an error naming file and key.
#include "common/util/config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace zkmill::test {

using zkmill::util::Config;
using zkmill::util::ConfigError;
using zkmill::util::load_config;
using zkmill::util::parse_config;

namespace {

// A file under gtest's temp dir, removed at the end of the test.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_((std::filesystem::path(::testing::TempDir()) / name).string()) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The message of the ConfigError that parsing `text` throws ("" if none).
std::string error_of(const std::string& text, const std::string& source = "config.yaml") {
  try {
    parse_config(text, source);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Config, DefaultsWhenEmpty) {
  for (const char* text : {"", "# only a comment\n", "log:\n"}) {
    SCOPED_TRACE(text);
    const Config c = parse_config(text, "empty.yaml");
    EXPECT_EQ(c.log.level, "info");
    EXPECT_EQ(c.log.file, "");
    EXPECT_EQ(c.threads, 0u);
  }
  const Config d;
  EXPECT_EQ(d.log.level, "info");
  EXPECT_EQ(d.threads, 0u);
}

TEST(Config, ValidFileIsParsed) {
  TempFile f("zkmill_config_valid.yaml",
             "# a full config\n"
             "log:\n"
             "  level: debug\n"
             "  file: /tmp/zkmill.log\n"
             "threads: 6\n");
  const Config c = load_config(f.path());
  EXPECT_EQ(c.log.level, "debug");
  EXPECT_EQ(c.log.file, "/tmp/zkmill.log");
  EXPECT_EQ(c.threads, 6u);
}

TEST(Config, NullLogFileMeansNone) {
  const Config c = parse_config("log:\n  file: ~\n", "c.yaml");
  EXPECT_EQ(c.log.file, "");
}

TEST(Config, UnknownKeyNamesKeyAndFile) {
  TempFile f("zkmill_config_typo.yaml", "log:\n  levle: debug\n");
  try {
    load_config(f.path());
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(f.path()), std::string::npos) << msg;
    EXPECT_NE(msg.find("unknown key 'log.levle'"), std::string::npos) << msg;
  }
  EXPECT_EQ(error_of("threds: 2\n"), "config.yaml: unknown key 'threds'");
  // A dotted key at the top level gets a hint about sections.
  const std::string dotted = error_of("log.level: debug\n");
  EXPECT_NE(dotted.find("unknown key 'log.level'"), std::string::npos) << dotted;
  EXPECT_NE(dotted.find("sections"), std::string::npos) << dotted;
}

TEST(Config, WrongTypesAreRejected) {
  const std::string want = "config.yaml: key 'threads' must be a non-negative integer";
  for (const char* text : {"threads: -1\n", "threads: four\n", "threads: 1.5\n", "threads: [1, 2]\n", "threads: \"\"\n",
                           "threads: 4 cores\n", "threads: {a: 1}\n"}) {
    EXPECT_EQ(error_of(text), want) << text;
  }
  EXPECT_NE(error_of("threads: 100000\n").find("key 'threads' must be at most"), std::string::npos);
  EXPECT_EQ(error_of("log: debug\n"), "config.yaml: key 'log' must be a mapping (a section of keys)");
  EXPECT_EQ(error_of("log:\n  level: [debug]\n"), "config.yaml: key 'log.level' must be a string");
  EXPECT_EQ(error_of("log:\n  file: {a: b}\n"), "config.yaml: key 'log.file' must be a string");
  const std::string lvl = error_of("log:\n  level: verbose\n");
  EXPECT_NE(lvl.find("key 'log.level' must be one of"), std::string::npos) << lvl;
  EXPECT_NE(lvl.find("'verbose'"), std::string::npos) << lvl;
  EXPECT_NE(error_of("- a\n- b\n").find("top level must be a mapping"), std::string::npos);
}

TEST(Config, BadYamlNamesFileAndLine) {
  const std::string msg = error_of("log:\n  level: [unclosed\n", "broken.yaml");
  EXPECT_EQ(msg.rfind("broken.yaml:", 0), 0u) << msg;
  EXPECT_NE(msg.find("invalid YAML"), std::string::npos) << msg;
}

TEST(Config, MissingOrUnreadableFile) {
  const std::string missing = (std::filesystem::path(::testing::TempDir()) / "zkmill_no_such_config.yaml").string();
  try {
    load_config(missing);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(missing + ": cannot read file", 0), 0u) << msg;
  }
  try {
    load_config(::testing::TempDir());
    FAIL() << "expected ConfigError for a directory";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

}  // namespace zkmill::test
