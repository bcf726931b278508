// SPDX-License-Identifier: MIT
// key_file_digest (farm/key_id.hpp): a key is hashed once and its id memoized in KEY.id.json;
// the memo is used only while the key is the same file unchanged (size, times, inode, device),
// and every other case (rewritten in place with its modification time restored, replaced by
// rename, malformed or foreign memos, a memo that cannot be written) still gives the file's
// true SHA-256.
#include "farm/key_id.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>

namespace zkmill::test {
using namespace zkmill::farm;
namespace fs = std::filesystem;
namespace {

class KeyIdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zkmill-keyid-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    key_ = (dir_ / "circuit.key").string();
    write(key_, random_bytes(300000));
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string random_bytes(size_t n) {
    std::mt19937_64 rng(std::random_device{}());
    std::string s(n, '\0');
    for (char& c : s) c = char(rng());
    return s;
  }
  static void write(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  std::string truth() const { return Sha256::hex(Sha256::file(key_)); }
  // Every call names its fallback memo directory: the default is the user's cache.
  std::string id(KeyIdSource* source, KeyIdOptions opts = {}) const {
    if (!opts.cache_dir) opts.cache_dir = cache_dir();
    return Sha256::hex(key_file_digest(key_, opts, source));
  }
  std::string cache_dir() const { return (dir_ / "cache" / "key-ids").string(); }
  nlohmann::json memo() const { return nlohmann::json::parse(read(key_id_memo_path(key_))); }

  fs::path dir_;
  std::string key_;
};

TEST_F(KeyIdTest, TheFirstCallHashesAndMemoizesTheNextReadsTheMemo) {
  KeyIdSource s{};
  EXPECT_EQ(id(&s), truth());
  EXPECT_EQ(s, KeyIdSource::Hashed);
  ASSERT_TRUE(fs::exists(key_id_memo_path(key_)));
  EXPECT_EQ(memo().at("sha256"), truth());
  EXPECT_EQ(memo().at("size"), 300000u);

  EXPECT_EQ(id(&s), truth());
  EXPECT_EQ(s, KeyIdSource::Memo);
  // What the memo says is what is returned (no hashing behind it): an edited id with the
  // key's identity unchanged comes back as written.
  auto m = memo();
  m["sha256"] = std::string(64, 'a');
  write(key_id_memo_path(key_), m.dump());
  EXPECT_EQ(id(&s), std::string(64, 'a'));
  EXPECT_EQ(s, KeyIdSource::Memo);
}

// A same-size rewrite whose modification time is put back (as `cp -p` or `touch -r` would)
// still changes the change time, which user space cannot set: the key is hashed again.
TEST_F(KeyIdTest, ARewriteInPlaceWithItsModificationTimeRestoredIsHashedAgain) {
  KeyIdSource s{};
  id(&s);
  struct stat st {};
  ASSERT_EQ(::stat(key_.c_str(), &st), 0);
  {
    std::fstream f(key_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1234);
    f.put(char(read(key_)[1234] ^ 1));
  }
  const timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, key_.c_str(), times, 0), 0);
  std::string why;
  KeyIdOptions opts;
  opts.before_hash = [&](const std::string& w) { why = w; };
  EXPECT_EQ(id(&s, opts), truth());
  EXPECT_EQ(s, KeyIdSource::Hashed);
  EXPECT_EQ(why, "the key changed since its memo");
  EXPECT_EQ(memo().at("sha256"), truth());  // refreshed
  EXPECT_EQ(id(&s), truth());
  EXPECT_EQ(s, KeyIdSource::Memo);
}

TEST_F(KeyIdTest, AKeyReplacedByRenameIsHashedAgain) {
  KeyIdSource s{};
  const std::string old_id = id(&s);
  const std::string next = (dir_ / "next.key").string();
  write(next, random_bytes(300000));
  fs::rename(next, key_);
  EXPECT_NE(id(&s), old_id);
  EXPECT_EQ(s, KeyIdSource::Hashed);
  EXPECT_EQ(id(&s), truth());
}

// A memo copied from another key (another inode) does not name this one.
TEST_F(KeyIdTest, AnotherFilesMemoIsNotUsed) {
  const std::string other = (dir_ / "other.key").string();
  write(other, random_bytes(300000));
  KeyIdOptions opts;
  opts.cache_dir = cache_dir();
  key_file_digest(other, opts);
  fs::copy_file(key_id_memo_path(other), key_id_memo_path(key_), fs::copy_options::overwrite_existing);
  KeyIdSource s{};
  EXPECT_EQ(id(&s), truth());
  EXPECT_EQ(s, KeyIdSource::Hashed);
}

TEST_F(KeyIdTest, MalformedMemosAreIgnoredAndReplaced) {
  KeyIdSource s{};
  id(&s);
  const nlohmann::json good = memo();
  auto without = [&](const char* field) {
    auto j = good;
    j.erase(field);
    return j.dump();
  };
  auto with = [&](const char* field, nlohmann::json v) {
    auto j = good;
    j[field] = v;
    return j.dump();
  };
  const std::vector<std::string> bad = {"",
                                        "not json",
                                        "[1, 2]",
                                        good.dump().substr(0, good.dump().size() / 2),
                                        with("format", "zkmill-key-id/0"),
                                        without("format"),
                                        without("inode"),
                                        with("size", "300000"),
                                        with("sha256", std::string(63, 'a')),
                                        with("sha256", std::string(64, 'G')),
                                        with("sha256", 7),
                                        good.dump() + std::string(8192, ' ')};
  for (const std::string& text : bad) {
    write(key_id_memo_path(key_), text);
    EXPECT_EQ(id(&s), truth()) << text.substr(0, 80);
    EXPECT_EQ(s, KeyIdSource::Hashed) << text.substr(0, 80);
    EXPECT_EQ(memo(), good) << "rewritten after " << text.substr(0, 80);
  }
}

// Where the key's directory cannot take a memo (a read-only worker.key_dir under systemd;
// here the memo's name is taken by a directory, which a rename cannot replace, since root, as
// tests run in CI, may write anywhere) the memo goes to the cache directory, named by the
// key's device and inode; with no cache directory either, the id is hashed every time.
TEST_F(KeyIdTest, AKeyWhoseDirectoryTakesNoMemoIsMemoizedInTheCache) {
  fs::create_directory(key_id_memo_path(key_));
  KeyIdSource s{};
  EXPECT_EQ(id(&s), truth());
  EXPECT_EQ(s, KeyIdSource::Hashed);
  struct stat st {};
  ASSERT_EQ(::stat(key_.c_str(), &st), 0);
  const std::string cached = cache_dir() + "/" + std::to_string(st.st_dev) + "-" + std::to_string(st.st_ino) + ".json";
  ASSERT_TRUE(fs::is_regular_file(cached));
  EXPECT_EQ(nlohmann::json::parse(read(cached)).at("sha256"), truth());
  EXPECT_EQ(id(&s), truth());
  EXPECT_EQ(s, KeyIdSource::Memo);
  EXPECT_TRUE(fs::is_directory(key_id_memo_path(key_)));

  // The cached memo is checked like the one beside the key.
  {
    std::fstream f(key_, std::ios::in | std::ios::out | std::ios::binary);
    f.put(char(read(key_)[0] ^ 1));
  }
  EXPECT_EQ(id(&s), truth());
  EXPECT_EQ(s, KeyIdSource::Hashed);

  KeyIdOptions nowhere;
  nowhere.cache_dir = "";
  fs::remove_all(dir_ / "cache");
  EXPECT_EQ(id(&s, nowhere), truth());
  EXPECT_EQ(id(&s, nowhere), truth());
  EXPECT_EQ(s, KeyIdSource::Hashed);
  EXPECT_FALSE(fs::exists(dir_ / "cache"));
}

TEST(KeyIdCacheDir, SystemdsCacheDirectoryComesFirstThenXdgThenHome) {
  struct Env {
    const char* name;
    std::optional<std::string> old;
    explicit Env(const char* n) : name(n) {
      if (const char* v = std::getenv(n)) old = v;
    }
    ~Env() {
      if (old)
        ::setenv(name, old->c_str(), 1);
      else
        ::unsetenv(name);
    }
  } c("CACHE_DIRECTORY"), x("XDG_CACHE_HOME"), h("HOME");
  ::setenv("CACHE_DIRECTORY", "/var/cache/zkmill:/var/cache/other", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  ::setenv("HOME", "/home/op", 1);
  EXPECT_EQ(default_key_id_cache_dir(), "/var/cache/zkmill/key-ids");
  ::unsetenv("CACHE_DIRECTORY");
  EXPECT_EQ(default_key_id_cache_dir(), "/xdg/zkmill/key-ids");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(default_key_id_cache_dir(), "/home/op/.cache/zkmill/key-ids");
  ::unsetenv("HOME");
  EXPECT_EQ(default_key_id_cache_dir(), "");
}

TEST_F(KeyIdTest, OptionsTurnTheMemoOff) {
  KeyIdSource s{};
  KeyIdOptions no_write;
  no_write.write_memo = false;
  EXPECT_EQ(id(&s, no_write), truth());
  EXPECT_FALSE(fs::exists(key_id_memo_path(key_)));
  EXPECT_FALSE(fs::exists(dir_ / "cache"));
  id(&s);
  KeyIdOptions no_use;
  no_use.use_memo = false;
  EXPECT_EQ(id(&s, no_use), truth());
  EXPECT_EQ(s, KeyIdSource::Hashed);
}

TEST_F(KeyIdTest, AMissingKeyThrowsNamingIt) {
  fs::remove(key_);
  try {
    key_file_digest(key_);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(key_), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace zkmill::test
