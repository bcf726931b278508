// SPDX-License-Identifier: MIT
// util::AtomicFile / AtomicFileSet / InputFile: a target appears whole or not at all (a write
// failing with EFBIG under RLIMIT_FSIZE leaves the old file and no temporary), a key is never
// overwritten when overwrite is off, a set rolls back, and inputs that are not regular files
// (FIFO, device, directory) are refused at once.
#include "common/util/atomic_file.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/util/input_file.hpp"

namespace zkmill::test {

namespace fs = std::filesystem;
using namespace zkmill::util;

namespace {

fs::path fresh_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d =
      fs::path(::testing::TempDir()) / ("zkmill_atomic_" + std::string(info->name()) + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string slurp(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p, std::ios::binary).rdbuf();
  return s.str();
}
size_t entries(const fs::path& d) { return size_t(std::distance(fs::directory_iterator(d), fs::directory_iterator())); }

// RLIMIT_FSIZE = `bytes` with SIGXFSZ ignored for the scope (writes beyond fail with EFBIG).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit l = old_;
    l.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &l);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  sighandler_t old_handler_;
};

TEST(AtomicFile, WritesAndReplacesWithTheExactMode) {
  const fs::path d = fresh_dir(), f = d / "out.json";
  write_file_atomic(f.string(), "first\n");
  EXPECT_EQ(slurp(f), "first\n");
  write_file_atomic(f.string(), "second\n", {.mode = 0600});
  EXPECT_EQ(slurp(f), "second\n");
  struct stat st {};
  ASSERT_EQ(stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(entries(d), 1u);
}

TEST(AtomicFile, FailedWriteLeavesTheOldFileAndNoTemporary) {
  const fs::path d = fresh_dir(), f = d / "proof.json";
  write_file_atomic(f.string(), "old proof\n");
  try {
    FileSizeLimit limit(4);
    write_file_atomic(f.string(), std::string(100, 'x'));
    ADD_FAILURE() << "a write beyond RLIMIT_FSIZE succeeded";
  } catch (const AtomicFileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(f.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("File too large"), std::string::npos) << msg;
  }
  EXPECT_EQ(slurp(f), "old proof\n");
  EXPECT_EQ(entries(d), 1u) << "a temporary was left behind";
}

TEST(AtomicFile, UncommittedFileIsRemovedAndMissingDirectoryIsAnError) {
  const fs::path d = fresh_dir();
  {
    AtomicFile f((d / "a.bin").string());
    f.write("partial");
    EXPECT_TRUE(fs::exists(f.temp_path()));
  }
  EXPECT_EQ(entries(d), 0u);
  EXPECT_THROW(write_file_atomic((d / "no" / "such" / "dir.json").string(), "x"), AtomicFileError);
  // write_at patches bytes already written (a header written last).
  AtomicFile f((d / "h.bin").string());
  f.write("....body");
  f.write_at(0, "HEAD", 4);
  f.commit();
  EXPECT_EQ(slurp(d / "h.bin"), "HEADbody");
}

TEST(AtomicFile, NoOverwriteRefusesAnExistingTarget) {
  const fs::path d = fresh_dir(), f = d / "node.key";
  write_file_atomic(f.string(), "secret\n", {.mode = 0600, .overwrite = false});
  EXPECT_THROW(write_file_atomic(f.string(), "other\n", {.mode = 0600, .overwrite = false}), AtomicFileError);
  EXPECT_EQ(slurp(f), "secret\n");
  EXPECT_EQ(entries(d), 1u);
}

TEST(AtomicFileSet, AllOrNothing) {
  const fs::path d = fresh_dir();
  write_file_atomic((d / "a").string(), "old a");
  {
    AtomicFileSet set;
    set.add((d / "a").string(), "new a");
    set.add((d / "b").string(), "new b");
    set.commit();
  }
  EXPECT_EQ(slurp(d / "a"), "new a");
  EXPECT_EQ(slurp(d / "b"), "new b");
  // A failure while writing the second: neither changes.
  try {
    AtomicFileSet set;
    set.add((d / "a").string(), "x");
    FileSizeLimit limit(4);
    set.add((d / "b").string(), std::string(100, 'y'));
    set.commit();
    ADD_FAILURE() << "no error";
  } catch (const AtomicFileError&) {
  }
  EXPECT_EQ(slurp(d / "a"), "new a");
  EXPECT_EQ(slurp(d / "b"), "new b");
  EXPECT_EQ(entries(d), 2u);
  // A rename failing (a directory in the way): the files renamed before it are removed.
  fs::create_directory(d / "c");
  EXPECT_THROW(
      {
        AtomicFileSet set;
        set.add((d / "new1").string(), "1");
        set.add((d / "c").string(), "3");
        set.commit();
      },
      AtomicFileError);
  EXPECT_FALSE(fs::exists(d / "new1"));
  EXPECT_TRUE(fs::is_directory(d / "c"));
  EXPECT_EQ(entries(d), 3u);
}

TEST(InputFile, RefusesWhatIsNotARegularFile) {
  const fs::path d = fresh_dir();
  const fs::path fifo = d / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto refused = [](const std::string& path, const char* kind) {
    try {
      read_input_file(path);
      ADD_FAILURE() << path << " was read";
    } catch (const InputFileError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
      EXPECT_NE(msg.find(kind), std::string::npos) << msg;
    }
  };
  refused(fifo.string(), "FIFO");  // would block forever without a writer
  refused("/dev/zero", "character device");
  refused(d.string(), "directory");
  refused((d / "missing").string(), "No such file");
  write_file_atomic((d / "ok").string(), "hello");
  EXPECT_EQ(read_input_file((d / "ok").string()), "hello");
  EXPECT_THROW(read_input_file((d / "ok").string(), 3), InputFileError);
  fs::create_symlink(d / "ok", d / "link");
  EXPECT_EQ(read_input_file((d / "link").string()), "hello");
}

}  // namespace
}  // namespace zkmill::test
