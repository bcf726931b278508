// SPDX-License-Identifier: MIT
// AllowListWatch, the re-read of zmq.allowed_keys_file while a coordinator or synth worker
// runs: unchanged files cost a stat, an edit gives the keys added and removed, a forced re-read
// of the same keys is no change, and an edit that does not parse (or a file gone) keeps the
// keys in force and is reported once.
#include "farm/allow_list_watch.hpp"

#include <gtest/gtest.h>
#include <zmq.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace zkmill::test {
namespace {

using farm::AllowListWatch;

class AllowListWatchTest : public ::testing::Test {
 protected:
  void write(const std::string& text) {  // whole, by rename, as editors and deploy tools do
    std::ofstream(path_.string() + ".tmp") << text;
    std::filesystem::rename(path_.string() + ".tmp", path_);
  }
  static std::string public_key() {  // a fresh CURVE key pair's public half (Z85)
    char pub[41] = {}, sec[41] = {};
    EXPECT_EQ(zmq_curve_keypair(pub, sec), 0);
    return pub;
  }
  std::filesystem::path path_ = scratch_dir() / "allowed";
  std::string a_ = public_key(), b_ = public_key(), c_ = public_key();
};

TEST_F(AllowListWatchTest, AnEditGivesTheKeysAddedAndRemoved) {
  write(a_ + "\n" + b_ + "\n");
  AllowListWatch w(path_.string(), "zmq.allowed_keys_file", {a_, b_});
  auto r = w.poll();
  EXPECT_FALSE(r.change);
  EXPECT_EQ(r.error, "");
  write("# b retired, c added\n" + a_ + "\n" + c_ + "\n");
  r = w.poll();
  ASSERT_TRUE(r.change);
  EXPECT_EQ(r.change->added, std::vector<std::string>{c_});
  EXPECT_EQ(r.change->removed, std::vector<std::string>{b_});
  EXPECT_EQ(r.change->keys.size(), 2u);
  EXPECT_TRUE(w.allows(a_) && w.allows(c_));
  EXPECT_FALSE(w.allows(b_));
  EXPECT_FALSE(w.poll().change);  // unchanged since
  // Rewritten with the same keys (another order, a comment): forced or not, no change.
  write(c_ + "\n# same\n" + a_ + "\n");
  EXPECT_FALSE(w.poll().change);
  EXPECT_FALSE(w.poll(true).change);
}

TEST_F(AllowListWatchTest, AnEditThatDoesNotParseKeepsTheKeysAndIsReportedOnce) {
  write(a_ + "\n");
  AllowListWatch w(path_.string(), "zmq.allowed_keys_file", {a_});
  write("not a key\n");
  auto r = w.poll();
  EXPECT_FALSE(r.change);
  EXPECT_NE(r.error.find("zmq.allowed_keys_file"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("not a 40-character Z85 CURVE public key"), std::string::npos) << r.error;
  EXPECT_TRUE(w.allows(a_));
  EXPECT_EQ(w.poll().error, "") << "reported again without a change";
  write("");  // an empty list would refuse everybody: refused itself
  EXPECT_NE(w.poll().error.find("lists no public key"), std::string::npos);
  std::filesystem::remove(path_);
  EXPECT_NE(w.poll().error, "");
  EXPECT_TRUE(w.allows(a_));
  write(b_ + "\n");
  r = w.poll();
  ASSERT_TRUE(r.change);
  EXPECT_TRUE(w.allows(b_));
  EXPECT_FALSE(w.allows(a_));
}

}  // namespace
}  // namespace zkmill::test
