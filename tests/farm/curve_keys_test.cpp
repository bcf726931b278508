// SPDX-License-Identifier: MIT
// CURVE key files: keygen output, reading back, and the errors for missing, unreadable,
// malformed and over-permissive files (a secret key's text must never appear in an error).
#include "farm/curve_keys.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace zkmill::test {
using namespace zkmill::farm;
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d =
      fs::path(::testing::TempDir()) / ("zkmill_curve_" + std::string(info->name()) + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(CurveKeys, KeygenWritesAPrivateSecretAndItsPublicKey) {
  auto d = temp_dir();
  const std::string pub = CurveKeys::generate_files((d / "w1").string());
  EXPECT_TRUE(CurveKeys::is_z85_key(pub));
  struct stat st {};
  ASSERT_EQ(stat((d / "w1.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto kp = CurveKeys::read_keypair((d / "w1.key").string(), "zmq.key_file");
  EXPECT_EQ(kp.public_key, pub);
  EXPECT_NE(kp.secret_key, pub);
  EXPECT_EQ(CurveKeys::read_public_key((d / "w1.pub").string(), "x"), pub);
  // Never overwrites an existing key.
  EXPECT_NE(error_of([&] { CurveKeys::generate_files((d / "w1").string()); }).find("already exists"),
            std::string::npos);
  // An allow-list is public keys with comments and blank lines.
  const std::string pub2 = CurveKeys::generate_files((d / "w2").string());
  std::ofstream(d / "allowed") << "# farm workers\n" << pub << "\n\n  " << pub2 << "  # prove-1\n";
  EXPECT_NE(error_of([&] { CurveKeys::read_allow_list((d / "allowed").string(), "zmq.allowed_keys_file"); }), "");
  std::ofstream(d / "allowed") << "# farm workers\n" << pub << "\n\n  " << pub2 << "  \n";
  auto list = CurveKeys::read_allow_list((d / "allowed").string(), "zmq.allowed_keys_file");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], pub);
  EXPECT_EQ(list[1], pub2);
}

TEST(CurveKeys, BadFilesGetClearErrorsWithoutTheSecret) {
  auto d = temp_dir();
  CurveKeys::generate_files((d / "c").string());
  const std::string secret = CurveKeys::read_keypair((d / "c.key").string(), "k").secret_key;

  auto missing = error_of([&] { CurveKeys::read_keypair((d / "nope.key").string(), "zmq.key_file"); });
  EXPECT_NE(missing.find("zmq.key_file"), std::string::npos) << missing;
  EXPECT_NE(missing.find("No such file"), std::string::npos) << missing;

  fs::permissions(d / "c.key", fs::perms::owner_read | fs::perms::group_read);
  auto open = error_of([&] { CurveKeys::read_keypair((d / "c.key").string(), "zmq.key_file"); });
  EXPECT_NE(open.find("chmod 600"), std::string::npos) << open;
  EXPECT_EQ(open.find(secret), std::string::npos) << "secret key leaked into an error";

  std::ofstream(d / "bad.key") << secret.substr(0, 39) << "\n";
  fs::permissions(d / "bad.key", fs::perms::owner_read | fs::perms::owner_write);
  auto bad = error_of([&] { CurveKeys::read_keypair((d / "bad.key").string(), "zmq.key_file"); });
  EXPECT_NE(bad.find("not a CURVE secret key file"), std::string::npos) << bad;
  EXPECT_EQ(bad.find(secret.substr(0, 39)), std::string::npos) << "secret key leaked into an error";

  std::ofstream(d / "allowed") << "x" << secret << "\n";
  auto list = error_of([&] { CurveKeys::read_allow_list((d / "allowed").string(), "zmq.allowed_keys_file"); });
  EXPECT_NE(list.find("entry 1 (41 characters)"), std::string::npos) << list;
  EXPECT_EQ(list.find(secret), std::string::npos);
  std::ofstream(d / "empty") << "# nobody\n";
  EXPECT_NE(error_of([&] {
              CurveKeys::read_allow_list((d / "empty").string(), "zmq.allowed_keys_file");
            }).find("lists no public key"),
            std::string::npos);

  ZmqConfig z;
  z.curve = true;
  auto unset = error_of([&] { CurveKeys::load_for_coordinator(z); });
  EXPECT_NE(unset.find("'zmq.key_file' is not set"), std::string::npos) << unset;
  fs::permissions(d / "c.key", fs::perms::owner_read | fs::perms::owner_write);
  z.key_file = (d / "c.key").string();
  auto no_server = error_of([&] { CurveKeys::load_for_worker(z, false); });
  EXPECT_NE(no_server.find("zmq.coordinator_public_key_file"), std::string::npos) << no_server;
}

}  // namespace
}  // namespace zkmill::test
